//! Reading a whole trace file of either format, told apart by its first bytes
//! ([`Input::format`]).

use crate::binary::{self, BinaryError};
use crate::error::TraceError;
use crate::input::{Input, TraceFormat};
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
/// text otherwise (`-`: standard input). The file is opened and read once.
pub fn read_any(path: &std::path::Path) -> Result<Trace, ReadError> {
    let input = Input::open(path).map_err(|source| TraceError::Io { path: path.into(), source })?;
    read_input(input)
}

/// Reads an opened trace of either format (see [`read_any`]). An input that is neither
/// the binary format nor text (its first bytes hold a NUL or are not UTF-8) is reported
/// as a binary trace with a wrong magic, not as text.
pub fn read_input(input: Input) -> Result<Trace, ReadError> {
    if input.format() == TraceFormat::Binary {
        let name = input.name().to_string();
        let reader = binary::Reader::from_input(input)?;
        return Ok(binary::read_all(reader).map_err(|e| match e {
            BinaryError::Magic { .. } => BinaryError::Magic { file: name },
            e => e,
        })?);
    }
    let name = input.name().to_string();
    Ok(text::parse(input.into_reader(), &name)?)
}
