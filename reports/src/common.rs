//! What every chart shares: the error type, the embedded font, the PNG canvas, the
//! title block (title and a subtitle of fixed parameters) and the legend column.

use crate::style::{Marker, Swatch};
use plotters::coord::Shift;
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

/// A drawing step's result; the message becomes [`ReportError::Draw`].
pub(crate) type Drawn = Result<(), String>;

const FONT: &[u8] = include_bytes!("../assets/DejaVuSans.ttf");
/// Canvas width in pixels.
pub(crate) const WIDTH: u32 = 1200;
/// Canvas height in pixels.
pub(crate) const HEIGHT: u32 = 700;
/// Width of the legend column at the right of the plot.
pub(crate) const LEGEND_WIDTH: u32 = 270;

pub(crate) fn register_font() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        if plotters::style::register_font("sans-serif", FontStyle::Normal, FONT).is_err() {
            unreachable!("the embedded DejaVu Sans is a valid font");
        }
    });
}

pub(crate) fn empty(path: &Path) -> ReportError {
    ReportError::Empty { path: path.display().to_string() }
}

pub(crate) fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// Draws `draw` on a white WIDTH x HEIGHT PNG at `path`.
pub(crate) fn png(
    path: &Path,
    draw: impl FnOnce(&DrawingArea<BitMapBackend<'_>, Shift>) -> Drawn,
) -> Result<(), ReportError> {
    register_font();
    let root = BitMapBackend::new(path, (WIDTH, HEIGHT)).into_drawing_area();
    let fail = |message: String| ReportError::Draw { path: path.display().to_string(), message };
    root.fill(&WHITE).map_err(|e| fail(e.to_string()))?;
    draw(&root).map_err(fail)?;
    root.present().map_err(|e| fail(e.to_string()))
}

/// Draws `draw` on a white WIDTH x HEIGHT SVG and returns its text (tests).
#[cfg(test)]
pub(crate) fn svg(draw: impl FnOnce(&DrawingArea<SVGBackend<'_>, Shift>) -> Drawn) -> String {
    register_font();
    let mut text = String::new();
    {
        let root = SVGBackend::with_string(&mut text, (WIDTH, HEIGHT)).into_drawing_area();
        root.fill(&WHITE).expect("fill");
        draw(&root).expect("draw");
        root.present().expect("present");
    }
    text
}

/// The title and, under it, the subtitle (fixed parameters, presets); returns the area
/// below them.
pub(crate) fn titled<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    subtitle: &str,
) -> Result<DrawingArea<DB, Shift>, String> {
    let (w, _) = root.dim_in_pixel();
    let centre = |size: u32, colour: RGBColor| {
        ("sans-serif", size).into_font().color(&colour).pos(plotters::style::text_anchor::Pos::new(
            plotters::style::text_anchor::HPos::Center,
            plotters::style::text_anchor::VPos::Top,
        ))
    };
    root.draw(&Text::new(title.to_string(), (w as i32 / 2, 10), centre(24, BLACK))).map_err(err)?;
    let mut top = 44;
    if !subtitle.is_empty() {
        root.draw(&Text::new(subtitle.to_string(), (w as i32 / 2, 42), centre(17, RGBColor(60, 60, 60))))
            .map_err(err)?;
        top = 70;
    }
    Ok(root.margin(top, 6, 6, 6))
}

/// The plot and the legend column at its right.
pub(crate) fn with_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
) -> (DrawingArea<DB, Shift>, DrawingArea<DB, Shift>) {
    let (w, _) = area.dim_in_pixel();
    area.split_horizontally(w.saturating_sub(LEGEND_WIDTH))
}

/// One legend entry: what it looks like and what it says (may hold `\n`).
pub(crate) struct Entry {
    pub(crate) swatch: Swatch,
    pub(crate) marker: Option<Marker>,
    pub(crate) colour: RGBColor,
    pub(crate) label: String,
}

/// Draws `entries` top down in the legend column, under an optional heading.
pub(crate) fn legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    heading: &str,
    entries: &[Entry],
) -> Drawn {
    let font = ("sans-serif", 15).into_font().color(&BLACK);
    let mut y = 16;
    if !heading.is_empty() {
        for line in heading.lines() {
            area.draw(&Text::new(line.to_string(), (10, y), ("sans-serif", 15).into_font().color(&BLACK)))
                .map_err(err)?;
            y += 19;
        }
        y += 6;
    }
    for e in entries {
        let mid = y + 8;
        crate::style::draw_swatch(area, e.swatch, e.colour, (12, mid), 44)?;
        if let Some(m) = e.marker {
            crate::style::with_marker!(m, (34, mid), e.colour, |el| area.draw(&el).map_err(err)?);
        }
        for (k, line) in e.label.lines().enumerate() {
            area.draw(&Text::new(line.to_string(), (64, y + k as i32 * 18), font.clone())).map_err(err)?;
        }
        y += 18 * e.label.lines().count().max(1) as i32 + 12;
    }
    Ok(())
}

/// Tick labels: integers without a decimal point when the axis holds integer data
/// (and no label between integers), else up to 3 significant decimals.
/// A chart builder on `plot` with the house margins: room below for the x ticks and
/// axis name, room left for `y_label_width` pixels of y ticks and axis name.
pub(crate) fn chart_on<'a, 'b, DB: DrawingBackend>(
    plot: &'a DrawingArea<DB, Shift>,
    y_label_width: u32,
) -> ChartBuilder<'a, 'b, DB> {
    let mut b = ChartBuilder::on(plot);
    b.margin(10).x_label_area_size(56).y_label_area_size(y_label_width);
    b
}

pub(crate) fn tick(integer: bool) -> impl Fn(&f64) -> String {
    move |v: &f64| {
        if integer {
            if (v - v.round()).abs() < 1e-6 {
                format!("{}", v.round() as i64)
            } else {
                String::new()
            }
        } else {
            let s = format!("{v:.3}");
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        }
    }
}

/// How many tick labels an axis from `lo` to `hi` gets: one per integer when there are
/// few, else about ten.
pub(crate) fn tick_count(integer: bool, lo: f64, hi: f64) -> usize {
    if integer && hi - lo <= 16.0 {
        (hi - lo).round() as usize + 1
    } else {
        10
    }
}
