//! `banksim report`: PNGs and an index page from a sweep's or a run's output folder.

use anyhow::{bail, Context, Result};
use clap::Args;
use pipeline::output::{write_atomically, write_via_path, Inputs};
use reports::HeatCell;
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};

#[derive(Args)]
/// Arguments of `banksim report`.
pub struct ReportArgs {
    /// A sweep output folder (with results.json) or a run output folder (`banksim run --out`).
    input: PathBuf,
    /// Folder for the PNGs and index.md.
    #[arg(short, long, value_name = "DIR")]
    out: PathBuf,
}

/// Runs `banksim report`.
pub fn run(args: &ReportArgs) -> Result<()> {
    let inputs = Inputs::new();
    inputs.declare_folder(&args.input);
    // a folder banksim made (or an empty one), held while the report is written
    let _folder = pipeline::study::SweepFolder::open(&args.out)?;
    let items = if args.input.join("results.json").is_file() {
        sweep_report(&args.input, &args.out, &inputs)?
    } else if args.input.join("requests.csv").is_file() {
        run_report(&args.input, &args.out, &inputs)?
    } else {
        bail!(
        "{}: neither a sweep output (results.json) nor a run output (requests.csv from `banksim run --out`)",
        args.input.display()
    );
    };
    if items.is_empty() {
        bail!(
            "{}: nothing to draw: no chart came out of it (check the study's plot spec: its x and y columns, and rows with numbers in them)",
            args.input.display()
        );
    }
    let head =
        if args.input.join("results.json").is_file() { study_head(&args.input)? } else { Head::default() };
    let md = index_md(&args.input.display().to_string(), &head, &items);
    write_atomically(&args.out.join("index.md"), &inputs, |f| {
        f.write_all(md.as_bytes()).with_context(|| format!("{}: cannot write", args.out.display()))
    })?;
    let html = index_html(&args.input.display().to_string(), &head, &items);
    write_atomically(&args.out.join("index.html"), &inputs, |f| {
        f.write_all(html.as_bytes()).with_context(|| format!("{}: cannot write", args.out.display()))
    })?;
    eprintln!(
        "wrote {}, index.md and index.html to {}",
        crate::tables::count(items.len() as u64, "chart"),
        args.out.display()
    );
    Ok(())
}

/// `s` with HTML's special characters escaped.
fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// A chart of the report: its file, its caption and one sentence on what it shows.
struct Item {
    png: String,
    caption: String,
    sentence: String,
}

/// What a sweep's index page says before its charts: the study, its question, and the
/// cells as a table of what varies (a row per column, its values).
#[derive(Default)]
struct Head {
    title: String,
    question: String,
    cells: String,
    axes: Vec<(String, String)>,
}

/// The head of a sweep's index page, from its results.
fn study_head(input: &Path) -> Result<Head> {
    let doc = pipeline::study::results::read_results(&input.join("results.json"))?;
    let columns: Vec<String> = serde_json::from_value(doc["columns"].clone())?;
    let rows = doc["rows"].as_array().map(Vec::as_slice).unwrap_or_default();
    let metrics_from = columns.iter().position(|c| c == "requests").unwrap_or(columns.len());
    let mut axes = Vec::new();
    for c in columns.iter().take(metrics_from).filter(|c| *c != "cell") {
        let mut values: Vec<(f64, String)> = Vec::new();
        for r in rows {
            let v = &r[c.as_str()];
            if v.is_null() {
                continue;
            }
            let text = v.as_str().map(String::from).unwrap_or_else(|| v.to_string());
            if !values.iter().any(|(_, t)| *t == text) {
                values.push((num(v).unwrap_or(f64::MAX), text));
            }
        }
        // numbers in order, names as the study lists them
        if values.iter().all(|v| v.0 != f64::MAX) {
            values.sort_by(|a, b| a.0.total_cmp(&b.0));
        }
        let shown = match values.len() {
            n if n > 12 => format!("{} to {} ({n} values)", values[0].1, values[n - 1].1),
            _ => values.iter().map(|v| v.1.clone()).collect::<Vec<_>>().join(", "),
        };
        axes.push((c.clone(), shown));
    }
    let skipped = rows.iter().filter(|r| r["skipped"].as_str().is_some_and(|s| !s.is_empty())).count();
    let mut cells = format!("{} cells", rows.len());
    if skipped > 0 {
        write!(cells, ", {skipped} of them skipped (their hardware cannot run their workload: `skipped` in the results says why)")?;
    }
    Ok(Head {
        title: format!("{}: banksim report", doc["study"].as_str().unwrap_or("study")),
        question: doc["question"].as_str().unwrap_or_default().to_string(),
        cells,
        axes,
    })
}

/// The index page in Markdown: the study's question and its cells, then each chart with
/// its sentence.
fn index_md(source: &str, head: &Head, items: &[Item]) -> String {
    let mut md = format!(
        "# {}

",
        if head.title.is_empty() { "banksim report" } else { &head.title }
    );
    if !head.question.is_empty() {
        md += &format!(
            "**Question:** {}

",
            head.question
        );
    }
    md += &format!(
        "Source: `{source}`

"
    );
    if !head.axes.is_empty() {
        md += &format!(
            "## Cells

{} (every row in `results.csv` of the source):

",
            head.cells
        );
        md += "| column | values |
| --- | --- |
";
        for (c, v) in &head.axes {
            md += &format!(
                "| {} | {v} |
",
                reports::column_short(c)
            );
        }
        md += "
";
    }
    for it in items {
        md += &format!(
            "## {}

",
            it.caption
        );
        if !it.sentence.is_empty() {
            md += &format!(
                "{}

",
                it.sentence
            );
        }
        md += &format!(
            "![{}]({})

",
            it.caption, it.png
        );
    }
    md
}

/// The index page for a browser: the same content as `index.md`, each PNG inline through
/// a relative `<img>`.
fn index_html(source: &str, head: &Head, items: &[Item]) -> String {
    let title = escape(if head.title.is_empty() { "banksim report" } else { &head.title });
    let mut h = format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{title}</title>\n\
         <style>body{{font-family:sans-serif;max-width:1240px;margin:2em auto;padding:0 1em}}\
         img{{max-width:100%;border:1px solid #ccc}}h2{{font-size:1.15em;margin-top:2em}}\
         td,th{{border:1px solid #ccc;padding:.2em .5em;text-align:left}}table{{border-collapse:collapse}}</style>\n\
         </head>\n<body>\n<h1>{title}</h1>\n"
    );
    if !head.question.is_empty() {
        h.push_str(&format!("<p><b>Question:</b> {}</p>\n", escape(&head.question)));
    }
    h.push_str(&format!("<p>Source: <code>{}</code></p>\n", escape(source)));
    if !head.axes.is_empty() {
        h.push_str(&format!(
            "<h2>Cells</h2>\n<p>{} (every row in <code>results.csv</code> of the source):</p>\n<table>\n<tr><th>column</th><th>values</th></tr>\n",
            escape(&head.cells)
        ));
        for (c, v) in &head.axes {
            h.push_str(&format!(
                "<tr><td>{}</td><td>{}</td></tr>\n",
                escape(&reports::column_short(c)),
                escape(v)
            ));
        }
        h.push_str("</table>\n");
    }
    for it in items {
        let (png, caption) = (escape(&it.png), escape(&it.caption));
        h.push_str(&format!("<h2>{caption}</h2>\n"));
        if !it.sentence.is_empty() {
            h.push_str(&format!("<p>{}</p>\n", escape(&it.sentence)));
        }
        h.push_str(&format!("<p><img src=\"{png}\" alt=\"{caption}\"></p>\n"));
    }
    h.push_str("</body>\n</html>\n");
    h
}

/// A metric's ideal in a row of the results, where it has one: its value with every
/// request at its ideal wavefronts (1 for a conflict degree; ideal wavefronts per
/// request for wavefronts per request, which is more than 1 where a warp's request takes
/// several phases).
fn ideal_of(y: &str, r: &Value) -> Option<f64> {
    let get = |c: &str| num(&r[c]);
    let ratio = |a: Option<f64>, b: Option<f64>| a.zip(b).filter(|(_, b)| *b > 0.0).map(|(a, b)| a / b);
    match y {
        "degree" | "ld_degree" => Some(1.0),
        "wavefronts" => get("ideal"),
        "per_request" => ratio(get("ideal"), get("requests")),
        "ld_wavefronts" => ratio(get("ld_wavefronts"), get("ld_degree")),
        "ld_per_request" => ratio(get("ld_per_request"), get("ld_degree")),
        _ => None,
    }
}

/// A number as the index page writes it: at most 3 decimals, no trailing zeros.
fn short(v: f64) -> String {
    let s = format!("{v:.3}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// One sentence on a chart: the range of its metric, where the lowest and highest
/// values are, and how many points are at the ideal.
fn sentence(y: &str, x: &str, series: &[reports::Series], ideal: &[Vec<(f64, f64)>]) -> String {
    let mut pts: Vec<(f64, f64, &str)> = Vec::new();
    for (label, ps) in series {
        pts.extend(ps.iter().map(|&(a, b)| (a, b, label.as_str())));
    }
    let Some(lo) = pts.iter().min_by(|a, b| a.1.total_cmp(&b.1)) else { return String::new() };
    let hi = pts.iter().max_by(|a, b| a.1.total_cmp(&b.1)).unwrap();
    let at = |p: &(f64, f64, &str)| {
        let on = if p.2.is_empty() { String::new() } else { format!(", {}", p.2) };
        format!("{} {}{on}", reports::column_short(x), short(p.0))
    };
    let what = reports::column_short(y);
    let mut s = if lo.1 == hi.1 {
        format!("{what} is {} at every point", short(lo.1))
    } else {
        format!("{what} goes from {} ({}) to {} ({})", short(lo.1), at(lo), short(hi.1), at(hi))
    };
    if !ideal.is_empty() {
        let at_ideal = series
            .iter()
            .zip(ideal)
            .map(|((_, ps), id)| ps.iter().zip(id).filter(|(p, i)| (p.1 - i.1).abs() < 1e-9).count())
            .sum::<usize>();
        write!(s, "; {at_ideal} of {} points are at the ideal (no conflicts)", pts.len()).unwrap();
    }
    s + "."
}

fn num(v: &Value) -> Option<f64> {
    v.as_f64().or_else(|| v.as_str().and_then(|s| s.parse().ok()))
}

/// One chart per (metric, workload group), one line per hardware configuration.
fn sweep_report(input: &Path, out: &Path, inputs: &Inputs) -> Result<Vec<Item>> {
    let path = input.join("results.json");
    let doc: Value = pipeline::study::results::read_results(&path)?;
    let columns: Vec<String> = serde_json::from_value(doc["columns"].clone())?;
    let rows = doc["rows"].as_array().context("results.json has no rows")?;
    let pos = |c: &str| columns.iter().position(|x| x == c);
    let (wl, metrics_from) =
        (pos("workload").context("no workload column")?, pos("requests").context("no metrics")?);
    let hw_cols = &columns[1..wl];
    let params = &columns[wl + 1..metrics_from];
    let x = match doc["plot"]["x"].as_str() {
        Some(x) => x.to_string(),
        None => params
            .iter()
            .max_by_key(|p| {
                rows.iter()
                    .map(|r| r[p.as_str()].to_string())
                    .collect::<std::collections::BTreeSet<_>>()
                    .len()
            })
            .cloned()
            .context("no parameter to put on the x axis")?,
    };
    let ys: Vec<String> = match doc["plot"]["y"].as_array() {
        Some(ys) => ys.iter().filter_map(|y| y.as_str().map(String::from)).collect(),
        None => vec!["per_request".into()],
    };
    let value = |r: &Value, c: &str| r[c].to_string().trim_matches('"').to_string();
    // (a parameter another workload of the study has is empty in this row: left out)
    let words = |r: &Value, cols: &[String]| {
        cols.iter()
            .filter(|c| !r[c.as_str()].is_null())
            .map(|c| reports::describe(c, &value(r, c)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let study = doc["study"].as_str().unwrap_or("study");
    let split = doc["plot"]["split"].as_str();
    let series_cols: Vec<String> = serde_json::from_value(doc["plot"]["series"].clone()).unwrap_or_default();
    // fixed in a chart: the parameters other than x and the series', and the split field
    let others: Vec<String> = params
        .iter()
        .filter(|p| **p != x && !series_cols.contains(p))
        .cloned()
        .chain(split.map(String::from))
        .collect();
    // told apart by the lines: the hardware fields (but the split and a field on the x
    // axis) and the series' parameters
    let lines: Vec<String> = hw_cols
        .iter()
        .filter(|c| Some(c.as_str()) != split && **c != x)
        .cloned()
        .chain(series_cols.iter().cloned())
        .collect();
    // sort charts and lines by their values, numbers as numbers (width 4 before 16)
    let key = |r: &Value, cols: &[String]| -> Vec<(f64, String)> {
        cols.iter().map(|c| (num(&r[c.as_str()]).unwrap_or(f64::MAX), value(r, c))).collect()
    };
    let mut items = Vec::new();
    for y in &ys {
        // group rows: workload (name + fixed params) -> line -> points
        type Key = Vec<(f64, String)>;
        // (its key, its label, its points, the metric's ideal at each point where known)
        type Line = (Key, String, Vec<(f64, f64)>, Vec<Option<f64>>);
        let mut groups: Vec<(Key, String, Vec<Line>)> = Vec::new();
        let mut presets: Vec<Vec<String>> = Vec::new();
        for r in rows {
            let (Some(xv), Some(yv)) = (num(&r[x.as_str()]), num(&r[y.as_str()])) else { continue };
            let mut gk = vec![(0.0, r["workload"].as_str().unwrap_or("").to_string())];
            gk.extend(key(r, &others));
            let g = match groups.iter().position(|g| g.0 == gk) {
                Some(g) => g,
                None => {
                    let wl = r["workload"].as_str().unwrap_or("");
                    let fixed = words(r, &others);
                    let sub = if fixed.is_empty() {
                        format!("{wl} workload")
                    } else {
                        format!("{wl} workload · {fixed}")
                    };
                    groups.push((gk, sub, Vec::new()));
                    presets.push(Vec::new());
                    groups.len() - 1
                }
            };
            if let Some(p) = r["preset"].as_str() {
                if !presets[g].iter().any(|q| q == p) {
                    presets[g].push(p.to_string());
                }
            }
            let lk = key(r, &lines);
            let lines_of = &mut groups[g].2;
            let ideal = ideal_of(y, r);
            match lines_of.iter_mut().find(|l| l.0 == lk) {
                Some(l) => {
                    l.2.push((xv, yv));
                    l.3.push(ideal);
                }
                None => lines_of.push((lk, words(r, &lines), vec![(xv, yv)], vec![ideal])),
            }
        }
        let mut order: Vec<usize> = (0..groups.len()).collect();
        let cmp = |a: &Key, b: &Key| {
            a.iter().zip(b).map(|(p, q)| p.0.total_cmp(&q.0).then_with(|| p.1.cmp(&q.1))).find(|o| o.is_ne())
        };
        order.sort_by(|&a, &b| cmp(&groups[a].0, &groups[b].0).unwrap_or(std::cmp::Ordering::Equal));
        for (i, g) in order.into_iter().enumerate() {
            let (_, sub, mut lines_of) = std::mem::take(&mut groups[g]);
            // numbers in order; names (presets) stay in the order the study lists them
            lines_of.sort_by(|a, b| {
                a.0.iter()
                    .zip(&b.0)
                    .map(|(p, q)| p.0.total_cmp(&q.0))
                    .find(|o| o.is_ne())
                    .unwrap_or(std::cmp::Ordering::Equal)
            });
            let mut series: Vec<reports::Series> = Vec::new();
            let mut ideal: Vec<Vec<(f64, f64)>> = Vec::new();
            for (_, l, pts, ideals) in lines_of {
                let mut both: Vec<((f64, f64), Option<f64>)> = pts.into_iter().zip(ideals).collect();
                both.sort_by(|a, b| a.0 .0.total_cmp(&b.0 .0));
                ideal.push(both.iter().filter_map(|(p, i)| i.map(|i| (p.0, i))).collect());
                series.push((l, both.into_iter().map(|(p, _)| p).collect()));
            }
            // an ideal only where every point has one
            if series.iter().zip(&ideal).any(|(s, i)| s.1.len() != i.len()) {
                ideal.clear();
            }
            let png = format!("sweep-{y}-{i}.png");
            let what = format!("{} vs {}", reports::column_short(y), reports::column_short(&x));
            let ps = &presets[g];
            let on = match ps.len() {
                0 => String::new(),
                1 => format!(" · on {}", ps[0]),
                _ => format!(" · presets {}", ps.join(", ")),
            };
            let labels = reports::Labels {
                title: format!("{study}: {what}"),
                subtitle: format!("{sub}{on}"),
                x: reports::column_label(&x),
                y: reports::column_label(y),
                legend: lines.iter().map(|c| reports::column_short(c)).collect::<Vec<_>>().join(", "),
            };
            write_via_path(&out.join(&png), inputs, |p| {
                reports::line_chart(p, &labels, &series, &ideal).map_err(anyhow::Error::from)
            })?;
            let sentence = sentence(y, &x, &series, &ideal);
            items.push(Item { png, caption: format!("{what} — {sub}{on}"), sentence });
        }
    }
    Ok(items)
}

/// The hardware of a run in words, from its summary: `preset h100 · 32 banks · warp 32`.
fn hardware_words(summary: &Value) -> String {
    let mut parts = Vec::new();
    for (key, what) in [("hardware", "preset"), ("preset", "preset"), ("banks", "banks"), ("warp", "warp")] {
        let v = &summary[key];
        let v = v.as_str().map(String::from).or_else(|| v.as_u64().map(|n| n.to_string()));
        if let Some(v) = v {
            if what == "preset" {
                if !parts.iter().any(|p: &String| p.starts_with("preset")) {
                    parts.push(format!("preset {v}"));
                }
            } else {
                parts.push(reports::describe(what, &v));
            }
        }
    }
    parts.join(" · ")
}

/// Conflict-degree histogram, the worst request's bank x lane picture and, with cycles,
/// the per-SM pipe timeline.
fn run_report(input: &Path, out: &Path, inputs: &Inputs) -> Result<Vec<Item>> {
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(input.join("summary.json")).context("summary.json")?)?;
    let mut items = Vec::new();
    let path = input.join("requests.csv");
    let mut rdr =
        csv::Reader::from_path(&path).with_context(|| format!("{}: cannot read", path.display()))?;
    let headers = rdr.headers()?.clone();
    let col = |name: &str| headers.iter().position(|h| h == name);
    let (op_c, wf_c, id_c) =
        (col("op").context("op")?, col("wavefronts").context("wavefronts")?, col("ideal").context("ideal")?);
    let (sm_c, ps_c) = (col("sm"), col("pipe_start"));
    let mut hist: BTreeMap<String, BTreeMap<u32, u64>> = BTreeMap::new();
    let pipe = summary["pipe_cycles_per_wavefront"].as_f64().unwrap_or(1.0);
    // each request's pipe interval (sm, start, length), where the run has cycles
    let busy = |rec: &csv::StringRecord| -> Option<(usize, f64, f64)> {
        let (sm, start) = (rec.get(sm_c?)?.parse::<usize>().ok()?, rec.get(ps_c?)?.parse::<f64>().ok()?);
        let wf = rec.get(wf_c)?.parse::<f64>().ok()?;
        (rec.get(id_c)?.parse::<f64>().ok()? != 0.0).then_some((sm, start, wf * pipe))
    };
    // (one pass for the histogram and the timeline's extent, a second for the
    // timeline: memory stays bounded whatever the number of requests)
    let (mut end, mut sms) = (0.0f64, 0usize);
    for rec in rdr.records() {
        let rec = rec?;
        let (wf, ideal) = (rec[wf_c].parse::<f64>()?, rec[id_c].parse::<f64>()?);
        if ideal == 0.0 {
            continue;
        }
        *hist.entry(rec[op_c].to_string()).or_default().entry((wf / ideal).round() as u32).or_default() += 1;
        if let Some((sm, start, len)) = busy(&rec) {
            end = end.max(start + len);
            sms = sms.max(sm + 1);
        }
    }
    let series: Vec<(String, Vec<(u32, u64)>)> =
        hist.into_iter().map(|(op, m)| (op, m.into_iter().collect())).collect();
    let name = summary["trace"].as_str().unwrap_or("run");
    let hw_words = hardware_words(&summary);
    write_via_path(&out.join("histogram.png"), inputs, |p| {
        let labels = reports::Labels {
            title: format!("{name}: conflict degree of each warp request, by op"),
            subtitle: hw_words.clone(),
            ..Default::default()
        };
        reports::histogram(p, &labels, &series).map_err(anyhow::Error::from)
    })?;
    items.push(Item {
        png: "histogram.png".into(),
        caption: "Conflict degree of every warp request, by op".into(),
        sentence:
            "How many warp requests of each op took 1, 2, ... times their ideal wavefronts (1: no conflict)."
                .into(),
    });

    let pic = input.join("picture.csv");
    if pic.is_file() {
        let mut rdr = csv::Reader::from_path(&pic)?;
        let cells: Vec<HeatCell> = rdr
            .records()
            .map(|r| {
                let r = r?;
                Ok(HeatCell { wavefront: r[0].parse()?, bank: r[1].parse()?, lane: r[2].parse()? })
            })
            .collect::<Result<_>>()?;
        let banks = summary["banks"].as_u64().unwrap_or(32) as u32;
        let what = summary["picture"].as_str().unwrap_or("the request with the most wavefronts");
        write_via_path(&out.join("heatmap.png"), inputs, |p| {
            let labels = reports::Labels {
                title: format!("{name}: which lane uses which bank"),
                subtitle: format!("{what} · {hw_words}"),
                ..Default::default()
            };
            reports::heatmap(p, &labels, banks, &cells).map_err(anyhow::Error::from)
        })?;
        items.push(Item {
            png: "heatmap.png".into(),
            caption: format!("Which lane uses which bank in which wavefront: {what}"),
            sentence: "A column of cells in one bank is a conflict: its lanes wait for one wavefront each."
                .into(),
        });
    }
    if sms > 0 {
        let end = end.max(1.0);
        let buckets = 200usize;
        let width = end / buckets as f64;
        let mut rows = vec![vec![0.0; buckets]; sms];
        let mut rdr =
            csv::Reader::from_path(&path).with_context(|| format!("{}: cannot read", path.display()))?;
        for rec in rdr.records() {
            let Some((sm, start, len)) = busy(&rec?) else { continue };
            // spread the busy interval over the buckets it covers
            let (mut t, stop) = (start, start + len);
            while t < stop {
                let b = ((t / width) as usize).min(buckets - 1);
                let edge = ((b + 1) as f64 * width).min(stop);
                rows[sm][b] += (edge - t).max(0.0) / width;
                if edge <= t {
                    break;
                }
                t = edge;
            }
        }
        write_via_path(&out.join("timeline.png"), inputs, |p| {
            let labels = reports::Labels {
                title: format!("{name}: shared-memory pipe occupancy per SM"),
                subtitle: hw_words.clone(),
                ..Default::default()
            };
            reports::timeline(p, &labels, width, &rows).map_err(anyhow::Error::from)
        })?;
        items.push(Item {
            png: "timeline.png".into(),
            caption: "Shared-memory pipe occupancy over time, one strip per SM (darker = busier)".into(),
            sentence: "Where a strip stays dark, its SM's shared-memory pipe was the bottleneck.".into(),
        });
    }
    Ok(items)
}
