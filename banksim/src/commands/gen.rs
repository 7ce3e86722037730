//! `banksim gen`: a synthetic trace from a generator (strided, tile, reduction, scan,
//! aos, gemm, random).

use crate::args::{format_for, FormatArg};
use anyhow::{Context, Result};
use clap::Args;
use pipeline::output::{write_trace, write_trace_to, Inputs};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;

#[derive(Args)]
/// Arguments of `banksim gen`.
pub struct GenArgs {
    /// Generator name; `--list` shows them all with their parameters.
    #[arg(required_unless_present = "list")]
    kind: Option<String>,
    /// Parameters as NAME=VALUE, e.g. `pad=1 width=4`.
    params: Vec<String>,
    /// Output trace file (default: standard output); `.bsim` writes the binary format.
    #[arg(short, long, value_name = "OUT.csv")]
    out: Option<PathBuf>,
    /// Output format (default: from the output's extension: `.bsim`, `.bin` binary,
    /// else text).
    #[arg(long, value_enum)]
    to: Option<FormatArg>,
    /// List the generators and their parameters.
    #[arg(long)]
    list: bool,
}

/// Runs `banksim gen`.
pub fn run(args: &GenArgs) -> Result<()> {
    if args.list {
        let mut out = std::io::stdout().lock();
        for (name, what, params) in traces::generators::GENERATORS {
            writeln!(out, "{name}: {what}")?;
            for (p, def, meaning) in *params {
                writeln!(out, "    {p:<12} (default {def:>4})  {meaning}")?;
            }
        }
        return Ok(());
    }
    let kind = args.kind.as_deref().expect("clap requires it");
    let mut params = BTreeMap::new();
    for p in &args.params {
        let (k, v) = p.split_once('=').with_context(|| format!("parameter `{p}`: expected NAME=VALUE"))?;
        let v: i64 = v.parse().with_context(|| format!("parameter `{p}`: `{v}` is not an integer"))?;
        params.insert(k.to_string(), v);
    }
    let trace = traces::generators::generate(kind, &params)?;
    let format = format_for(args.to, args.out.as_deref());
    match &args.out {
        Some(path) => {
            write_trace(&trace, format, path, &Inputs::new())?;
            eprintln!(
                "wrote {} records of {} to {} ({})",
                trace.len(),
                trace.source,
                path.display(),
                format.name()
            );
        }
        None => write_trace_to(&trace, format, std::io::stdout().lock())?,
    }
    Ok(())
}
