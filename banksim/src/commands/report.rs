//! `banksim report`: PNGs and an index page from a sweep's or a run's output folder.

use anyhow::Result;
use clap::Args;
use std::path::PathBuf;

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
#[cfg_attr(not(feature = "charts"), allow(unused_variables))]
pub fn run(args: &ReportArgs) -> Result<()> {
    #[cfg(feature = "charts")]
    return run_charts(args);
    #[cfg(not(feature = "charts"))]
    return Err(super::args::needs_feature("`banksim report`", "charts"));
}

#[cfg(feature = "charts")]
use crate::output::{write_atomically, write_via_path};
#[cfg(feature = "charts")]
use anyhow::{bail, Context};
#[cfg(feature = "charts")]
use reports::HeatCell;
#[cfg(feature = "charts")]
use serde_json::Value;
#[cfg(feature = "charts")]
use std::collections::BTreeMap;
#[cfg(feature = "charts")]
use std::fmt::Write as _;
#[cfg(feature = "charts")]
use std::io::Write as _;
#[cfg(feature = "charts")]
use std::path::Path;

#[cfg(feature = "charts")]
fn run_charts(args: &ReportArgs) -> Result<()> {
    crate::output::declare_folder(&args.input);
    std::fs::create_dir_all(&args.out).with_context(|| format!("{}: cannot create", args.out.display()))?;
    let items = if args.input.join("results.json").is_file() {
        sweep_report(&args.input, &args.out)?
    } else if args.input.join("requests.csv").is_file() {
        run_report(&args.input, &args.out)?
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
    write_atomically(&args.out.join("index.md"), |f| {
        f.write_all(md.as_bytes()).with_context(|| format!("{}: cannot write", args.out.display()))
    })?;
    eprintln!("wrote {} charts and index.md to {}", items.len(), args.out.display());
    Ok(())
}

#[cfg(feature = "charts")]
fn num(v: &Value) -> Option<f64> {
    v.as_f64().or_else(|| v.as_str().and_then(|s| s.parse().ok()))
}

/// One chart per (metric, workload group), one line per hardware configuration.
#[cfg(feature = "charts")]
fn sweep_report(input: &Path, out: &Path) -> Result<Vec<(String, String)>> {
    let path = input.join("results.json");
    let doc: Value = serde_json::from_str(
        &std::fs::read_to_string(&path).with_context(|| format!("{}: cannot read", path.display()))?,
    )
    .with_context(|| format!("{}: not a results file", path.display()))?;
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
    let label = |r: &Value, cols: &[String]| {
        cols.iter()
            .map(|c| format!("{c}={}", r[c.as_str()].to_string().trim_matches('"')))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut items = Vec::new();
    for y in &ys {
        // group rows: workload (name + params other than x) -> hardware -> points
        let mut groups: BTreeMap<String, BTreeMap<String, Vec<(f64, f64)>>> = BTreeMap::new();
        for r in rows {
            let (Some(xv), Some(yv)) = (num(&r[x.as_str()]), num(&r[y.as_str()])) else { continue };
            let split = doc["plot"]["split"].as_str();
            let series: Vec<String> =
                serde_json::from_value(doc["plot"]["series"].clone()).unwrap_or_default();
            let others: Vec<String> = params
                .iter()
                .filter(|p| **p != x && !series.contains(p))
                .cloned()
                .chain(split.map(String::from))
                .collect();
            let lines: Vec<String> = hw_cols
                .iter()
                .filter(|c| Some(c.as_str()) != split)
                .cloned()
                .chain(series.iter().cloned())
                .collect();
            let wl_label = format!("{} {}", r["workload"].as_str().unwrap_or(""), label(r, &others));
            groups.entry(wl_label).or_default().entry(label(r, &lines)).or_default().push((xv, yv));
        }
        for (i, (wl_label, lines)) in groups.into_iter().enumerate() {
            let series: Vec<reports::Series> = lines
                .into_iter()
                .map(|(l, mut pts)| {
                    pts.sort_by(|a, b| a.0.total_cmp(&b.0));
                    (l, pts)
                })
                .collect();
            let png = format!("sweep-{y}-{i}.png");
            let title = format!("{}: {y} vs {x}", doc["study"].as_str().unwrap_or("study"));
            write_via_path(&out.join(&png), |p| {
                reports::line_chart(p, &title, &x, y, &series).map_err(anyhow::Error::from)
            })?;
            let question = doc["question"].as_str().unwrap_or_default();
            items.push((png, format!("{y} vs {x} — {} ({question})", wl_label.trim())));
        }
    }
    Ok(items)
}

/// Conflict-degree histogram, the worst request's bank x lane picture and, with cycles,
/// the per-SM pipe timeline.
#[cfg(feature = "charts")]
fn run_report(input: &Path, out: &Path) -> Result<Vec<(String, String)>> {
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
    let mut busy: Vec<(usize, f64, f64)> = Vec::new();
    let pipe = summary["pipe_cycles_per_wavefront"].as_f64().unwrap_or(1.0);
    for rec in rdr.records() {
        let rec = rec?;
        let (wf, ideal) = (rec[wf_c].parse::<f64>()?, rec[id_c].parse::<f64>()?);
        if ideal == 0.0 {
            continue;
        }
        *hist.entry(rec[op_c].to_string()).or_default().entry((wf / ideal).round() as u32).or_default() += 1;
        if let (Some(s), Some(p)) = (sm_c, ps_c) {
            if let (Ok(sm), Ok(start)) = (rec[s].parse::<usize>(), rec[p].parse::<f64>()) {
                busy.push((sm, start, wf * pipe));
            }
        }
    }
    let series: Vec<(String, Vec<(u32, u64)>)> =
        hist.into_iter().map(|(op, m)| (op, m.into_iter().collect())).collect();
    let name = summary["trace"].as_str().unwrap_or("run");
    write_via_path(&out.join("histogram.png"), |p| {
        reports::histogram(p, &format!("{name}: conflict degree by op"), &series).map_err(anyhow::Error::from)
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
        write_via_path(&out.join("heatmap.png"), |p| {
            reports::heatmap(p, &format!("bank x lane: {what}"), banks, &cells).map_err(anyhow::Error::from)
        })?;
        items.push(("heatmap.png".into(), format!("Which lane uses which bank in which wavefront: {what}")));
    }
    if !busy.is_empty() {
        let end = busy.iter().map(|b| b.1 + b.2).fold(0.0, f64::max).max(1.0);
        let sms = busy.iter().map(|b| b.0).max().unwrap_or(0) + 1;
        let buckets = 200usize;
        let width = end / buckets as f64;
        let mut rows = vec![vec![0.0; buckets]; sms];
        for (sm, start, len) in busy {
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
        write_via_path(&out.join("timeline.png"), |p| {
            reports::timeline(p, &format!("{name}: shared-memory pipe occupancy per SM"), width, &rows)
                .map_err(anyhow::Error::from)
        })?;
        items.push((
            "timeline.png".into(),
            "Shared-memory pipe occupancy over time, one strip per SM (darker = busier)".into(),
        ));
    }
    Ok(items)
}
