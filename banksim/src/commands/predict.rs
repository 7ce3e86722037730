//! `banksim predict`: the time of a WGSL kernel's dispatch on the preset's GPU, from a
//! capture on any adapter (lavapipe too), with no measurement (the preset's calibration
//! of an IR operation) or from a measured variant of the kernel (`--reference`). Glue
//! only: capture is `validate::capture`, the cycles are `sim_core::launch` (what `run
//! --cycles` and `calibrate` use), the solve from a reference is `validate::calibrate`.

use anyhow::Result;
#[cfg(feature = "gpu")]
use clap::Args;

#[cfg(not(feature = "gpu"))]
pub type PredictArgs = super::args::Unavailable;

#[cfg(not(feature = "gpu"))]
pub fn run(_: &PredictArgs) -> Result<()> {
    Err(super::args::needs_feature("`banksim predict`", "gpu"))
}

#[cfg(feature = "gpu")]
use super::args::{hardware, HardwareArgs};
#[cfg(feature = "gpu")]
use super::kernel::{parse_override, KernelArgs};
#[cfg(feature = "gpu")]
use anyhow::{bail, Context};
#[cfg(feature = "gpu")]
use sim_core::launch::LaunchReport;
#[cfg(feature = "gpu")]
use std::io::Write;
#[cfg(feature = "gpu")]
use std::path::PathBuf;
#[cfg(feature = "gpu")]
use validate::calibrate::{dispatch_cycles, dispatch_launch, solve_cycles_per_op, Model, Role, Variant};

/// Arguments of `banksim predict`.
#[cfg(feature = "gpu")]
#[derive(Args)]
#[command(after_help = "Examples:
  banksim predict validate/kernels/transpose32.wgsl --dispatch 128,128
      the time of 128 x 128 workgroups on the h100 preset, from a capture of 8 of them on
      any adapter, with the preset's cost of an IR operation (no measurement); for its
      global memory, an unbound buffer holds one element per invocation of the dispatch
  banksim predict validate/kernels/tile16.wgsl --dispatch 16384 --override PAD=0 \\
      --reference validate/kernels/tile16.wgsl --reference-override PAD=1 --reference-us 61.3
      the same kernel with PAD=0, given the measured time of its PAD=1 variant: the cost of
      its other work is solved from that time, as `banksim calibrate` does per family
  banksim predict TRACE.csv --dispatch 16384
      a trace captured earlier (gaps in IR operations), stretched to 16384 blocks

The time is the cycle engine's (what `banksim run --cycles --gaps ops` prints for the same
capture and dispatch) plus the preset's fixed dispatch overhead, at its clock.")]
pub struct PredictArgs {
    #[command(flatten)]
    kernel: KernelArgs,
    #[command(flatten)]
    hw: HardwareArgs,
    /// Workgroups captured: block b of the dispatch does what captured workgroup b mod N
    /// did (its shared-memory accesses; only global addresses depend on the workgroup).
    #[arg(long, value_name = "N", default_value_t = 8)]
    capture_workgroups: u32,
    /// A measured variant of the kernel (WGSL; the kernel itself with other
    /// --reference-override values): the other work's cost per IR operation is solved
    /// from its time instead of taken from the preset.
    #[arg(long, value_name = "REF.wgsl", requires = "reference_us")]
    reference: Option<PathBuf>,
    /// The reference's measured time, microseconds (`banksim measure`'s median).
    #[arg(long, value_name = "US", requires = "reference")]
    reference_us: Option<f64>,
    /// Overridable constants of the reference, NAME=VALUE (default: the kernel's).
    /// Repeatable.
    #[arg(long = "reference-override", value_name = "NAME=VALUE", value_parser = parse_override)]
    reference_overrides: Vec<(String, f64)>,
}

/// Runs `banksim predict`.
#[cfg(feature = "gpu")]
pub fn run(args: &PredictArgs) -> Result<()> {
    let hw = hardware(&args.hw)?;
    let Some(timing) = hw.timing.as_ref() else {
        bail!("preset `{}` has no timing parameters: nothing to predict with", hw.name)
    };
    let blocks = args.kernel.dispatch.iter().try_fold(1u32, |a, &d| a.checked_mul(d)).with_context(|| {
        format!("--dispatch {:?}: more than {} workgroups", args.kernel.dispatch, u32::MAX)
    })?;
    if args.capture_workgroups == 0 {
        bail!("--capture-workgroups 0: expected at least one workgroup");
    }
    let ops = timing.ops.clone();
    // (what would stop the prediction is said before the capture)
    let clock = timing.clock_mhz;
    if clock <= 0.0 {
        bail!("preset `{}` has no clock (`timing.clock_mhz`): cycles cannot become time", hw.name);
    }
    if ops.is_none() && args.reference.is_none() {
        bail!(
            "preset `{}` has no calibration of IR operations (`timing.ops`): give a measured variant with --reference and --reference-us",
            hw.name
        );
    }
    let mut out = std::io::stdout().lock();
    let (target, smem, gpu) = open(args, &args.kernel, &hw, None, &mut out)?;
    let mut model = Model { occupancy: timing.occupancy.clone(), issue_per_op: 1.0, issue_share: 1.0 };
    let (cycles_per_op, overlap) = match &ops {
        Some(o) => {
            (model.issue_per_op, model.issue_share) = (o.issue_per_op, o.issue_share);
            (o.cycles_per_op, o.overlap)
        }
        None => (0.0, 1.0),
    };
    let variant = |requests, extent: Extent, label: &str| Variant {
        label: label.into(),
        family: "kernel".into(),
        role: Role::Holdout,
        blocks,
        scale: 1.0,
        measured_us: 0.0,
        requests,
        smem_bytes: extent.smem,
        global_bytes: extent.global,
    };
    let overhead = timing.dispatch_overhead_cycles as f64;
    let v = variant(target, smem, "kernel");
    match (&args.reference, args.reference_us) {
        (Some(path), Some(us)) => {
            if !(us.is_finite() && us > 0.0) {
                bail!("--reference-us {us}: expected a positive number of microseconds");
            }
            let mut r = args.kernel.clone();
            r.kernel = path.clone();
            for (name, value) in &args.reference_overrides {
                r.overrides.retain(|(n, _)| n != name);
                r.overrides.push((name.clone(), *value));
            }
            let (reference, rsmem, _) = open(args, &r, &hw, gpu, &mut out)?;
            let rv = variant(reference, rsmem, "reference");
            let target = (us * clock - overhead).max(0.0);
            let c = solve_cycles_per_op(&hw, &model, &rv, target)?;
            let report = launch(&hw, &model, &v, c, false)?;
            let (k, rk) = (report.engine.cycles as f64, dispatch_cycles(&hw, &model, &rv, c)?);
            let predicted = us + overlap * (k - rk) / clock;
            writeln!(out, "other work: {c:.3} cycles per IR operation, solved from the reference's {us} us")?;
            print_report(&mut out, &report, timing.block_launch_cycles)?;
            let free = launch(&hw, &model, &v, c, true)?;
            writeln!(
                out,
                "predicted: {predicted:.2} us = the reference's {us} us {} {:.2} us ({} engine cycles against {} at {clock} MHz, overlap {overlap})",
                if k >= rk { "+" } else { "-" },
                (overlap * (k - rk) / clock).abs(),
                k,
                rk
            )?;
            writeln!(out, "speedup over the reference: {:.3}", us / predicted)?;
            let saved = overlap * (report.engine.cycles as f64 - free.engine.cycles as f64) / clock;
            print_conflict_cost(&mut out, predicted - saved, saved, predicted)?;
        }
        _ => {
            writeln!(
                out,
                "other work: {cycles_per_op} cycles per IR operation (preset `{}`'s calibration; --reference solves it from a measured variant)",
                hw.name
            )?;
            let report = launch(&hw, &model, &v, cycles_per_op, false)?;
            print_report(&mut out, &report, timing.block_launch_cycles)?;
            let us = report.micros().expect("the clock is known");
            let free = launch(&hw, &model, &v, cycles_per_op, true)?.micros().expect("the clock is known");
            writeln!(
                out,
                "predicted: {us:.2} us ({} cycles: {} of blocks + {} fixed, at {clock} MHz)",
                report.cycles(),
                report.engine.cycles,
                report.overhead_cycles
            )?;
            print_conflict_cost(&mut out, free, us - free, us)?;
        }
    }
    Ok(())
}

/// What the bank conflicts cost: the time of the same dispatch with every request at its
/// ideal wavefronts.
#[cfg(feature = "gpu")]
fn print_conflict_cost(out: &mut dyn Write, free_us: f64, cost_us: f64, us: f64) -> std::io::Result<()> {
    writeln!(
        out,
        "with no bank conflicts: {free_us:.2} us; the conflicts cost {cost_us:.2} us, {:.1}% of the time (`banksim explain` shows where)",
        100.0 * cost_us / us
    )
}

/// The launch of `v` at `cycles_per_op` (what `calibrate` runs), and with `no_conflicts`
/// the same dispatch with every request at its ideal wavefronts.
#[cfg(feature = "gpu")]
fn launch(
    hw: &sim_core::Hardware,
    model: &Model,
    v: &Variant,
    cycles_per_op: f64,
    no_conflicts: bool,
) -> Result<LaunchReport> {
    let options = sim_core::engine::EngineOptions { no_conflicts, ..Default::default() };
    Ok(dispatch_launch(hw, model, v, cycles_per_op, options)?)
}

/// The kernel's requests on `hw`, checked as `run` checks a trace: a trace file read, or
/// a WGSL kernel captured (on `gpu` if one is open already; the GPU it used is given
/// back for the reference).
#[cfg(feature = "gpu")]
fn open(
    args: &PredictArgs,
    k: &KernelArgs,
    hw: &sim_core::Hardware,
    gpu: Option<validate::gpu::Gpu>,
    out: &mut dyn Write,
) -> Result<(traces::Requests, Extent, Option<validate::gpu::Gpu>)> {
    let file = k.kernel.display().to_string();
    if !file.ends_with(".wgsl") {
        crate::output::declare_input(&k.kernel);
        let trace = traces::read_any(&k.kernel)?;
        writeln!(out, "{file}: {} records (gaps taken as IR operations)", trace.len())?;
        crate::pipeline::check::check_records(&trace, hw, None)?;
        return Ok((traces::Requests::group(&trace, hw.warp)?, Extent::default(), gpu));
    }
    let (src, mut kopts) = k.load()?;
    let blocks = k.dispatch.iter().fold(1u32, |a, &d| a.saturating_mul(d));
    // the buffers of the whole dispatch (not of the few workgroups captured): the global
    // memory it can touch, for the L2's share of its lines
    let footprint = validate::capture::buffer_bytes(&src, &file, &kopts)?;
    kopts.dispatch = [blocks.min(args.capture_workgroups), 1, 1];
    let bar = crate::output::progress::spinner("opening the GPU");
    let gpu = match gpu {
        Some(g) => g,
        None => validate::gpu::Gpu::open(k.adapter.as_deref())?,
    };
    bar.say(format!("capturing {file}"));
    let c = validate::capture::capture(&gpu, &src, &file, &validate::capture::CaptureOptions::new(kopts))?;
    drop(bar);
    super::kernel::print_warnings(&file, &c);
    writeln!(
        out,
        "{file}{}: captured {} of {blocks} workgroups of {:?} on {} ({} records, {} B of workgroup memory)",
        overrides_text(&k.overrides),
        blocks.min(args.capture_workgroups),
        c.workgroup_size,
        c.adapter,
        c.trace.len(),
        c.shared_bytes
    )?;
    crate::pipeline::check::check_records(&c.trace, hw, None)?;
    // the shared memory the driver allocates: every workgroup variable declared
    let extent = Extent { smem: Some(c.shared_bytes), global: Some(footprint) };
    Ok((traces::Requests::group(&c.trace, hw.warp)?, extent, Some(gpu)))
}

/// What a kernel's dispatch holds besides its trace: the shared memory of a workgroup
/// (every workgroup variable declared) and the bytes of its buffers (`None`: a trace
/// file, which says neither).
#[cfg(feature = "gpu")]
#[derive(Clone, Copy, Default)]
struct Extent {
    smem: Option<u32>,
    global: Option<u64>,
}

#[cfg(feature = "gpu")]
fn overrides_text(o: &[(String, f64)]) -> String {
    if o.is_empty() {
        return String::new();
    }
    let parts: Vec<String> = o.iter().map(|(n, v)| format!("{n}={v}")).collect();
    format!(" ({})", parts.join(", "))
}

/// Where the dispatch's time goes: the engine's occupancy and its stall cycles by cause.
#[cfg(feature = "gpu")]
fn print_report(out: &mut dyn Write, r: &LaunchReport, launch_interval: u32) -> std::io::Result<()> {
    let e = &r.engine;
    writeln!(
        out,
        "dispatch: {} blocks, {} per SM at once ({} warps, {} B of shared memory each){}",
        r.blocks,
        e.blocks_per_sm,
        e.warps_per_block,
        e.smem_per_block,
        if r.one_sm { "; one SM simulated for all (every block is the same)" } else { "" }
    )?;
    let s = &e.total.stalls;
    let causes = [
        ("issue (other work and issue slots)", s.issue),
        ("latency (waiting for loaded data)", s.latency),
        ("shared-memory pipe queue", s.pipe_queue),
        ("bank-conflict wavefronts", s.bank_conflict),
        ("barriers", s.barrier),
        ("global-memory bandwidth", s.global),
    ];
    let total: u64 = causes.iter().map(|c| c.1).sum();
    writeln!(out, "where the warps wait (stall cycles summed over requests):")?;
    for (what, c) in causes {
        writeln!(out, "  {what:<36} {c:>14} {:>6.1}%", 100.0 * c as f64 / total.max(1) as f64)?;
    }
    if let Some(m) = &r.memory {
        writeln!(out, "  {}", crate::output::tables::memory_line(m))?;
    }
    writeln!(
        out,
        "  launch: {} fixed cycles per dispatch, blocks launched at most every {} cycles per SM",
        r.overhead_cycles, launch_interval
    )
}
