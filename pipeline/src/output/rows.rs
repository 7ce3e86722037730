//! The rows of the CSV files the tool writes, one `Serialize` struct per file, and the
//! writer that puts a header and the rows into a file. Floats that have a fixed number
//! of decimals in the file are held as the text written.

use serde::Serialize;
use sim_core::engine::{SmStats, Stall};
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
    /// Block id.
    pub block: u32,
    /// Warp within the block.
    pub warp: u32,
    /// Step.
    pub step: u32,
    /// Op name (`ld`, `st`, ...).
    pub op: &'static str,
    /// Bytes per lane.
    pub bytes: u8,
    /// Active lanes.
    pub active: usize,
    /// Wavefronts.
    pub wavefronts: u32,
    /// Wavefronts without conflicts.
    pub ideal: u32,
    /// Extra wavefronts from bank conflicts.
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
    /// The SM that ran it.
    pub sm: Option<u32>,
    /// Cycle it issued.
    pub issue: Option<u64>,
    /// Cycle it entered the shared-memory pipe.
    pub pipe_start: Option<u64>,
    /// Cycle it completed.
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
    /// SM index.
    pub sm: usize,
    /// Blocks it ran.
    pub blocks: u64,
    /// Memory requests it ran.
    pub requests: u64,
    /// Their wavefronts.
    pub wavefronts: u64,
    /// Cycle its last block completed.
    pub cycles: u64,
    /// Cycles its shared-memory pipe was busy.
    pub pipe_busy: u64,
    /// `pipe_busy` over `cycles`, six decimals.
    pub pipe_utilisation: String,
    /// Its stall cycles by cause, in [`Stall::ALL`]'s order (written as one column each).
    pub stalls: [u64; Stall::ALL.len()],
}

impl SmRow {
    /// The row of SM `sm` with statistics `s`.
    pub fn new(sm: usize, s: &SmStats) -> SmRow {
        SmRow {
            sm,
            blocks: s.blocks,
            requests: s.requests,
            wavefronts: s.wavefronts,
            cycles: s.cycles,
            pipe_busy: s.pipe_busy,
            pipe_utilisation: format!("{:.6}", s.pipe_utilisation()),
            stalls: Stall::ALL.map(|c| s.stalls.get(c)),
        }
    }

    /// The columns of the rows.
    pub fn header() -> Vec<&'static str> {
        let head = ["sm", "blocks", "requests", "wavefronts", "cycles", "pipe_busy", "pipe_utilisation"];
        head.into_iter().chain(Stall::ALL.map(Stall::column)).collect()
    }
}

/// `picture.csv` of a run folder: one cell of the worst request's bank x lane picture.
#[derive(Serialize)]
pub struct PictureRow {
    /// Wavefront.
    pub wavefront: u32,
    /// Bank.
    pub bank: u32,
    /// Lane.
    pub lane: u16,
    /// Word address (byte address over the bank width).
    pub word: u32,
}

/// The columns of [`PictureRow`].
pub const PICTURE_HEADER: &[&str] = &["wavefront", "bank", "lane", "word"];

/// `slurm/plan.csv`: one shard of a Slurm sweep.
#[derive(Serialize)]
pub struct PlanRow {
    /// Shard index.
    pub shard: usize,
    /// Cells it holds.
    pub cells: usize,
    /// Their estimated cost (see `configs::study::cell_costs`).
    pub estimated_cost: u64,
    /// `complete` or the cells of its journal, when the plan was written.
    pub state: String,
}

/// The columns of [`PlanRow`].
pub const PLAN_HEADER: &[&str] = &["shard", "cells", "estimated_cost", "state"];

/// `banksim advise --csv`: one candidate layout (empty blocks_per_sm and cycles without
/// the engine).
#[derive(Serialize)]
pub struct CandidateRow {
    /// Rank (0: the current layout).
    pub rank: usize,
    /// The layout, as `advise` prints it.
    pub layout: String,
    /// The array's first byte.
    pub base: u32,
    /// Its rows.
    pub rows: u32,
    /// Elements per row.
    pub cols: u32,
    /// Bytes per element.
    pub elem: u32,
    /// Wavefronts of the whole trace.
    pub wavefronts: u64,
    /// Wavefronts without conflicts.
    pub ideal: u64,
    /// Extra wavefronts from bank conflicts.
    pub conflicts: u64,
    /// Conflicts of the hot request group.
    pub hot_conflicts: u64,
    /// Bytes the layout adds.
    pub extra_bytes: u32,
    /// Shared memory a block touches.
    pub smem_per_block: u32,
    /// Resident blocks per SM (with the engine).
    pub blocks_per_sm: Option<u32>,
    /// Cycles (with the engine).
    pub cycles: Option<u64>,
    /// The layout in other libraries' words (`sim_core::layout::spell::also`), `; `
    /// between them: the TMA mode it is, CuTe on bytes, Triton's parameters.
    pub same_as: String,
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
    "same_as",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_sm_row_has_a_column_for_each_name_in_its_header() {
        let mut stats = SmStats { cycles: 10, blocks: 2, ..Default::default() };
        stats.stalls.global = 7;
        let mut out = Vec::new();
        write_csv(&mut out, &SmRow::header(), [SmRow::new(3, &stats)]).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<Vec<&str>> = text.lines().map(|l| l.split(',').collect()).collect();
        assert_eq!(lines[0].len(), lines[1].len(), "{text}");
        let global = lines[0].iter().position(|c| *c == "stall_global").unwrap();
        assert_eq!(lines[1][global], "7");
    }
}
