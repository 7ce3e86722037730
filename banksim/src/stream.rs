//! `banksim run` on a binary trace, streamed: every thread reads the next chunk (in
//! turn), decodes, checks and simulates it, and the per-chunk totals are merged in chunk
//! order (`traces::parallel`). Memory is a few chunks per thread, whatever the file's
//! size.

use anyhow::{bail, Result};
use sim_core::{stats::Summary, BankModel, Hardware};
use std::path::Path;
use traces::binary::{Chunk, RawChunk, Reader};

/// Totals of a streamed run.
pub(crate) struct Streamed {
    pub(crate) source: String,
    pub(crate) records: u64,
    pub(crate) requests: u64,
    pub(crate) summary: Summary,
}

/// One worker's buffers, reused from chunk to chunk.
struct Slot {
    chunk: Chunk,
    model: BankModel,
}

/// One chunk's totals.
struct Part {
    summary: Summary,
    records: u64,
    requests: u64,
}

/// Simulates the binary trace at `path` on the bank model, chunk by chunk.
pub(crate) fn run_binary(path: &Path, hw: &Hardware, threads_per_block: Option<u32>) -> Result<Streamed> {
    let reader = Reader::open(path)?;
    let source = reader.name().to_string();
    let mut total = Streamed { source: source.clone(), records: 0, requests: 0, summary: Summary::default() };
    traces::parallel::for_each_chunk(
        reader,
        || Slot { chunk: Chunk::default(), model: BankModel::new(hw) },
        |s, raw| simulate_chunk(s, raw, hw, threads_per_block, &source),
        |part: Part| {
            total.summary.merge(&part.summary);
            total.records += part.records;
            total.requests += part.requests;
        },
    )?;
    Ok(total)
}

fn simulate_chunk(
    s: &mut Slot,
    raw: &RawChunk,
    hw: &Hardware,
    threads_per_block: Option<u32>,
    source: &str,
) -> Result<Part> {
    raw.decode(&mut s.chunk)?;
    s.chunk.split(hw.warp)?;
    let mut summary = Summary::default();
    for r in s.chunk.iter() {
        let at = || {
            format!(
                "{source}: chunk at byte {}: block {} warp {} step {}",
                raw.offset(),
                r.block,
                r.warp,
                r.step
            )
        };
        if let Some(&last) = r.lanes.last() {
            if let Some(problem) = crate::thread_problem(r.warp * hw.warp + last as u32, threads_per_block) {
                bail!("{}: {problem}", at());
            }
        }
        for &a in r.addrs {
            if let Some(problem) = crate::access_problem(hw, r.op, a, r.bytes) {
                bail!("{}: {problem}", at());
            }
        }
        summary.add(r.op, r.lanes.len(), s.model.evaluate(&r.warp_request()));
    }
    Ok(Part { summary, records: s.chunk.records() as u64, requests: s.chunk.len() as u64 })
}
