//! `banksim run` on a binary trace, streamed: chunks are read in order, a window of them
//! is decoded, checked and simulated in parallel, and the per-chunk totals are merged in
//! chunk order. Memory is the window, whatever the file's size.

use anyhow::{bail, Result};
use rayon::prelude::*;
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

struct Slot {
    raw: RawChunk,
    chunk: Chunk,
    model: BankModel,
    summary: Summary,
    records: u64,
    requests: u64,
}

/// Simulates the binary trace at `path` on the bank model, chunk by chunk.
pub(crate) fn run_binary(path: &Path, hw: &Hardware, threads_per_block: Option<u32>) -> Result<Streamed> {
    let mut reader = Reader::open(path)?;
    let source = reader.name().to_string();
    let window = 2 * rayon::current_num_threads();
    let mut slots: Vec<Slot> = (0..window)
        .map(|_| Slot {
            raw: RawChunk::default(),
            chunk: Chunk::default(),
            model: BankModel::new(hw),
            summary: Summary::default(),
            records: 0,
            requests: 0,
        })
        .collect();
    let mut total = Streamed { source, records: 0, requests: 0, summary: Summary::default() };
    loop {
        let mut filled = 0;
        while filled < window && reader.next_chunk(&mut slots[filled].raw)? {
            filled += 1;
        }
        if filled == 0 {
            return Ok(total);
        }
        let results: Vec<Result<()>> = slots[..filled]
            .par_iter_mut()
            .map(|s| simulate_chunk(s, hw, threads_per_block, &total.source))
            .collect();
        // the first error in file order, whatever thread found it
        for r in results {
            r?;
        }
        for s in &slots[..filled] {
            total.summary.merge(&s.summary);
            total.records += s.records;
            total.requests += s.requests;
        }
    }
}

fn simulate_chunk(s: &mut Slot, hw: &Hardware, threads_per_block: Option<u32>, source: &str) -> Result<()> {
    s.raw.decode(&mut s.chunk)?;
    s.chunk.split(hw.warp)?;
    s.summary = Summary::default();
    s.records = s.chunk.records() as u64;
    s.requests = s.chunk.len() as u64;
    for r in s.chunk.iter() {
        let at = || {
            format!(
                "{source}: chunk at byte {}: block {} warp {} step {}",
                s.raw.offset(),
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
        s.summary.add(r.op, r.lanes.len(), s.model.evaluate(&r.warp_request()));
    }
    Ok(())
}
