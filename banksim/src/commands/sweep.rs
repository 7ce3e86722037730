//! `banksim sweep`: run a study (presets x hardware fields x workloads) in parallel,
//! resumable through its journal, one shard or all; with `--slurm`, as a Slurm job array
//! (see [`super::slurm`]).

use crate::args::with_threads;
use crate::progress;
use anyhow::{bail, Context, Result};
use clap::Args;
use configs::study::{ShardPlan, WorkloadCell};
use pipeline::output::Inputs;
use pipeline::study::journal::{read_journal, Resumed};
use pipeline::study::results::{write_results, Columns};
use pipeline::study::{metrics, Expanded};
use rayon::prelude::*;
use serde_json::{json, Map, Value};
use std::io::Write;
use std::path::PathBuf;
use std::sync::Mutex;
use traces::Trace;

#[derive(Args)]
/// Arguments of `banksim sweep`.
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
    slurm: super::slurm::SlurmArgs,
}

/// One cell: a hardware configuration and a workload.
struct Cell {
    id: usize,
    hw: usize,
    work: usize,
}

/// Runs `banksim sweep`.
pub fn run(args: &SweepArgs) -> Result<()> {
    let inputs = Inputs::new();
    let ex = Expanded::read(&args.study, &inputs)?;
    let out = args.out.clone().unwrap_or_else(|| PathBuf::from(format!("sweep-{}", ex.study.name)));
    if args.slurm.slurm {
        return super::slurm::run(&args.slurm, &ex, &args.study, &out, args.threads, args.fresh, &inputs);
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
    let mut done = resume(&journal_path, &hash)?;
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

    // Generated traces are built once per workload, before the parallel part; a trace
    // file is read by every cell that simulates it, as `banksim run` reads it (memory
    // bounded whatever its size), and must be there if any cell does.
    let traces: Vec<Option<Trace>> = generated;
    for cell in &todo {
        if let WorkloadCell::File(path) = &workloads[cell.work] {
            std::fs::metadata(path).with_context(|| format!("{path}: cannot read"))?;
        }
    }
    inputs.check_target(&journal_path)?;
    let journal = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&journal_path)
        .with_context(|| format!("{}: cannot open", journal_path.display()))?;
    let journal = Mutex::new(journal);
    if std::fs::metadata(&journal_path).map_or(true, |m| m.len() == 0) {
        let header = json!({"study": study.name, "hash": hash});
        writeln!(journal.lock().unwrap(), "{header}")
            .with_context(|| format!("{}: cannot write", journal_path.display()))?;
    }
    // Test hook: stop as if killed after this many cells (see banksim/tests/sweep.rs).
    let kill_after: Option<usize> =
        std::env::var("BANKSIM_SWEEP_KILL_AFTER").ok().and_then(|v| v.parse().ok());
    let written = std::sync::atomic::AtomicUsize::new(0);
    let bar = progress::steps(todo.len() as u64, "cells", "sweep");
    let results: Vec<Result<()>> = with_threads(args.threads, || {
        todo.par_iter()
            .map(|cell| {
                let hw = &hardware[cell.hw];
                let row = columns.row(
                    cell.id,
                    hw,
                    &workloads[cell.work],
                    &match (&traces[cell.work], &workloads[cell.work]) {
                        (Some(trace), _) => metrics::measure(&hw.hardware, trace, study.cycles)?,
                        (None, WorkloadCell::File(path)) => {
                            metrics::measure_file(&hw.hardware, std::path::Path::new(path), study.cycles)?
                        }
                        (None, w) => bail!("workload {w:?} was not generated"),
                    },
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
    drop(bar);
    results.into_iter().collect::<Result<Vec<()>>>()?;
    done = resume(&journal_path, &hash)?;
    let rows: Vec<Map<String, Value>> = cells
        .iter()
        .map(|c| {
            done.remove(&c.id).with_context(|| {
                format!("{}: cell {} is missing from the journal after the run", journal_path.display(), c.id)
            })
        })
        .collect::<Result<_>>()?;
    write_results(
        &out,
        &inputs,
        &study.name,
        &hash,
        &columns.names,
        &rows,
        &study,
        Some(costs.len() as u64),
    )?;
    eprintln!("wrote {} and {}", out.join("results.csv").display(), out.join("results.json").display());
    Ok(())
}

/// The finished cells of the journal at `path` (a torn last line cut off, and said so).
fn resume(
    path: &std::path::Path,
    hash: &str,
) -> Result<std::collections::BTreeMap<usize, Map<String, Value>>> {
    let Resumed { cells, torn } = read_journal(path, hash)?;
    if let Some(bytes) = torn {
        eprintln!("{}: dropped a torn last line ({bytes} bytes; an interrupted write)", path.display());
    }
    Ok(cells)
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
