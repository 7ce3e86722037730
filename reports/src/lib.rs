//! PNG reports for banksim runs and sweeps, drawn with plotters and an embedded font
//! (DejaVu Sans), so they render the same on any machine.
//!
//! Architecture invariant: this crate reads statistics (plain numbers handed over by the
//! caller), never the engine or the model.
#![warn(missing_docs)]

use plotters::prelude::*;
use std::path::Path;
use std::sync::Once;

/// Drawing a chart failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReportError {
    /// plotters could not draw or write the PNG.
    #[error("{path}: cannot draw: {message}")]
    Draw {
        /// The PNG.
        path: String,
        /// plotters' message.
        message: String,
    },
    /// Nothing to draw.
    #[error("{path}: no data to draw")]
    Empty {
        /// The PNG.
        path: String,
    },
}

const FONT: &[u8] = include_bytes!("../assets/DejaVuSans.ttf");
const WIDTH: u32 = 1000;
const HEIGHT: u32 = 620;

fn register_font() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        if plotters::style::register_font("sans-serif", FontStyle::Normal, FONT).is_err() {
            unreachable!("the embedded DejaVu Sans is a valid font");
        }
    });
}

/// A white WIDTH x HEIGHT PNG canvas at `path`.
fn canvas(path: &Path) -> Result<DrawingArea<BitMapBackend<'_>, plotters::coord::Shift>, ReportError> {
    let root = BitMapBackend::new(path, (WIDTH, HEIGHT)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| draw_err(path, e))?;
    Ok(root)
}

fn draw_err(path: &Path, e: impl std::fmt::Display) -> ReportError {
    ReportError::Draw { path: path.display().to_string(), message: e.to_string() }
}

/// An x-y chart of f64 axes on `root`, with its title, axis labels and grid drawn.
fn xy_chart<'a, 'b>(
    root: &'a DrawingArea<BitMapBackend<'b>, plotters::coord::Shift>,
    path: &Path,
    title: &str,
    (x_label, y_label): (&str, &str),
    x: std::ops::Range<f64>,
    y: std::ops::Range<f64>,
) -> Result<XyChart<'a, 'b>, ReportError> {
    let mut chart = ChartBuilder::on(root)
        .caption(title, ("sans-serif", 22))
        .margin(12)
        .x_label_area_size(44)
        .y_label_area_size(64)
        .build_cartesian_2d(x, y)
        .map_err(|e| draw_err(path, e))?;
    chart
        .configure_mesh()
        .x_desc(x_label)
        .y_desc(y_label)
        .label_style(("sans-serif", 15))
        .draw()
        .map_err(|e| draw_err(path, e))?;
    Ok(chart)
}

type XyChart<'a, 'b> = ChartContext<
    'a,
    BitMapBackend<'b>,
    Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
>;

/// Draws the series' legend at `position` and writes the PNG.
fn finish<'a, 'b>(
    mut chart: XyChart<'a, 'b>,
    root: &'a DrawingArea<BitMapBackend<'b>, plotters::coord::Shift>,
    path: &Path,
    position: SeriesLabelPosition,
) -> Result<(), ReportError> {
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font(("sans-serif", 14))
        .position(position)
        .draw()
        .map_err(|e| draw_err(path, e))?;
    root.present().map_err(|e| draw_err(path, e))
}

/// A distinct colour for series `i`.
fn colour(i: usize) -> RGBColor {
    const C: [RGBColor; 10] = [
        RGBColor(31, 119, 180),
        RGBColor(255, 127, 14),
        RGBColor(44, 160, 44),
        RGBColor(214, 39, 40),
        RGBColor(148, 103, 189),
        RGBColor(140, 86, 75),
        RGBColor(227, 119, 194),
        RGBColor(127, 127, 127),
        RGBColor(188, 189, 34),
        RGBColor(23, 190, 207),
    ];
    C[i % C.len()]
}

/// One line of a line chart: a label and its (x, y) points.
pub type Series = (String, Vec<(f64, f64)>);

/// A line chart: x = a parameter, y = a metric, one line per series.
pub fn line_chart(
    path: &Path,
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[Series],
) -> Result<(), ReportError> {
    register_font();
    let points = series.iter().flat_map(|s| s.1.iter());
    let (mut x0, mut x1, mut y1) = (f64::MAX, f64::MIN, 0.0f64);
    for &(x, y) in points {
        x0 = x0.min(x);
        x1 = x1.max(x);
        y1 = y1.max(y);
    }
    if x0 > x1 {
        return Err(ReportError::Empty { path: path.display().to_string() });
    }
    if x0 == x1 {
        x1 = x0 + 1.0;
    }
    let root = canvas(path)?;
    let mut chart = xy_chart(&root, path, title, (x_label, y_label), x0..x1, 0.0..(y1 * 1.08).max(1.0))?;
    for (i, (label, pts)) in series.iter().enumerate() {
        let c = colour(i);
        chart
            .draw_series(LineSeries::new(pts.iter().copied(), c.stroke_width(2)))
            .map_err(|e| draw_err(path, e))?
            .label(label.as_str())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], c.stroke_width(3)));
        chart
            .draw_series(pts.iter().map(|&(x, y)| Circle::new((x, y), 3, c.filled())))
            .map_err(|e| draw_err(path, e))?;
    }
    finish(chart, &root, path, SeriesLabelPosition::UpperRight)
}

/// Predicted against measured: one colour per series, the diagonal y = x and a band of
/// ± `band` (relative) around it, axes from 0 to the largest value.
pub fn scatter(
    path: &Path,
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[Series],
    band: f64,
) -> Result<(), ReportError> {
    register_font();
    let hi = series.iter().flat_map(|s| s.1.iter()).fold(0.0f64, |m, &(x, y)| m.max(x).max(y));
    if series.iter().all(|s| s.1.is_empty()) {
        return Err(ReportError::Empty { path: path.display().to_string() });
    }
    let hi = (hi * 1.08).max(1e-9);
    let root = canvas(path)?;
    let mut chart = xy_chart(&root, path, title, (x_label, y_label), 0.0..hi, 0.0..hi)?;
    let grey = RGBColor(150, 150, 150);
    chart
        .draw_series(LineSeries::new([(0.0, 0.0), (hi, hi)], BLACK.stroke_width(1)))
        .map_err(|e| draw_err(path, e))?
        .label("predicted = measured")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], BLACK.stroke_width(1)));
    // y = (1 ± band) x, ending inside the square (plotters drops segments that leave it)
    for k in [1.0 + band, 1.0 - band] {
        let end = if k > 1.0 { (hi / k, hi) } else { (hi, hi * k) };
        chart
            .draw_series(LineSeries::new([(0.0, 0.0), end], grey.stroke_width(1)))
            .map_err(|e| draw_err(path, e))?;
    }
    for (i, (label, pts)) in series.iter().enumerate() {
        let c = colour(i);
        chart
            .draw_series(pts.iter().map(|&(x, y)| Circle::new((x, y), 5, c.filled())))
            .map_err(|e| draw_err(path, e))?
            .label(label.as_str())
            .legend(move |(x, y)| Circle::new((x + 9, y), 5, c.filled()));
    }
    finish(chart, &root, path, SeriesLabelPosition::UpperLeft)
}

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

/// The bank × lane picture of one request: rows are wavefronts, columns banks, each
/// used cell coloured and labelled by the lane it serves (the lowest lane when several
/// share a word).
pub fn heatmap(path: &Path, title: &str, banks: u32, cells: &[HeatCell]) -> Result<(), ReportError> {
    register_font();
    let waves = cells
        .iter()
        .map(|c| c.wavefront + 1)
        .max()
        .ok_or_else(|| ReportError::Empty { path: path.display().to_string() })?;
    let lanes = cells.iter().map(|c| c.lane + 1).max().unwrap_or(1);
    let root = canvas(path)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 22))
        .margin(12)
        .x_label_area_size(44)
        .y_label_area_size(64)
        .build_cartesian_2d(0u32..banks, 0u32..waves)
        .map_err(|e| draw_err(path, e))?;
    chart
        .configure_mesh()
        .disable_mesh()
        .x_desc("bank")
        .y_desc("wavefront")
        .label_style(("sans-serif", 15))
        .draw()
        .map_err(|e| draw_err(path, e))?;
    let mut first: std::collections::BTreeMap<(u32, u32), u32> = Default::default();
    for c in cells {
        let e = first.entry((c.wavefront, c.bank)).or_insert(c.lane);
        *e = (*e).min(c.lane);
    }
    chart
        .draw_series(first.iter().map(|(&(w, b), &lane)| {
            let hue = lane as f64 / lanes.max(1) as f64;
            Rectangle::new([(b, w), (b + 1, w + 1)], HSLColor(hue * 0.8, 0.65, 0.55).filled())
        }))
        .map_err(|e| draw_err(path, e))?;
    if banks * waves <= 32 * 40 {
        chart
            .draw_series(first.iter().map(|(&(w, b), &lane)| {
                Text::new(lane.to_string(), (b, w + 1), ("sans-serif", 11).into_font().color(&BLACK))
            }))
            .map_err(|e| draw_err(path, e))?;
    }
    root.present().map_err(|e| draw_err(path, e))
}

/// Bars of how many requests had each conflict degree (wavefronts / ideal, rounded),
/// one colour per op: `series` = (op, [(degree, requests)]).
pub fn histogram(path: &Path, title: &str, series: &[(String, Vec<(u32, u64)>)]) -> Result<(), ReportError> {
    register_font();
    let max_deg = series.iter().flat_map(|s| s.1.iter().map(|p| p.0)).max();
    let max_n = series.iter().flat_map(|s| s.1.iter().map(|p| p.1)).max().unwrap_or(0);
    let Some(max_deg) = max_deg else { return Err(ReportError::Empty { path: path.display().to_string() }) };
    let root = canvas(path)?;
    let k = series.len().max(1) as f64;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 22))
        .margin(12)
        .x_label_area_size(44)
        .y_label_area_size(70)
        .build_cartesian_2d(0.5f64..max_deg as f64 + 0.5, 0u64..(max_n + max_n / 10 + 1))
        .map_err(|e| draw_err(path, e))?;
    chart
        .configure_mesh()
        .x_desc("conflict degree (wavefronts / ideal)")
        .y_desc("warp requests")
        .label_style(("sans-serif", 15))
        .draw()
        .map_err(|e| draw_err(path, e))?;
    for (i, (op, bars)) in series.iter().enumerate() {
        let c = colour(i);
        let w = 0.8 / k;
        chart
            .draw_series(bars.iter().map(|&(d, n)| {
                let x = d as f64 - 0.4 + w * i as f64;
                Rectangle::new([(x, 0), (x + w, n)], c.filled())
            }))
            .map_err(|e| draw_err(path, e))?
            .label(op.as_str())
            .legend(move |(x, y)| Rectangle::new([(x, y - 6), (x + 14, y + 6)], c.filled()));
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font(("sans-serif", 14))
        .draw()
        .map_err(|e| draw_err(path, e))?;
    root.present().map_err(|e| draw_err(path, e))
}

/// Pipe occupancy over time per SM: `rows[sm][bucket]` in 0..=1, drawn as a strip
/// per SM (darker = busier); `bucket_cycles` is the width of a bucket.
pub fn timeline(path: &Path, title: &str, bucket_cycles: f64, rows: &[Vec<f64>]) -> Result<(), ReportError> {
    register_font();
    let buckets = rows.iter().map(Vec::len).max().unwrap_or(0);
    if rows.is_empty() || buckets == 0 {
        return Err(ReportError::Empty { path: path.display().to_string() });
    }
    let root = canvas(path)?;
    let end = buckets as f64 * bucket_cycles;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 22))
        .margin(12)
        .x_label_area_size(44)
        .y_label_area_size(64)
        .build_cartesian_2d(0.0..end, 0u32..rows.len() as u32)
        .map_err(|e| draw_err(path, e))?;
    chart
        .configure_mesh()
        .disable_mesh()
        .x_desc("cycle")
        .y_desc("SM")
        .label_style(("sans-serif", 15))
        .draw()
        .map_err(|e| draw_err(path, e))?;
    chart
        .draw_series(rows.iter().enumerate().flat_map(|(sm, row)| {
            row.iter().enumerate().map(move |(b, &u)| {
                let x = b as f64 * bucket_cycles;
                let shade = (255.0 * (1.0 - u.clamp(0.0, 1.0) * 0.85)) as u8;
                Rectangle::new(
                    [(x, sm as u32), (x + bucket_cycles, sm as u32 + 1)],
                    RGBColor(shade, shade, 255).filled(),
                )
            })
        }))
        .map_err(|e| draw_err(path, e))?;
    root.present().map_err(|e| draw_err(path, e))
}

/// A bar per labelled value (e.g. wavefronts per layout candidate), with a dashed
/// reference line at `reference` (e.g. the current layout).
pub fn bars(
    path: &Path,
    title: &str,
    y_label: &str,
    bars: &[(String, f64)],
    reference: f64,
) -> Result<(), ReportError> {
    register_font();
    if bars.is_empty() {
        return Err(ReportError::Empty { path: path.display().to_string() });
    }
    let top = bars.iter().map(|b| b.1).fold(reference, f64::max).max(1.0) * 1.1;
    let root = canvas(path)?;
    let n = bars.len() as u32;
    let labels: Vec<String> = bars.iter().map(|b| b.0.clone()).collect();
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 22))
        .margin(12)
        .x_label_area_size(90)
        .y_label_area_size(70)
        .build_cartesian_2d((0u32..n.saturating_sub(1)).into_segmented(), 0.0..top)
        .map_err(|e| draw_err(path, e))?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .y_desc(y_label)
        .x_labels(n as usize)
        .x_label_formatter(&|v| match v {
            SegmentValue::CenterOf(i) => labels.get(*i as usize).cloned().unwrap_or_default(),
            _ => String::new(),
        })
        .x_label_style(("sans-serif", 12).into_font().transform(FontTransform::Rotate90))
        .label_style(("sans-serif", 14))
        .draw()
        .map_err(|e| draw_err(path, e))?;
    chart
        .draw_series(bars.iter().enumerate().map(|(i, b)| {
            let c = if b.1 < reference { colour(2) } else { colour(0) };
            let mut r = Rectangle::new(
                [(SegmentValue::Exact(i as u32), 0.0), (SegmentValue::Exact(i as u32 + 1), b.1)],
                c.filled(),
            );
            r.set_margin(0, 0, 10, 10);
            r
        }))
        .map_err(|e| draw_err(path, e))?;
    chart
        .draw_series(DashedLineSeries::new(
            [(SegmentValue::Exact(0), reference), (SegmentValue::Exact(n.max(1)), reference)],
            6,
            4,
            colour(3).stroke_width(2),
        ))
        .map_err(|e| draw_err(path, e))?;
    root.present().map_err(|e| draw_err(path, e))
}
