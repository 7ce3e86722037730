//! Bar charts: the conflict-degree histogram of a run and the advisor's wavefronts per
//! candidate layout.

use crate::common::{self, err, legend, tick, titled, with_legend, Drawn, Entry, ReportError};
use crate::line::{wrap, Labels};
use crate::style::{colour, Swatch, REFERENCE};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;

/// Bars of how many requests had each conflict degree (wavefronts / ideal, rounded),
/// one colour per op, side by side: `series` = (op, [(degree, requests)]).
pub fn histogram(
    path: &Path,
    labels: &Labels,
    series: &[(String, Vec<(u32, u64)>)],
) -> Result<(), ReportError> {
    if series.iter().all(|s| s.1.is_empty()) {
        return Err(common::empty(path));
    }
    common::png(path, |root| draw_histogram(root, labels, series))
}

pub(crate) fn draw_histogram<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    labels: &Labels,
    series: &[(String, Vec<(u32, u64)>)],
) -> Drawn {
    let max_deg = series.iter().flat_map(|s| s.1.iter().map(|p| p.0)).max().unwrap_or(1);
    let max_n = series.iter().flat_map(|s| s.1.iter().map(|p| p.1)).max().unwrap_or(0);
    let body = titled(root, &labels.title, &labels.subtitle)?;
    let (plot, side) = with_legend(&body);
    let k = series.len().max(1) as f64;
    let top = (max_n as f64 * 1.1).max(1.0);
    let mut chart = ChartBuilder::on(&plot)
        .margin(10)
        .x_label_area_size(56)
        .y_label_area_size(80)
        .build_cartesian_2d(0.5f64..max_deg as f64 + 0.5, 0.0..top)
        .map_err(err)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_desc(if labels.x.is_empty() {
            "conflict degree (wavefronts ÷ conflict-free wavefronts)"
        } else {
            &labels.x
        })
        .y_desc(if labels.y.is_empty() { "warp requests (count)" } else { &labels.y })
        .x_labels(max_deg.min(20) as usize + 1)
        .x_label_formatter(&tick(true))
        .y_label_formatter(&tick(true))
        .label_style(("sans-serif", 15))
        .axis_desc_style(("sans-serif", 17))
        .draw()
        .map_err(err)?;
    let mut entries = Vec::new();
    for (i, (op, bars)) in series.iter().enumerate() {
        let c = colour(i);
        let w = 0.8 / k;
        chart
            .draw_series(bars.iter().map(|&(d, n)| {
                let x = d as f64 - 0.4 + w * i as f64;
                Rectangle::new([(x, 0.0), (x + w, n as f64)], c.filled())
            }))
            .map_err(err)?;
        chart
            .draw_series(bars.iter().map(|&(d, n)| {
                let x = d as f64 - 0.4 + w * i as f64;
                Rectangle::new([(x, 0.0), (x + w, n as f64)], BLACK.stroke_width(1))
            }))
            .map_err(err)?;
        entries.push(Entry { swatch: Swatch::Box, marker: None, colour: c, label: wrap(op, 24) });
    }
    legend(&side, if labels.legend.is_empty() { "op" } else { &labels.legend }, &entries)
}

/// A bar per labelled value (e.g. wavefronts per layout candidate), with a dashed
/// reference line at `reference` (e.g. the current layout), explained in the legend as
/// `reference_label`; bars below the line are drawn in another colour.
pub fn bars(
    path: &Path,
    labels: &Labels,
    bars: &[(String, f64)],
    reference: f64,
    reference_label: &str,
) -> Result<(), ReportError> {
    if bars.is_empty() {
        return Err(common::empty(path));
    }
    common::png(path, |root| draw_bars(root, labels, bars, reference, reference_label))
}

pub(crate) fn draw_bars<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    labels: &Labels,
    bars: &[(String, f64)],
    reference: f64,
    reference_label: &str,
) -> Drawn {
    let top = bars.iter().map(|b| b.1).fold(reference, f64::max).max(1.0) * 1.1;
    let n = bars.len() as u32;
    // long layout names are cut; more than 40 bars: every other label
    let every = (n as usize).div_ceil(40).max(1);
    let names: Vec<String> = bars
        .iter()
        .enumerate()
        .map(|(i, b)| {
            if i % every != 0 {
                return String::new();
            }
            let s: String = b.0.chars().take(22).collect();
            if b.0.chars().count() > 22 {
                format!("{s}…")
            } else {
                s
            }
        })
        .collect();
    let integer = bars.iter().all(|b| b.1.fract() == 0.0) && reference.fract() == 0.0;
    let body = titled(root, &labels.title, &labels.subtitle)?;
    let (plot, side) = with_legend(&body);
    let mut chart = ChartBuilder::on(&plot)
        .margin(10)
        .x_label_area_size(170)
        .y_label_area_size(80)
        .build_cartesian_2d((0u32..n.saturating_sub(1)).into_segmented(), 0.0..top)
        .map_err(err)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_desc(labels.x.as_str())
        .y_desc(labels.y.as_str())
        .x_labels(n as usize)
        .x_label_formatter(&|v| match v {
            SegmentValue::CenterOf(i) => names.get(*i as usize).cloned().unwrap_or_default(),
            _ => String::new(),
        })
        .y_label_formatter(&tick(integer))
        .label_style(("sans-serif", 14))
        .x_label_style(("sans-serif", 13).into_font().transform(FontTransform::Rotate90).color(&BLACK).pos(
            plotters::style::text_anchor::Pos::new(
                plotters::style::text_anchor::HPos::Left,
                plotters::style::text_anchor::VPos::Center,
            ),
        ))
        .axis_desc_style(("sans-serif", 17))
        .draw()
        .map_err(err)?;
    let (better, same) = (colour(2), colour(0));
    chart
        .draw_series(bars.iter().enumerate().map(|(i, b)| {
            let c = if b.1 < reference { better } else { same };
            let mut r = Rectangle::new(
                [(SegmentValue::Exact(i as u32), 0.0), (SegmentValue::Exact(i as u32 + 1), b.1)],
                c.filled(),
            );
            r.set_margin(0, 0, 3, 3);
            r
        }))
        .map_err(err)?;
    chart
        .draw_series(DashedLineSeries::new(
            [(SegmentValue::Exact(0), reference), (SegmentValue::Exact(n.max(1)), reference)],
            8,
            5,
            REFERENCE.stroke_width(2),
        ))
        .map_err(err)?;
    let entries = [
        Entry {
            swatch: Swatch::Dashed(8, 5),
            marker: None,
            colour: REFERENCE,
            label: wrap(reference_label, 24),
        },
        Entry {
            swatch: Swatch::Box,
            marker: None,
            colour: better,
            label: "below the line: fewer\nthan now".into(),
        },
        Entry { swatch: Swatch::Box, marker: None, colour: same, label: "at or above the line".into() },
    ];
    legend(&side, &labels.legend, &entries)
}
