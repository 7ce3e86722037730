//! Line charts of sweeps (one line per series) and the calibration scatter.

use crate::common::{
    self, chart_on, err, legend, tick, tick_count, titled, with_legend, Drawn, Entry, ReportError,
};
use crate::style::{colour, dash, marker, with_marker, Marker, Swatch};
use plotters::chart::MeshStyle;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;

/// One line of a line chart: a label and its (x, y) points.
pub type Series = (String, Vec<(f64, f64)>);

/// A chart's words: its title, the subtitle (fixed parameters and presets), axis labels
/// with units, and the legend's heading (what tells the series apart).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Labels {
    /// Names the study and what is plotted.
    pub title: String,
    /// The fixed parameters of this chart and the presets (`width 4 B · g80, h100`).
    pub subtitle: String,
    /// x axis, in words with its unit.
    pub x: String,
    /// y axis, in words with its unit.
    pub y: String,
    /// Above the legend (e.g. `preset`).
    pub legend: String,
}

/// Series with identical points, drawn once: (labels, points).
/// Labels that share one set of points.
type Merged = (Vec<String>, Vec<(f64, f64)>);

fn merge(series: &[Series]) -> Vec<Merged> {
    let mut out: Vec<Merged> = Vec::new();
    for (label, pts) in series {
        match out.iter_mut().find(|o| o.1 == *pts) {
            Some(o) => o.0.push(label.clone()),
            None => out.push((vec![label.clone()], pts.clone())),
        }
    }
    out
}

fn integral(v: impl IntoIterator<Item = f64>) -> bool {
    v.into_iter().all(|x| (x - x.round()).abs() < 1e-9)
}

/// Wraps `s` at spaces to lines of at most `width` characters.
pub(crate) fn wrap(s: &str, width: usize) -> String {
    let mut out = String::new();
    let mut line = 0;
    for word in s.split(' ') {
        if line > 0 && line + 1 + word.chars().count() > width {
            out.push('\n');
            line = 0;
        } else if line > 0 {
            out.push(' ');
            line += 1;
        }
        out.push_str(word);
        line += word.chars().count();
    }
    out
}

/// A line chart: x = a parameter, y = a metric, one line per series, each with its own
/// colour, marker and dash pattern; series with identical values are drawn once and
/// share a legend entry (`a`, `= b`), and where different series meet at a point their
/// markers are nudged sideways so each stays visible.
///
/// `ideal` holds the metric's ideal (its value with no bank conflicts) where it has one:
/// each distinct curve is drawn as a thin grey dotted line under the series, explained
/// once in the legend. Where every x is a power of two spanning a factor of 8 or more
/// (64 to 512 bytes, say), the x axis is logarithmic (base 2), its ticks the powers.
pub fn line_chart(
    path: &Path,
    labels: &Labels,
    series: &[Series],
    ideal: &[Vec<(f64, f64)>],
) -> Result<(), ReportError> {
    if series.iter().all(|s| s.1.is_empty()) {
        return Err(common::empty(path));
    }
    common::png(path, |root| draw_line_chart(root, labels, series, ideal))
}

/// The colour of the ideal curves.
const IDEAL: RGBColor = RGBColor(150, 150, 150);

/// Whether x values `xs` are powers of two spanning a factor of 8 or more, best read on
/// a logarithmic axis.
fn powers_of_two(xs: impl Iterator<Item = f64>) -> bool {
    let (mut lo, mut hi, mut any) = (f64::MAX, 0.0f64, false);
    for x in xs {
        if !(x >= 1.0 && x.fract() == 0.0 && (x as u64).is_power_of_two()) {
            return false;
        }
        (lo, hi, any) = (lo.min(x), hi.max(x), true);
    }
    any && hi / lo >= 8.0
}

pub(crate) fn draw_line_chart<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    labels: &Labels,
    series: &[Series],
    ideal: &[Vec<(f64, f64)>],
) -> Drawn {
    // on a logarithmic axis the points are drawn at log2(x), the ticks named 2^v
    let log2 = powers_of_two(series.iter().flat_map(|s| s.1.iter().map(|p| p.0)));
    let at = |x: f64| if log2 { x.log2() } else { x };
    let series: Vec<Series> =
        series.iter().map(|(l, pts)| (l.clone(), pts.iter().map(|&(x, y)| (at(x), y)).collect())).collect();
    // each distinct curve once
    let mut curves: Vec<Vec<(f64, f64)>> = Vec::new();
    for c in ideal.iter().map(|c| c.iter().map(|&(x, y)| (at(x), y)).collect::<Vec<_>>()) {
        if !c.is_empty() && !curves.contains(&c) {
            curves.push(c);
        }
    }
    let ideal = curves;
    let merged = merge(&series);
    let pts = || merged.iter().flat_map(|s| s.1.iter().copied()).chain(ideal.iter().flatten().copied());
    let (mut x0, mut x1) = pts().fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.0), b.max(p.0)));
    let y1 = pts().fold(0.0f64, |m, p| m.max(p.1));
    let y0 = pts().fold(0.0f64, |m, p| m.min(p.1));
    if x0 == x1 {
        x1 = x0 + 1.0;
    }
    let (xi, yi) = (integral(pts().map(|p| p.0)), integral(pts().map(|p| p.1)));
    // points where different (merged) series meet: nudge them apart sideways
    let mut seen = std::collections::HashMap::new();
    for (k, s) in merged.iter().enumerate() {
        for p in &s.1 {
            seen.entry((p.0.to_bits(), p.1.to_bits())).or_insert_with(Vec::new).push(k);
        }
    }
    let meet = seen.values().any(|v| v.len() > 1);
    let n = merged.len() as f64;
    let step = (x1 - x0) * 0.006;
    let nudge = |k: usize| if meet { (k as f64 - (n - 1.0) / 2.0) * step } else { 0.0 };
    let pad = (x1 - x0) * 0.03 + if meet { step * n / 2.0 } else { 0.0 };
    (x0, x1) = (x0 - pad, x1 + pad);
    let top = if y1 > 0.0 { y1 * 1.08 } else { 1.0 };

    let body = titled(root, &labels.title, &labels.subtitle)?;
    let (plot, side) = with_legend(&body);
    let mut chart = chart_on(&plot, 80).build_cartesian_2d(x0..x1, y0..top).map_err(err)?;
    let x_tick = tick(xi);
    let power = |v: &f64| {
        if (v - v.round()).abs() < 1e-6 {
            format!("{}", 2f64.powf(v.round()))
        } else {
            String::new()
        }
    };
    let x_desc = if log2 { format!("{} (log scale)", labels.x) } else { labels.x.clone() };
    grey_mesh(&mut chart.configure_mesh(), labels)
        .x_desc(x_desc.as_str())
        .x_labels(tick_count(xi, x0, x1))
        .y_labels(tick_count(yi, y0, top))
        .x_label_formatter(if log2 { &power } else { &x_tick })
        .y_label_formatter(&tick(yi))
        .draw()
        .map_err(err)?;
    let mut entries = Vec::new();
    for curve in &ideal {
        chart.draw_series(DashedLineSeries::new(curve.clone(), 3, 4, IDEAL.stroke_width(2))).map_err(err)?;
    }
    if !ideal.is_empty() {
        let label =
            if ideal.len() == 1 { "ideal: no conflicts" } else { "ideal: no conflicts\n(one per line)" };
        entries.push(Entry {
            swatch: Swatch::Dashed(3, 4),
            marker: None,
            colour: IDEAL,
            label: label.into(),
        });
    }
    for (k, (names, pts)) in merged.iter().enumerate() {
        let (c, m, d) = (colour(k), marker(k), dash(k));
        let dx = nudge(k);
        let line: Vec<(f64, f64)> = pts.iter().map(|&(x, y)| (x + dx, y)).collect();
        match d {
            Swatch::Dashed(on, off) => {
                chart
                    .draw_series(DashedLineSeries::new(line.clone(), on, off, c.stroke_width(2)))
                    .map_err(err)?;
            }
            _ => {
                chart.draw_series(LineSeries::new(line.clone(), c.stroke_width(2))).map_err(err)?;
            }
        }
        for &p in &line {
            with_marker!(m, p, c, |e| chart.plotting_area().draw(&e).map_err(err)?);
        }
        let label = names
            .iter()
            .enumerate()
            .map(|(i, l)| if i == 0 { wrap(l, 24) } else { format!("= {}", wrap(l, 22)) })
            .collect::<Vec<_>>()
            .join("\n");
        entries.push(Entry { swatch: d, marker: Some(m), colour: c, label });
    }
    let mut heading = labels.legend.clone();
    if merged.len() < series.len() {
        heading.push_str("\n(= same values, drawn once)");
    }
    if meet {
        heading.push_str("\n(markers nudged sideways\nwhere lines meet)");
    }
    legend(&side, heading.trim_start(), &entries)
}

/// Predicted against measured: one marker shape and colour per series, the diagonal
/// y = x and a band of ± `band` (relative) around it, axes from 0 to the largest value.
pub fn scatter(path: &Path, labels: &Labels, series: &[Series], band: f64) -> Result<(), ReportError> {
    if series.iter().all(|s| s.1.is_empty()) {
        return Err(common::empty(path));
    }
    common::png(path, |root| draw_scatter(root, labels, series, band))
}

pub(crate) fn draw_scatter<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    labels: &Labels,
    series: &[Series],
    band: f64,
) -> Drawn {
    let hi = series.iter().flat_map(|s| s.1.iter()).fold(0.0f64, |m, &(x, y)| m.max(x).max(y));
    let hi = (hi * 1.08).max(1e-9);
    let body = titled(root, &labels.title, &labels.subtitle)?;
    let (plot, side) = with_legend(&body);
    let mut chart = chart_on(&plot, 80).build_cartesian_2d(0.0..hi, 0.0..hi).map_err(err)?;
    grey_mesh(&mut chart.configure_mesh(), labels)
        .x_label_formatter(&tick(false))
        .y_label_formatter(&tick(false))
        .draw()
        .map_err(err)?;
    let grey = RGBColor(120, 120, 120);
    chart.draw_series(LineSeries::new([(0.0, 0.0), (hi, hi)], BLACK.stroke_width(1))).map_err(err)?;
    // y = (1 ± band) x, ending inside the square (plotters drops segments that leave it)
    for k in [1.0 + band, 1.0 - band] {
        let end = if k > 1.0 { (hi / k, hi) } else { (hi, hi * k) };
        chart
            .draw_series(DashedLineSeries::new([(0.0, 0.0), end], 6, 4, grey.stroke_width(1)))
            .map_err(err)?;
    }
    let mut entries = vec![
        Entry { swatch: Swatch::Solid, marker: None, colour: BLACK, label: "predicted = measured".into() },
        Entry {
            swatch: Swatch::Dashed(6, 4),
            marker: None,
            colour: grey,
            label: format!("±{:.0}% band around it", band * 100.0),
        },
    ];
    for (i, (label, pts)) in series.iter().enumerate() {
        let (c, m) = (colour(i), [Marker::Circle, Marker::Triangle, Marker::Square][i % 3]);
        for &p in pts {
            with_marker!(m, p, c, |e| chart.plotting_area().draw(&e).map_err(err)?);
        }
        entries.push(Entry { swatch: Swatch::None, marker: Some(m), colour: c, label: wrap(label, 24) });
    }
    legend(&side, &labels.legend, &entries)
}

/// The mesh of the line and scatter charts: axis names from `labels`, light grey grid.
fn grey_mesh<'m, 'a, 'b, X, Y, DB>(
    mesh: &'m mut MeshStyle<'a, 'b, X, Y, DB>,
    labels: &Labels,
) -> &'m mut MeshStyle<'a, 'b, X, Y, DB>
where
    X: Ranged,
    Y: Ranged,
    DB: DrawingBackend,
{
    mesh.x_desc(labels.x.as_str())
        .y_desc(labels.y.as_str())
        .label_style(("sans-serif", 15))
        .axis_desc_style(("sans-serif", 17))
        .light_line_style(RGBColor(246, 246, 246))
        .bold_line_style(RGBColor(205, 205, 205))
}
