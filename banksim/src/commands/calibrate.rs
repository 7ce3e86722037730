//! `banksim calibrate`: fit the timing model to measured kernel runs and report predicted
//! against measured speedups (the `gpu` feature; the chart needs `charts`). Glue and
//! output only: the files are read and written by `validate::suite`, the fit is
//! `validate::calibrate::predict_suite`.

use anyhow::{Result, bail};
use clap::Args;
use crate::args::with_feature;
use crate::progress;
use pipeline::output::{Inputs, write_atomically};
use std::io::Write;
use std::path::{Path, PathBuf};
use validate::calibrate::{Occupancy, Role, SuiteCalibration, predict_suite};
use validate::suite;

/// Arguments of `banksim calibrate`.
#[derive(Args)]
#[command(after_help = "Example (the H100 results under validate/results/h100/):
  validate/run_gpu_suite.sh OUT                       # on the GPU: measure.csv (MEASURE_ONLY=1 skips captures)
  CAPTURE_ONLY=1 validate/run_gpu_suite.sh CAPS       # anywhere, lavapipe too: CAPS/traces/*.csv
  banksim calibrate --measured OUT/measure.csv --traces CAPS/traces --out validate/results/h100
Redraw the chart from an earlier run's files, without a GPU or captures:
  banksim calibrate --redraw validate/results/h100    # reads predictions.csv (and the preset
                                                      # name from calibration.ron), writes speedups.png")]
pub struct CalibrateArgs {
    /// The suite: CSV `label,family,role,blocks,scale` (`#` lines are comments); the
    /// first variant of a family is its reference.
    #[arg(long, value_name = "SUITE.csv", default_value = "validate/suite.csv")]
    suite: PathBuf,
    /// Measured times: `banksim measure --csv` output (label and median_us columns).
    #[arg(long, value_name = "MEASURE.csv", required_unless_present = "redraw")]
    measured: Option<PathBuf>,
    /// Folder of captured traces, one LABEL.csv (or .bsim) per variant.
    #[arg(long, value_name = "DIR", required_unless_present = "redraw")]
    traces: Option<PathBuf>,
    /// Preset (or RON file) whose timing parameters the engine uses.
    #[arg(long, short, value_name = "PRESET|FILE", default_value = "h100")]
    config: String,
    /// SM clock of the measured runs, MHz (turns cycles into time).
    #[arg(long, value_name = "MHZ", default_value_t = 1980.0)]
    clock_mhz: f64,
    /// Blocks per SM: `preset` (the preset's `timing.occupancy` rule; on the H100 the
    /// smallest shared-memory carveout that holds one block, as measured through Vulkan)
    /// or `limits` (as many as the preset's limits allow).
    #[arg(long, value_enum, default_value = "preset")]
    occupancy: OccupancyArg,
    /// Most issue cycles per IR operation to try: how long an operation of other work
    /// may hold its warp's scheduler, whatever its latency (the cycles per operation).
    /// Every value is tried with every --issue-share; the pair with the smallest squared
    /// error on the fit families wins.
    #[arg(long, value_name = "C,C,..", value_delimiter = ',', default_value = "2")]
    issue_per_op: Vec<f64>,
    /// Shares of an operation's cycles that hold its scheduler to try (up to
    /// --issue-per-op; 0 < S <= 1): 0.25 is the H100's measured issue over latency of
    /// ALU operations (`validate/results/h100/op_cost.csv`), 1 holds the scheduler for
    /// every cycle up to --issue-per-op.
    #[arg(long, value_name = "S,S,..", value_delimiter = ',', default_value = "0.2,0.25,0.33")]
    issue_share: Vec<f64>,
    /// Output folder: predictions.csv, calibration.ron, speedups.png.
    #[arg(long, value_name = "DIR", required_unless_present = "redraw")]
    out: Option<PathBuf>,
    /// Only redraw DIR/speedups.png from DIR/predictions.csv of an earlier run (the
    /// preset's name from DIR/calibration.ron when there, else --config): no GPU, no
    /// traces, no engine runs.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["measured", "traces", "out"])]
    redraw: Option<PathBuf>,
}

/// How blocks per SM are found.
#[derive(Clone, Copy, clap::ValueEnum)]
pub enum OccupancyArg {
    // the preset's rule
    Preset,
    // the preset's limits
    Limits,
}

/// Runs `banksim calibrate`.
pub fn run(args: &CalibrateArgs) -> Result<()> {
    let inputs = Inputs::new();
    if let Some(dir) = &args.redraw {
        with_feature!("charts", "`banksim calibrate --redraw`", Ok(()))?;
        return redraw(dir, &args.config, &inputs);
    }
    with_feature!("charts", "`banksim calibrate`", Ok(()))?;
    fit(args, &inputs)
}

/// `banksim calibrate --redraw DIR`: DIR/predictions.csv to DIR/speedups.png.
fn redraw(dir: &Path, config: &str, inputs: &Inputs) -> Result<()> {
    let csv = dir.join("predictions.csv");
    inputs.declare(&csv);
    let points = suite::read_predictions(&csv)?;
    let preset = suite::preset_of(&dir.join("calibration.ron")).unwrap_or_else(|| config.to_string());
    let png = dir.join("speedups.png");
    chart(&png, inputs, &preset, &points)?;
    println!("wrote {} ({} variants from {})", png.display(), points.len(), csv.display());
    Ok(())
}

/// The calibration chart of `points` at `png`.
fn chart(png: &Path, inputs: &Inputs, preset: &str, points: &[suite::Point]) -> Result<()> {
    let points: Vec<(bool, f64, f64)> = points.iter().map(|p| (p.fit, p.measured, p.predicted)).collect();
    with_feature!("charts", "`banksim calibrate`", crate::charts::calibration(png, inputs, preset, &points))
}

fn fit(args: &CalibrateArgs, inputs: &Inputs) -> Result<()> {
    let (Some(measured_path), Some(traces_dir), Some(out_dir)) = (&args.measured, &args.traces, &args.out)
    else {
        bail!("--measured, --traces and --out are needed (or --redraw DIR)");
    };
    if !(args.clock_mhz.is_finite() && args.clock_mhz > 0.0) {
        bail!("--clock-mhz {}: expected a positive number", args.clock_mhz);
    }
    inputs.declare_all([args.suite.as_path(), measured_path.as_path(), Path::new(&args.config)]);
    inputs.declare_folder(traces_dir);
    let hw = configs::load(&args.config)?;
    if hw.timing.is_none() {
        bail!("preset `{}` has no timing parameters", hw.name);
    }
    let rows = suite::read_suite(&args.suite)?;
    let (measured, warnings) = suite::read_measured(measured_path)?;
    for w in warnings {
        eprintln!("warning: {w}");
    }
    let variants = suite::variants(&rows, &measured, measured_path, &args.suite, traces_dir, hw.warp)?;
    std::fs::create_dir_all(out_dir).map_err(|e| anyhow::anyhow!("{}: cannot create: {e}", out_dir.display()))?;

    let families = variants.iter().map(|v| &v.family).collect::<std::collections::HashSet<_>>().len();
    if args.issue_per_op.iter().any(|c| !(c.is_finite() && *c >= 0.0)) {
        bail!("--issue-per-op {:?}: each must be a non-negative number", args.issue_per_op);
    }
    if args.issue_share.iter().any(|s| !(*s > 0.0 && *s <= 1.0)) {
        bail!("--issue-share {:?}: each must be above 0 and at most 1", args.issue_share);
    }
    let issue: Vec<(f64, f64)> =
        args.issue_per_op.iter().flat_map(|&c| args.issue_share.iter().map(move |&s| (c, s))).collect();
    let runs = ((variants.len() + families) * issue.len() + variants.len() * issue.len()) as u64;
    let bar = progress::steps(runs, "engine runs", "calibrating");
    let occupancy = match args.occupancy {
        OccupancyArg::Preset => hw.timing.as_ref().map(|t| t.occupancy.clone()).unwrap_or_default(),
        OccupancyArg::Limits => Occupancy::Limits,
    };
    let cal = predict_suite(&hw, &variants, args.clock_mhz, &occupancy, &issue, &|label| {
        bar.say(label.to_string());
        bar.inc(1);
    })?;
    drop(bar);

    let csv_path = out_dir.join("predictions.csv");
    write_atomically(&csv_path, inputs, |w| -> Result<()> { Ok(suite::write_predictions(w, &cal)?) })?;
    let ron_path = out_dir.join("calibration.ron");
    let command = format!(
        "banksim calibrate --suite {} --measured {} --traces DIR --config {} --clock-mhz {}",
        args.suite.display(),
        measured_path.display(),
        args.config,
        args.clock_mhz
    );
    let ron_text = suite::calibration_ron(&hw, &cal, &command)?;
    write_atomically(&ron_path, inputs, |w| -> Result<()> { Ok(w.write_all(ron_text.as_bytes())?) })?;
    let png = out_dir.join("speedups.png");
    chart(&png, inputs, &hw.name, &suite::points(&cal))?;

    let mut out = std::io::stdout().lock();
    print_summary(&mut out, &cal)?;
    writeln!(out, "wrote {}, {}, {}", csv_path.display(), ron_path.display(), png.display())?;
    Ok(())
}

fn print_summary(out: &mut dyn Write, cal: &SuiteCalibration) -> std::io::Result<()> {
    writeln!(
    out,
    "fitted on the fit families: overlap {:.4}{}, issue share {} of an operation's cycles, at most {} cycles (squared error per pair tried: {}); dispatch overhead {:.2} us",
    cal.overlap,
    if cal.overlap_fitted { "" } else { " (the preset's, and its issue share: no measured fit variant besides the references)" },
    cal.model.issue_share,
    cal.model.issue_per_op,
    cal.search.iter().map(|(c, s, e)| format!("{s} up to {c}: {e:.4}")).collect::<Vec<_>>().join(", "),
    cal.overhead_us
)?;
    writeln!(
        out,
        "{:<26} {:<8} {:>7} {:>12} {:>12} {:>9} {:>9} {:>8} {:>10} {:>7}",
        "variant",
        "role",
        "c/op",
        "measured us",
        "predicted us",
        "meas. x",
        "pred. x",
        "error",
        "preset us",
        "error"
    )?;
    for p in &cal.predictions {
        writeln!(
            out,
            "{:<26} {:<8} {:>7.3} {:>12.1} {:>12.1} {:>9.3} {:>9.3} {:>7.1}% {:>10.1} {:>6.1}%{}",
            p.label,
            if p.role == Role::Fit { "fit" } else { "holdout" },
            p.cycles_per_op,
            p.measured_us,
            p.predicted_us,
            p.measured_speedup,
            p.predicted_speedup,
            100.0 * p.error,
            p.preset_us,
            100.0 * (p.preset_us / p.measured_us - 1.0),
            if p.reference { "  (reference)" } else { "" }
        )?;
    }
    for role in [Role::Fit, Role::Holdout] {
        let errs: Vec<f64> = cal
            .predictions
            .iter()
            .filter(|p| p.role == role && !p.reference && p.error.is_finite())
            .map(|p| p.error.abs())
            .collect();
        let worst = errs.iter().fold(0.0f64, |m, &e| m.max(e));
        let within = errs.iter().filter(|&&e| e <= 0.10).count();
        writeln!(
            out,
            "{}: {} predicted variants with a measurement, worst speedup error {:.1}%, {} within 10%",
            if role == Role::Fit { "fit" } else { "holdout" },
            errs.len(),
            100.0 * worst,
            within
        )?;
    }
    let mut errs: Vec<f64> = cal
        .predictions
        .iter()
        .map(|p| (p.preset_us / p.measured_us - 1.0).abs())
        .filter(|e| e.is_finite())
        .collect();
    if !errs.is_empty() {
        errs.sort_by(f64::total_cmp);
        writeln!(
            out,
            "no measurement at all (the preset's cost of an operation): {} of {} within 25%, median error {:.1}%",
            errs.iter().filter(|&&e| e <= 0.25).count(),
            errs.len(),
            100.0 * errs[errs.len() / 2]
        )?;
    }
    Ok(())
}
