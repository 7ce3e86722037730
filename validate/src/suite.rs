//! The files of a calibration (`banksim calibrate`): the suite
//! (`label,family,role,blocks,scale`), the measured times (`banksim measure --csv`), the
//! captured traces they pair with ([`variants`]), and what a fit writes: its predictions
//! ([`write_predictions`], read back for the chart by [`read_predictions`]) and its
//! record (`calibration.ron`, [`calibration_ron`]). Every error names the file and line.

use crate::calibrate::{Role, SuiteCalibration, Variant};
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};

/// A calibration file that cannot be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SuiteError {
    /// A file could not be read.
    #[error("{}: cannot read", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A CSV file could not be read.
    #[error("{}: {source}", path.display())]
    Csv {
        /// The file.
        path: PathBuf,
        /// Why.
        source: csv::Error,
    },
    /// A trace could not be read or grouped.
    #[error(transparent)]
    Trace(#[from] traces::ReadError),
    /// A trace's records could not be grouped into warp requests.
    #[error(transparent)]
    Group(#[from] traces::GroupError),
    /// A value that does not hold, with its place (`file:line: field ...: expected ...`).
    #[error("{0}")]
    Invalid(String),
}

type Result<T, E = SuiteError> = std::result::Result<T, E>;

fn read(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).map_err(|source| SuiteError::Io { path: path.into(), source })
}

macro_rules! invalid {
    ($($arg:tt)*) => { SuiteError::Invalid(format!($($arg)*)) };
}

/// One variant of the suite.
#[derive(Clone, Debug, PartialEq)]
pub struct SuiteRow {
    /// Its name (`measure.csv`'s label, the trace's file name).
    pub label: String,
    /// Its family: variants of one family are compared with its first, the reference.
    pub family: String,
    /// Fit or hold-out.
    pub role: Role,
    /// Workgroups of the timed dispatch.
    pub blocks: u32,
    /// Timed work / captured work.
    pub scale: f64,
}

/// Reads the suite at `path`: CSV `label,family,role,blocks,scale`, `#` lines comments.
pub fn read_suite(path: &Path) -> Result<Vec<SuiteRow>> {
    let text = read(path)?;
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
                return Err(invalid!(
                    "{}: expected the header `label,family,role,blocks,scale`, found `{line}`",
                    at()
                ));
            }
            header = true;
            continue;
        }
        if f.len() != 5 {
            return Err(invalid!(
                "{}: expected 5 fields (label,family,role,blocks,scale), found {}",
                at(),
                f.len()
            ));
        }
        let role = match f[2] {
            "fit" => Role::Fit,
            "holdout" => Role::Holdout,
            other => return Err(invalid!("{}: role `{other}`: expected `fit` or `holdout`", at())),
        };
        let blocks: u32 = f[3]
            .parse()
            .ok()
            .filter(|&b| b > 0)
            .ok_or_else(|| invalid!("{}: blocks `{}`: expected a positive integer", at(), f[3]))?;
        let scale: f64 = f[4]
            .parse()
            .ok()
            .filter(|s: &f64| s.is_finite() && *s > 0.0)
            .ok_or_else(|| invalid!("{}: scale `{}`: expected a positive number", at(), f[4]))?;
        rows.push(SuiteRow { label: f[0].into(), family: f[1].into(), role, blocks, scale });
    }
    if rows.is_empty() {
        return Err(invalid!("{}: no variants", path.display()));
    }
    Ok(rows)
}

/// A row of `banksim measure --csv` output: the median time, and the workgroup's shared
/// memory and the dispatch's buffers where the file has them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Measured {
    /// Median time, microseconds.
    pub us: f64,
    /// Shared memory per workgroup, bytes (`shared_bytes`).
    pub smem: Option<u32>,
    /// Bytes of the dispatch's buffers (`global_bytes`).
    pub global: Option<u64>,
}

/// Measured times by label, from `banksim measure --csv` output at `path` (`label` and
/// `median_us` columns; `shared_bytes` and `global_bytes` where there), and the warnings
/// of an older file (no `global_bytes`).
pub fn read_measured(path: &Path) -> Result<(HashMap<String, Measured>, Vec<String>)> {
    let csv_error = |source| SuiteError::Csv { path: path.into(), source };
    let mut r = csv::Reader::from_path(path).map_err(|e| match e.into_kind() {
        csv::ErrorKind::Io(source) => SuiteError::Io { path: path.into(), source },
        kind => invalid!("{}: {kind:?}", path.display()),
    })?;
    let headers = r.headers().map_err(csv_error)?.clone();
    let col = |name: &str| {
        headers.iter().position(|h| h == name).ok_or_else(|| {
            invalid!("{}: no `{name}` column (expected `banksim measure --csv` output)", path.display())
        })
    };
    let (label, median) = (col("label")?, col("median_us")?);
    // (older files have no `shared_bytes` or `global_bytes`: the trace's own extent and
    // lines are used)
    let shared = headers.iter().position(|h| h == "shared_bytes");
    let global = headers.iter().position(|h| h == "global_bytes");
    let mut warnings = Vec::new();
    if global.is_none() {
        warnings.push(format!(
            "{}: no `global_bytes` column (an older `banksim measure`): a variant with global \
             loads or stores takes its capture's distinct lines for its buffers, so the re-reads of \
             its replicated workgroups count as L2 hits; measure again to record the buffers' size",
            path.display()
        ));
    }
    let mut out = HashMap::new();
    for (i, rec) in r.records().enumerate() {
        let at = format!("{}:{}", path.display(), i + 2);
        let rec = rec.map_err(|e| invalid!("{at}: {e}"))?;
        let t: f64 = rec[median]
            .parse()
            .ok()
            .filter(|t: &f64| t.is_finite() && *t > 0.0)
            .ok_or_else(|| invalid!("{at}: median_us `{}`: expected a positive number", &rec[median]))?;
        let bytes = |column: Option<usize>, name: &str| -> Result<Option<u64>> {
            match column.map(|c| &rec[c]) {
                None | Some("") => Ok(None),
                Some(s) => Ok(Some(
                    s.parse::<u64>()
                        .map_err(|_| invalid!("{at}: {name} `{s}`: expected a whole number of bytes"))?,
                )),
            }
        };
        let smem = bytes(shared, "shared_bytes")?
            .map(|b| u32::try_from(b).map_err(|_| invalid!("{at}: shared_bytes {b}: too large")))
            .transpose()?;
        let global = bytes(global, "global_bytes")?;
        out.insert(rec[label].to_string(), Measured { us: t, smem, global });
    }
    Ok((out, warnings))
}

/// The suite's variants, each with its measurement (NaN where a non-reference variant
/// has none: predicted, never fitted to) and its captured trace `LABEL.csv` or
/// `LABEL.bsim` in `traces_dir`, grouped into warps of `warp` lanes. A family's
/// reference must be measured (`measured_path` names the file in the error).
pub fn variants(
    suite: &[SuiteRow],
    measured: &HashMap<String, Measured>,
    measured_path: &Path,
    suite_path: &Path,
    traces_dir: &Path,
    warp: u32,
) -> Result<Vec<Variant>> {
    let mut variants = Vec::with_capacity(suite.len());
    let mut families_seen = std::collections::HashSet::new();
    for row in suite {
        let reference = families_seen.insert(row.family.clone());
        let m = measured.get(&row.label).copied();
        let (smem_bytes, global_bytes) = (m.and_then(|m| m.smem), m.and_then(|m| m.global));
        let Some(t) = m.map(|m| m.us).or((!reference).then_some(f64::NAN)) else {
            return Err(invalid!(
                "{}: `{}`, the reference of family `{}` in {} (its first variant), has no measurement: the family's other variants are predicted from its time",
                measured_path.display(),
                row.label,
                row.family,
                suite_path.display()
            ));
        };
        let path = ["csv", "bsim"]
            .iter()
            .map(|ext| traces_dir.join(format!("{}.{ext}", row.label)))
            .find(|p| p.exists())
            .ok_or_else(|| {
                invalid!(
                    "{}: no trace {}.csv or {}.bsim for variant `{}`",
                    traces_dir.display(),
                    row.label,
                    row.label,
                    row.label
                )
            })?;
        let trace = traces::read_any(&path)?;
        let requests = traces::Requests::group(&trace, warp)?;
        variants.push(Variant {
            label: row.label.clone(),
            family: row.family.clone(),
            role: row.role,
            blocks: row.blocks,
            scale: row.scale,
            measured_us: t,
            requests,
            smem_bytes,
            global_bytes,
        });
    }
    Ok(variants)
}

/// A figure that needs a measurement: empty where the variant was not measured.
fn measured(v: f64, decimals: usize) -> String {
    if v.is_finite() {
        format!("{v:.decimals$}")
    } else {
        String::new()
    }
}

/// The header of `predictions.csv`.
pub const PREDICTIONS_HEADER: &str = "label,family,role,reference,cycles_per_op,engine_cycles,measured_us,predicted_us,measured_speedup,predicted_speedup,error,preset_us";

/// Writes a fit's predictions as `predictions.csv`, one row per variant.
pub fn write_predictions(w: &mut dyn Write, cal: &SuiteCalibration) -> std::io::Result<()> {
    writeln!(w, "{PREDICTIONS_HEADER}")?;
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

/// The record of a fit (`calibration.ron`) on `hw`: a comment naming `command` (the
/// command line that made it) and what each field means, then the fit's parameters.
pub fn calibration_ron(hw: &sim_core::Hardware, cal: &SuiteCalibration, command: &str) -> Result<String> {
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
    let timing =
        hw.timing.as_ref().ok_or_else(|| invalid!("preset `{}` has no timing parameters", hw.name))?;
    let out = Out {
        preset: &hw.name,
        timing,
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
    let body =
        configs::to_ron(&out, configs::RonStyle::File).map_err(|e| invalid!("calibration.ron: {e}"))?;
    Ok(format!(
        "// `{command}`\n\
     // timing: the preset's engine parameters (from the ncu and empty-kernel\n\
     // microbenchmarks); cycles_per_op: cycles a warp spends per IR operation of other\n\
     // work, solved per kernel family from its reference variant (pass it to `banksim run\n\
     // --cycles --cycles-per-op` for a capture); issue_share and issue_per_op: the\n\
     // share of an operation's cycles on the scheduler, and the most (searched, as\n\
     // (issue_per_op, issue_share, squared error)); overlap: share of the engine's\n\
     // predicted change that shows in the measured time; fitted on the `fit` families\n\
     // only.\n{body}\n"
    ))
}

/// One variant on the calibration chart (references, at 1 × 1 by definition, are left
/// out).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    /// A variant of a family the model was fitted on (else held out).
    pub fit: bool,
    /// Its measured speedup over its family's reference.
    pub measured: f64,
    /// Its predicted speedup.
    pub predicted: f64,
}

/// The chart's points of a fit's predictions: every variant with a measurement but the
/// references.
pub fn points(cal: &SuiteCalibration) -> Vec<Point> {
    cal.predictions
        .iter()
        .filter(|p| !p.reference && p.measured_us.is_finite())
        .map(|p| Point {
            fit: p.role == Role::Fit,
            measured: p.measured_speedup,
            predicted: p.predicted_speedup,
        })
        .collect()
}

/// Reads the chart's points from a `predictions.csv` written by `banksim calibrate`:
/// columns `role` (fit|holdout), `reference` (0|1), `measured_speedup`,
/// `predicted_speedup`, found by the header; other columns are ignored.
pub fn read_predictions(path: &Path) -> Result<Vec<Point>> {
    let text = read(path)?;
    let mut lines = text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty() && !l.starts_with('#'));
    let Some((_, header)) = lines.next() else {
        return Err(invalid!("{}: empty, expected a header line", path.display()));
    };
    let cols: Vec<&str> = header.split(',').map(str::trim).collect();
    let col = |name: &str| {
        cols.iter()
            .position(|c| *c == name)
            .ok_or_else(|| invalid!("{}:1: no column `{name}` in the header `{header}`", path.display()))
    };
    let (role, reference, measured, predicted) =
        (col("role")?, col("reference")?, col("measured_speedup")?, col("predicted_speedup")?);
    let mut points = Vec::new();
    for (i, line) in lines {
        let at = format!("{}:{}", path.display(), i + 1);
        let f: Vec<&str> = line.split(',').map(str::trim).collect();
        if f.len() != cols.len() {
            return Err(invalid!("{at}: {} fields, the header has {}", f.len(), cols.len()));
        }
        let num = |k: usize, name: &str| -> Result<f64> {
            match f[k].parse::<f64>() {
                Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
                _ => Err(invalid!("{at}: {name} `{}`: expected a positive number", f[k])),
            }
        };
        let fit = match f[role] {
            "fit" => true,
            "holdout" => false,
            other => return Err(invalid!("{at}: role `{other}`: expected fit or holdout")),
        };
        let is_ref = match f[reference] {
            "0" => false,
            "1" => true,
            other => return Err(invalid!("{at}: reference `{other}`: expected 0 or 1")),
        };
        if f[measured].is_empty() {
            // a variant with no measurement: predicted only, nothing to compare
            continue;
        }
        let p = Point {
            fit,
            measured: num(measured, "measured_speedup")?,
            predicted: num(predicted, "predicted_speedup")?,
        };
        if !is_ref {
            points.push(p);
        }
    }
    if points.is_empty() {
        return Err(invalid!("{}: no variant rows (other than references) to draw", path.display()));
    }
    Ok(points)
}

/// The preset's name from `calibration.ron`'s `preset: "NAME",` line, if there.
pub fn preset_of(ron: &Path) -> Option<String> {
    let text = std::fs::read_to_string(ron).ok()?;
    text.lines().find_map(|l| {
        let rest = l.trim().strip_prefix("preset:")?;
        Some(rest.trim().trim_end_matches(',').trim_matches('"').to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> tempfile::TempDir {
        tempfile::Builder::new().prefix(&format!("banksim-suite-{name}")).tempdir().expect("temp dir")
    }

    const HEADER: &str = "label,family,role,reference,cycles_per_op,engine_cycles,measured_us,predicted_us,measured_speedup,predicted_speedup,error";

    #[test]
    fn reads_a_small_predictions_csv() {
        let d = dir("ok");
        let csv = format!(
            "{HEADER}\nk_ref,k,fit,1,10,100,10,10,1.0000,1.0000,0\nk_b,k,fit,0,10,200,20,19,0.5000,0.5200,0.04\nh_b,h,holdout,0,10,300,30,33,0.3300,0.3000,-0.09\n"
        );
        std::fs::write(d.path().join("predictions.csv"), csv).unwrap();
        let points = read_predictions(&d.path().join("predictions.csv")).unwrap();
        assert_eq!(points.len(), 2, "the reference is left out");
        assert!(points[0].fit && !points[1].fit);
    }

    #[test]
    fn missing_or_garbled_predictions_are_a_clear_error() {
        let d = dir("bad");
        let path = d.path().join("predictions.csv");
        let e = read_predictions(&path).unwrap_err().to_string();
        assert!(e.contains("predictions.csv") && e.contains("cannot read"), "{e}");
        std::fs::write(&path, format!("{HEADER}\nk_b,k,fit,0,10,200,20,19,0.5,0.52,0.04\nh_b,h,holdout,0,10,300,30,33,abc,0.3,-0.09\n"))
            .unwrap();
        let e = read_predictions(&path).unwrap_err().to_string();
        assert!(e.contains("predictions.csv:3") && e.contains("measured_speedup `abc`"), "{e}");
        std::fs::write(&path, "label,role\nx,fit\n").unwrap();
        let e = read_predictions(&path).unwrap_err().to_string();
        assert!(e.contains("predictions.csv:1") && e.contains("reference"), "{e}");
        std::fs::write(&path, format!("{HEADER}\nk_b,k,fit,0\n")).unwrap();
        let e = read_predictions(&path).unwrap_err().to_string();
        assert!(e.contains("predictions.csv:2") && e.contains("fields"), "{e}");
    }

    #[test]
    fn a_suite_names_its_bad_field() {
        let d = dir("suite");
        let path = d.path().join("suite.csv");
        std::fs::write(&path, "# comment\nlabel,family,role,blocks,scale\na,f,fit,4,1\nb,f,neither,4,1\n")
            .unwrap();
        let e = read_suite(&path).unwrap_err().to_string();
        assert!(e.contains("suite.csv:4") && e.contains("role `neither`"), "{e}");
        std::fs::write(&path, "label,family,role,blocks,scale\na,f,fit,4,1\nb,f,holdout,8,0.5\n").unwrap();
        let rows = read_suite(&path).unwrap();
        assert_eq!(
            rows[1],
            SuiteRow { label: "b".into(), family: "f".into(), role: Role::Holdout, blocks: 8, scale: 0.5 }
        );
    }
}
