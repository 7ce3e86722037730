//! Bar charts: the conflict-degree histogram of a run and the advisor's wavefronts per
//! candidate layout.

use crate::common::{
    self, chart_on, err, legend, tick, tick_count, titled, with_legend, Drawn, Entry, ReportError,
};
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
    let mut chart =
        chart_on(&plot, 80).build_cartesian_2d(0.5f64..max_deg as f64 + 0.5, 0.0..top).map_err(err)?;
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

/// The dashed reference line of [`bars`] and what the legend says of it and of the bars'
/// two colours, in the chart's own words.
#[derive(Clone, Debug, PartialEq)]
pub struct Reference<'a> {
    /// Where the line is (e.g. the current layout's wavefronts).
    pub value: f64,
    /// What the line is (`current layout: 1056 wavefronts`).
    pub line: &'a str,
    /// What a bar short of the line means (`fewer wavefronts than now`).
    pub below: &'a str,
    /// What a bar at or past the line means.
    pub rest: &'a str,
}

/// A horizontal bar per labelled value (e.g. wavefronts per layout candidate), ranked
/// top down, each name written in full at the left of its bar and its value at the
/// bar's end, with a dashed reference line (e.g. the current layout), explained in the
/// legend with what the bars on either side of it mean; bars short of the line are
/// drawn in another colour. `labels.x` names the bars: its words before " (" head the
/// name column, a parenthesised explanation goes under the legend; `labels.y` is the
/// value axis.
pub fn bars(
    path: &Path,
    labels: &Labels,
    bars: &[(String, f64)],
    reference: &Reference,
) -> Result<(), ReportError> {
    if bars.is_empty() {
        return Err(common::empty(path));
    }
    common::png(path, |root| draw_bars(root, labels, bars, reference))
}

/// Characters per line of a bar's name before it wraps.
const NAME_CHARS: usize = 28;
/// Width of the name column at the left of the bars.
const NAME_WIDTH: u32 = 250;

fn value_text(v: f64, integer: bool) -> String {
    if integer {
        format!("{}", v.round() as i64)
    } else {
        tick(false)(&v)
    }
}

pub(crate) fn draw_bars<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    labels: &Labels,
    bars: &[(String, f64)],
    line: &Reference,
) -> Drawn {
    let reference = line.value;
    // room at the bars' end for their values
    let top = bars.iter().map(|b| b.1).fold(reference, f64::max).max(1.0) * 1.12;
    let n = bars.len().max(1) as u32;
    let integer = bars.iter().all(|b| b.1.fract() == 0.0) && reference.fract() == 0.0;
    let (heading, note) = match labels.x.split_once(" (") {
        Some((h, rest)) => (h.to_string(), rest.trim_end_matches(')').to_string()),
        None => (labels.x.clone(), String::new()),
    };
    let body = titled(root, &labels.title, &labels.subtitle)?;
    let (plot, side) = with_legend(&body);
    // row k from the top is segment n-1-k, so the first bar is drawn at the top
    let mut chart = chart_on(&plot, NAME_WIDTH)
        .margin_top(34)
        .build_cartesian_2d(0.0..top, (0u32..n - 1).into_segmented())
        .map_err(err)?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .light_line_style(WHITE)
        .x_desc(labels.y.as_str())
        .y_labels(n as usize)
        .y_label_formatter(&|_| String::new())
        .x_label_formatter(&tick(integer))
        .x_labels(tick_count(integer, 0.0, top))
        .label_style(("sans-serif", 15))
        .axis_desc_style(("sans-serif", 17))
        .draw()
        .map_err(err)?;
    let row = |k: usize| n - 1 - k as u32;
    let (better, same) = (colour(2), colour(0));
    chart
        .draw_series(bars.iter().enumerate().map(|(k, b)| {
            let c = if b.1 < reference { better } else { same };
            let mut r = Rectangle::new(
                [(0.0, SegmentValue::Exact(row(k))), (b.1, SegmentValue::Exact(row(k) + 1))],
                c.filled(),
            );
            r.set_margin(3, 3, 0, 0);
            r
        }))
        .map_err(err)?;
    chart
        .draw_series(DashedLineSeries::new(
            [(reference, SegmentValue::Exact(0)), (reference, SegmentValue::Exact(n))],
            8,
            5,
            REFERENCE.stroke_width(2),
        ))
        .map_err(err)?;
    // names at the left of their bars and values at their ends, in backend pixels
    let (ox, oy) = root.get_base_pixel();
    let pos = |hpos, vpos| plotters::style::text_anchor::Pos::new(hpos, vpos);
    use plotters::style::text_anchor::{HPos, VPos};
    let name_font = ("sans-serif", 15).into_font().color(&BLACK);
    for (k, (name, v)) in bars.iter().enumerate() {
        let (_, y_top) = chart.backend_coord(&(0.0, SegmentValue::Exact(row(k) + 1)));
        let (x0, y_bottom) = chart.backend_coord(&(0.0, SegmentValue::Exact(row(k))));
        let mid = (y_top + y_bottom) / 2 - oy;
        let wrapped = wrap(name, NAME_CHARS);
        let lines: Vec<&str> = wrapped.lines().collect();
        let first = mid - 9 * (lines.len() as i32 - 1);
        for (j, line) in lines.iter().enumerate() {
            root.draw(&Text::new(
                line.to_string(),
                (x0 - ox - 8, first + 18 * j as i32),
                name_font.clone().pos(pos(HPos::Right, VPos::Center)),
            ))
            .map_err(err)?;
        }
        let (x_end, _) = chart.backend_coord(&(*v, SegmentValue::Exact(row(k))));
        let (x_ref, _) = chart.backend_coord(&(reference, SegmentValue::Exact(row(k))));
        // clear of the dashed line when the bar ends at it
        let x_end = if (x_end - x_ref).abs() < 4 { x_ref + 4 } else { x_end };
        root.draw(&Text::new(
            value_text(*v, integer),
            (x_end - ox + 5, mid),
            ("sans-serif", 13).into_font().color(&BLACK).pos(pos(HPos::Left, VPos::Center)),
        ))
        .map_err(err)?;
    }
    // the name column's heading, above the names
    let (x0, y0) = chart.backend_coord(&(0.0, SegmentValue::Exact(n)));
    root.draw(&Text::new(
        heading,
        (x0 - ox - 8, y0 - oy - 8),
        ("sans-serif", 17).into_font().color(&BLACK).pos(pos(HPos::Right, VPos::Bottom)),
    ))
    .map_err(err)?;
    let mut entries = vec![
        Entry { swatch: Swatch::Dashed(8, 5), marker: None, colour: REFERENCE, label: wrap(line.line, 24) },
        Entry { swatch: Swatch::Box, marker: None, colour: better, label: wrap(line.below, 24) },
        Entry { swatch: Swatch::Box, marker: None, colour: same, label: wrap(line.rest, 24) },
    ];
    if !note.is_empty() {
        entries.push(Entry { swatch: Swatch::None, marker: None, colour: BLACK, label: wrap(&note, 28) });
    }
    legend(&side, &labels.legend, &entries)
}
