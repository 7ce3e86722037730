//! The rows of the CSV files the tool writes, one `Serialize` struct per file, and the
//! writer that puts a header and the rows into a file. Floats that have a fixed number
//! of decimals in the file are held as the text written.

use serde::Serialize;
use std::io::Write;

/// Writes `rows` as CSV with a header from the row type's field names (none when there
/// are no rows and `header` is `None`; `header` names the columns then).
pub fn write_csv<R: Serialize>(
    w: impl Write,
    header: &[&str],
    rows: impl IntoIterator<Item = R>,
) -> Result<(), csv::Error> {
    let mut out = csv::WriterBuilder::new().has_headers(false).from_writer(w);
    out.write_record(header)?;
    for r in rows {
        out.serialize(r)?;
    }
    out.flush()?;
    Ok(())
}

/// `banksim run --per-request`: one warp request and its bank-model outcome.
#[derive(Serialize)]
pub struct RequestRow {
    pub block: u32,
    pub warp: u32,
    pub step: u32,
    pub op: &'static str,
    pub bytes: u8,
    pub active: usize,
    pub wavefronts: u32,
    pub ideal: u32,
    pub conflicts: u32,
}

/// The columns of [`RequestRow`].
pub const REQUEST_HEADER: &[&str] =
    &["block", "warp", "step", "op", "bytes", "active", "wavefronts", "ideal", "conflicts"];

/// `banksim run --per-request --cycles`: a [`RequestRow`] and its engine timing (empty
/// where the engine has none).
#[derive(Serialize)]
pub struct TimedRequestRow {
    /// Written first, as its own columns (the CSV writer puts a nested struct's fields
    /// in line).
    pub request: RequestRow,
    pub sm: Option<u32>,
    pub issue: Option<u64>,
    pub pipe_start: Option<u64>,
    pub done: Option<u64>,
}

/// The columns of [`TimedRequestRow`].
pub const TIMED_REQUEST_HEADER: &[&str] = &[
    "block",
    "warp",
    "step",
    "op",
    "bytes",
    "active",
    "wavefronts",
    "ideal",
    "conflicts",
    "sm",
    "issue",
    "pipe_start",
    "done",
];

/// `banksim run --per-sm`: one SM of the cycle engine.
#[derive(Serialize)]
pub struct SmRow {
    pub sm: usize,
    pub blocks: u64,
    pub requests: u64,
    pub wavefronts: u64,
    pub cycles: u64,
    pub pipe_busy: u64,
    /// Six decimals.
    pub pipe_utilisation: String,
    pub stall_issue: u64,
    pub stall_latency: u64,
    pub stall_pipe_queue: u64,
    pub stall_bank_conflict: u64,
    pub stall_barrier: u64,
}

/// The columns of [`SmRow`].
pub const SM_HEADER: &[&str] = &[
    "sm",
    "blocks",
    "requests",
    "wavefronts",
    "cycles",
    "pipe_busy",
    "pipe_utilisation",
    "stall_issue",
    "stall_latency",
    "stall_pipe_queue",
    "stall_bank_conflict",
    "stall_barrier",
];

/// `picture.csv` of a run folder: one cell of the worst request's bank x lane picture.
#[derive(Serialize)]
pub struct PictureRow {
    pub wavefront: u32,
    pub bank: u32,
    pub lane: u16,
    pub word: u32,
}

/// The columns of [`PictureRow`].
pub const PICTURE_HEADER: &[&str] = &["wavefront", "bank", "lane", "word"];

/// `slurm/plan.csv`: one shard of a Slurm sweep.
#[derive(Serialize)]
pub struct PlanRow {
    pub shard: usize,
    pub cells: usize,
    pub estimated_cost: u64,
    pub state: String,
}

/// The columns of [`PlanRow`].
pub const PLAN_HEADER: &[&str] = &["shard", "cells", "estimated_cost", "state"];

/// `banksim advise --csv`: one candidate layout (empty blocks_per_sm and cycles without
/// the engine).
#[derive(Serialize)]
pub struct CandidateRow {
    pub rank: usize,
    pub layout: String,
    pub base: u32,
    pub rows: u32,
    pub cols: u32,
    pub elem: u32,
    pub wavefronts: u64,
    pub ideal: u64,
    pub conflicts: u64,
    pub hot_conflicts: u64,
    pub extra_bytes: u32,
    pub smem_per_block: u32,
    pub blocks_per_sm: Option<u32>,
    pub cycles: Option<u64>,
}

/// The columns of [`CandidateRow`].
pub const CANDIDATE_HEADER: &[&str] = &[
    "rank",
    "layout",
    "base",
    "rows",
    "cols",
    "elem",
    "wavefronts",
    "ideal",
    "conflicts",
    "hot_conflicts",
    "extra_bytes",
    "smem_per_block",
    "blocks_per_sm",
    "cycles",
];
