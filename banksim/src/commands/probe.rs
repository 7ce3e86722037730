//! `banksim probe`: find a GPU's shared-memory banks by timing microbenchmarks, and
//! write what was found as a preset. Glue only: the patterns, the inference and the
//! reports are `pipeline::probe`'s, the kernel and its timing `validate::probe`'s (the
//! `gpu` feature; `--from` and `--simulate` need no GPU).

use crate::args::with_feature;
use anyhow::{bail, Result};
use clap::Args;
use pipeline::output::{write_atomically, Inputs};
use pipeline::probe::{evidence, infer, report, synthesize, Evidence, Verdict};
use std::io::Write;
use std::path::PathBuf;

/// Arguments of `banksim probe`.
#[derive(Args)]
#[command(after_help = "What it measures: one microbenchmark (validate/kernels/probe_banks.wgsl) makes every
lane of many warps load the element its pattern names, again and again, four independent
loads per step, so that the shared-memory pipe is the bound and a pattern's time follows
the wavefronts of one load. About 140 patterns on a 32-lane GPU, each at 4, 8 or 16 bytes:
stride sweeps (lane l reads element l*s), broadcast (every lane one word), lane blocks,
lane pairs (lanes l and l^k read one word, the pairs distinct words of one bank: do l and
l^k go through the crossbar together?), 4/8-byte word halves, and the H100's pair merge.

How it decides: every bank structure of banksim's model in a family of hypotheses (16,
32 or 64 banks of 4 or 8 bytes; the lanes served together at each width, consecutive or
in XOR groups; multicast, serialized or one broadcast word; the pair merge) predicts each
pattern's wavefronts with sim_core's bank model; the one whose scaled predictions best
match the measured times (least squares on logarithms) wins. When no structure explains
the times much better than one time per access width, it says \"no bank structure seen\"
and writes no preset: a CPU adapter (lavapipe) has no banks.

How long: 6 rounds (1 untimed) over every pattern; the conflict-free load's loop is
raised to --loop-ms (2 ms) a dispatch and a conflicting pattern takes longer, so a round
of the H100's patterns adds up to about 500 times that (1 s): under 15 s on an H100 with
the defaults. --quick takes seconds (3 rounds, a 0.3 ms loop, 4 workgroups: a smoke test,
or a CPU adapter); --reps, --groups and --loop-ms shrink or grow it.

What it prints: the evidence table (each pattern's loop time, its ratio to the
conflict-free 4-byte load, the wavefronts W the probed structure predicts and the ratio
its fit gives), the structure found, the fit (RMS misfit per pattern) and the fields the
evidence leaves open; with --compare, a preset's predictions beside it and the fields
side by side. The preset written with -o is a banksim config (`--config FILE`) whose
comment header says what was measured and what assumed, and carries the evidence.

Examples:
  banksim probe --adapter 0 -o h100-probed.ron --compare h100 --csv h100-probe.csv
      probe the first adapter, write the preset and the times, compare with `h100`
  banksim probe --from h100-probe.csv --compare h100
      the inference again on those times, with no GPU
  banksim probe --simulate cdna3
      the inference on times made from a preset's own bank model (a self-test)
  banksim probe --quick
      seconds; on lavapipe: \"no bank structure seen\"

docs/probe.md explains the method and how to read the output.")]
pub struct ProbeArgs {
    /// The adapter: its number in --list (0, 1, ...) or a part of its name (default: the
    /// best one; WGPU_BACKEND chooses the API, Vulkan by default).
    #[arg(long, value_name = "N|NAME")]
    adapter: Option<String>,
    /// List the adapters wgpu finds, numbered, and exit.
    #[arg(long)]
    list: bool,
    /// Write the probed preset (RON) here. Nothing is written when no banks are seen.
    #[arg(long, short, value_name = "OUT.ron")]
    out: Option<PathBuf>,
    /// The probed preset's name.
    #[arg(long, value_name = "NAME", default_value = "probed")]
    name: String,
    /// Copy what is not measured (timing, shared memory per SM, the store and atomic
    /// rules) from this preset or config; without it the preset has no timing.
    #[arg(long, value_name = "PRESET|FILE")]
    base: Option<String>,
    /// Compare with this preset or config: its predictions in the evidence table, and
    /// its fields beside the probed ones.
    #[arg(long, value_name = "PRESET|FILE")]
    compare: Option<String>,
    /// Timed rounds over every pattern, after one untimed round (default 5; 3 with
    /// --quick). A pattern's time is its median over the rounds.
    #[arg(long, value_name = "R")]
    reps: Option<u32>,
    /// Workgroups per dispatch (default 1024, enough to fill a large GPU several times
    /// over; 4 with --quick).
    #[arg(long, value_name = "N")]
    groups: Option<u32>,
    /// Invocations per workgroup (default: the adapter's most, up to 1024): a power of
    /// two, at least the adapter's largest subgroup, so that every warp is whole.
    #[arg(long, value_name = "N")]
    workgroup: Option<u32>,
    /// Milliseconds the conflict-free 4-byte load's loop is raised to per dispatch
    /// (default 2; 0.3 with --quick): longer is steadier, a conflicting pattern takes up
    /// to 32 times as long.
    #[arg(long, value_name = "MS")]
    loop_ms: Option<f64>,
    /// A short probe: 3 rounds, a 0.3 ms loop, 4 workgroups (seconds; a smoke test, or a
    /// CPU adapter). Options given beside it win.
    #[arg(long)]
    quick: bool,
    /// Write the measured times as CSV (`--from` reads them back).
    #[arg(long, value_name = "OUT.csv")]
    csv: Option<PathBuf>,
    /// Infer from a probe's CSV (--csv) instead of timing a GPU.
    #[arg(long, value_name = "FILE.csv", conflicts_with_all = ["adapter", "quick", "reps", "groups", "workgroup", "loop_ms", "simulate", "list"])]
    from: Option<PathBuf>,
    /// Infer from times made by this preset's bank model instead of a GPU: a self-test
    /// of the method (the probe should find the preset's structure).
    #[arg(long, value_name = "PRESET|FILE", conflicts_with_all = ["adapter", "quick", "reps", "groups", "workgroup", "loop_ms", "list"])]
    simulate: Option<String>,
    /// Seconds one dispatch may run on the GPU before it is given up on.
    #[arg(long, value_name = "SECONDS", default_value_t = sim_core::limits::GPU_SECONDS.max,
          value_parser = clap::value_parser!(u64).range(1..=sim_core::limits::GPU_SECONDS.max * 60))]
    time_limit: u64,
}

/// Runs `banksim probe`.
pub fn run(args: &ProbeArgs) -> Result<()> {
    let inputs = Inputs::new();
    if args.reps == Some(0) {
        bail!("--reps must be at least 1");
    }
    if args.groups == Some(0) {
        bail!("--groups must be at least 1");
    }
    if let Some(w) = args.workgroup.filter(|w| !w.is_power_of_two()) {
        bail!("--workgroup {w}: must be a power of two (warps whole, each on the patterns' lane table)");
    }
    if let Some(ms) = args.loop_ms.filter(|ms| !(ms.is_finite() && *ms > 0.0 && *ms <= 1000.0)) {
        bail!("--loop-ms {ms}: must be above 0 and at most 1000");
    }
    if args.list {
        return list();
    }
    let base = args.base.as_deref().map(|b| load(b, &inputs)).transpose()?;
    let compare = args.compare.as_deref().map(|c| load(c, &inputs)).transpose()?;
    if let Some(path) = &args.from {
        inputs.declare(path);
    }
    for p in [&args.out, &args.csv].into_iter().flatten() {
        inputs.check_target(p)?;
    }
    let e = match (&args.from, &args.simulate) {
        (Some(path), _) => evidence::read(path)?,
        (None, Some(preset)) => {
            let (_, hw) = load(preset, &inputs)?;
            let period = hw.warp.clamp(4, 64);
            synthesize(&hw, &pipeline::probe::patterns::patterns(period), 1.0, 0.02)
        }
        (None, None) => measure(args)?,
    };
    if let Some(p) = &args.csv {
        write_atomically(p, &inputs, |w| -> Result<()> {
            Ok(w.write_all(evidence::to_csv(&e).as_bytes())?)
        })?;
    }
    let bar = crate::progress::spinner("scoring the hypotheses");
    let inf = infer::infer(&e);
    drop(bar);
    let hw = inf.best.candidate.hardware(&args.name, base.as_ref().map(|b| &b.1), e.smem_per_sm);
    let compared = compare.as_ref().map(|(name, c)| report::compare_with(name, c, &e, &inf));
    let mut out = std::io::stdout().lock();
    writeln!(out, "adapter: {}", e.adapter)?;
    writeln!(out, "times: {}", e.timer)?;
    writeln!(out)?;
    write!(out, "{}", report::table(&e, &inf, compared.as_ref()))?;
    writeln!(out)?;
    write!(out, "{}", report::summary(&e, &inf, &hw))?;
    if let Some(c) = &compared {
        writeln!(out)?;
        write!(out, "{}", report::fields(&hw, c, &inf, e.patterns.len()))?;
    }
    match (&args.out, inf.verdict) {
        (Some(p), Verdict::Banks) => {
            let text = report::preset(&e, &inf, &hw, base.as_ref().map(|b| b.0.as_str()))?;
            write_atomically(p, &inputs, |w| -> Result<()> { Ok(w.write_all(text.as_bytes())?) })?;
            writeln!(out, "\nwrote {} (banksim run --config {} ...)", p.display(), p.display())?;
        }
        (Some(p), Verdict::NoBanks) => {
            writeln!(out, "\nno preset written to {}: no bank structure seen", p.display())?
        }
        (None, _) => {}
    }
    Ok(())
}

/// A preset or config file (declared an input), with the name to show.
fn load(spec: &str, inputs: &Inputs) -> Result<(String, sim_core::Hardware)> {
    inputs.declare(std::path::Path::new(spec));
    let hw = configs::load(spec)?;
    Ok((spec.to_string(), hw))
}

/// Prints the adapters, numbered as --adapter counts them (the `gpu` feature).
fn list() -> Result<()> {
    with_feature!("gpu", "`banksim probe --list`", {
        let mut out = std::io::stdout().lock();
        for (i, (_, what)) in validate::probe::adapters().iter().enumerate() {
            writeln!(out, "{i}: {what}")?;
        }
        Ok(())
    })
}

/// Times the patterns on the GPU `--adapter` names (the `gpu` feature).
fn measure(args: &ProbeArgs) -> Result<Evidence> {
    with_feature!("gpu", "`banksim probe` on a GPU", {
        use anyhow::Context;
        use pipeline::probe::run::{measure, RunOptions};
        let wanted = match args.adapter.as_deref() {
            Some(a) => match a.parse::<usize>() {
                Ok(i) => {
                    let all = validate::probe::adapters();
                    let (name, _) = all.get(i).with_context(|| {
                        let listed: Vec<String> = all.iter().enumerate().map(|(i, a)| format!("{i}: {}", a.1)).collect();
                        format!("--adapter {i}: there are {} adapters ({})", all.len(), listed.join("; "))
                    })?;
                    Some(name.clone())
                }
                Err(_) => Some(a.to_string()),
            },
            None => None,
        };
        let bar = crate::progress::spinner("opening the GPU");
        let mut gpu = validate::gpu::Gpu::open(wanted.as_deref())?;
        gpu.time_limit = std::time::Duration::from_secs(args.time_limit);
        drop(bar);
        let mut opts = if args.quick { RunOptions::quick() } else { RunOptions::full() };
        if let Some(r) = args.reps {
            opts.reps = r;
        }
        if let Some(g) = args.groups {
            opts.groups = g;
        }
        opts.workgroup = args.workgroup.or(opts.workgroup);
        if let Some(ms) = args.loop_ms {
            opts.target_ns = ms * 1e6;
        }
        let bars = crate::progress::Bars::new();
        Ok(measure(&gpu, &opts, &bars)?)
    }, uses: args)
}
