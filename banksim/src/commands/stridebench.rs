//! `banksim stridebench`: the cycle engine's prediction of the wgpu stride sweep
//! (`validate/probe/wgpu_stridebench.rs`): cycles per stride and the ratio to stride 1.

use super::args::{hardware, with_threads, HardwareArgs};
use anyhow::Result;
use clap::Args;
use sim_core::engine::{self, EngineOptions};
use sim_core::Hardware;
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
    let hw = hardware(&args.hw)?;
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

/// One stride of the sweep: `blocks` workgroups of 256 invocations, `iters` chase steps
/// at `stride`, `gap` cycles of other work per step ([`traces::gen::StrideBench`]).
#[derive(Clone, Copy, Debug)]
pub struct Sweep {
    /// Workgroups.
    pub blocks: u32,
    /// Chase steps per invocation.
    pub iters: u32,
    /// Words between consecutive lanes' first addresses.
    pub stride: u32,
    /// Cycles of other work per chase step.
    pub gap: u32,
}

/// The engine's figures for one stride.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Prediction {
    /// Cycles of the whole dispatch.
    pub cycles: u64,
    /// Blocks resident on an SM at once.
    pub blocks_per_sm: u32,
    /// Busy cycles of the shared-memory pipe over the cycles of the SMs that ran blocks.
    pub pipe_utilisation: f64,
}

/// The cycle engine's prediction of `sweep` on `hw`.
///
/// With `one_sm`, where the blocks divide evenly over the SMs (a multiple of the SMs,
/// at least one each), one SM is simulated with its share of the blocks. That is exact:
/// every block of the sweep makes the same requests (only its id differs, and the engine
/// uses ids only to tell blocks apart), SMs are identical, and the dispatcher gives
/// blocks to the SMs that free a slot first, tied SMs one block each in turn; so the
/// initial fill and every later round give each SM the same number of blocks at the same
/// cycle, every SM runs as that one does, and the cycles, blocks per SM and pipe
/// utilisation are those of the whole dispatch. Otherwise (or without `one_sm`) the
/// engine runs every block.
pub fn predict(hw: &Hardware, sweep: &Sweep, one_sm: bool) -> Result<Prediction> {
    let mut hw = hw.clone();
    let mut blocks = sweep.blocks;
    if let Some(t) = hw.timing.as_mut() {
        if one_sm && t.sms > 0 && blocks >= t.sms && blocks.is_multiple_of(t.sms) {
            blocks /= t.sms;
            t.sms = 1;
        }
    }
    let work = traces::gen::StrideBench::new(blocks, 256, sweep.iters, sweep.stride, sweep.gap);
    let r = engine::run(&hw, &work, &EngineOptions::default())?;
    let used = r.sms.iter().filter(|s| s.blocks > 0).count();
    Ok(Prediction {
        cycles: r.cycles,
        blocks_per_sm: r.blocks_per_sm,
        pipe_utilisation: r.total.pipe_busy as f64 / (r.cycles as f64 * used as f64),
    })
}
