//! A whole trace written to a file in either format: text (CSV) or binary, chosen by
//! `--to`, else by the file's extension (`.bsim`, `.bin`: binary; anything else: text).
//! `gen` and `capture` write this way, `import` block by block ([`StreamedTrace`]); the
//! binary format is streamed chunk by chunk ([`traces::binary::Writer`]) through the
//! atomic output file.

use super::atomic::{write_atomically, AtomicFile};
use anyhow::{Context, Result};
use std::io::Write;
use std::path::Path;

/// A trace file format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum TraceFormat {
    /// CSV with a header (`block,thread,step,op,addr,bytes[,gap,dep[,wait]]`).
    Text,
    /// banksim's compact binary format (see `traces::binary`).
    Binary,
}

impl TraceFormat {
    /// The format's name in messages.
    pub fn name(self) -> &'static str {
        match self {
            TraceFormat::Text => "text",
            TraceFormat::Binary => "binary",
        }
    }

    /// The format a path's extension names (`.csv`, `.txt`: text; `.bsim`, `.bin`:
    /// binary), if any.
    pub fn from_extension(path: &Path) -> Option<TraceFormat> {
        match path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).as_deref() {
            Some("csv" | "txt") => Some(TraceFormat::Text),
            Some("bsim" | "bin") => Some(TraceFormat::Binary),
            _ => None,
        }
    }

    /// `to` if given, else the format `path`'s extension names, else text.
    pub fn choose(to: Option<TraceFormat>, path: Option<&Path>) -> TraceFormat {
        to.or_else(|| path.and_then(TraceFormat::from_extension)).unwrap_or(TraceFormat::Text)
    }
}

/// Writes `trace` to `out` in `format`.
pub fn write_trace_to(trace: &traces::Trace, format: TraceFormat, out: impl Write) -> Result<()> {
    match format {
        TraceFormat::Text => traces::text::write(trace, out)?,
        TraceFormat::Binary => {
            traces::binary::write(trace, out)?;
        }
    }
    Ok(())
}

/// Writes `trace` to the file at `path` in `format`, under a temporary name until it is
/// whole.
pub fn write_trace(trace: &traces::Trace, format: TraceFormat, path: &Path) -> Result<()> {
    write_atomically(path, |f| -> Result<()> {
        write_trace_to(trace, format, &mut *f)?;
        Ok(f.flush()?)
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
        format: TraceFormat,
        name: &str,
        timing: bool,
        sites: &[String],
    ) -> Result<StreamedTrace> {
        let file = AtomicFile::with_capacity(path, 1 << 20)?;
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
                traces::site::write_table(sites, &mut file)?;
                traces::text::write_header(columns, &mut file)?;
                Out::Text(file, columns)
            }
            TraceFormat::Binary if !sites.is_empty() => {
                Out::Binary(Box::new(traces::binary::Writer::with_sites(file, name, sites)?))
            }
            TraceFormat::Binary => Out::Binary(Box::new(traces::binary::Writer::new(file, name, timing)?)),
        };
        Ok(StreamedTrace { out, path: path.to_path_buf() })
    }

    /// Appends whole blocks, each after the blocks pushed before.
    pub fn push(&mut self, blocks: &traces::Trace) -> Result<()> {
        let cannot = || format!("{}: cannot write", self.path.display());
        match &mut self.out {
            Out::Text(f, columns) => {
                traces::text::write_records(&blocks.records, *columns, f).with_context(cannot)
            }
            Out::Binary(w) => w.push_trace(blocks).with_context(cannot),
        }
    }

    /// Finishes the file and puts it in place.
    pub fn finish(self) -> Result<()> {
        let cannot = || format!("{}: cannot write", self.path.display());
        let mut file = match self.out {
            Out::Text(f, _) => f,
            Out::Binary(w) => w.finish().with_context(cannot)?,
        };
        file.flush().with_context(cannot)?;
        Ok(file.commit()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn format_from_flag_then_extension() {
        let bsim = Path::new("t.BSIM");
        assert_eq!(TraceFormat::choose(None, Some(bsim)), TraceFormat::Binary);
        assert_eq!(TraceFormat::choose(Some(TraceFormat::Text), Some(bsim)), TraceFormat::Text);
        assert_eq!(TraceFormat::choose(None, Some(Path::new("t.out"))), TraceFormat::Text);
        assert_eq!(TraceFormat::choose(Some(TraceFormat::Binary), None), TraceFormat::Binary);
    }
}
