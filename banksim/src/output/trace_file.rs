//! A whole trace written to a file in either format: text (CSV) or binary, chosen by
//! `--to`, else by the file's extension (`.bsim`, `.bin`: binary; anything else: text).
//! `gen`, `import` and `capture` write this way; the binary format is streamed chunk
//! by chunk ([`traces::binary::Writer`]) through the atomic output file.

use super::atomic::write_atomically;
use anyhow::Result;
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
