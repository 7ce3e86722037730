//! Golden tests, one per chart kind: each chart is drawn to an SVG and the text is
//! checked for its title, subtitle, axis labels and one legend entry per series (or
//! its colour bar), and drawn to a PNG whose size is checked.

use crate::bars::{draw_bars, draw_histogram};
use crate::common::{svg, HEIGHT, WIDTH};
use crate::grid::{draw_heatmap, draw_timeline, HeatCell};
use crate::line::{draw_line_chart, draw_scatter, Labels, Series};

fn labels(title: &str) -> Labels {
    Labels {
        title: title.into(),
        subtitle: "width 4 B, warp 32 · presets a, b".into(),
        x: "stride (elements)".into(),
        y: "wavefronts per load request".into(),
        legend: "preset".into(),
    }
}

/// The texts of the SVG's `<text>` elements, in order.
fn texts(svg: &str) -> Vec<String> {
    svg.split("<text")
        .skip(1)
        .filter_map(|t| {
            let raw = t.split_once('>')?.1.split_once("</text>")?.0.trim();
            Some(raw.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&amp;", "&"))
        })
        .collect()
}

fn count(svg: &str, text: &str) -> usize {
    texts(svg).iter().filter(|t| t.as_str() == text).count()
}

fn assert_words(svg: &str, l: &Labels) {
    for t in [&l.title, &l.subtitle, &l.x, &l.y] {
        assert_eq!(count(svg, t), 1, "{t:?} once in {:?}", texts(svg));
    }
}

fn png_size(draw: impl FnOnce(&std::path::Path)) -> (u32, u32) {
    let dir = tempfile::Builder::new().prefix("banksim-golden-").tempdir().expect("temp dir");
    let path = dir.path().join("chart.png");
    draw(&path);
    image::image_dimensions(&path).expect("a PNG")
}

fn series() -> Vec<Series> {
    vec![
        ("a".into(), vec![(1.0, 1.0), (2.0, 2.0), (3.0, 4.0)]),
        ("b".into(), vec![(1.0, 1.0), (2.0, 2.0), (3.0, 4.0)]),
        ("c".into(), vec![(1.0, 1.0), (2.0, 1.0), (3.0, 1.0)]),
    ]
}

#[test]
fn line_chart_golden() {
    let l = labels("strides: conflict degree vs stride");
    let s = svg(|root| draw_line_chart(root, &l, &series(), &[]));
    assert_words(&s, &l);
    // a and b coincide: drawn once, one legend entry "a" then "= b"; c its own
    assert_eq!(count(&s, "a"), 1);
    assert_eq!(count(&s, "= b"), 1);
    assert_eq!(count(&s, "c"), 1);
    assert!(texts(&s).iter().any(|t| t.contains("same values")));
    // c meets a at x = 1: the legend says markers are nudged
    assert!(texts(&s).iter().any(|t| t.contains("nudged")));
    // integer data: integer ticks, no "1.5" or "2.0"
    assert!(!texts(&s).iter().any(|t| t.contains('.') && t.parse::<f64>().is_ok()), "{:?}", texts(&s));
    // two drawn lines (solid and dashed) in two palette colours
    assert!(s.contains("#0072B2") && s.contains("#E69F00"), "Okabe-Ito blue and orange");
    assert!(!s.contains("#009E73") || count(&s, "c") == 1);
    let size = png_size(|p| crate::line_chart(p, &l, &series(), &[]).expect("drawn"));
    assert_eq!(size, (WIDTH, HEIGHT));
    assert!(crate::line_chart(std::path::Path::new("/nonexistent/x.png"), &l, &[], &[]).is_err());
}

/// Powers of two spanning a factor of 8 (a crossbar's 64 to 512 bytes) go on a
/// logarithmic axis whose ticks are the powers; a metric's ideal is a grey line with
/// its own legend entry.
#[test]
fn powers_of_two_on_a_log_axis_and_the_ideal_line() {
    let mut l = labels("crossbar: wavefronts per request vs crossbar width");
    l.x = "crossbar width (bytes)".into();
    let series: Vec<Series> = vec![
        ("1 port".into(), vec![(64.0, 8.0), (128.0, 4.0), (256.0, 4.0), (512.0, 4.0)]),
        ("2 ports".into(), vec![(64.0, 4.0), (128.0, 2.0), (256.0, 2.0), (512.0, 2.0)]),
    ];
    let ideal = vec![vec![(64.0, 2.0), (128.0, 1.0), (256.0, 1.0), (512.0, 1.0)]; 2];
    let s = svg(|root| draw_line_chart(root, &l, &series, &ideal));
    let t = texts(&s);
    assert_eq!(count(&s, "crossbar width (bytes) (log scale)"), 1, "{t:?}");
    for tick in ["64", "128", "256", "512"] {
        assert_eq!(count(&s, tick), 1, "tick {tick} in {t:?}");
    }
    assert!(!t.iter().any(|x| x == "300" || x == "100"), "no linear ticks: {t:?}");
    // the two lines' ideal is one curve: drawn and explained once
    assert_eq!(count(&s, "ideal: no conflicts"), 1, "{t:?}");
    // not powers of two, or too narrow a span: a linear axis, and no ideal without one
    let linear = svg(|root| {
        draw_line_chart(root, &labels("x"), &series_of(&[(1.0, 1.0), (3.0, 2.0), (16.0, 4.0)]), &[])
    });
    assert!(
        !texts(&linear).iter().any(|x| x.contains("log scale") || x.contains("ideal")),
        "{:?}",
        texts(&linear)
    );
    let narrow = svg(|root| {
        draw_line_chart(root, &labels("x"), &series_of(&[(2.0, 1.0), (4.0, 2.0), (8.0, 4.0)]), &[])
    });
    assert!(!texts(&narrow).iter().any(|x| x.contains("log scale")), "{:?}", texts(&narrow));
}

fn series_of(pts: &[(f64, f64)]) -> Vec<Series> {
    vec![("a".into(), pts.to_vec())]
}

#[test]
fn scatter_golden() {
    let l = labels("h100: predicted vs measured speedup");
    let pts: Vec<Series> = vec![
        ("fit variants".into(), vec![(1.0, 1.1), (2.0, 1.9)]),
        ("held-out variants".into(), vec![(1.5, 1.4)]),
    ];
    let s = svg(|root| draw_scatter(root, &l, &pts, 0.1));
    assert_words(&s, &l);
    for t in ["predicted = measured", "±10% band around it", "fit variants", "held-out variants"] {
        assert_eq!(count(&s, t), 1, "{t}");
    }
    assert_eq!(png_size(|p| crate::scatter(p, &l, &pts, 0.1).expect("drawn")), (WIDTH, HEIGHT));
}

#[test]
fn heatmap_golden() {
    let l = Labels {
        title: "t: which lane uses which bank".into(),
        subtitle: "worst request".into(),
        ..Default::default()
    };
    let cells: Vec<HeatCell> =
        (0..4).map(|lane| HeatCell { wavefront: lane / 2, bank: (lane * 8) % 32, lane }).collect();
    let s = svg(|root| draw_heatmap(root, &l, 32, &cells));
    assert_eq!(count(&s, &l.title), 1);
    assert_eq!(count(&s, "bank"), 1);
    // the colour bar: its meaning and its ends
    assert!(texts(&s).iter().any(|t| t.contains("lane")), "{:?}", texts(&s));
    assert_eq!(count(&s, "lane 0"), 1);
    assert_eq!(count(&s, "lane 3"), 1);
    // each used cell labelled with its lane
    for lane in 0..4 {
        assert!(count(&s, &lane.to_string()) >= 1);
    }
    assert_eq!(png_size(|p| crate::heatmap(p, &l, 32, &cells).expect("drawn")), (WIDTH, HEIGHT));
}

#[test]
fn histogram_golden() {
    let l = Labels { title: "t: conflict degree".into(), subtitle: "h100".into(), ..Default::default() };
    let series = vec![("ld".to_string(), vec![(1, 10), (2, 3)]), ("st".to_string(), vec![(1, 4)])];
    let s = svg(|root| draw_histogram(root, &l, &series));
    assert_eq!(count(&s, &l.title), 1);
    assert_eq!(count(&s, "ld"), 1);
    assert_eq!(count(&s, "st"), 1);
    assert_eq!(count(&s, "op"), 1, "legend heading");
    assert_eq!(png_size(|p| crate::histogram(p, &l, &series).expect("drawn")), (WIDTH, HEIGHT));
}

#[test]
fn timeline_golden() {
    let l =
        Labels { title: "t: pipe occupancy per SM".into(), subtitle: "h100".into(), ..Default::default() };
    let rows = vec![vec![0.0, 0.5, 1.0], vec![1.0, 0.25, 0.0]];
    let s = svg(|root| draw_timeline(root, &l, 10.0, &rows));
    assert_eq!(count(&s, &l.title), 1);
    assert_eq!(count(&s, "time (cycles)"), 1);
    assert_eq!(count(&s, "0% busy"), 1);
    assert_eq!(count(&s, "100% busy"), 1);
    assert_eq!(png_size(|p| crate::timeline(p, &l, 10.0, &rows).expect("drawn")), (WIDTH, HEIGHT));
}

#[test]
fn advise_bars_golden() {
    let l = Labels {
        title: "t: wavefronts per candidate layout".into(),
        subtitle: "on h100".into(),
        x: "layout (pad N: N elements added per row)".into(),
        y: "wavefronts (whole trace)".into(),
        legend: String::new(),
    };
    let long = "a layout with a name much longer than the name column is wide";
    let bars = vec![
        ("as is".to_string(), 32.0),
        ("pad 1".to_string(), 1.0),
        ("transpose (AoS<->SoA)".to_string(), 32.0),
        (long.to_string(), 2.0),
    ];
    let line = crate::Reference {
        value: 32.0,
        line: "current layout: 32 wavefronts",
        below: "fewer wavefronts than the current layout",
        rest: "as many or more",
    };
    let s = svg(|root| draw_bars(root, &l, &bars, &line));
    assert_eq!(count(&s, &l.title), 1);
    assert_eq!(count(&s, &l.subtitle), 1);
    assert_eq!(count(&s, &l.y), 1, "the value axis");
    assert_eq!(count(&s, "layout"), 1, "the name column's heading");
    assert!(texts(&s).iter().any(|t| t.contains("pad N: N elements")), "the names are explained");
    assert!(texts(&s).iter().any(|t| t.starts_with("current layout")), "the dashed line is explained");
    // the bar colours are explained in the caller's words
    assert!(texts(&s).iter().any(|t| t.contains("fewer wavefronts")), "{:?}", texts(&s));
    assert!(texts(&s).iter().any(|t| t.contains("as many or more")), "{:?}", texts(&s));
    assert!(!texts(&s).iter().any(|t| t.contains("than now")), "no other chart's words");
    // every name in full (long ones wrapped, never cut), and every value at its bar
    for name in ["as is", "pad 1", "transpose (AoS<->SoA)"] {
        assert_eq!(count(&s, name), 1, "{name} in {:?}", texts(&s));
    }
    let words: Vec<String> =
        texts(&s).iter().flat_map(|t| t.split(' ').map(String::from).collect::<Vec<_>>()).collect();
    for w in long.split(' ') {
        assert!(words.iter().any(|x| x == w), "{w} of the long name");
    }
    assert!(!texts(&s).iter().any(|t| t.contains('…')), "no name cut");
    for v in ["1", "2", "32"] {
        assert!(count(&s, v) >= 1, "value {v}");
    }
    assert_eq!(png_size(|p| crate::bars(p, &l, &bars, &line).expect("drawn")), (WIDTH, HEIGHT));
}
