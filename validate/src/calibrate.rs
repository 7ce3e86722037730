//! Calibration helpers: linear least squares and predicted-vs-measured speedups.
//!
//! The timing model's time for a kernel is, to first order, linear in its free
//! parameters once the simulation has counted what each one multiplies (wavefronts
//! through the pipe, dependent-load latencies, cycles of other work, ...): `time ≈ Σ θ_j
//! x_j`. [`fit`] finds the θ minimising the squared error over measured runs, and
//! [`speedups`] compares predicted and measured speedups of the variants of one kernel
//! against a reference variant, which is what the model has to get right (absolute
//! time also depends on global memory, which banksim does not model in detail).
//!
//! [`predict_suite`] is the calibration of the kernel suite (`validate/suite.csv`): per
//! kernel family, the cycles per IR operation of other work are solved from the
//! measured time of the family's reference variant (the "given the measured time of
//! one variant" of the validation target) less the dispatch's fixed overhead (the
//! timing's `dispatch_overhead_cycles`, measured with an empty kernel); the engine then
//! predicts every other variant, and one global `overlap` κ (how much of the engine's
//! predicted change shows in the measured time) is fitted by least squares on the
//! families marked `fit` and applied unchanged to the `holdout` families. The issue
//! cycles an operation holds its scheduler for (whatever its latency, the cycles per
//! operation) are one global value, searched on the `fit` families too.

pub use crate::error::CalibrateError;
use rayon::prelude::*;
use sim_core::engine::{EngineError, EngineOptions};
use sim_core::launch::{self, Gaps, Launch};
use sim_core::Hardware;

/// Least-squares θ for `rows` of (features x, measured y): minimises Σ (x·θ − y)².
/// Solved by Householder QR, so it is stable for badly scaled features.
pub fn fit(rows: &[(Vec<f64>, f64)]) -> Result<Vec<f64>, CalibrateError> {
    let n = rows
        .first()
        .map(|r| r.0.len())
        .ok_or_else(|| CalibrateError::Shape { what: "no measurements".into() })?;
    if rows.iter().any(|r| r.0.len() != n) {
        return Err(CalibrateError::Shape { what: "rows have different numbers of features".into() });
    }
    if rows.len() < n {
        return Err(CalibrateError::Shape {
            what: format!("{} measurements for {n} parameters", rows.len()),
        });
    }
    let m = rows.len();
    let mut a: Vec<Vec<f64>> = rows.iter().map(|r| r.0.clone()).collect();
    let mut b: Vec<f64> = rows.iter().map(|r| r.1).collect();
    let scale = a.iter().flatten().fold(0.0f64, |s, v| s.max(v.abs())).max(1.0);
    for k in 0..n {
        let norm = (k..m).map(|i| a[i][k] * a[i][k]).sum::<f64>().sqrt();
        if norm <= 1e-12 * scale {
            return Err(CalibrateError::Singular { column: k });
        }
        let alpha = if a[k][k] > 0.0 { -norm } else { norm };
        let mut v: Vec<f64> = (k..m).map(|i| a[i][k]).collect();
        v[0] -= alpha;
        let vv: f64 = v.iter().map(|x| x * x).sum();
        if vv > 0.0 {
            for j in k..n {
                let d: f64 = (k..m).map(|i| v[i - k] * a[i][j]).sum::<f64>() * 2.0 / vv;
                for (row, vi) in a[k..].iter_mut().zip(&v) {
                    row[j] -= d * vi;
                }
            }
            let d: f64 = (k..m).map(|i| v[i - k] * b[i]).sum::<f64>() * 2.0 / vv;
            for (bi, vi) in b[k..].iter_mut().zip(&v) {
                *bi -= d * vi;
            }
        }
    }
    let mut theta = vec![0.0; n];
    for k in (0..n).rev() {
        let s: f64 = (k + 1..n).map(|j| a[k][j] * theta[j]).sum();
        theta[k] = (b[k] - s) / a[k][k];
    }
    Ok(theta)
}

/// Predicted time of features `x` under `theta`.
pub fn predict(theta: &[f64], x: &[f64]) -> f64 {
    theta.iter().zip(x).map(|(t, v)| t * v).sum()
}

/// One row of a speedup table.
#[derive(Clone, Debug, PartialEq)]
pub struct Speedup {
    /// The variant.
    pub variant: String,
    /// Measured time of the reference / measured time of the variant.
    pub measured: f64,
    /// The same ratio from the predictions.
    pub predicted: f64,
    /// predicted / measured − 1.
    pub error: f64,
}

/// Speedups of every variant relative to `reference`, from (name, measured, predicted)
/// times; None when the reference is missing or a time is not positive.
pub fn speedups(variants: &[(String, f64, f64)], reference: &str) -> Option<Vec<Speedup>> {
    let &(_, m0, p0) = variants.iter().find(|v| v.0 == reference)?;
    if variants.iter().any(|v| v.1 <= 0.0 || v.2 <= 0.0) {
        return None;
    }
    Some(
        variants
            .iter()
            .map(|(name, m, p)| {
                let (measured, predicted) = (m0 / m, p0 / p);
                Speedup { variant: name.clone(), measured, predicted, error: predicted / measured - 1.0 }
            })
            .collect(),
    )
}

/// Whether a variant's family calibrates the global parameters or is only predicted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Used to fit the global parameters.
    Fit,
    /// Predicted with the fitted parameters, never used to fit them.
    Holdout,
}

/// One timed kernel variant with its captured trace.
pub struct Variant {
    /// Its name (`measure.csv`'s label).
    pub label: String,
    /// Variants of one family are compared with each other.
    pub family: String,
    /// Fit or hold-out.
    pub role: Role,
    /// Workgroups of the timed dispatch.
    pub blocks: u32,
    /// Timed work / captured work (loop steps captured fewer than timed).
    pub scale: f64,
    /// Measured median time, microseconds; NaN for a variant that was not measured
    /// (predicted, never fitted to; a family's reference must be measured).
    pub measured_us: f64,
    /// The captured requests (gaps in IR operations).
    pub requests: traces::Requests,
    /// Shared memory the driver allocates per workgroup, where known: every workgroup
    /// variable the kernel declares (`banksim measure`'s `shared_bytes`, a capture's),
    /// which wgpu zeroes whether or not a variant touches it. `None`: the bytes the
    /// trace touches.
    pub smem_bytes: Option<u32>,
    /// Bytes of the buffers the measured dispatch binds (`banksim measure`'s
    /// `global_bytes`): the global memory it can touch, which sets the share of its lines
    /// the L2 serves. `None`: the distinct lines of the trace's global requests.
    pub global_bytes: Option<u64>,
}

pub use sim_core::Occupancy;

/// The global model parameters calibration searches.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Model {
    /// Blocks per SM.
    pub occupancy: Occupancy,
    /// Most cycles one IR operation of other work holds its warp's scheduler (issue
    /// slots). The warp itself spends the cycles per operation on it.
    pub issue_per_op: f64,
    /// Share of an operation's cycles that hold the scheduler, up to `issue_per_op`:
    /// a family whose operations cost more runs more machine instructions per operation
    /// (see [`sim_core::OpCost`]).
    pub issue_share: f64,
}

/// Engine cycles of `v`'s timed dispatch at `cycles_per_op` (times its scale): see
/// [`dispatch_launch`] (`full`: every block simulated, [`EngineOptions::full`]).
pub fn dispatch_cycles(
    hw: &Hardware,
    model: &Model,
    v: &Variant,
    cycles_per_op: f64,
    full: bool,
) -> Result<f64, EngineError> {
    let r = dispatch_launch(hw, model, v, cycles_per_op, EngineOptions { full, ..Default::default() })?;
    Ok(r.engine.cycles as f64 * v.scale)
}

/// `v`'s timed dispatch at `cycles_per_op` through the launch timing model every command
/// uses ([`sim_core::launch::run`]), with `model`'s occupancy rule and issue cycles per
/// operation, and the engine's `options` (e.g. `no_conflicts` for a what-if).
pub fn dispatch_launch(
    hw: &Hardware,
    model: &Model,
    v: &Variant,
    cycles_per_op: f64,
    mut options: EngineOptions,
) -> Result<launch::LaunchReport, EngineError> {
    if options.smem_per_block.is_none() {
        options.smem_per_block = v.smem_bytes.filter(|&b| b > 0);
    }
    let mut hw = hw.clone();
    if let Some(t) = hw.timing.as_mut() {
        t.occupancy = model.occupancy.clone();
    }
    let launch = Launch {
        blocks: Some(v.blocks),
        gaps: Gaps::Ops { cycles_per_op, issue_per_op: model.issue_per_op, issue_share: model.issue_share },
        options,
        footprint: v.global_bytes,
    };
    launch::run(&hw, &v.requests, &launch)
}

/// The most cycles per IR operation a measured time may be solved to: a time that needs
/// more is not the model's (a wrong time, or work the trace does not hold).
pub const MAX_SOLVED_CYCLES_PER_OP: f64 = 1e6;

/// The cycles per operation at which `v`'s dispatch takes `target` cycles (its measured
/// time less the dispatch overhead): the smallest within 0.1% when the engine's time
/// grows with it. Regula falsi (Illinois) on a bracket that doubles until it holds
/// (`full` as in [`dispatch_cycles`]).
///
/// Refused, rather than clamped, where no cost reproduces the time: the trace has no
/// other work (every gap 0: the time says nothing about an operation's cost), the time
/// is shorter than the dispatch with no other work at all, or it needs more than
/// [`MAX_SOLVED_CYCLES_PER_OP`].
pub fn solve_cycles_per_op(
    hw: &Hardware,
    model: &Model,
    v: &Variant,
    target: f64,
    full: bool,
) -> Result<f64, CalibrateError> {
    let unsolvable = |what: String| CalibrateError::Unsolvable { label: v.label.clone(), what };
    if v.requests.iter().all(|r| r.gap == 0) {
        return Err(unsolvable(
            "its trace has no other work (every gap is 0): its time says nothing about the cost of an IR \
             operation, so none can be calibrated from it"
                .into(),
        ));
    }
    if !target.is_finite() {
        return Err(unsolvable("its measured time is more cycles than can be counted".into()));
    }
    let engine = |e: EngineError| CalibrateError::Shape { what: format!("{}: {e}", v.label) };
    let f = |c: f64| dispatch_cycles(hw, model, v, c, full).map(|e| e - target).map_err(engine);
    let (mut a, mut fa) = (0.0, f(0.0)?);
    if fa >= 0.0 {
        // even no other work takes the measured time: exact within the solver's
        // tolerance, else shorter than any cost can make it
        if fa <= 1e-3 * target {
            return Ok(0.0);
        }
        return Err(unsolvable(format!(
            "its measured time ({target:.0} cycles after the dispatch overhead) is shorter than the engine's {:.0} \
             cycles for its dispatch with no other work at all: no cost of an IR operation reproduces it",
            fa + target
        )));
    }
    let (mut b, mut fb) = (1.0, f(1.0)?);
    while fb < 0.0 {
        (a, fa) = (b, fb);
        b *= 2.0;
        if b > MAX_SOLVED_CYCLES_PER_OP {
            return Err(unsolvable(format!(
                "its measured time ({target:.0} cycles after the dispatch overhead) needs more than \
                 {MAX_SOLVED_CYCLES_PER_OP} cycles per IR operation: not a time this trace's work can take"
            )));
        }
        fb = f(b)?;
    }
    let mut side = 0;
    for _ in 0..40 {
        let c = (a * fb - b * fa) / (fb - fa);
        let fc = f(c)?;
        if fc.abs() <= 1e-3 * target || (b - a) <= 1e-6 * b {
            return Ok(c);
        }
        if fc < 0.0 {
            (a, fa) = (c, fc);
            if side == -1 {
                fb /= 2.0;
            }
            side = -1;
        } else {
            (b, fb) = (c, fc);
            if side == 1 {
                fa /= 2.0;
            }
            side = 1;
        }
    }
    Ok((a + b) / 2.0)
}

/// One row of the calibration's result.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Prediction {
    /// The variant.
    pub label: String,
    /// Its family.
    pub family: String,
    /// Fit or hold-out.
    pub role: Role,
    /// Whether it is its family's reference (its time is given, not predicted).
    pub reference: bool,
    /// The family's solved cycles per IR operation.
    pub cycles_per_op: f64,
    /// Engine cycles of the dispatch.
    pub engine_cycles: f64,
    /// Measured time, microseconds.
    pub measured_us: f64,
    /// Predicted time, microseconds.
    pub predicted_us: f64,
    /// Reference time / this variant's measured time.
    pub measured_speedup: f64,
    /// Reference time / this variant's predicted time.
    pub predicted_speedup: f64,
    /// predicted_speedup / measured_speedup − 1.
    pub error: f64,
    /// Predicted time with no measurement at all, microseconds: the preset's cost of an
    /// IR operation (`timing.ops`) instead of the family's solved one, plus the dispatch
    /// overhead (what `banksim predict` prints); NaN where the preset has none.
    pub preset_us: f64,
}

/// The suite's calibration: the fitted global parameters and every prediction.
#[derive(Clone, Debug, serde::Serialize)]
pub struct SuiteCalibration {
    /// Clock used to turn cycles into time, MHz.
    pub clock_mhz: f64,
    /// Fitted share of the engine's predicted change that shows in measured time.
    pub overlap: f64,
    /// Whether `overlap` was fitted (false: no `fit` family had a measured variant
    /// besides its reference, and the preset's `timing.ops.overlap` was taken).
    pub overlap_fitted: bool,
    /// Fixed time of a dispatch (the timing's `dispatch_overhead_cycles`), microseconds.
    pub overhead_us: f64,
    /// The model parameters chosen (the issue cycles per operation searched).
    pub model: Model,
    /// Sum of squared relative time errors on the fit families, per issue model tried:
    /// (most issue cycles per operation, issue share, error).
    pub search: Vec<(f64, f64, f64)>,
    /// Per family: solved cycles per IR operation.
    pub cycles_per_op: Vec<(String, f64)>,
    /// Every variant, in suite order.
    pub predictions: Vec<Prediction>,
}

/// Calibrates the suite: see the module documentation. `issue` lists the issue models
/// to try, (most issue cycles per operation, share of an operation's cycles): the one
/// with the smallest squared error on the fit families wins (the preset's alone where no
/// fit family has a measured variant besides its reference). `progress` is called once
/// per engine evaluation finished (for a progress bar).
pub fn predict_suite(
    hw: &Hardware,
    variants: &[Variant],
    clock_mhz: f64,
    occupancy: &Occupancy,
    issue: &[(f64, f64)],
    progress: &(dyn Fn(&str) + Sync),
) -> Result<SuiteCalibration, CalibrateError> {
    // with no measured fit variant besides the references nothing chooses between the
    // issue models: the preset's, as its overlap is taken
    let preset = hw.timing.as_ref().and_then(|t| t.ops.as_ref()).map(|o| [(o.issue_per_op, o.issue_share)]);
    let issue = match &preset {
        Some(preset) if fit_variants(variants).next().is_none() => &preset[..],
        _ => issue,
    };
    let mut best: Option<(f64, SuiteCalibration)> = None;
    let mut search = Vec::new();
    for &(ipo, share) in issue {
        let model = Model { occupancy: occupancy.clone(), issue_per_op: ipo, issue_share: share };
        let cal = predict_with(hw, &model, variants, clock_mhz, progress)?;
        let sse: f64 = cal
            .predictions
            .iter()
            .filter(|p| p.role == Role::Fit && !p.reference && p.measured_us.is_finite())
            .map(|p| ((p.predicted_us - p.measured_us) / p.measured_us).powi(2))
            .sum();
        search.push((ipo, share, sse));
        if best.as_ref().is_none_or(|b| sse < b.0) {
            best = Some((sse, cal));
        }
    }
    let (_, mut best) =
        best.ok_or_else(|| CalibrateError::Shape { what: "no issue cycles per operation to try".into() })?;
    best.search = search;
    Ok(best)
}

/// The measured `fit` variants besides their families' references (each family's first
/// variant): what the overlap and the issue model are fitted to.
fn fit_variants(variants: &[Variant]) -> impl Iterator<Item = usize> + '_ {
    (0..variants.len()).filter(move |&i| {
        let v = &variants[i];
        let reference = variants.iter().position(|w| w.family == v.family) == Some(i);
        v.role == Role::Fit && !reference && v.measured_us.is_finite()
    })
}

/// [`predict_suite`] for one model.
fn predict_with(
    hw: &Hardware,
    model: &Model,
    variants: &[Variant],
    clock_mhz: f64,
    progress: &(dyn Fn(&str) + Sync),
) -> Result<SuiteCalibration, CalibrateError> {
    let engine_err = |label: &str, e: EngineError| CalibrateError::Shape { what: format!("{label}: {e}") };
    // families in order of first appearance; the first variant is the reference
    let mut families: Vec<(&str, Vec<usize>)> = Vec::new();
    for (i, v) in variants.iter().enumerate() {
        match families.iter_mut().find(|f| f.0 == v.family) {
            Some(f) => f.1.push(i),
            None => families.push((&v.family, vec![i])),
        }
    }
    let overhead = hw.timing.as_ref().map_or(0.0, |t| t.dispatch_overhead_cycles as f64);
    // per family (in parallel): the reference's cycles per operation, then every member
    let solved: Vec<(f64, Vec<f64>)> = families
        .par_iter()
        .map(|(_, members)| {
            let r = &variants[members[0]];
            if !r.measured_us.is_finite() {
                return Err(CalibrateError::Shape {
                    what: format!(
                        "family `{}`: its reference `{}` (its first variant) has no measured time; the other variants are predicted from it",
                        r.family, r.label
                    ),
                });
            }
            let target = (r.measured_us * clock_mhz - overhead).max(0.0);
            let c = solve_cycles_per_op(hw, model, r, target, false)?;
            progress(&r.label);
            let cycles = members
                .iter()
                .map(|&i| {
                    let v = &variants[i];
                    let e = dispatch_cycles(hw, model, v, c, false).map_err(|e| engine_err(&v.label, e));
                    progress(&v.label);
                    e
                })
                .collect::<Result<Vec<f64>, _>>()?;
            Ok((c, cycles))
        })
        .collect::<Result<_, CalibrateError>>()?;
    let mut cpo = vec![0.0; variants.len()];
    let mut cycles = vec![0.0; variants.len()];
    let mut per_family = Vec::new();
    for ((name, members), (c, member_cycles)) in families.iter().zip(solved) {
        per_family.push((name.to_string(), c));
        for (&i, e) in members.iter().zip(member_cycles) {
            cpo[i] = c;
            cycles[i] = e;
        }
    }
    // with no measurement: the preset's cost of an operation
    let preset_us: Vec<f64> = match hw.timing.as_ref().and_then(|t| t.ops.as_ref()) {
        Some(ops) => {
            let preset = Model {
                occupancy: model.occupancy.clone(),
                issue_per_op: ops.issue_per_op,
                issue_share: ops.issue_share,
            };
            variants
                .par_iter()
                .map(|v| {
                    let e = dispatch_cycles(hw, &preset, v, ops.cycles_per_op, false)
                        .map_err(|e| engine_err(&v.label, e));
                    progress(&v.label);
                    e.map(|e| (e + overhead) / clock_mhz)
                })
                .collect::<Result<_, _>>()?
        }
        None => vec![f64::NAN; variants.len()],
    };
    // overlap: least squares on relative time errors of the fit families' variants
    let reference_of = |i: usize| families.iter().find(|f| f.1.contains(&i)).map_or(i, |f| f.1[0]);
    let rows: Vec<(Vec<f64>, f64)> = fit_variants(variants)
        .map(|i| {
            let r = reference_of(i);
            let delta_us = (cycles[i] - cycles[r]) / clock_mhz;
            let m = variants[i].measured_us;
            (vec![delta_us / m], (m - variants[r].measured_us) / m)
        })
        .collect();
    // (no measured fit variant besides the references: nothing to fit the overlap to,
    // and the preset's calibrated one holds)
    let overlap_fitted = !rows.is_empty();
    let overlap = match overlap_fitted {
        true => fit(&rows)?[0],
        false => hw.timing.as_ref().and_then(|t| t.ops.as_ref()).map_or(1.0, |o| o.overlap),
    };
    let predictions = (0..variants.len())
        .map(|i| {
            let r = reference_of(i);
            let (v, rv) = (&variants[i], &variants[r]);
            let predicted_us = rv.measured_us + overlap * (cycles[i] - cycles[r]) / clock_mhz;
            let measured_speedup = rv.measured_us / v.measured_us;
            let predicted_speedup = rv.measured_us / predicted_us;
            Prediction {
                label: v.label.clone(),
                family: v.family.clone(),
                role: v.role,
                reference: r == i,
                cycles_per_op: cpo[i],
                engine_cycles: cycles[i],
                measured_us: v.measured_us,
                predicted_us,
                measured_speedup,
                predicted_speedup,
                error: predicted_speedup / measured_speedup - 1.0,
                preset_us: preset_us[i],
            }
        })
        .collect();
    Ok(SuiteCalibration {
        clock_mhz,
        overlap,
        overlap_fitted,
        overhead_us: overhead / clock_mhz,
        model: model.clone(),
        search: Vec::new(),
        cycles_per_op: per_family,
        predictions,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recovers_parameters_from_noiseless_synthetic_runs() {
        // time = 27 * latency events + 2 * wavefronts + 0.5 * other cycles
        let truth = [27.0, 2.0, 0.5];
        let rows: Vec<(Vec<f64>, f64)> = (0..12)
            .map(|i| {
                let x =
                    vec![10.0 + i as f64, 100.0 * ((i * 7) % 5 + 1) as f64, 1000.0 * ((i * 3) % 4) as f64];
                let y = predict(&truth, &x);
                (x, y)
            })
            .collect();
        let theta = fit(&rows).unwrap();
        for (t, e) in theta.iter().zip(truth) {
            assert!((t - e).abs() < 1e-9, "{theta:?}");
        }
    }

    #[test]
    fn least_squares_with_noise_is_the_normal_equation_solution() {
        // y = a + b x with residuals: the closed-form regression line
        let pts = [(0.0, 1.0), (1.0, 2.9), (2.0, 5.2), (3.0, 6.8), (4.0, 9.1)];
        let rows: Vec<(Vec<f64>, f64)> = pts.iter().map(|&(x, y)| (vec![1.0, x], y)).collect();
        let theta = fit(&rows).unwrap();
        let n = pts.len() as f64;
        let (sx, sy) = (pts.iter().map(|p| p.0).sum::<f64>(), pts.iter().map(|p| p.1).sum::<f64>());
        let sxy = pts.iter().map(|p| p.0 * p.1).sum::<f64>();
        let sxx = pts.iter().map(|p| p.0 * p.0).sum::<f64>();
        let b = (n * sxy - sx * sy) / (n * sxx - sx * sx);
        let a = (sy - b * sx) / n;
        assert!((theta[0] - a).abs() < 1e-12 && (theta[1] - b).abs() < 1e-12, "{theta:?} vs {a} {b}");
    }

    #[test]
    fn dependent_features_and_bad_shapes_are_errors() {
        let rows = vec![(vec![1.0, 2.0], 1.0), (vec![2.0, 4.0], 2.0), (vec![3.0, 6.0], 3.0)];
        assert_eq!(fit(&rows), Err(CalibrateError::Singular { column: 1 }));
        assert!(matches!(fit(&[]), Err(CalibrateError::Shape { .. })));
        assert!(matches!(fit(&[(vec![1.0, 2.0], 1.0)]), Err(CalibrateError::Shape { .. })));
    }

    #[test]
    fn speedups_relative_to_reference() {
        let v = vec![("pad0".to_string(), 400.0, 420.0), ("pad1".to_string(), 100.0, 100.0)];
        let s = speedups(&v, "pad1").unwrap();
        assert_eq!(s[1].measured, 1.0);
        assert!((s[0].measured - 0.25).abs() < 1e-12);
        assert!((s[0].predicted - 100.0 / 420.0).abs() < 1e-12);
        assert!((s[0].error - (100.0 / 420.0 / 0.25 - 1.0)).abs() < 1e-12);
        assert!(speedups(&v, "pad2").is_none());
    }
}
