//! `banksim run` on a binary trace, streamed: every thread reads the next chunk (in
//! turn), decodes, checks and simulates it, and the per-chunk totals are merged in chunk
//! order (`traces::parallel`). Memory is a few chunks per thread, whatever the file's
//! size.

use anyhow::{bail, Result};
use sim_core::{stats::Summary, BankModel, Hardware, LaneAddrs, MaskedRequest};
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
    raw.decode_lazy(&mut s.chunk)?;
    // Requests as lane masks, affine ones through the model's memo. Anything amiss (a
    // lane beyond the block, an address beyond shared memory or misaligned) and chunks
    // with per-lane attributes take the request-by-request path below, which finds the
    // first problem in (block, warp, step) order and says what it is.
    let mut summary = Summary::default();
    let mut requests = 0;
    let fine = s.chunk.for_each_masked(hw.warp, |w| {
        let r = &w.request;
        let last_lane = 63 - r.mask.leading_zeros();
        if threads_per_block.is_some_and(|n| w.warp * hw.warp + last_lane >= n) || !accesses_fit(hw, r) {
            return Err(Amiss);
        }
        summary.add(r.op, r.mask.count_ones() as usize, s.model.evaluate_masked(r));
        requests += 1;
        Ok(())
    });
    if let Ok(true) = fine {
        return Ok(Part { summary, records: s.chunk.records() as u64, requests });
    }
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

/// A request of the fast path needs a closer look (see [`simulate_chunk`]).
struct Amiss;

impl From<traces::binary::BinaryError> for Amiss {
    fn from(_: traces::binary::BinaryError) -> Amiss {
        Amiss
    }
}

/// Whether every access of `r` is inside shared memory and aligned to its width (a
/// quick check that may say no where [`crate::access_problem`] finds nothing: it
/// decides then).
#[inline]
fn accesses_fit(hw: &Hardware, r: &MaskedRequest<'_>) -> bool {
    if !r.op.is_memory() {
        return true;
    }
    let (b, end) = (r.bytes as u64, hw.smem_per_sm as u64);
    match r.addrs {
        LaneAddrs::Affine { first, stride } => {
            let span = (63 - r.mask.leading_zeros() - r.mask.trailing_zeros()) as i64;
            let last = first as i64 + stride * span;
            let (lo, hi) = (first.min(last as u32), first.max(last as u32));
            hi as u64 + b <= end && lo as u64 % b == 0 && (span == 0 || stride % b as i64 == 0)
        }
        LaneAddrs::Listed(addrs) => {
            let (mut hi, mut or) = (0u32, 0u32);
            for &a in addrs {
                hi = hi.max(a);
                or |= a;
            }
            hi as u64 + b <= end && or as u64 % b == 0
        }
    }
}
