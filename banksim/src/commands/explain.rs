//! `banksim explain`: capture a WGSL kernel's trace in memory and print its source
//! annotated per line (the report of `banksim run --by-line`). Glue over
//! `validate::capture` and `pipeline::by_line`.

use anyhow::Result;
use clap::Args;
use crate::args::kernel::{KernelArgs, print_warnings};
use crate::args::{ByLineArgs, DepArg, HardwareArgs, hardware};
use crate::{progress, tables};
use pipeline::output::Inputs;
use pipeline::{by_line, simulate};
use sim_core::engine::EngineOptions;
use sim_core::launch::Gaps;

/// Arguments of `banksim explain`.
#[derive(Args)]
#[command(after_help = "Examples (kernels of the suite, validate/kernels/):
  banksim explain validate/kernels/transpose32.wgsl --dispatch 1
      the source with each line's requests, wavefronts and conflicts, and a fix
  banksim explain validate/kernels/transpose32.wgsl --dispatch 1 --cycles --by-line-csv lines.csv
      and each line's bank-conflict stall cycles; one CSV row per line
  banksim explain K.wgsl --dispatch 64,1,1 --override TILE=16 --bind 0.0=iota:4096

The same report from a trace file: banksim run --by-line TRACE (docs/by-line.md).")]
pub struct ExplainArgs {
    #[command(flatten)]
    kernel: KernelArgs,
    #[command(flatten)]
    hw: HardwareArgs,
    /// Run the cycle engine too: each line's bank-conflict stall cycles and their share
    /// of all stall cycles.
    #[arg(long)]
    cycles: bool,
    /// With --cycles: what an access without a `dep` waits for (as `run --dep`).
    #[arg(long, value_enum, default_value = "previous-load")]
    dep: DepArg,
    #[command(flatten)]
    outputs: ByLineArgs,
    /// Records the first run makes room for (as `capture --capacity`).
    #[arg(long, value_name = "N", default_value_t = 1 << 20)]
    capacity: u64,
}

/// Runs `banksim explain`.
pub fn run(args: &ExplainArgs) -> Result<()> {
    let inputs = Inputs::new();
    let hw = hardware(&args.hw, &inputs)?;
    if args.cycles && hw.timing.is_none() {
        anyhow::bail!("--cycles: preset `{}` has no timing parameters", hw.name);
    }
    let (src, kopts) = args.kernel.load(&inputs)?;
    let file = args.kernel.kernel.display().to_string();
    // a kernel that does not parse or cannot be instrumented says so before any GPU is opened
    validate::capture::prepare(&src, &file, &kopts)?;
    let bar = progress::spinner("opening the GPU");
    let gpu = args.kernel.open_gpu()?;
    // (the buffers of the dispatch: the global memory it can touch, for the L2's share)
    let footprint = validate::capture::buffer_bytes(&src, &file, &kopts)?;
    let mut opts = validate::capture::CaptureOptions::new(kopts);
    opts.initial_records = args.capacity;
    bar.say(format!("capturing {file}"));
    let c = validate::capture::capture(&gpu, &src, &file, &opts)?;
    drop(bar);
    print_warnings(&file, &c);
    let trace = c.trace;
    let requests = simulate::checked_requests(&trace, &hw, None)?;
    let report = if args.cycles {
        let opts = EngineOptions { dep_policy: args.dep.into(), per_request: true, ..Default::default() };
        // (gaps of a capture count IR operations: the preset's cost of one)
        let gaps = Gaps::preset_ops(&hw).unwrap_or(Gaps::Cycles);
        Some(by_line::run_engine(&hw, &requests, gaps, &opts, Some(footprint))?)
    } else {
        None
    };
    let sources = [(file, src)].into_iter().collect();
    tables::by_line::emit(&hw, &trace, &requests, report.as_ref(), &args.outputs, true, &sources, &inputs)
}
