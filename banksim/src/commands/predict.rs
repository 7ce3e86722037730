//! `banksim predict`: the time of a WGSL kernel's dispatch on the preset's GPU, from a
//! capture on any adapter (lavapipe too), with no measurement (the preset's calibration
//! of an IR operation) or from a measured variant of the kernel (`--reference`). Glue
//! only: capture is `validate::capture`, the prediction `pipeline::kernel::predict`
//! (the cycles of `sim_core::launch`, what `run --cycles` and `calibrate` use).

use anyhow::{Context, Result, bail};
use clap::Args;
use crate::args::kernel::{KernelArgs, parse_override, print_warnings};
use crate::args::{HardwareArgs, hardware};
use crate::{progress, tables};
use pipeline::kernel::{Dispatch, Extent, Prediction};
use pipeline::output::Inputs;
use sim_core::engine::Stall;
use sim_core::launch::LaunchReport;
use std::io::Write;
use std::path::PathBuf;

/// Arguments of `banksim predict`.
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
    /// Default: 2, and 8 where those two differ to the engine (in their requests, gaps
    /// or costs).
    #[arg(long, value_name = "N")]
    capture_workgroups: Option<u32>,
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
    /// Also write the prediction as JSON (`-`: standard output, instead of the text): the
    /// time, the time with no bank conflicts and what they cost, where the warps wait,
    /// the dispatch, the global memory, and the reference's figures where one was given.
    #[arg(long, value_name = "OUT.json")]
    json: Option<PathBuf>,
    /// Simulate every block of the dispatch, not one SM standing for all where every
    /// block is the same to the engine (exact; this checks it).
    #[arg(long)]
    full: bool,
}

/// Runs `banksim predict`.
pub fn run(args: &PredictArgs) -> Result<()> {
    let inputs = Inputs::new();
    let hw = hardware(&args.hw, &inputs)?;
    let Some(timing) = hw.timing.as_ref() else {
        bail!("preset `{}` has no timing parameters: nothing to predict with", hw.name)
    };
    let blocks = args.kernel.dispatch.iter().try_fold(1u32, |a, &d| a.checked_mul(d)).with_context(|| {
        format!("--dispatch {:?}: more than {} workgroups", args.kernel.dispatch, u32::MAX)
    })?;
    if args.capture_workgroups == Some(0) {
        bail!("--capture-workgroups 0: expected at least one workgroup");
    }
    // (what would stop the prediction is said before the capture)
    let clock = timing.clock_mhz;
    if clock <= 0.0 {
        bail!("preset `{}` has no clock (`timing.clock_mhz`): cycles cannot become time", hw.name);
    }
    if timing.ops.is_none() && args.reference.is_none() {
        bail!(
            "preset `{}` has no calibration of IR operations (`timing.ops`): give a measured variant with --reference and --reference-us",
            hw.name
        );
    }
    if let Some(us) = args.reference_us.filter(|us| !(us.is_finite() && *us > 0.0)) {
        bail!("--reference-us {us}: expected a positive number of microseconds");
    }
    // (with `--json -` the JSON is the standard output, the text goes nowhere)
    let json_to_stdout = args.json.as_deref().is_some_and(pipeline::output::is_stdio);
    let mut out: Box<dyn Write> =
        if json_to_stdout { Box::new(std::io::sink()) } else { Box::new(std::io::stdout().lock()) };
    let (target, gpu) = open(args, &args.kernel, &hw, None, &mut out, &inputs)?;
    let target = Dispatch { requests: target.0, extent: target.1, blocks };
    let reference = match (&args.reference, args.reference_us) {
        (Some(path), Some(us)) => {
            let mut r = args.kernel.clone();
            r.kernel = path.clone();
            for (name, value) in &args.reference_overrides {
                r.overrides.retain(|(n, _)| n != name);
                r.overrides.push((name.clone(), *value));
            }
            let ((requests, extent), _) = open(args, &r, &hw, gpu, &mut out, &inputs)?;
            Some((Dispatch { requests, extent, blocks }, us))
        }
        _ => None,
    };
    let p = pipeline::kernel::predict(&hw, target, reference, args.full).map_err(|e| match e {
        pipeline::Error::Engine(sim_core::engine::EngineError::Limit(_)) => {
            let d = args.kernel.dispatch;
            anyhow::Error::from(e).context(format!("--dispatch {},{},{}", d[0], d[1], d[2]))
        }
        e => e.into(),
    })?;
    print_prediction(&mut out, &hw, &p, timing.block_launch_cycles)?;
    if let Some(path) = &args.json {
        let doc = json(args, &hw, &p);
        pipeline::output::write_atomically(path, &inputs, |f| -> Result<()> {
            serde_json::to_writer_pretty(&mut *f, &doc)?;
            Ok(f.write_all(b"\n")?)
        })?;
    }
    Ok(())
}

/// The prediction as `--json` writes it.
fn json(args: &PredictArgs, hw: &sim_core::Hardware, p: &Prediction) -> serde_json::Value {
    use serde_json::json;
    let e = &p.report.engine;
    let stalls: serde_json::Map<String, serde_json::Value> =
        e.total.stalls.iter().map(|(c, n)| (c.column().trim_start_matches("stall_").to_string(), json!(n))).collect();
    let memory = p.report.memory.as_ref().map(|m| {
        json!({
            "bytes": m.bytes, "line_bytes": m.line_bytes, "footprint": m.footprint,
            "dram_bytes": m.dram_bytes, "bytes_per_cycle": m.bytes_per_cycle, "load_latency": m.latency,
        })
    });
    let reference = p.reference.as_ref().map(|r| {
        json!({
            "kernel": args.reference.as_ref().map(|k| k.display().to_string()),
            "measured_us": r.us, "engine_cycles": r.reference_cycles, "overlap": r.overlap,
            "speedup": r.us / p.us,
        })
    });
    json!({
        "kernel": args.kernel.kernel.display().to_string(),
        "dispatch": args.kernel.dispatch,
        "preset": hw.name,
        "predicted_us": p.us,
        "no_conflicts_us": p.free_us,
        "conflict_us": p.conflict_us(),
        "conflict_share": p.conflict_us() / p.us,
        "cycles_per_op": p.cycles_per_op,
        "cycles_per_op_from": if p.reference.is_some() { "reference" } else { "preset" },
        "engine": {
            "cycles": e.cycles, "dispatch_cycles": p.report.cycles(), "overhead_cycles": p.report.overhead_cycles,
            "clock_mhz": p.report.clock_mhz, "blocks": p.report.blocks, "blocks_per_sm": e.blocks_per_sm,
            "warps_per_block": e.warps_per_block, "smem_per_block": e.smem_per_block,
            "one_sm": p.report.one_sm, "stall_cycles": stalls,
        },
        "global_memory": memory,
        "reference": reference,
    })
}

/// Prints `p`: the cost of an operation and where it came from, where the time goes,
/// the time, and what the bank conflicts cost.
fn print_prediction(
    out: &mut dyn Write,
    hw: &sim_core::Hardware,
    p: &Prediction,
    launch_interval: u32,
) -> std::io::Result<()> {
    let clock = hw.timing.as_ref().map_or(0.0, |t| t.clock_mhz);
    match &p.reference {
        Some(r) => {
            writeln!(
                out,
                "other work: {:.3} cycles per IR operation, solved from the reference's {} us",
                p.cycles_per_op, r.us
            )?;
            print_report(out, &p.report, launch_interval)?;
            let (k, rk) = (r.cycles, r.reference_cycles);
            writeln!(
                out,
                "predicted: {:.2} us = the reference's {} us {} {:.2} us ({} engine cycles against {} at {clock} MHz, overlap {})",
                p.us,
                r.us,
                if k >= rk { "+" } else { "-" },
                (r.overlap * (k - rk) / clock).abs(),
                k,
                rk,
                r.overlap
            )?;
            writeln!(out, "speedup over the reference: {:.3}", r.us / p.us)?;
        }
        None => {
            writeln!(
                out,
                "other work: {} cycles per IR operation (preset `{}`'s calibration; --reference solves it from a measured variant)",
                p.cycles_per_op, hw.name
            )?;
            print_report(out, &p.report, launch_interval)?;
            writeln!(
                out,
                "predicted: {:.2} us ({} cycles: {} of blocks + {} fixed, at {clock} MHz)",
                p.us,
                p.report.cycles(),
                p.report.engine.cycles,
                p.report.overhead_cycles
            )?;
        }
    }
    if p.conflict_us() < 0.0 {
        // (the engine is not monotone in wavefronts: without the conflicts the requests
        // reach the pipe, DRAM or the barriers in another order)
        return writeln!(
            out,
            "with no bank conflicts: {:.2} us, {:.2} us longer: the conflicts cost this kernel no time; what limits it is \
             elsewhere (see where the warps wait), and without them its requests only meet those limits in another order",
            p.free_us,
            -p.conflict_us()
        );
    }
    writeln!(
        out,
        "with no bank conflicts: {:.2} us; the conflicts cost {:.2} us, {:.1}% of the time (`banksim explain` shows where)",
        p.free_us,
        p.conflict_us(),
        100.0 * p.conflict_us() / p.us
    )
}

/// The kernel's requests on `hw` and what its dispatch holds besides them, checked as
/// `run` checks a trace: a trace file read, or a WGSL kernel captured (on `gpu` if one is
/// open already; the GPU it used is given back for the reference).
fn open(
    args: &PredictArgs,
    k: &KernelArgs,
    hw: &sim_core::Hardware,
    gpu: Option<validate::gpu::Gpu>,
    out: &mut dyn Write,
    inputs: &Inputs,
) -> Result<((traces::Requests, Extent), Option<validate::gpu::Gpu>)> {
    let file = k.kernel.display().to_string();
    if !file.ends_with(".wgsl") {
        inputs.declare(&k.kernel);
        let trace = traces::read_any(&k.kernel)?;
        writeln!(out, "{file}: {} records (gaps taken as IR operations)", trace.len())?;
        let requests = pipeline::simulate::checked_requests(&trace, hw, None)?;
        return Ok(((requests, Extent::default()), gpu));
    }
    let (src, mut kopts) = k.load(inputs)?;
    let blocks = k.dispatch.iter().fold(1u32, |a, &d| a.saturating_mul(d));
    // the buffers of the whole dispatch (not of the few workgroups captured): the global
    // memory it can touch, for the L2's share of its lines
    let footprint = validate::capture::buffer_bytes(&src, &file, &kopts)?;
    let bar = progress::spinner("opening the GPU");
    let gpu = match gpu {
        Some(g) => g,
        None => k.open_gpu()?,
    };
    // only a few workgroups are captured, but the dispatch predicted must be one the
    // API allows
    gpu.check_dispatch(k.dispatch).with_context(|| {
        format!("--dispatch {} (spread the workgroups over x, y and z)", k.dispatch.map(|d| d.to_string()).join(","))
    })?;
    // two workgroups where they are the same to the engine (every later block repeats
    // them), else eight
    let mut n = blocks.min(args.capture_workgroups.unwrap_or(2));
    let (c, requests) = loop {
        bar.say(format!("capturing {n} workgroups of {file}"));
        kopts.dispatch = [n, 1, 1];
        let c = validate::capture::capture(&gpu, &src, &file, &validate::capture::CaptureOptions::new(kopts.clone()))?;
        let requests = pipeline::simulate::checked_requests(&c.trace, hw, None)?;
        let more = blocks.min(8);
        let same = || {
            let template = sim_core::replicate::Replicated::new(&requests, None, 1.0);
            template.identical_blocks(&mut sim_core::BankModel::new(hw))
        };
        if args.capture_workgroups.is_some() || n >= more || same() {
            break (c, requests);
        }
        n = more;
    };
    drop(bar);
    print_warnings(&file, &c);
    writeln!(
        out,
        "{file}{}: captured {n} of {} of {:?} on {} ({}, {} B of workgroup memory)",
        overrides_text(&k.overrides),
        crate::tables::count(blocks, "workgroup"),
        c.workgroup_size,
        c.adapter,
        crate::tables::count(c.trace.len() as u64, "record"),
        c.shared_bytes
    )?;
    // the shared memory the driver allocates: every workgroup variable declared
    let extent = Extent { smem: Some(c.shared_bytes), global: Some(footprint) };
    Ok(((requests, extent), Some(gpu)))
}

fn overrides_text(o: &[(String, f64)]) -> String {
    if o.is_empty() {
        return String::new();
    }
    let parts: Vec<String> = o.iter().map(|(n, v)| format!("{n}={v}")).collect();
    format!(" ({})", parts.join(", "))
}

/// Where the dispatch's time goes: the engine's occupancy and its stall cycles by cause.
fn print_report(out: &mut dyn Write, r: &LaunchReport, launch_interval: u32) -> std::io::Result<()> {
    let e = &r.engine;
    writeln!(
        out,
        "dispatch: {}, {} per SM at once ({}, {} B of shared memory each){}",
        crate::tables::count(r.blocks, "block"),
        e.blocks_per_sm,
        crate::tables::count(e.warps_per_block, "warp"),
        e.smem_per_block,
        if r.one_sm { "; one SM simulated for all (every block is the same)" } else { "" }
    )?;
    let s = &e.total.stalls;
    let total = s.total();
    writeln!(out, "where the warps wait (stall cycles summed over requests):")?;
    for (cause, c) in s.iter() {
        let what = Stall::describe(cause);
        writeln!(out, "  {what:<36} {c:>14} {:>6.1}%", 100.0 * c as f64 / total.max(1) as f64)?;
    }
    if let Some(m) = &r.memory {
        writeln!(out, "  {}", tables::memory_line(m))?;
    }
    writeln!(
        out,
        "  launch: {} fixed cycles per dispatch, blocks launched at most every {} cycles per SM",
        r.overhead_cycles, launch_interval
    )
}
