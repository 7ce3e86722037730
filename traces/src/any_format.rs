//! Reading a trace file of either format, told apart by its first bytes.

use crate::binary::{self, BinaryError};
use crate::error::TraceError;
use crate::record::Trace;
use crate::text;

/// Reading a trace of either format failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReadError {
    /// The text reader's error.
    #[error(transparent)]
    Text(#[from] TraceError),
    /// The binary reader's error.
    #[error(transparent)]
    Binary(#[from] BinaryError),
}

/// Reads a trace file of either format: binary if it starts with [`binary::MAGIC`],
/// text otherwise.
pub fn read_any(path: &std::path::Path) -> Result<Trace, ReadError> {
    match binary::is_binary(path) {
        Ok(true) => Ok(binary::read(path)?),
        // the text reader reports files it cannot open
        _ => Ok(text::read(path)?),
    }
}
