//! A trace written to a file in either format ([`TraceFormat::choose`]: the one asked
//! for, else the file's extension's, else text): whole ([`write_trace`]: `gen`,
//! `capture`) or a set of blocks at a time ([`StreamedTrace`]: `import`); the binary
//! format is streamed chunk by chunk ([`traces::binary::Writer`]) through the atomic
//! output file.

use super::atomic::{write_atomically, AtomicFile};
use super::target::Inputs;
use crate::error::{Error, Result};
use std::io::Write;
use std::path::Path;
use traces::TraceFormat;

/// Writes `trace` to `out` in `format`.
pub fn write_trace_to(
    trace: &traces::Trace,
    format: TraceFormat,
    mut out: impl Write,
) -> Result<(), traces::binary::WriteError> {
    match format {
        TraceFormat::Text => traces::text::write(trace, &mut out)?,
        TraceFormat::Binary => {
            traces::binary::write(trace, &mut out)?;
        }
    }
    Ok(out.flush()?)
}

/// Writes `trace` to the file at `path` in `format`, under a temporary name until it is
/// whole.
pub fn write_trace(trace: &traces::Trace, format: TraceFormat, path: &Path, inputs: &Inputs) -> Result<()> {
    write_atomically(path, inputs, |f| {
        write_trace_to(trace, format, &mut *f)
            .map_err(|source| Error::WriteTrace { path: path.into(), source })
    })
}

/// A trace written to a file a set of whole blocks at a time, in block order, in either
/// format, under a temporary name until [`StreamedTrace::finish`]: what streams `import`
/// without holding the trace.
pub struct StreamedTrace {
    out: Out,
    path: std::path::PathBuf,
}

enum Out {
    /// The writer and the number of columns.
    Text(AtomicFile, usize),
    Binary(Box<traces::binary::Writer<AtomicFile>>),
}

impl StreamedTrace {
    /// A trace named `name` at `path` in `format`, with the `gap` and `dep` columns when
    /// `timing` (text: 8 columns, else 6); with a site table `sites` (text: all 10
    /// columns; binary: version 3).
    pub fn create(
        path: &Path,
        inputs: &Inputs,
        format: TraceFormat,
        name: &str,
        timing: bool,
        sites: &[String],
    ) -> Result<StreamedTrace> {
        let cannot = |e| Error::io(path, "cannot write", e);
        let binary = |source| Error::WriteTrace { path: path.into(), source };
        let file = AtomicFile::with_capacity(path, inputs, 1 << 20)?;
        let out = match format {
            TraceFormat::Text => {
                let columns = if !sites.is_empty() {
                    10
                } else if timing {
                    8
                } else {
                    6
                };
                let mut file = file;
                traces::site::write_table(sites, &mut file).map_err(cannot)?;
                traces::text::write_header(columns, &mut file).map_err(cannot)?;
                Out::Text(file, columns)
            }
            TraceFormat::Binary if !sites.is_empty() => {
                Out::Binary(Box::new(traces::binary::Writer::with_sites(file, name, sites).map_err(binary)?))
            }
            TraceFormat::Binary => {
                Out::Binary(Box::new(traces::binary::Writer::new(file, name, timing).map_err(binary)?))
            }
        };
        Ok(StreamedTrace { out, path: path.to_path_buf() })
    }

    /// The same, able to hold the tensor-core ops (`ldsm`, `stsm`, `ldgsts`, `ldgsts.cg`)
    /// wherever they come: a binary trace of format version 4 (see
    /// [`traces::binary::Writer::with_tensor_ops`]); a text trace is unchanged.
    pub fn with_tensor_ops(mut self) -> StreamedTrace {
        if let Out::Binary(w) = self.out {
            self.out = Out::Binary(Box::new(w.with_tensor_ops()));
        }
        self
    }

    /// Appends whole blocks, each after the blocks pushed before.
    pub fn push(&mut self, blocks: &traces::Trace) -> Result<()> {
        let cannot = |e| Error::io(&self.path, "cannot write", e);
        match &mut self.out {
            Out::Text(f, columns) => {
                traces::text::write_records(&blocks.records, *columns, f).map_err(cannot)
            }
            Out::Binary(w) => {
                w.push_trace(blocks).map_err(|source| Error::WriteTrace { path: self.path.clone(), source })
            }
        }
    }

    /// Finishes the file and puts it in place.
    pub fn finish(self) -> Result<()> {
        let cannot = |e| Error::io(&self.path, "cannot write", e);
        let mut file = match self.out {
            Out::Text(f, _) => f,
            Out::Binary(w) => {
                w.finish().map_err(|source| Error::WriteTrace { path: self.path.clone(), source })?
            }
        };
        file.flush().map_err(cannot)?;
        Ok(file.commit()?)
    }
}
