//! `banksim gen`, `banksim sweep` and `banksim merge`: glue between study files,
//! generators, the model and result files.

use anyhow::{bail, Context, Result};
use clap::Args;
use configs::study::{HardwareCell, ShardPlan, Study, WorkloadCell};
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use serde_json::{json, Map, Value};
use sim_core::engine::{self, EngineOptions};
use sim_core::{BankModel, Hardware, Op};
use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use traces::{Requests, Trace};

use crate::AtomicFile;

#[derive(Args)]
pub struct GenArgs {
    /// Generator name; `--list` shows them all with their parameters.
    #[arg(required_unless_present = "list")]
    kind: Option<String>,
    /// Parameters as NAME=VALUE, e.g. `pad=1 width=4`.
    params: Vec<String>,
    /// Output trace file (default: standard output).
    #[arg(short, long, value_name = "OUT.csv")]
    out: Option<PathBuf>,
    /// List the generators and their parameters.
    #[arg(long)]
    list: bool,
}

pub fn gen(args: &GenArgs) -> Result<()> {
    if args.list {
        let mut out = std::io::stdout().lock();
        for (name, what, params) in traces::spec::GENERATORS {
            writeln!(out, "{name}: {what}")?;
            for (p, def, meaning) in *params {
                writeln!(out, "    {p:<12} (default {def:>4})  {meaning}")?;
            }
        }
        return Ok(());
    }
    let kind = args.kind.as_deref().expect("clap requires it");
    let mut params = BTreeMap::new();
    for p in &args.params {
        let (k, v) = p.split_once('=').with_context(|| format!("parameter `{p}`: expected NAME=VALUE"))?;
        let v: i64 = v.parse().with_context(|| format!("parameter `{p}`: `{v}` is not an integer"))?;
        params.insert(k.to_string(), v);
    }
    let trace = traces::spec::generate(kind, &params)?;
    match &args.out {
        Some(path) => {
            let mut f = AtomicFile::create(path)?;
            traces::text::write(&trace, &mut f.writer)?;
            f.commit()?;
            eprintln!("wrote {} records of {} to {}", trace.len(), trace.source, path.display());
        }
        None => traces::text::write(&trace, std::io::stdout().lock())?,
    }
    Ok(())
}

#[derive(Args)]
pub struct SweepArgs {
    /// The study (RON): presets x hardware fields x workloads.
    study: PathBuf,
    /// Output folder (default: sweep-NAME). Holds cells.jsonl (progress), results.csv, results.json.
    #[arg(short, long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Run only shard I of N, e.g. 0/4 (shards are balanced by estimated cost, see ARCHITECTURE.md).
    #[arg(long, value_name = "I/N")]
    shard: Option<String>,
    /// Worker threads (default: all cores, each pinned to its core; with --slurm, each
    /// task's CPUs, default 1).
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    /// Discard earlier progress in the output folder instead of resuming.
    #[arg(long)]
    fresh: bool,
    #[command(flatten)]
    slurm: crate::slurm::SlurmArgs,
}

/// One cell: a hardware configuration and a workload.
struct Cell {
    id: usize,
    hw: usize,
    work: usize,
}

/// A study file read and expanded into cells, with every cell's estimated cost.
pub(crate) struct Expanded {
    pub study: Study,
    pub hardware: Vec<HardwareCell>,
    pub workloads: Vec<WorkloadCell>,
    /// Fingerprint of the study text: journals and results carry it.
    pub hash: String,
    /// Estimated cost of each cell, by id (see `configs::study::cell_costs`).
    pub costs: Vec<u64>,
    /// The generators' traces (built to count their records); `None` for trace files,
    /// which are read only by a shard that simulates them.
    generated: Vec<Option<Trace>>,
}

impl Expanded {
    pub(crate) fn read(path: &Path) -> Result<Expanded> {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("{}: cannot read", path.display()))?;
        let file = path.display().to_string();
        let study = Study::parse(&text, &file)?;
        let hardware = study.hardware_cells(&file)?;
        let workloads = study.workload_cells(&file)?;
        if hardware.is_empty() || workloads.is_empty() {
            bail!("{file}: the study has no cells: it needs at least one preset and one workload");
        }
        let mut generated = Vec::with_capacity(workloads.len());
        let mut records = Vec::with_capacity(workloads.len());
        for w in &workloads {
            match w {
                WorkloadCell::Gen { .. } => {
                    let trace = build_workload(w)?;
                    records.push(trace.len() as u64);
                    generated.push(Some(trace));
                }
                WorkloadCell::File(f) => {
                    records.push(configs::study::estimated_file_records(Path::new(f))?);
                    generated.push(None);
                }
            }
        }
        let costs = configs::study::cell_costs(hardware.len(), &records);
        let hash = format!("{:016x}", fingerprint(&text));
        Ok(Expanded { study, hardware, workloads, hash, costs, generated })
    }

    /// Every cell, by id.
    pub(crate) fn cells(&self) -> usize {
        self.costs.len()
    }
}

pub fn sweep(args: &SweepArgs) -> Result<()> {
    let ex = Expanded::read(&args.study)?;
    let out = args.out.clone().unwrap_or_else(|| PathBuf::from(format!("sweep-{}", ex.study.name)));
    if args.slurm.slurm {
        return crate::slurm::slurm(&args.slurm, &ex, &args.study, &out, args.threads, args.fresh);
    }
    let (shard, shards) = parse_shard(args.shard.as_deref())?;
    std::fs::create_dir_all(&out)
        .with_context(|| format!("{}: cannot create the output folder", out.display()))?;
    let Expanded { study, hardware, workloads, hash, costs, generated, .. } = ex;

    let columns = Columns::new(&study, &workloads);
    let journal_path = out.join("cells.jsonl");
    if args.fresh {
        let _ = std::fs::remove_file(&journal_path);
    }
    let mut done = read_journal(&journal_path, &hash)?;
    let plan = ShardPlan::balance(&costs, shards);
    let cells: Vec<Cell> = (0..hardware.len())
        .flat_map(|hw| (0..workloads.len()).map(move |work| (hw, work)))
        .enumerate()
        .map(|(id, (hw, work))| Cell { id, hw, work })
        .filter(|c| plan.shard_of[c.id] == shard)
        .collect();
    let mut todo: Vec<&Cell> = cells.iter().filter(|c| !done.contains_key(&c.id)).collect();
    // costliest first, so that no long cell starts last (results are by id whatever the order)
    todo.sort_by_key(|c| (std::cmp::Reverse(costs[c.id]), c.id));
    eprintln!(
        "study `{}`: {} hardware x {} workloads = {} cells{}; {} done, {} to run -> {}",
        study.name,
        hardware.len(),
        workloads.len(),
        hardware.len() * workloads.len(),
        if shards > 1 { format!(", shard {shard}/{shards}: {}", cells.len()) } else { String::new() },
        cells.len() - todo.len(),
        todo.len(),
        out.display()
    );

    // Traces are built once per workload, before the parallel part; a trace file only
    // if this run simulates it.
    let needed: BTreeSet<usize> = todo.iter().map(|c| c.work).collect();
    let traces: Vec<Option<Trace>> = generated
        .into_iter()
        .zip(&workloads)
        .enumerate()
        .map(|(i, (g, w))| match g {
            None if needed.contains(&i) => build_workload(w).map(Some),
            g => Ok(g),
        })
        .collect::<Result<_>>()?;
    let journal = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&journal_path)
        .with_context(|| format!("{}: cannot open", journal_path.display()))?;
    let journal = Mutex::new(journal);
    if done.is_empty() {
        let header = json!({"study": study.name, "hash": hash});
        writeln!(journal.lock().unwrap(), "{header}")
            .with_context(|| format!("{}: cannot write", journal_path.display()))?;
    }
    // Test hook: stop as if killed after this many cells (see banksim/tests/sweep.rs).
    let kill_after: Option<usize> =
        std::env::var("BANKSIM_SWEEP_KILL_AFTER").ok().and_then(|v| v.parse().ok());
    let written = std::sync::atomic::AtomicUsize::new(0);
    let bar = ProgressBar::new(todo.len() as u64).with_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} cells, {elapsed} elapsed, ETA {eta}")
            .expect("valid template"),
    );
    if std::env::var_os("CI").is_some() {
        bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    let results: Vec<Result<()>> = crate::with_threads(args.threads, || {
        todo.par_iter()
            .map(|cell| {
                let hw = &hardware[cell.hw];
                let row = columns.row(
                    cell.id,
                    hw,
                    &workloads[cell.work],
                    &measure(
                        &hw.hardware,
                        traces[cell.work].as_ref().expect("built for every cell to run"),
                        study.cycles,
                    )?,
                );
                let line = json!({"cell": cell.id, "row": row}).to_string();
                let mut j = journal.lock().unwrap();
                writeln!(j, "{line}")?;
                j.flush()?;
                let n = written.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
                if kill_after == Some(n) {
                    std::process::exit(3);
                }
                bar.inc(1);
                Ok(())
            })
            .collect()
    })?;
    bar.finish_and_clear();
    results.into_iter().collect::<Result<Vec<()>>>()?;
    done = read_journal(&journal_path, &hash)?;
    let rows: Vec<Map<String, Value>> =
        cells.iter().map(|c| done.remove(&c.id).expect("every cell of the shard is journaled")).collect();
    write_results(&out, &study.name, &hash, &columns.names, &rows, &study)?;
    eprintln!("wrote {} and {}", out.join("results.csv").display(), out.join("results.json").display());
    Ok(())
}

fn parse_shard(s: Option<&str>) -> Result<(usize, usize)> {
    let Some(s) = s else { return Ok((0, 1)) };
    let parsed =
        s.split_once('/').and_then(|(i, n)| Some((i.parse::<usize>().ok()?, n.parse::<usize>().ok()?)));
    match parsed {
        Some((i, n)) if n > 0 && i < n => Ok((i, n)),
        _ => bail!("--shard `{s}`: expected I/N with 0 <= I < N, e.g. 0/4"),
    }
}

pub(crate) fn fingerprint(text: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::hash::DefaultHasher::new();
    text.hash(&mut h);
    h.finish()
}

/// Finished cells of an earlier run with the same study; a torn last line (a kill in
/// mid-write) is ignored.
pub(crate) fn read_journal(path: &Path, hash: &str) -> Result<BTreeMap<usize, Map<String, Value>>> {
    let mut done = BTreeMap::new();
    let Ok(f) = std::fs::File::open(path) else { return Ok(done) };
    for (i, line) in std::io::BufReader::new(f).lines().enumerate() {
        let line = line.with_context(|| format!("{}: cannot read", path.display()))?;
        let Ok(v) = serde_json::from_str::<Value>(&line) else { continue };
        if i == 0 {
            if v["hash"] != hash {
                bail!(
                    "{}: progress of a different version of the study; use --fresh to start over or another --out",
                    path.display()
                );
            }
            continue;
        }
        if let (Some(id), Some(row)) = (v["cell"].as_u64(), v["row"].as_object()) {
            done.insert(id as usize, row.clone());
        }
    }
    Ok(done)
}

fn build_workload(w: &WorkloadCell) -> Result<Trace> {
    Ok(match w {
        WorkloadCell::Gen { gen, params } => traces::spec::generate(gen, params)?,
        WorkloadCell::File(path) => traces::text::read(Path::new(path))?,
    })
}

/// The metrics of one cell.
fn measure(hw: &Hardware, trace: &Trace, cycles: bool) -> Result<BTreeMap<&'static str, Value>> {
    let requests = Requests::group(trace, hw.warp)?;
    let mut model = BankModel::new(hw);
    let mut s = sim_core::stats::Summary::default();
    for r in requests.iter() {
        s.add(r.op, r.lanes.len(), model.evaluate(&r.warp_request()));
    }
    let t = s.memory_total();
    let per = |w: u64, n: u64| if n == 0 { Value::Null } else { json!(w as f64 / n as f64) };
    let (ld, st) = (s.op(Op::Load), s.op(Op::Store));
    let mut m = BTreeMap::from([
        ("requests", json!(t.requests)),
        ("lanes", json!(t.lanes)),
        ("wavefronts", json!(t.wavefronts)),
        ("ideal", json!(t.ideal)),
        ("conflicts", json!(t.conflicts)),
        ("per_request", per(t.wavefronts, t.requests)),
        ("degree", per(t.wavefronts, t.ideal)),
        ("ld_degree", per(ld.wavefronts, ld.ideal)),
        ("ld_wavefronts", json!(ld.wavefronts)),
        ("ld_per_request", per(ld.wavefronts, ld.requests)),
        ("st_wavefronts", json!(st.wavefronts)),
        ("st_per_request", per(st.wavefronts, st.requests)),
    ]);
    if cycles {
        let r = engine::run(hw, &requests, &EngineOptions::default()).map_err(|e| anyhow::anyhow!("{e}"))?;
        m.insert("cycles", json!(r.cycles));
        m.insert("blocks_per_sm", json!(r.blocks_per_sm));
    }
    Ok(m)
}

/// The result columns: cell, preset, hardware fields, workload, parameters, metrics.
struct Columns {
    names: Vec<String>,
    hw_fields: Vec<String>,
    params: Vec<String>,
}

const METRICS: [&str; 14] = [
    "requests",
    "lanes",
    "wavefronts",
    "ideal",
    "conflicts",
    "per_request",
    "degree",
    "ld_degree",
    "ld_wavefronts",
    "ld_per_request",
    "st_wavefronts",
    "st_per_request",
    "cycles",
    "blocks_per_sm",
];

impl Columns {
    fn new(study: &Study, workloads: &[WorkloadCell]) -> Columns {
        let hw_fields: Vec<String> = study.hardware.keys().cloned().collect();
        let mut params = Vec::new();
        let mut seen = BTreeSet::new();
        for w in workloads {
            if let WorkloadCell::Gen { params: p, .. } = w {
                for k in p.keys() {
                    if seen.insert(k.clone()) {
                        params.push(k.clone());
                    }
                }
            }
        }
        let metrics = METRICS.iter().filter(|m| study.cycles || !matches!(**m, "cycles" | "blocks_per_sm"));
        let names = ["cell", "preset"]
            .iter()
            .map(|s| s.to_string())
            .chain(hw_fields.iter().cloned())
            .chain(["workload".to_string()])
            .chain(params.iter().cloned())
            .chain(metrics.map(|m| m.to_string()))
            .collect();
        Columns { names, hw_fields, params }
    }

    fn row(
        &self,
        id: usize,
        hw: &configs::study::HardwareCell,
        work: &WorkloadCell,
        metrics: &BTreeMap<&'static str, Value>,
    ) -> Map<String, Value> {
        let mut row = Map::new();
        row.insert("cell".into(), json!(id));
        row.insert("preset".into(), json!(hw.preset));
        for f in &self.hw_fields {
            let v = hw.values.iter().find(|(k, _)| k == f).map(|(_, v)| v.clone()).unwrap_or_default();
            row.insert(f.clone(), v.parse::<i64>().map(Value::from).unwrap_or(Value::String(v)));
        }
        let (name, params) = match work {
            WorkloadCell::Gen { gen, params } => (gen.clone(), Some(params)),
            WorkloadCell::File(f) => (f.clone(), None),
        };
        row.insert("workload".into(), json!(name));
        for p in &self.params {
            row.insert(p.clone(), params.and_then(|ps| ps.get(p)).map_or(Value::Null, |v| json!(v)));
        }
        for (k, v) in metrics {
            row.insert(k.to_string(), v.clone());
        }
        row
    }
}

fn cell_text(v: Option<&Value>) -> String {
    match v {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) => match n.as_f64() {
            Some(f) if !n.is_i64() && !n.is_u64() => format!("{f:.6}"),
            _ => n.to_string(),
        },
        Some(v) => v.to_string(),
    }
}

/// Writes results.csv and results.json, each atomically.
fn write_results(
    out: &Path,
    name: &str,
    hash: &str,
    columns: &[String],
    rows: &[Map<String, Value>],
    study: &Study,
) -> Result<()> {
    let mut csv = AtomicFile::create(&out.join("results.csv"))?;
    {
        let mut w = csv::Writer::from_writer(&mut csv.writer);
        w.write_record(columns)?;
        for row in rows {
            w.write_record(columns.iter().map(|c| cell_text(row.get(c))))?;
        }
        w.flush()?;
    }
    csv.commit()?;
    let plot = study.plot.as_ref().map(|p| json!({"x": p.x, "y": p.y, "split": p.split, "series": p.series}));
    let doc = json!({"study": name, "hash": hash, "question": study.question, "plot": plot, "columns": columns, "rows": rows});
    let mut js = AtomicFile::create(&out.join("results.json"))?;
    serde_json::to_writer_pretty(&mut js.writer, &doc)?;
    js.commit()
}

/// Shards are assigned by estimated cost, so a missing shard leaves no pattern in the
/// ids: with the study at hand, check that the merged rows are exactly its cells.
fn check_complete(
    study: &Study,
    path: &Path,
    rows: &BTreeMap<u64, Map<String, Value>>,
    shards: &[PathBuf],
) -> Result<()> {
    let file = path.display().to_string();
    let cells = (study.hardware_cells(&file)?.len() * study.workload_cells(&file)?.len()) as u64;
    if let Some((&id, _)) = rows.range(cells..).next() {
        bail!(
            "{}: cell {id} is beyond the {cells} cells of {file}: shards of another study?",
            shards[0].display()
        );
    }
    let missing: Vec<u64> = (0..cells).filter(|c| !rows.contains_key(c)).collect();
    if !missing.is_empty() {
        let shown: Vec<String> = missing.iter().take(10).map(u64::to_string).collect();
        bail!(
            "the {} shards hold {} of the {cells} cells of {file}: missing cells {}{}; is a shard missing, or \
             were the shards run with different counts (--shard I/N)?",
            shards.len(),
            rows.len(),
            shown.join(", "),
            if missing.len() > 10 { ", ..." } else { "" }
        );
    }
    Ok(())
}

#[derive(Args)]
pub struct MergeArgs {
    /// Output folders of the shards (each with results.json).
    #[arg(required = true)]
    shards: Vec<PathBuf>,
    /// Folder for the merged results.csv and results.json.
    #[arg(short, long, value_name = "DIR")]
    out: PathBuf,
    /// The study file, for the report's plot layout (default: taken from the shards).
    #[arg(long)]
    study: Option<PathBuf>,
}

pub fn merge(args: &MergeArgs) -> Result<()> {
    let mut rows: BTreeMap<u64, Map<String, Value>> = BTreeMap::new();
    let mut first: Option<Value> = None;
    for dir in &args.shards {
        let path = dir.join("results.json");
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("{}: cannot read (is the shard finished?)", path.display()))?;
        let doc: Value =
            serde_json::from_str(&text).with_context(|| format!("{}: not a results file", path.display()))?;
        if let Some(f) = &first {
            if f["hash"] != doc["hash"] || f["columns"] != doc["columns"] {
                bail!("{}: results of a different study than {}", path.display(), args.shards[0].display());
            }
        }
        for row in doc["rows"].as_array().into_iter().flatten() {
            let id =
                row["cell"].as_u64().with_context(|| format!("{}: a row without `cell`", path.display()))?;
            if let Some(prev) = rows.insert(id, row.as_object().cloned().unwrap_or_default()) {
                if Some(&prev) != rows.get(&id) {
                    bail!("{}: cell {id} differs from another shard's", path.display());
                }
            }
        }
        first.get_or_insert(doc);
    }
    let doc = first.expect("at least one shard");
    let columns: Vec<String> = serde_json::from_value(doc["columns"].clone())?;
    let study: Study = match &args.study {
        Some(p) => {
            let study = Study::read(p)?;
            check_complete(&study, p, &rows, &args.shards)?;
            study
        }
        None => Study {
            name: doc["study"].as_str().unwrap_or_default().into(),
            question: doc["question"].as_str().unwrap_or_default().into(),
            presets: vec![],
            hardware: Default::default(),
            workloads: vec![],
            cycles: false,
            plot: serde_json::from_value(doc["plot"].clone()).ok(),
        },
    };
    std::fs::create_dir_all(&args.out).with_context(|| format!("{}: cannot create", args.out.display()))?;
    let rows: Vec<_> = rows.into_values().collect();
    write_results(
        &args.out,
        doc["study"].as_str().unwrap_or_default(),
        doc["hash"].as_str().unwrap_or_default(),
        &columns,
        &rows,
        &study,
    )?;
    eprintln!("merged {} cells from {} shards into {}", rows.len(), args.shards.len(), args.out.display());
    Ok(())
}
