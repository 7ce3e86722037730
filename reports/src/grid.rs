//! Grids coloured on a scale, each with its colour bar: the bank × lane picture of one
//! request and the per-SM pipe timeline.

use crate::common::{self, chart_on, err, titled, with_legend, Drawn, ReportError};
use crate::line::{wrap, Labels};
use crate::style::viridis;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;

/// One lane's use of one bank in one wavefront.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HeatCell {
    /// Wavefront index.
    pub wavefront: u32,
    /// Bank.
    pub bank: u32,
    /// Lane.
    pub lane: u32,
}

/// A vertical colour bar in `area` from `lo` (bottom) to `hi` (top), its tick labels
/// made by `label`, under the caption `meaning` (what the colour says).
fn colour_bar<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    meaning: &str,
    (lo, hi): (f64, f64),
    label: impl Fn(f64) -> String,
) -> Drawn {
    let font = ("sans-serif", 15).into_font().color(&BLACK);
    let caption = wrap(meaning, 28);
    let mut y = 12;
    for line in caption.lines() {
        area.draw(&Text::new(line.to_string(), (10, y), font.clone())).map_err(err)?;
        y += 19;
    }
    let (top, bottom) = (y + 14, y + 14 + 320);
    let steps = 64;
    for s in 0..steps {
        let t0 = s as f64 / steps as f64;
        let y_hi = bottom - ((s + 1) * (bottom - top)) / steps;
        let y_lo = bottom - (s * (bottom - top)) / steps;
        area.draw(&Rectangle::new([(14, y_hi), (44, y_lo)], viridis(t0 + 0.5 / steps as f64).filled()))
            .map_err(err)?;
    }
    area.draw(&Rectangle::new([(14, top), (44, bottom)], BLACK.stroke_width(1))).map_err(err)?;
    for k in 0..=4 {
        let t = k as f64 / 4.0;
        let yy = bottom - (t * (bottom - top) as f64) as i32;
        area.draw(&PathElement::new(vec![(44, yy), (50, yy)], BLACK.stroke_width(1))).map_err(err)?;
        area.draw(&Text::new(label(lo + t * (hi - lo)), (54, yy - 8), font.clone())).map_err(err)?;
    }
    Ok(())
}

/// The bank × lane picture of one request: rows are wavefronts, columns banks, each
/// used cell coloured (viridis scale, with its colour bar) and labelled by the lane it
/// serves (the lowest lane when several share a word).
pub fn heatmap(path: &Path, labels: &Labels, banks: u32, cells: &[HeatCell]) -> Result<(), ReportError> {
    if cells.is_empty() {
        return Err(common::empty(path));
    }
    common::png(path, |root| draw_heatmap(root, labels, banks, cells))
}

pub(crate) fn draw_heatmap<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    labels: &Labels,
    banks: u32,
    cells: &[HeatCell],
) -> Drawn {
    let waves = cells.iter().map(|c| c.wavefront + 1).max().unwrap_or(1);
    let lanes = cells.iter().map(|c| c.lane + 1).max().unwrap_or(1);
    let body = titled(root, &labels.title, &labels.subtitle)?;
    let (plot, side) = with_legend(&body);
    let mut chart = chart_on(&plot, 80)
        .build_cartesian_2d(-0.5..banks as f64 - 0.5, -0.5..waves as f64 - 0.5)
        .map_err(err)?;
    let every = |n: u32| n.div_ceil(32).max(1);
    let (bx, wy) = (every(banks), every(waves));
    let seg = |k: u32, v: &f64| {
        let i = v.round();
        if (v - i).abs() < 1e-6 && i >= 0.0 && (i as u32).is_multiple_of(k) {
            format!("{i}")
        } else {
            String::new()
        }
    };
    chart
        .configure_mesh()
        .disable_mesh()
        .x_desc(if labels.x.is_empty() { "bank" } else { labels.x.as_str() })
        .y_desc(if labels.y.is_empty() { "wavefront (serialised pass)" } else { labels.y.as_str() })
        .x_labels(banks as usize + 1)
        .y_labels(waves as usize + 1)
        .x_label_formatter(&|v| seg(bx, v))
        .y_label_formatter(&|v| seg(wy, v))
        .label_style(("sans-serif", 13))
        .axis_desc_style(("sans-serif", 17))
        .draw()
        .map_err(err)?;
    let mut first: std::collections::BTreeMap<(u32, u32), u32> = Default::default();
    for c in cells {
        let e = first.entry((c.wavefront, c.bank)).or_insert(c.lane);
        *e = (*e).min(c.lane);
    }
    let t = |lane: u32| if lanes > 1 { lane as f64 / (lanes - 1) as f64 } else { 0.0 };
    chart
        .draw_series(first.iter().map(|(&(w, b), &lane)| {
            let (b, w) = (b as f64, w as f64);
            let mut r = Rectangle::new([(b - 0.5, w - 0.5), (b + 0.5, w + 0.5)], viridis(t(lane)).filled());
            r.set_margin(1, 1, 1, 1);
            r
        }))
        .map_err(err)?;
    if banks * waves <= 32 * 40 {
        chart
            .draw_series(first.iter().map(|(&(w, b), &lane)| {
                // light text on the dark end of the scale, dark on the light end
                let ink = if t(lane) < 0.55 { WHITE } else { BLACK };
                let style =
                    ("sans-serif", 11).into_font().color(&ink).pos(plotters::style::text_anchor::Pos::new(
                        plotters::style::text_anchor::HPos::Center,
                        plotters::style::text_anchor::VPos::Center,
                    ));
                Text::new(lane.to_string(), (b as f64, w as f64), style)
            }))
            .map_err(err)?;
    }
    let meaning = if labels.legend.is_empty() {
        "colour and number: the lane (thread of the warp) served; white: bank idle in that wavefront"
    } else {
        labels.legend.as_str()
    };
    colour_bar(&side, meaning, (0.0, (lanes - 1) as f64), |v| format!("lane {}", v.round() as i64))
}

/// Pipe occupancy over time per SM: `rows[sm][bucket]` in 0..=1, drawn as a strip per
/// SM on the viridis scale (with its colour bar); `bucket_cycles` is a bucket's width.
pub fn timeline(
    path: &Path,
    labels: &Labels,
    bucket_cycles: f64,
    rows: &[Vec<f64>],
) -> Result<(), ReportError> {
    if rows.iter().all(Vec::is_empty) {
        return Err(common::empty(path));
    }
    common::png(path, |root| draw_timeline(root, labels, bucket_cycles, rows))
}

pub(crate) fn draw_timeline<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    labels: &Labels,
    bucket_cycles: f64,
    rows: &[Vec<f64>],
) -> Drawn {
    let buckets = rows.iter().map(Vec::len).max().unwrap_or(0);
    let end = buckets as f64 * bucket_cycles;
    let body = titled(root, &labels.title, &labels.subtitle)?;
    let (plot, side) = with_legend(&body);
    let sms = rows.len() as u32;
    let mut chart = chart_on(&plot, 80).build_cartesian_2d(0.0..end, -0.5..sms as f64 - 0.5).map_err(err)?;
    let every = sms.div_ceil(24).max(1);
    chart
        .configure_mesh()
        .disable_mesh()
        .x_desc(if labels.x.is_empty() { "time (cycles)" } else { labels.x.as_str() })
        .y_desc(if labels.y.is_empty() { "SM" } else { labels.y.as_str() })
        .y_labels(sms as usize + 1)
        .x_label_formatter(&|v| format!("{}", v.round() as i64))
        .y_label_formatter(&|v| {
            let i = v.round();
            if (v - i).abs() < 1e-6 && i >= 0.0 && (i as u32).is_multiple_of(every) {
                format!("{i}")
            } else {
                String::new()
            }
        })
        .label_style(("sans-serif", 14))
        .axis_desc_style(("sans-serif", 17))
        .draw()
        .map_err(err)?;
    chart
        .draw_series(rows.iter().enumerate().flat_map(|(sm, row)| {
            row.iter().enumerate().map(move |(b, &u)| {
                let x = b as f64 * bucket_cycles;
                let sm = sm as f64;
                Rectangle::new(
                    [(x, sm - 0.5), (x + bucket_cycles, sm + 0.5)],
                    viridis(u.clamp(0.0, 1.0)).filled(),
                )
            })
        }))
        .map_err(err)?;
    let meaning = if labels.legend.is_empty() {
        "colour: share of each time slice the SM's shared-memory pipe is busy"
    } else {
        labels.legend.as_str()
    };
    colour_bar(&side, meaning, (0.0, 100.0), |v| format!("{v:.0}% busy"))
}
