//! The calibration chart (predicted against measured speedup per variant), drawn after
//! a fit or redrawn later from the `predictions.csv` a fit wrote (`--redraw DIR`).

use anyhow::{bail, Context, Result};
use std::path::Path;

/// One variant on the chart (references, at 1 × 1 by definition, are left out).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Point {
    /// A variant of a family the model was fitted on (else held out).
    pub(crate) fit: bool,
    pub(crate) measured: f64,
    pub(crate) predicted: f64,
}

/// Draws `points` of a fit with preset `preset` to `png`.
pub(crate) fn chart(png: &Path, preset: &str, points: &[Point]) -> Result<()> {
    let series: Vec<reports::Series> = [true, false]
        .iter()
        .map(|&fit| {
            let pts = points.iter().filter(|p| p.fit == fit).map(|p| (p.measured, p.predicted)).collect();
            (format!("{} variants", if fit { "fit" } else { "held-out" }), pts)
        })
        .collect();
    let within = points.iter().filter(|p| (p.predicted / p.measured - 1.0).abs() <= 0.10).count();
    let labels = reports::Labels {
        title: format!("{preset}: predicted vs measured speedup of shared-memory kernel variants"),
        subtitle: format!(
            "speedup = run time of the family's conflict-free reference ÷ the variant's (below 1: slower) · {within} of {} variants within ±10%",
            points.len()
        ),
        x: "measured speedup (×, GPU run time)".into(),
        y: "predicted speedup (×, banksim timing model)".into(),
        legend: String::new(),
    };
    crate::output::write_via_path(png, |p| {
        reports::scatter(p, &labels, &series, 0.10).map_err(anyhow::Error::from)
    })
}

/// Reads the chart's points from a `predictions.csv` written by `banksim calibrate`:
/// columns `role` (fit|holdout), `reference` (0|1), `measured_speedup`,
/// `predicted_speedup`, found by the header; other columns are ignored.
pub(crate) fn read_predictions(path: &Path) -> Result<Vec<Point>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("{}: cannot read", path.display()))?;
    let mut lines = text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty() && !l.starts_with('#'));
    let Some((_, header)) = lines.next() else {
        bail!("{}: empty, expected a header line", path.display());
    };
    let cols: Vec<&str> = header.split(',').map(str::trim).collect();
    let col = |name: &str| {
        cols.iter()
            .position(|c| *c == name)
            .with_context(|| format!("{}:1: no column `{name}` in the header `{header}`", path.display()))
    };
    let (role, reference, measured, predicted) =
        (col("role")?, col("reference")?, col("measured_speedup")?, col("predicted_speedup")?);
    let mut points = Vec::new();
    for (i, line) in lines {
        let at = format!("{}:{}", path.display(), i + 1);
        let f: Vec<&str> = line.split(',').map(str::trim).collect();
        if f.len() != cols.len() {
            bail!("{at}: {} fields, the header has {}", f.len(), cols.len());
        }
        let num = |k: usize, name: &str| -> Result<f64> {
            match f[k].parse::<f64>() {
                Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
                _ => bail!("{at}: {name} `{}`: expected a positive number", f[k]),
            }
        };
        let fit = match f[role] {
            "fit" => true,
            "holdout" => false,
            other => bail!("{at}: role `{other}`: expected fit or holdout"),
        };
        let is_ref = match f[reference] {
            "0" => false,
            "1" => true,
            other => bail!("{at}: reference `{other}`: expected 0 or 1"),
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
        bail!("{}: no variant rows (other than references) to draw", path.display());
    }
    Ok(points)
}

/// The preset's name from `calibration.ron`'s `preset: "NAME",` line, if there.
fn preset_of(ron: &Path) -> Option<String> {
    let text = std::fs::read_to_string(ron).ok()?;
    text.lines().find_map(|l| {
        let rest = l.trim().strip_prefix("preset:")?;
        Some(rest.trim().trim_end_matches(',').trim_matches('"').to_string())
    })
}

/// `banksim calibrate --redraw DIR`: DIR/predictions.csv to DIR/speedups.png.
pub(crate) fn run(dir: &Path, config: &str) -> Result<()> {
    let csv = dir.join("predictions.csv");
    let points = read_predictions(&csv)?;
    let preset = preset_of(&dir.join("calibration.ron")).unwrap_or_else(|| config.to_string());
    let png = dir.join("speedups.png");
    chart(&png, &preset, &points)?;
    println!("wrote {} ({} variants from {})", png.display(), points.len(), csv.display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> tempfile::TempDir {
        tempfile::Builder::new().prefix(&format!("banksim-redraw-{name}")).tempdir().expect("temp dir")
    }

    const HEADER: &str = "label,family,role,reference,cycles_per_op,engine_cycles,measured_us,predicted_us,measured_speedup,predicted_speedup,error";

    #[test]
    fn redraws_a_small_predictions_csv() {
        let d = dir("ok");
        let csv = format!(
            "{HEADER}\nk_ref,k,fit,1,10,100,10,10,1.0000,1.0000,0\nk_b,k,fit,0,10,200,20,19,0.5000,0.5200,0.04\nh_b,h,holdout,0,10,300,30,33,0.3300,0.3000,-0.09\n"
        );
        std::fs::write(d.path().join("predictions.csv"), csv).unwrap();
        let points = read_predictions(&d.path().join("predictions.csv")).unwrap();
        assert_eq!(points.len(), 2, "the reference is left out");
        assert!(points[0].fit && !points[1].fit);
        run(d.path(), "h100").unwrap();
        let size = image::image_dimensions(d.path().join("speedups.png")).expect("a PNG");
        assert_eq!(size, (1200, 700));
    }

    #[test]
    fn missing_or_garbled_csv_is_a_clear_error() {
        let d = dir("bad");
        let e = format!("{:#}", run(d.path(), "h100").unwrap_err());
        assert!(e.contains("predictions.csv") && e.contains("cannot read"), "{e}");
        let path = d.path().join("predictions.csv");
        std::fs::write(&path, format!("{HEADER}\nk_b,k,fit,0,10,200,20,19,0.5,0.52,0.04\nh_b,h,holdout,0,10,300,30,33,abc,0.3,-0.09\n"))
            .unwrap();
        let e = format!("{:#}", run(d.path(), "h100").unwrap_err());
        assert!(e.contains("predictions.csv:3") && e.contains("measured_speedup `abc`"), "{e}");
        std::fs::write(&path, "label,role\nx,fit\n").unwrap();
        let e = format!("{:#}", run(d.path(), "h100").unwrap_err());
        assert!(e.contains("predictions.csv:1") && e.contains("reference"), "{e}");
        std::fs::write(&path, format!("{HEADER}\nk_b,k,fit,0\n")).unwrap();
        let e = format!("{:#}", run(d.path(), "h100").unwrap_err());
        assert!(e.contains("predictions.csv:2") && e.contains("fields"), "{e}");
        assert!(!d.path().join("speedups.png").exists());
    }
}
