//! Colours, markers and dash patterns. Series are told apart three ways at once —
//! colour, marker shape and dash pattern — so they stay distinct in greyscale and for
//! colour-blind readers; colours are the Okabe–Ito palette, colour scales viridis.

use plotters::coord::Shift;
use plotters::prelude::*;

/// The Okabe–Ito palette (black last, kept for reference lines).
const OKABE_ITO: [RGBColor; 7] = [
    RGBColor(0, 114, 178),   // blue
    RGBColor(230, 159, 0),   // orange
    RGBColor(0, 158, 115),   // bluish green
    RGBColor(204, 121, 167), // reddish purple
    RGBColor(86, 180, 233),  // sky blue
    RGBColor(213, 94, 0),    // vermillion
    RGBColor(240, 228, 66),  // yellow
];

/// The colour of series `i`.
pub(crate) fn colour(i: usize) -> RGBColor {
    OKABE_ITO[i % OKABE_ITO.len()]
}

/// Vermillion, for the reference line of bar charts.
pub(crate) const REFERENCE: RGBColor = RGBColor(213, 94, 0);

/// A viridis-like colour for `t` in 0..=1 (dark purple → blue → green → yellow):
/// monotone in lightness, so it reads in greyscale too.
pub(crate) fn viridis(t: f64) -> RGBColor {
    const STOPS: [(f64, f64, f64); 6] = [
        (68.0, 1.0, 84.0),
        (65.0, 68.0, 135.0),
        (42.0, 120.0, 142.0),
        (34.0, 168.0, 132.0),
        (122.0, 209.0, 81.0),
        (253.0, 231.0, 37.0),
    ];
    let t = t.clamp(0.0, 1.0) * (STOPS.len() - 1) as f64;
    let i = (t.floor() as usize).min(STOPS.len() - 2);
    let f = t - i as f64;
    let (a, b) = (STOPS[i], STOPS[i + 1]);
    let mix = |x: f64, y: f64| (x + (y - x) * f).round() as u8;
    RGBColor(mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
}

/// A marker shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Marker {
    Circle,
    Square,
    Triangle,
    Diamond,
    Cross,
    HollowCircle,
    HollowSquare,
}

/// A line's dash pattern.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Swatch {
    Solid,
    /// dash and gap lengths in pixels
    Dashed(u32, u32),
    /// a filled box (bars)
    Box,
    /// no line (scatter points)
    None,
}

/// The marker of series `i`.
pub(crate) fn marker(i: usize) -> Marker {
    const M: [Marker; 7] = [
        Marker::Circle,
        Marker::Square,
        Marker::Triangle,
        Marker::Diamond,
        Marker::Cross,
        Marker::HollowCircle,
        Marker::HollowSquare,
    ];
    M[i % M.len()]
}

/// The dash pattern of series `i`.
pub(crate) fn dash(i: usize) -> Swatch {
    const D: [Swatch; 5] = [
        Swatch::Solid,
        Swatch::Dashed(12, 6),
        Swatch::Dashed(4, 4),
        Swatch::Dashed(20, 5),
        Swatch::Dashed(8, 3),
    ];
    D[i % D.len()]
}

/// Calls `$use` (a macro-like body taking the element as `$e`) with marker `$m`'s
/// element centred at `$at` in colour `$c`: each shape is its own type, so the body is
/// expanded once per shape.
macro_rules! with_marker {
    ($m:expr, $at:expr, $c:expr, |$e:ident| $body:expr) => {{
        use plotters::prelude::*;
        use $crate::style::Marker;
        let (fill, line) = ($c.filled(), $c.stroke_width(2));
        let at = EmptyElement::at($at);
        match $m {
            Marker::Circle => {
                let $e = at + Circle::new((0, 0), 5, fill);
                $body
            }
            Marker::HollowCircle => {
                let $e = at + Circle::new((0, 0), 5, line);
                $body
            }
            Marker::Square => {
                let $e = at + Rectangle::new([(-4, -4), (4, 4)], fill);
                $body
            }
            Marker::HollowSquare => {
                let $e = at + Rectangle::new([(-4, -4), (4, 4)], line);
                $body
            }
            Marker::Triangle => {
                let $e = at + Polygon::new(vec![(0, -6), (6, 5), (-6, 5)], fill);
                $body
            }
            Marker::Diamond => {
                let $e = at + Polygon::new(vec![(0, -6), (6, 0), (0, 6), (-6, 0)], fill);
                $body
            }
            Marker::Cross => {
                let $e = at
                    + PathElement::new(vec![(-5, -5), (5, 5)], line)
                    + PathElement::new(vec![(-5, 5), (5, -5)], line);
                $body
            }
        }
    }};
}
pub(crate) use with_marker;

/// A legend swatch `len` pixels long starting at `from` (pixel coordinates of `area`).
pub(crate) fn draw_swatch<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    swatch: Swatch,
    c: RGBColor,
    (x, y): (i32, i32),
    len: i32,
) -> Result<(), String> {
    let e = |e: plotters::drawing::DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    match swatch {
        Swatch::None => Ok(()),
        Swatch::Box => {
            area.draw(&Rectangle::new([(x + 8, y - 7), (x + len - 8, y + 7)], c.filled())).map_err(e)
        }
        Swatch::Solid => {
            area.draw(&PathElement::new(vec![(x, y), (x + len, y)], c.stroke_width(2))).map_err(e)
        }
        Swatch::Dashed(on, off) => {
            let mut s = x;
            while s < x + len {
                let end = (s + on as i32).min(x + len);
                area.draw(&PathElement::new(vec![(s, y), (end, y)], c.stroke_width(2))).map_err(e)?;
                s = end + off as i32;
            }
            Ok(())
        }
    }
}
