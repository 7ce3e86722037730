//! `banksim stridebench`: the cycle engine's prediction of the wgpu stride sweep
//! (`validate/probe/wgpu_stridebench.rs`): cycles per stride and the ratio to stride 1.

use crate::args::{hardware, with_threads, HardwareArgs};
use anyhow::Result;
use clap::Args;
use pipeline::output::Inputs;
use pipeline::stridebench::{predict, Sweep};
use std::io::Write;

#[derive(Args)]
/// Arguments of `banksim stridebench`.
pub struct StridebenchArgs {
    #[command(flatten)]
    hw: HardwareArgs,
    /// Workgroups (the measured sweep used 4224 = 132 x 32).
    #[arg(long, default_value_t = 4224)]
    blocks: u32,
    /// Chase steps per invocation (the measured sweep used 4096).
    #[arg(long, default_value_t = 4096)]
    iters: u32,
    /// Cycles of other (non-shared-memory) work per chase step, issued on the warp's scheduler.
    #[arg(long, default_value_t = 0)]
    gap: u32,
    /// Strides to run, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "1,0,2,3,4,5,8,16,17,32,33,64")]
    strides: Vec<u32>,
    /// Worker threads (default: all cores; with one per core each is pinned to its core).
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
}

/// Runs `banksim stridebench`: one line per stride, printed as it completes.
pub fn run(args: &StridebenchArgs) -> Result<()> {
    let hw = hardware(&args.hw, &Inputs::new())?;
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "stride sweep on `{}`: {} workgroups of 256, {} dependent loads each, gap {} cycles per step",
        hw.name, args.blocks, args.iters, args.gap
    )?;
    writeln!(out, "{:>6}{:>14}{:>8}{:>10}{:>10}", "stride", "cycles", "ratio", "blocks/SM", "pipe util")?;
    out.flush()?;
    let mut base = None;
    for &stride in &args.strides {
        let sweep = Sweep { blocks: args.blocks, iters: args.iters, stride, gap: args.gap };
        let p = with_threads(args.threads, || predict(&hw, &sweep, true))??;
        let base = *base.get_or_insert(p.cycles);
        writeln!(
            out,
            "{stride:>6}{:>14}{:>8.2}{:>10}{:>10.3}",
            p.cycles,
            p.cycles as f64 / base as f64,
            p.blocks_per_sm,
            p.pipe_utilisation
        )?;
        out.flush()?;
    }
    Ok(())
}
