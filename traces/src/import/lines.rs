//! [`Lines`]: a trace file read line by line, with line numbers and UTF-8 checks.

use super::error::ImportError;
use std::io::BufRead;

/// Reads a file line by line with 1-based numbers; invalid UTF-8 is an error naming the
/// line.
pub(crate) struct Lines<R> {
    reader: R,
    buf: Vec<u8>,
    file: String,
    /// Number of the line last returned.
    pub(crate) line: u64,
}

impl<R: BufRead> Lines<R> {
    pub(crate) fn new(reader: R, file: &str) -> Lines<R> {
        Lines { reader, buf: Vec::new(), file: file.into(), line: 0 }
    }

    /// The next line's number and text without its line ending, or `None` at the end.
    pub(crate) fn next_line(&mut self) -> Result<Option<(u64, &str)>, ImportError> {
        self.buf.clear();
        let n = self
            .reader
            .read_until(b'\n', &mut self.buf)
            .map_err(|source| ImportError::Io { path: self.file.clone().into(), source })?;
        if n == 0 {
            return Ok(None);
        }
        self.line += 1;
        while matches!(self.buf.last(), Some(b'\n' | b'\r')) {
            self.buf.pop();
        }
        match std::str::from_utf8(&self.buf) {
            Ok(s) => Ok(Some((self.line, s))),
            Err(_) => Err(ImportError::Malformed {
                file: self.file.clone(),
                line: self.line,
                field: "line",
                expected: "UTF-8 text (is this a trace file?)".into(),
                found: String::from_utf8_lossy(&self.buf).chars().take(40).collect(),
            }),
        }
    }
}
