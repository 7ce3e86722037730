//! `banksim convert IN OUT`: between the text (CSV) and binary trace formats.
//!
//! The input's format comes from its first bytes (the binary magic, else text); the
//! output's from `--to`, else from OUT's extension (`.csv`, `.txt`: text; `.bsim`,
//! `.bin`: binary), else it is the other format than the input's. The output is written
//! under a temporary name and renamed into place, so an interrupted conversion leaves no
//! partial file.

use anyhow::{Context, Result};
use clap::Args;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Arguments of `banksim convert`.
#[derive(Args)]
pub struct ConvertArgs {
    /// The trace to read (text or binary, told apart by the binary magic).
    input: PathBuf,
    /// Where to write the converted trace.
    output: PathBuf,
    /// Output format (default: from OUT's extension, else the other format than IN's).
    #[arg(long, value_enum)]
    to: Option<Format>,
}

/// A trace file format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Format {
    /// CSV with a header (`block,thread,step,op,addr,bytes[,gap,dep]`).
    Text,
    /// banksim's compact binary format (see `traces::binary`).
    Binary,
}

impl Format {
    fn name(self) -> &'static str {
        match self {
            Format::Text => "text",
            Format::Binary => "binary",
        }
    }
}

/// Runs `banksim convert`.
pub fn convert(args: &ConvertArgs) -> Result<()> {
    let binary_in = traces::binary::is_binary(&args.input)
        .with_context(|| format!("{}: cannot read", args.input.display()))?;
    let from = if binary_in { Format::Binary } else { Format::Text };
    let by_ext =
        match args.output.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).as_deref() {
            Some("csv" | "txt") => Some(Format::Text),
            Some("bsim" | "bin") => Some(Format::Binary),
            _ => None,
        };
    let to = args.to.or(by_ext).unwrap_or(match from {
        Format::Text => Format::Binary,
        Format::Binary => Format::Text,
    });
    let trace = traces::read_any(&args.input)?;
    let tmp = tmp_path(&args.output);
    let file = std::fs::File::create(&tmp).with_context(|| format!("{}: cannot create", tmp.display()))?;
    let mut out = std::io::BufWriter::with_capacity(1 << 20, file);
    let written = match to {
        Format::Text => traces::text::write(&trace, &mut out).map_err(anyhow::Error::from),
        Format::Binary => traces::binary::write(&trace, &mut out).map(|_| ()).map_err(anyhow::Error::from),
    }
    .and_then(|()| out.flush().map_err(anyhow::Error::from))
    .and_then(|()| {
        drop(out);
        std::fs::rename(&tmp, &args.output).map_err(anyhow::Error::from)
    });
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(e.context(format!("{}: cannot write", args.output.display())));
    }
    let size = |p: &Path| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
    let mut stdout = std::io::stdout().lock();
    writeln!(
        stdout,
        "{} ({}, {} bytes) -> {} ({}, {} bytes): {} records",
        args.input.display(),
        from.name(),
        size(&args.input),
        args.output.display(),
        to.name(),
        size(&args.output),
        trace.len()
    )?;
    Ok(())
}

fn tmp_path(path: &Path) -> PathBuf {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    PathBuf::from(tmp)
}
