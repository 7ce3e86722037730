//! `banksim explain`: capture a WGSL kernel's trace in memory and print its source
//! annotated per line (the report of `banksim run --by-line`). Glue over
//! `validate::capture` and `pipeline::by_line`.

use crate::args::kernel::{print_warnings, KernelArgs};
use crate::args::{hardware, ByLineArgs, DepArg, HardwareArgs};
use crate::{progress, tables};
use anyhow::{Context, Result};
use clap::Args;
use pipeline::by_line::wgsl::SharedArray;
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
  banksim explain validate/kernels/transpose32.wgsl --dispatch 128,128 --capture-workgroups 2 --cycles
      two workgroups' lines, each priced in the time of all 16384 (what `predict` prints)
  banksim explain K.wgsl --dispatch 64,1,1 --override TILE=16 --bind 0.0=iota:4096

The same report from a trace file: banksim run --by-line TRACE (docs/by-line.md).")]
pub struct ExplainArgs {
    #[command(flatten)]
    kernel: KernelArgs,
    #[command(flatten)]
    hw: HardwareArgs,
    /// Run the cycle engine too: each line's bank-conflict stall cycles, their share of
    /// all stall cycles, and the share of the dispatch's time its conflicts cost (`saves`:
    /// the dispatch run again without them, as `predict` prices conflicts).
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
    /// Capture only N workgroups of the --dispatch, as `predict` does (block b of the
    /// dispatch does what captured workgroup b mod N did): the lines' requests are the
    /// captured workgroups', `saves` (with --cycles) is of the whole dispatch.
    #[arg(long, value_name = "N")]
    capture_workgroups: Option<u32>,
}

/// Runs `banksim explain`.
pub fn run(args: &ExplainArgs) -> Result<()> {
    let inputs = Inputs::new();
    let hw = hardware(&args.hw, &inputs)?;
    if args.cycles && hw.timing.is_none() {
        anyhow::bail!("--cycles: preset `{}` has no timing parameters", hw.name);
    }
    let (src, mut kopts) = args.kernel.load(&inputs)?;
    let file = args.kernel.kernel.display().to_string();
    let blocks = args.kernel.dispatch.iter().try_fold(1u32, |a, &d| a.checked_mul(d)).with_context(|| {
        format!("--dispatch {:?}: more than {} workgroups", args.kernel.dispatch, u32::MAX)
    })?;
    if args.capture_workgroups == Some(0) {
        anyhow::bail!("--capture-workgroups 0: expected at least one workgroup");
    }
    // a kernel that does not parse or cannot be instrumented says so before any GPU is opened
    validate::capture::prepare(&src, &file, &kopts)?;
    let bar = progress::spinner("opening the GPU");
    let gpu = args.kernel.open_gpu()?;
    // (the buffers of the dispatch: the global memory it can touch, for the L2's share)
    let footprint = validate::capture::buffer_bytes(&src, &file, &kopts)?;
    if let Some(n) = args.capture_workgroups {
        kopts.dispatch = [n.min(blocks), 1, 1];
    }
    let mut opts = validate::capture::CaptureOptions::new(kopts);
    opts.initial_records = args.capacity;
    bar.say(format!("capturing {file}"));
    let c = validate::capture::capture(&gpu, &src, &file, &opts)?;
    drop(bar);
    print_warnings(&file, &c);
    let trace = c.trace;
    let requests = simulate::checked_requests(&trace, &hw, None)?;
    // the workgroup memory the driver allocates (every variable declared), as `predict`
    let opts = EngineOptions {
        dep_policy: args.dep.into(),
        smem_per_block: Some(c.shared_bytes),
        ..Default::default()
    };
    // (gaps of a capture count IR operations: the preset's cost of one)
    let gaps = Gaps::preset_ops(&hw).unwrap_or(Gaps::Cycles);
    let mut launch = by_line::launch(gaps, &opts, Some(footprint));
    launch.blocks = args.capture_workgroups.map(|_| blocks);
    let report = if args.cycles { Some(by_line::run_engine(&hw, &requests, &launch)?) } else { None };
    let vars: Vec<SharedArray> = c
        .shared
        .iter()
        .map(|v| SharedArray { name: v.name.clone(), offset: v.offset, bytes: v.size })
        .collect();
    let sources = [(file, src)].into_iter().collect();
    let engine = report.as_ref().map(|report| tables::by_line::Engine { report, launch: &launch });
    tables::by_line::emit(&hw, &trace, &requests, engine, &args.outputs, true, &sources, Some(&vars), &inputs)
}
