//! `banksim sweep`: run a study (presets x hardware fields x workloads) in parallel,
//! resumable through its journal, one shard or all; with `--slurm`, as a Slurm job array
//! (see [`super::slurm`]).

use crate::args::with_threads;
use crate::progress;
use anyhow::{bail, Context, Result};
use clap::Args;
use configs::study::{ShardPlan, WorkloadCell};
use pipeline::output::Inputs;
use pipeline::study::journal::{read_journal, Journal, Resumed};
use pipeline::study::results::{write_results, Columns, Meta};
use pipeline::study::{metrics, Expanded, SweepFolder};
use rayon::prelude::*;
use serde_json::{Map, Value};
use std::path::PathBuf;
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
    // the study, its generators, its trace files and every cell's fit, checked at once
    let ex = Expanded::read(&args.study, &inputs)?;
    let out = args.out.clone().unwrap_or_else(|| PathBuf::from(format!("sweep-{}", ex.study.name)));
    if args.slurm.slurm {
        return super::slurm::run(&args.slurm, &ex, &args.study, &out, args.threads, args.fresh, &inputs);
    }
    let (shard, shards) = parse_shard(args.shard.as_deref())?;
    let plan = ShardPlan::balance(&ex.costs, shards);
    let cells: Vec<Cell> = (0..ex.hardware.len())
        .flat_map(|hw| (0..ex.workloads.len()).map(move |work| (hw, work)))
        .enumerate()
        .map(|(id, (hw, work))| Cell { id, hw, work })
        .filter(|c| plan.shard_of[c.id] == shard)
        .collect();
    // what each cell is computed from: the study, its trace file's content, this build
    let keys = ex.cell_keys(
        &crate::args::build_id(),
        cells.iter().filter(|c| !ex.skipped.contains_key(&c.id)).map(|c| c.id),
    )?;
    // every target checked before anything is made or written
    let journal_path = out.join("cells.jsonl");
    for target in [&journal_path, &out.join("results.csv"), &out.join("results.json")] {
        inputs.check_target(target)?;
    }
    // the folder: banksim's own (or new or empty), held by this sweep alone
    let folder = SweepFolder::open(&out)?;
    let Expanded { study, hardware, workloads, hash, costs, generated, skipped, .. } = ex;

    let columns = Columns::new(&study, &workloads);
    if args.fresh {
        let _ = std::fs::remove_file(&journal_path);
    }
    let mut done = resume(&journal_path, &hash, &keys)?;
    let mut todo: Vec<&Cell> =
        cells.iter().filter(|c| !done.contains_key(&c.id) && !skipped.contains_key(&c.id)).collect();
    // costliest first, so that no long cell starts last (results are by id whatever the order)
    todo.sort_by_key(|c| (std::cmp::Reverse(costs[c.id]), c.id));
    let skip_here: Vec<&Cell> = cells.iter().filter(|c| skipped.contains_key(&c.id)).collect();
    eprintln!(
        "study `{}`: {} hardware x {} workloads = {} cells{}; {} done, {}{} to run -> {}",
        study.name,
        hardware.len(),
        workloads.len(),
        hardware.len() * workloads.len(),
        if shards > 1 { format!(", shard {shard}/{shards}: {}", cells.len()) } else { String::new() },
        cells.len() - todo.len() - skip_here.len(),
        if skip_here.is_empty() { String::new() } else { format!("{} skipped, ", skip_here.len()) },
        todo.len(),
        out.display()
    );
    report_skipped(&skip_here, &skipped);

    // Generated traces are built once per workload, before the parallel part; a trace
    // file is read by every cell that simulates it, as `banksim run` reads it (memory
    // bounded whatever its size), and must be there if any cell does.
    let traces: Vec<Option<Trace>> = generated;
    for cell in &todo {
        if let WorkloadCell::File(path) = &workloads[cell.work] {
            std::fs::metadata(path).with_context(|| format!("{path}: cannot read"))?;
        }
    }
    let journal = Journal::open(&journal_path, &inputs, &study.name, &hash)?;
    // Test hook: stop as if killed after this many cells (see banksim/tests/sweep.rs).
    let kill_after: Option<usize> =
        std::env::var("BANKSIM_SWEEP_KILL_AFTER").ok().and_then(|v| v.parse().ok());
    // cells appended (counted with their append, so that the hook stops after exactly N)
    let written = std::sync::Mutex::new(0usize);
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
                let mut n = written.lock().unwrap_or_else(|e| e.into_inner());
                journal.append(cell.id, &keys[&cell.id], &row)?;
                *n += 1;
                if kill_after == Some(*n) {
                    std::process::exit(3);
                }
                bar.inc(1);
                Ok(())
            })
            .collect()
    })?;
    drop(bar);
    results.into_iter().collect::<Result<Vec<()>>>()?;
    drop(journal);
    done = resume(&journal_path, &hash, &keys)?;
    let rows: Vec<Map<String, Value>> = cells
        .iter()
        .map(|c| match skipped.get(&c.id) {
            Some(why) => Ok(columns.skipped_row(c.id, &hardware[c.hw], &workloads[c.work], why)),
            None => done.remove(&c.id).with_context(|| {
                format!("{}: cell {} is missing from the journal after the run", journal_path.display(), c.id)
            }),
        })
        .collect::<Result<_>>()?;
    let meta = Meta { name: &study.name, hash: &hash, total: Some(costs.len() as u64) };
    write_results(folder.path(), &inputs, &meta, &columns.names, &rows, &study)?;
    eprintln!("wrote {} and {}", out.join("results.csv").display(), out.join("results.json").display());
    Ok(())
}

/// Says which cells of this shard are skipped (`on_unfit: skip`), and why.
fn report_skipped(cells: &[&Cell], why: &std::collections::BTreeMap<usize, String>) {
    const SHOWN: usize = 10;
    if cells.is_empty() {
        return;
    }
    eprintln!("skipped {} cells that cannot run on their hardware (on_unfit: skip; results.csv says why in `skipped`):", cells.len());
    for c in cells.iter().take(SHOWN) {
        eprintln!("  cell {} {}", c.id, why[&c.id]);
    }
    if cells.len() > SHOWN {
        eprintln!("  ... and {} more", cells.len() - SHOWN);
    }
}

/// The finished cells of the journal at `path` computed from what they would be now
/// (`keys`; a torn last line cut off, and cells computed otherwise counted, each said so).
fn resume(
    path: &std::path::Path,
    hash: &str,
    keys: &std::collections::BTreeMap<usize, String>,
) -> Result<std::collections::BTreeMap<usize, Map<String, Value>>> {
    let Resumed { cells, stale, torn } = read_journal(path, hash, |id| keys.get(&id).cloned())?;
    if let Some(bytes) = torn {
        eprintln!("{}: dropped a torn last line ({bytes} bytes; an interrupted write)", path.display());
    }
    if stale > 0 {
        eprintln!(
            "{}: {stale} cells were computed from other inputs (a trace file changed since) or by another build of banksim: they run again",
            path.display()
        );
    }
    Ok(cells)
}

fn parse_shard(s: Option<&str>) -> Result<(usize, usize)> {
    let Some(s) = s else { return Ok((0, 1)) };
    let parsed =
        s.split_once('/').and_then(|(i, n)| Some((i.parse::<usize>().ok()?, n.parse::<usize>().ok()?)));
    match parsed {
        Some((i, n)) if n > 0 && i < n => {
            Ok(sim_core::limits::SHARDS.check(|| format!("--shard {s}"), n as u64).map(|()| (i, n))?)
        }
        _ => bail!("--shard `{s}`: expected I/N with 0 <= I < N, e.g. 0/4"),
    }
}
