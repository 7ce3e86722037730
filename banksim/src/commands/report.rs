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
    std::fs::create_dir_all(&args.out).with_context(|| format!("{}: cannot create", args.out.display()))?;
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
    let mut md = String::from("# banksim report\n\n");
    writeln!(md, "Source: `{}`\n", args.input.display())?;
    for (png, caption) in &items {
        writeln!(md, "## {caption}\n\n![{caption}]({png})\n")?;
    }
    write_atomically(&args.out.join("index.md"), &inputs, |f| {
        f.write_all(md.as_bytes()).with_context(|| format!("{}: cannot write", args.out.display()))
    })?;
    let html = index_html(&args.input.display().to_string(), &items);
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

/// The index page for a browser: the same headings and charts as `index.md`, each PNG
/// inline through a relative `<img>`.
fn index_html(source: &str, items: &[(String, String)]) -> String {
    let mut h = String::from(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>banksim report</title>\n\
         <style>body{font-family:sans-serif;max-width:1240px;margin:2em auto;padding:0 1em}\
         img{max-width:100%;border:1px solid #ccc}h2{font-size:1.15em;margin-top:2em}</style>\n</head>\n<body>\n\
         <h1>banksim report</h1>\n",
    );
    h.push_str(&format!("<p>Source: <code>{}</code></p>\n", escape(source)));
    for (png, caption) in items {
        let (png, caption) = (escape(png), escape(caption));
        h.push_str(&format!("<h2>{caption}</h2>\n<p><img src=\"{png}\" alt=\"{caption}\"></p>\n"));
    }
    h.push_str("</body>\n</html>\n");
    h
}

fn num(v: &Value) -> Option<f64> {
    v.as_f64().or_else(|| v.as_str().and_then(|s| s.parse().ok()))
}

/// One chart per (metric, workload group), one line per hardware configuration.
fn sweep_report(input: &Path, out: &Path, inputs: &Inputs) -> Result<Vec<(String, String)>> {
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
        type Line = (Key, String, Vec<(f64, f64)>);
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
            match lines_of.iter_mut().find(|l| l.0 == lk) {
                Some(l) => l.2.push((xv, yv)),
                None => lines_of.push((lk, words(r, &lines), vec![(xv, yv)])),
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
            let series: Vec<reports::Series> = lines_of
                .into_iter()
                .map(|(_, l, mut pts)| {
                    pts.sort_by(|a, b| a.0.total_cmp(&b.0));
                    (l, pts)
                })
                .collect();
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
                reports::line_chart(p, &labels, &series).map_err(anyhow::Error::from)
            })?;
            let question = doc["question"].as_str().unwrap_or_default();
            items.push((png, format!("{what} — {sub}{on} ({question})")));
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
fn run_report(input: &Path, out: &Path, inputs: &Inputs) -> Result<Vec<(String, String)>> {
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
    items.push(("histogram.png".into(), "Conflict degree of every warp request, by op".into()));

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
        items.push(("heatmap.png".into(), format!("Which lane uses which bank in which wavefront: {what}")));
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
        items.push((
            "timeline.png".into(),
            "Shared-memory pipe occupancy over time, one strip per SM (darker = busier)".into(),
        ));
    }
    Ok(items)
}
