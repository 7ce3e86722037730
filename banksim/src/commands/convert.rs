//! `banksim convert IN OUT`: between the text (CSV) and binary trace formats.
//!
//! The input's format comes from its first bytes (the binary magic, else text); the
//! output's from `--to`, else from OUT's extension (`.csv`, `.txt`: text; `.bsim`,
//! `.bin`: binary), else it is the other format than the input's. The output is written
//! through [`AtomicFile`], so an interrupted conversion leaves no partial file.

use super::args::MemoryArgs;
use crate::output::AtomicFile;
use crate::output::{is_stdio, progress};
use crate::pipeline::{simulate, stream};
use anyhow::{Context, Result};
use clap::Args;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Arguments of `banksim convert`.
#[derive(Args)]
pub struct ConvertArgs {
    /// The trace to read (text or binary, told apart by the binary magic).
    ///
    /// Text to binary streams with bounded memory whatever the size (sorting the records
    /// by block where the text's block ids go down somewhere); other conversions read
    /// the whole trace.
    input: PathBuf,
    /// Where to write the converted trace.
    output: PathBuf,
    /// Output format (default: from OUT's extension, else the other format than IN's).
    #[arg(long, value_enum)]
    to: Option<Format>,
    #[command(flatten)]
    memory: MemoryArgs,
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
pub fn run(args: &ConvertArgs) -> Result<()> {
    // opened once (`-`: standard input), its format told from its first bytes
    let input = simulate::open_trace(&args.input)?;
    let from = if input.is_binary() || input.looks_binary() { Format::Binary } else { Format::Text };
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
    let records = match (from, to) {
        // a text trace streams, sorted by block where its blocks are not in order
        (Format::Text, Format::Binary) => {
            stream_to_binary(&args.input, input, &args.output, args.memory.bytes())?
        }
        _ => convert_whole(input, &args.output, to)?,
    };
    let size = |p: &Path| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
    // (on standard error when the trace went to standard output)
    let mut report: Box<dyn Write> =
        if is_stdio(&args.output) { Box::new(std::io::stderr()) } else { Box::new(std::io::stdout().lock()) };
    writeln!(
        report,
        "{} ({}, {} bytes) -> {} ({}, {} bytes): {} records",
        args.input.display(),
        from.name(),
        size(&args.input),
        args.output.display(),
        to.name(),
        size(&args.output),
        records
    )?;
    Ok(())
}

/// The output file, written under a temporary name until committed.
fn create(output: &Path) -> Result<AtomicFile> {
    Ok(AtomicFile::with_capacity(output, 1 << 20)?)
}

/// Reads the whole trace at `input` and writes it to `output` in format `to`; the records.
fn convert_whole(input: traces::Input, output: &Path, to: Format) -> Result<u64> {
    let _bar = progress::spinner(&format!("converting {}", input.name()));
    let trace = traces::read_input(input)?;
    let mut out = create(output)?;
    match to {
        Format::Text => traces::text::write(&trace, &mut out).map_err(anyhow::Error::from),
        Format::Binary => traces::binary::write(&trace, &mut out).map(|_| ()).map_err(anyhow::Error::from),
    }
    .and_then(|()| out.flush().map_err(anyhow::Error::from))
    .with_context(|| format!("{}: cannot write", output.display()))?;
    out.commit()?;
    Ok(trace.len() as u64)
}

/// Writes the text trace `input` (opened from `path`) to `output` in the binary format
/// block by block, in block order (see [`stream::text_in_block_order`]: streamed, or
/// sorted with about `sort_memory` bytes). A trace with the `wait` column is written
/// with a wait after every gap (an empty one is stored as none).
fn stream_to_binary(path: &Path, input: traces::Input, output: &Path, sort_memory: usize) -> Result<u64> {
    use traces::binary::Writer;
    let name = input.name().to_string();
    let start = || Ok::<_, anyhow::Error>((None::<Writer<AtomicFile>>, 0u64));
    let (writer, records) = stream::text_in_block_order(
        path,
        input,
        sort_memory,
        start,
        |(writer, records), columns, blocks| {
            let w = match writer.as_mut() {
                Some(w) => w,
                None => {
                    let out = create(output)?;
                    let w = if blocks.has_sites() {
                        Writer::with_sites(out, &name, &blocks.sites)?
                    } else {
                        Writer::for_text_columns(out, &name, columns)?
                    };
                    writer.insert(w)
                }
            };
            *records += blocks.len() as u64;
            w.push_trace(blocks).with_context(|| format!("{}: cannot write", output.display()))
        },
    )?;
    let w = writer.expect("a trace has a header");
    let out = w.finish().with_context(|| format!("{}: cannot write", output.display()))?;
    out.commit()?;
    Ok(records)
}
