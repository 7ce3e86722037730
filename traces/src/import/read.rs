//! Reading an import: opening the file, undoing xz compression, and handing it to the
//! parser of its format.

use super::error::ImportError;
use super::options::{Format, Options};
use super::stats::Imported;
use super::{accelsim, nvbit};
use crate::input::Input;
use std::io::{BufRead, BufReader};
use std::path::Path;

/// The xz container's magic bytes.
const XZ_MAGIC: [u8; 6] = [0xFD, b'7', b'z', b'X', b'Z', 0x00];

/// Reads and converts a trace file of `format` (`-`: standard input; a pipe or FIFO is
/// read as a stream). Files compressed with xz are recognised by their content and
/// decompressed on the fly.
pub fn read(path: &Path, format: Format, opts: &Options) -> Result<Imported, ImportError> {
    let input = Input::open(path).map_err(|source| ImportError::Io { path: path.into(), source })?;
    let name = input.name().to_string();
    read_from(input.into_reader(), path, &name, format, opts)
}

/// [`read`] from `reader`, the contents of `path` (named `name` in messages): what a
/// caller that watches the bytes go by (a progress bar) calls.
pub fn read_from(
    reader: impl std::io::Read,
    path: &Path,
    name: &str,
    format: Format,
    opts: &Options,
) -> Result<Imported, ImportError> {
    let io = |source| ImportError::Io { path: path.into(), source };
    let mut reader = BufReader::with_capacity(1 << 16, reader);
    let xz = reader.fill_buf().map_err(io)?.starts_with(&XZ_MAGIC);
    if xz {
        let decoder = liblzma::bufread::XzDecoder::new_multi_decoder(reader);
        parse(BufReader::with_capacity(1 << 16, decoder), name, format, opts)
    } else {
        parse(reader, name, format, opts)
    }
}

/// [`read_from`] handing the records to `sink` a batch at a time, in file order: an
/// Accel-Sim trace as it is read (memory bounded whatever its size); a `mem_trace` file,
/// whose warps are numbered once every record of the kernel is read, in one batch at
/// the end. Returns the statistics.
pub fn read_each(
    reader: impl std::io::Read,
    path: &Path,
    name: &str,
    format: Format,
    opts: &Options,
    sink: &mut dyn FnMut(&crate::Trace) -> Result<(), ImportError>,
) -> Result<super::ImportStats, ImportError> {
    let io = |source| ImportError::Io { path: path.into(), source };
    let mut reader = BufReader::with_capacity(1 << 16, reader);
    let xz = reader.fill_buf().map_err(io)?.starts_with(&XZ_MAGIC);
    let each =
        |r: &mut dyn BufRead, sink: &mut dyn FnMut(&crate::Trace) -> Result<(), ImportError>| match format {
            Format::AccelSim => accelsim::parse_each(r, name, opts, sink),
            Format::NvbitMemtrace => {
                let imported = nvbit::parse(r, name, opts)?;
                if !imported.trace.is_empty() {
                    sink(&imported.trace)?;
                }
                Ok(imported.stats)
            }
        };
    if xz {
        let decoder = liblzma::bufread::XzDecoder::new_multi_decoder(reader);
        each(&mut BufReader::with_capacity(1 << 16, decoder), sink)
    } else {
        each(&mut reader, sink)
    }
}

/// Converts a trace of `format` from a reader (decompressed); `name` is used in messages.
pub fn parse<R: BufRead>(
    reader: R,
    name: &str,
    format: Format,
    opts: &Options,
) -> Result<Imported, ImportError> {
    match format {
        Format::AccelSim => accelsim::parse(reader, name, opts),
        Format::NvbitMemtrace => nvbit::parse(reader, name, opts),
    }
}
