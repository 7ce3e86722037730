//! The PNG charts of `advise --png`, `run --by-line-png` / `explain --by-line-png` and
//! `calibrate` (the `charts` feature): plain numbers handed to `reports`, written through
//! the atomic output path. (`banksim report` draws its own, in its module.)

use anyhow::Result;
use pipeline::by_line::{self, ByLine, Sources};
use pipeline::layout::Candidate;
use pipeline::output::{write_via_path, Inputs};
use sim_core::layout::ArrayShape;
use sim_core::Hardware;
use std::path::Path;
use traces::Trace;

/// The by-line chart: one bar per line (or site) with conflicts, its conflicts.
pub fn by_line(
    path: &Path,
    inputs: &Inputs,
    hw: &Hardware,
    trace: &Trace,
    lines: &ByLine,
    sources: &Sources,
) -> Result<()> {
    let bars: Vec<(String, f64)> = by_line::csv_rows(lines, sources)
        .zip(&lines.rows)
        .filter(|(_, r)| r.tally.wavefronts > 0)
        .map(|(row, r)| {
            let name = match row.line {
                Some(n) => format!("line {n}: {}", row.source),
                None => r.place.to_string(),
            };
            (name, r.tally.conflicts as f64)
        })
        .collect();
    if bars.is_empty() {
        anyhow::bail!("{}: no line has shared-memory accesses to chart", path.display());
    }
    let labels = reports::Labels {
        title: format!("{}: bank conflicts by source line", trace.source),
        subtitle: format!("on {} · warp {} · {} banks x {} B", hw.name, hw.warp, hw.banks, hw.bank_bytes),
        x: "source line (its code)".into(),
        y: "conflicts (extra wavefronts, whole trace)".into(),
        legend: String::new(),
    };
    let mean = lines.total.conflicts as f64 / bars.len() as f64;
    let line = format!("mean over the lines: {mean:.0} conflicts");
    let reference = reports::Reference {
        value: mean,
        line: &line,
        below: "fewer conflicts than the mean",
        rest: "the mean or more: the lines to fix first",
    };
    write_via_path(path, inputs, |p| {
        reports::bars(p, &labels, &bars, &reference).map_err(anyhow::Error::from)
    })
}

/// The advisor's chart: the current layout's wavefronts, then the best `top` candidates'.
#[allow(clippy::too_many_arguments)]
pub fn advice(
    path: &Path,
    inputs: &Inputs,
    hw: &Hardware,
    trace: &Trace,
    shape: &ArrayShape,
    base: &Candidate,
    cands: &[Candidate],
    top: usize,
) -> Result<()> {
    let bars: Vec<(String, f64)> = std::iter::once(base)
        .chain(cands.iter().take(top.max(1)))
        .map(|c| (c.layout.to_string(), c.wavefronts as f64))
        .collect();
    let labels = reports::Labels {
        title: format!("{}: wavefronts per candidate layout", trace.source),
        subtitle: format!(
            "on {} · array of {} rows × {} elements of {} B · current layout first, then the best {}",
            hw.name,
            shape.rows,
            shape.cols,
            shape.elem,
            bars.len() - 1
        ),
        x: "layout (pad N: N elements added per row; Swizzle<B,M,S>: CuTe-style XOR swizzle)".into(),
        y: "wavefronts (whole trace, fewer is better)".into(),
        legend: String::new(),
    };
    let line = format!("current layout: {} wavefronts", base.wavefronts);
    let reference = reports::Reference {
        value: base.wavefronts as f64,
        line: &line,
        below: "fewer wavefronts than the current layout",
        rest: "as many as the current layout, or more",
    };
    write_via_path(path, inputs, |p| {
        reports::bars(p, &labels, &bars, &reference).map_err(anyhow::Error::from)
    })
}

/// The calibration chart (predicted against measured speedup per variant) of a fit with
/// preset `preset`: `points` are (a variant of a fit family, measured speedup, predicted
/// speedup), references left out.
pub fn calibration(png: &Path, inputs: &Inputs, preset: &str, points: &[(bool, f64, f64)]) -> Result<()> {
    let series: Vec<reports::Series> = [true, false]
        .iter()
        .map(|&fit| {
            let pts = points.iter().filter(|p| p.0 == fit).map(|p| (p.1, p.2)).collect();
            (format!("{} variants", if fit { "fit" } else { "held-out" }), pts)
        })
        .collect();
    let within = points.iter().filter(|p| (p.2 / p.1 - 1.0).abs() <= 0.10).count();
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
    write_via_path(png, inputs, |p| reports::scatter(p, &labels, &series, 0.10).map_err(anyhow::Error::from))
}
