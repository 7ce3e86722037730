//! PNG reports for banksim runs and sweeps, drawn with plotters and an embedded font
//! (DejaVu Sans), so they render the same on any machine.
//!
//! Every chart stands alone: a title, a subtitle with the fixed parameters, axis labels
//! in words with units ([`column_label`]), and a legend or colour bar in a column at the
//! right of the plot, where it hides no data. Series differ in colour (Okabe–Ito),
//! marker and dash pattern at once.
//!
//! Modules, in the order they build on each other: `style` (palette, markers, dashes,
//! viridis), `common` (error, font, canvas, title, legend, ticks), `labels` (column
//! names in words), `line` (line charts, the calibration scatter), `grid` (bank × lane
//! heatmap, pipe timeline, with colour bars), `bars` (histogram, advisor's bars).
//!
//! Architecture invariant: this crate reads statistics (plain numbers handed over by the
//! caller), never the engine or the model.
#![warn(missing_docs)]

mod bars;
mod common;
mod grid;
mod labels;
mod line;
mod style;

#[cfg(test)]
mod golden;

pub use bars::{bars, histogram, Reference};
pub use common::ReportError;
pub use grid::{heatmap, timeline, HeatCell};
pub use labels::{column_label, column_short, describe};
pub use line::{line_chart, scatter, Labels, Series};
