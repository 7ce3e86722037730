//! `banksim convert IN OUT`: between the text (CSV) and binary trace formats.
//!
//! The input's format comes from its first bytes (the binary magic, else text); the
//! output's from `--to`, else from OUT's extension (`.csv`, `.txt`: text; `.bsim`,
//! `.bin`: binary), else it is the other format than the input's. The output is written
//! through [`AtomicFile`], so an interrupted conversion leaves no partial file.

use crate::args::{FormatArg, MemoryArgs};
use crate::progress::{self, Bars};
use anyhow::{Context, Result};
use clap::Args;
use pipeline::output::{is_stdio, AtomicFile, Inputs};
use pipeline::stream;
use std::io::Write;
use std::path::{Path, PathBuf};
use traces::TraceFormat;

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
    to: Option<FormatArg>,
    #[command(flatten)]
    memory: MemoryArgs,
}

/// Runs `banksim convert`.
pub fn run(args: &ConvertArgs) -> Result<()> {
    // opened once (`-`: standard input), its format told from its first bytes
    let inputs = Inputs::new();
    inputs.declare(&args.input);
    let input = stream::open(&args.input)?;
    let from = input.format();
    let to = args.to.map(TraceFormat::from).or_else(|| TraceFormat::from_extension(&args.output)).unwrap_or(
        match from {
            TraceFormat::Text => TraceFormat::Binary,
            TraceFormat::Binary => TraceFormat::Text,
        },
    );
    let records = match (from, to) {
        // a text trace streams, sorted by block where its blocks are not in order
        (TraceFormat::Text, TraceFormat::Binary) => {
            stream_to_binary(input, &args.output, args.memory.bytes(), &inputs)?
        }
        _ => convert_whole(input, &args.output, to, &inputs)?,
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
fn create(output: &Path, inputs: &Inputs) -> Result<AtomicFile> {
    Ok(AtomicFile::with_capacity(output, inputs, 1 << 20)?)
}

/// Reads the whole trace at `input` and writes it to `output` in format `to`; the records.
fn convert_whole(input: traces::Input, output: &Path, to: TraceFormat, inputs: &Inputs) -> Result<u64> {
    let _bar = progress::spinner(&format!("converting {}", input.name()));
    let trace = traces::read_input(input)?;
    let mut out = create(output, inputs)?;
    pipeline::output::write_trace_to(&trace, to, &mut out)
        .with_context(|| format!("{}: cannot write", output.display()))?;
    out.commit()?;
    Ok(trace.len() as u64)
}

/// Writes the text trace `input` to `output` in the binary format block by block, in
/// block order (see [`stream::text_in_block_order`]: streamed, or sorted with about
/// `sort_memory` bytes). A trace with the `wait` column is written with a wait after
/// every gap (an empty one is stored as none).
fn stream_to_binary(input: traces::Input, output: &Path, sort_memory: usize, inputs: &Inputs) -> Result<u64> {
    use traces::binary::Writer;
    let name = input.name().to_string();
    let start = || Ok::<_, anyhow::Error>((None::<Writer<AtomicFile>>, 0u64));
    let bars = Bars::new();
    let (writer, records) = stream::text_in_block_order(
        input,
        sort_memory,
        &bars,
        start,
        |(writer, records), columns, blocks| {
            let w = match writer.as_mut() {
                Some(w) => w,
                None => {
                    let out = create(output, inputs)?;
                    let w = if blocks.has_sites() {
                        Writer::with_sites(out, &name, &blocks.sites)?
                    } else {
                        Writer::for_text_columns(out, &name, columns)?
                    };
                    // (a tensor-core op may come in any block: format version 4)
                    writer.insert(w.with_tensor_ops())
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
