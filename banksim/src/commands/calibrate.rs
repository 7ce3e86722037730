//! `banksim calibrate`: fit the timing model to measured kernel runs and report predicted
//! against measured speedups. Glue and output only: the fit is in
//! `validate::calibrate::predict_suite` (the `gpu` feature); the chart needs `charts`.

use anyhow::Result;
use clap::Args;
use std::path::PathBuf;

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
#[cfg_attr(not(all(feature = "gpu", feature = "charts")), allow(unused_variables))]
pub fn run(args: &CalibrateArgs) -> Result<()> {
    #[cfg(feature = "charts")]
    if let Some(dir) = &args.redraw {
        return redraw::run(dir, &args.config);
    }
    #[cfg(not(feature = "charts"))]
    if args.redraw.is_some() {
        return Err(super::args::needs_feature("`banksim calibrate --redraw`", "charts"));
    }
    #[cfg(all(feature = "gpu", feature = "charts"))]
    return run_fit(args);
    #[cfg(not(feature = "gpu"))]
    return Err(super::args::needs_feature("`banksim calibrate`", "gpu"));
    #[cfg(all(feature = "gpu", not(feature = "charts")))]
    return Err(super::args::needs_feature("`banksim calibrate`", "charts"));
}

#[cfg(all(feature = "gpu", feature = "charts"))]
use crate::output::progress;
#[cfg(all(feature = "gpu", feature = "charts"))]
use crate::output::write_atomically;
#[cfg(all(feature = "gpu", feature = "charts"))]
use anyhow::{bail, Context};
#[cfg(all(feature = "gpu", feature = "charts"))]
use std::collections::HashMap;
#[cfg(all(feature = "gpu", feature = "charts"))]
use std::io::Write;
#[cfg(all(feature = "gpu", feature = "charts"))]
use std::path::Path;
#[cfg(all(feature = "gpu", feature = "charts"))]
use validate::calibrate::{predict_suite, Occupancy, Role, SuiteCalibration, Variant};

#[cfg(all(feature = "gpu", feature = "charts"))]
struct SuiteRow {
    label: String,
    family: String,
    role: Role,
    blocks: u32,
    scale: f64,
}

#[cfg(all(feature = "gpu", feature = "charts"))]
fn read_suite(path: &Path) -> Result<Vec<SuiteRow>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("{}: cannot read", path.display()))?;
    let mut rows = Vec::new();
    let mut header = false;
    for (n, line) in text.lines().enumerate() {
        let at = || format!("{}:{}", path.display(), n + 1);
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let f: Vec<&str> = line.split(',').map(str::trim).collect();
        if !header {
            if f != ["label", "family", "role", "blocks", "scale"] {
                bail!("{}: expected the header `label,family,role,blocks,scale`, found `{line}`", at());
            }
            header = true;
            continue;
        }
        if f.len() != 5 {
            bail!("{}: expected 5 fields (label,family,role,blocks,scale), found {}", at(), f.len());
        }
        let role = match f[2] {
            "fit" => Role::Fit,
            "holdout" => Role::Holdout,
            other => bail!("{}: role `{other}`: expected `fit` or `holdout`", at()),
        };
        let blocks: u32 = f[3]
            .parse()
            .ok()
            .filter(|&b| b > 0)
            .with_context(|| format!("{}: blocks `{}`: expected a positive integer", at(), f[3]))?;
        let scale: f64 = f[4]
            .parse()
            .ok()
            .filter(|s: &f64| s.is_finite() && *s > 0.0)
            .with_context(|| format!("{}: scale `{}`: expected a positive number", at(), f[4]))?;
        rows.push(SuiteRow { label: f[0].into(), family: f[1].into(), role, blocks, scale });
    }
    if rows.is_empty() {
        bail!("{}: no variants", path.display());
    }
    Ok(rows)
}

/// A row of `banksim measure --csv` output: the median time, and the workgroup's shared
/// memory and the dispatch's buffers where the file has them.
#[cfg(all(feature = "gpu", feature = "charts"))]
#[derive(Clone, Copy)]
struct Measured {
    us: f64,
    smem: Option<u32>,
    global: Option<u64>,
}

#[cfg(all(feature = "gpu", feature = "charts"))]
fn read_measured(path: &Path) -> Result<HashMap<String, Measured>> {
    let mut r = csv::Reader::from_path(path).with_context(|| format!("{}: cannot read", path.display()))?;
    let headers = r.headers().with_context(|| format!("{}: no header", path.display()))?.clone();
    let col = |name: &str| {
        headers.iter().position(|h| h == name).with_context(|| {
            format!("{}: no `{name}` column (expected `banksim measure --csv` output)", path.display())
        })
    };
    let (label, median) = (col("label")?, col("median_us")?);
    // (older files have no `shared_bytes` or `global_bytes`: the trace's own extent and
    // lines are used)
    let shared = headers.iter().position(|h| h == "shared_bytes");
    let global = headers.iter().position(|h| h == "global_bytes");
    if global.is_none() {
        eprintln!(
            "warning: {}: no `global_bytes` column (an older `banksim measure`): a variant with global \
             loads or stores takes its capture's distinct lines for its buffers, so the re-reads of \
             its replicated workgroups count as L2 hits; measure again to record the buffers' size",
            path.display()
        );
    }
    let mut out = HashMap::new();
    for (i, rec) in r.records().enumerate() {
        let rec = rec.with_context(|| format!("{}:{}", path.display(), i + 2))?;
        let t: f64 =
            rec[median].parse().ok().filter(|t: &f64| t.is_finite() && *t > 0.0).with_context(|| {
                format!(
                    "{}:{}: median_us `{}`: expected a positive number",
                    path.display(),
                    i + 2,
                    &rec[median]
                )
            })?;
        let bytes = |column: Option<usize>, name: &str| -> Result<Option<u64>> {
            match column.map(|c| &rec[c]) {
                None | Some("") => Ok(None),
                Some(s) => Ok(Some(s.parse::<u64>().ok().with_context(|| {
                    format!("{}:{}: {name} `{s}`: expected a whole number of bytes", path.display(), i + 2)
                })?)),
            }
        };
        let smem = bytes(shared, "shared_bytes")?
            .map(|b| {
                u32::try_from(b)
                    .with_context(|| format!("{}:{}: shared_bytes {b}: too large", path.display(), i + 2))
            })
            .transpose()?;
        let global = bytes(global, "global_bytes")?;
        out.insert(rec[label].to_string(), Measured { us: t, smem, global });
    }
    Ok(out)
}

#[cfg(all(feature = "gpu", feature = "charts"))]
fn run_fit(args: &CalibrateArgs) -> Result<()> {
    let (Some(measured_path), Some(traces_dir), Some(out_dir)) = (&args.measured, &args.traces, &args.out)
    else {
        bail!("--measured, --traces and --out are needed (or --redraw DIR)");
    };
    if !(args.clock_mhz.is_finite() && args.clock_mhz > 0.0) {
        bail!("--clock-mhz {}: expected a positive number", args.clock_mhz);
    }
    crate::output::declare_inputs([args.suite.as_path(), measured_path.as_path(), Path::new(&args.config)]);
    crate::output::declare_folder(traces_dir);
    let hw = configs::load(&args.config)?;
    if hw.timing.is_none() {
        bail!("preset `{}` has no timing parameters", hw.name);
    }
    let suite = read_suite(&args.suite)?;
    let measured = read_measured(measured_path)?;
    let mut variants = Vec::with_capacity(suite.len());
    let mut families_seen = std::collections::HashSet::new();
    for row in suite {
        // a family's first variant is its reference and must be measured; the others
        // without a measurement are predicted, never fitted to
        let reference = families_seen.insert(row.family.clone());
        let m = measured.get(&row.label).copied();
        let (smem_bytes, global_bytes) = (m.and_then(|m| m.smem), m.and_then(|m| m.global));
        let measured_time = m.map(|m| m.us).or((!reference).then_some(f64::NAN));
        let Some(t) = measured_time else {
            bail!(
                "{}: `{}`, the reference of family `{}` in {} (its first variant), has no measurement: the family's other variants are predicted from its time",
                measured_path.display(),
                row.label,
                row.family,
                args.suite.display()
            );
        };
        let path = ["csv", "bsim"]
            .iter()
            .map(|ext| traces_dir.join(format!("{}.{ext}", row.label)))
            .find(|p| p.exists())
            .with_context(|| {
                format!(
                    "{}: no trace {}.csv or {}.bsim for variant `{}`",
                    traces_dir.display(),
                    row.label,
                    row.label,
                    row.label
                )
            })?;
        let trace = traces::read_any(&path)?;
        let requests = traces::Requests::group(&trace, hw.warp)?;
        variants.push(Variant {
            label: row.label,
            family: row.family,
            role: row.role,
            blocks: row.blocks,
            scale: row.scale,
            measured_us: t,
            requests,
            smem_bytes,
            global_bytes,
        });
    }
    std::fs::create_dir_all(out_dir).with_context(|| format!("{}: cannot create", out_dir.display()))?;

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
    write_atomically(&csv_path, |w| -> Result<()> { Ok(write_predictions(w, &cal)?) })?;
    let ron_path = out_dir.join("calibration.ron");
    let ron_text = calibration_ron(&hw, &cal, args)?;
    write_atomically(&ron_path, |w| -> Result<()> { Ok(w.write_all(ron_text.as_bytes())?) })?;
    let png = out_dir.join("speedups.png");
    let points: Vec<redraw::Point> = cal
        .predictions
        .iter()
        .filter(|p| !p.reference && p.measured_us.is_finite())
        .map(|p| redraw::Point {
            fit: p.role == Role::Fit,
            measured: p.measured_speedup,
            predicted: p.predicted_speedup,
        })
        .collect();
    redraw::chart(&png, &hw.name, &points)?;

    let mut out = std::io::stdout().lock();
    print_summary(&mut out, &cal)?;
    writeln!(out, "wrote {}, {}, {}", csv_path.display(), ron_path.display(), png.display())?;
    Ok(())
}

/// A figure that needs a measurement: empty where the variant was not measured.
#[cfg(all(feature = "gpu", feature = "charts"))]
fn measured(v: f64, decimals: usize) -> String {
    if v.is_finite() {
        format!("{v:.decimals$}")
    } else {
        String::new()
    }
}

#[cfg(all(feature = "gpu", feature = "charts"))]
fn write_predictions(w: &mut dyn Write, cal: &SuiteCalibration) -> std::io::Result<()> {
    writeln!(
    w,
    "label,family,role,reference,cycles_per_op,engine_cycles,measured_us,predicted_us,measured_speedup,predicted_speedup,error,preset_us"
)?;
    for p in &cal.predictions {
        writeln!(
            w,
            "{},{},{},{},{:.4},{:.0},{},{:.3},{},{:.4},{},{}",
            p.label,
            p.family,
            if p.role == Role::Fit { "fit" } else { "holdout" },
            p.reference as u8,
            p.cycles_per_op,
            p.engine_cycles,
            measured(p.measured_us, 3),
            p.predicted_us,
            measured(p.measured_speedup, 4),
            p.predicted_speedup,
            measured(p.error, 4),
            measured(p.preset_us, 3)
        )?;
    }
    Ok(())
}

#[cfg(all(feature = "gpu", feature = "charts"))]
fn calibration_ron(hw: &sim_core::Hardware, cal: &SuiteCalibration, args: &CalibrateArgs) -> Result<String> {
    #[derive(serde::Serialize)]
    struct Out<'a> {
        preset: &'a str,
        timing: &'a sim_core::Timing,
        clock_mhz: f64,
        overlap: f64,
        dispatch_overhead_us: f64,
        occupancy: String,
        issue_per_op: f64,
        issue_share: f64,
        issue_search_sse: &'a [(f64, f64, f64)],
        cycles_per_op: &'a [(String, f64)],
        max_abs_speedup_error_fit: f64,
        max_abs_speedup_error_holdout: f64,
    }
    let worst = |role| {
        cal.predictions
            .iter()
            .filter(|p| p.role == role && !p.reference && p.error.is_finite())
            .fold(0.0f64, |m, p| m.max(p.error.abs()))
    };
    let out = Out {
        preset: &hw.name,
        timing: hw.timing.as_ref().expect("checked"),
        clock_mhz: cal.clock_mhz,
        overlap: cal.overlap,
        dispatch_overhead_us: cal.overhead_us,
        occupancy: format!("{:?}", cal.model.occupancy),
        issue_per_op: cal.model.issue_per_op,
        issue_share: cal.model.issue_share,
        issue_search_sse: &cal.search,
        cycles_per_op: &cal.cycles_per_op,
        max_abs_speedup_error_fit: worst(Role::Fit),
        max_abs_speedup_error_holdout: worst(Role::Holdout),
    };
    let body = ron::ser::to_string_pretty(&out, ron::ser::PrettyConfig::default())?;
    Ok(format!(
        "// `banksim calibrate --suite {} --measured {} --traces DIR --config {} --clock-mhz {}`\n\
     // timing: the preset's engine parameters (from the ncu and empty-kernel\n\
     // microbenchmarks); cycles_per_op: cycles a warp spends per IR operation of other\n\
     // work, solved per kernel family from its reference variant (pass it to `banksim run\n\
     // --cycles --cycles-per-op` for a capture); issue_share and issue_per_op: the\n\
     // share of an operation's cycles on the scheduler, and the most (searched, as\n\
     // (issue_per_op, issue_share, squared error)); overlap: share of the engine's\n\
     // predicted change that shows in the measured time; fitted on the `fit` families\n\
     // only.\n{body}\n",
        args.suite.display(),
        args.measured.as_deref().unwrap_or(Path::new("-")).display(),
        args.config,
        args.clock_mhz
    ))
}

#[cfg(all(feature = "gpu", feature = "charts"))]
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

#[cfg(feature = "charts")]
mod redraw;
