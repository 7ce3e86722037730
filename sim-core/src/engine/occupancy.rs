//! What a launch needs before it runs: each block's range of requests, the threads and
//! shared memory of a block ([`scan`]), and how many blocks fit on an SM at once
//! ([`occupancy`]).

use super::options::{EngineError, EngineOptions};
use super::workload::{EngineRequest, Workload};
use crate::hardware::Hardware;
use crate::timing::Timing;
use rayon::prelude::*;

/// How blocks fill an SM.
#[derive(Clone, Copy, Debug)]
pub(super) struct Occupancy {
    /// Warps per block.
    pub(super) warps_per_block: u32,
    /// Blocks resident on an SM at once.
    pub(super) blocks_per_sm: u32,
}

/// The occupancy of blocks of `threads` threads and `smem` bytes of shared memory on
/// `hw` (with its `timing`), or why no block fits on an SM.
pub(super) fn occupancy(
    hw: &Hardware,
    timing: &Timing,
    threads: u32,
    smem: u32,
) -> Result<Occupancy, EngineError> {
    let warps_per_block = threads.div_ceil(hw.warp).max(1);
    let threads_rounded = warps_per_block * hw.warp;
    if threads_rounded > timing.max_threads_per_sm {
        return Err(EngineError::BlockTooLarge {
            what: "threads",
            needed: threads_rounded as u64,
            available: timing.max_threads_per_sm as u64,
        });
    }
    let by_smem =
        timing.occupancy.blocks_by_smem(smem, hw.smem_per_sm).ok_or(EngineError::BlockTooLarge {
            what: "bytes of shared memory",
            needed: smem as u64,
            available: hw.smem_per_sm as u64,
        })?;
    let blocks_per_sm =
        timing.max_blocks_per_sm.min(timing.max_threads_per_sm / threads_rounded).min(by_smem).max(1);
    Ok(Occupancy { warps_per_block, blocks_per_sm })
}

/// Each block's request range, and the threads and shared-memory bytes of a block
/// (given in `opts`, or the most any block uses): one parallel pass over the workload
/// (over block ids only, where the workload knows its extent).
pub(super) fn scan<W: Workload + ?Sized>(
    work: &W,
    warp: u32,
    opts: &EngineOptions,
) -> (Vec<(usize, usize)>, u32, u32) {
    const CHUNK: usize = 1 << 12;
    let n = work.len();
    let known = work.extent(warp);
    let ranges = |starts: &[usize]| -> Vec<(usize, usize)> {
        starts.iter().zip(starts.iter().skip(1).chain([&n])).map(|(&s, &e)| (s, e)).collect()
    };
    if let (Some((threads, smem)), Some(starts)) = (known, work.block_starts()) {
        debug_assert!(starts.first().is_none_or(|&s| s == 0) && starts.is_sorted());
        return (
            ranges(starts),
            opts.threads_per_block.unwrap_or(threads),
            opts.smem_per_block.unwrap_or(smem),
        );
    }
    // per chunk: (threads, shared bytes, first requests of blocks)
    let parts: Vec<(u32, u32, Vec<usize>)> = (0..n.div_ceil(CHUNK))
        .into_par_iter()
        .map(|c| {
            let (lo, hi) = (c * CHUNK, ((c + 1) * CHUNK).min(n));
            let mut prev = lo.checked_sub(1).map(|p| work.block(p));
            let (mut threads, mut smem, mut starts) = (0, 0, Vec::new());
            for i in lo..hi {
                let (block, r) = match known {
                    Some(_) => (work.block(i), None),
                    None => {
                        let r = work.request(i);
                        (r.block, Some(r))
                    }
                };
                if prev != Some(block) {
                    starts.push(i);
                    prev = Some(block);
                }
                let Some(r) = r else { continue };
                let (t, m) = request_extent(&r, warp);
                (threads, smem) = (threads.max(t), smem.max(m));
            }
            (threads, smem, starts)
        })
        .collect();
    let (threads, smem) = known.unwrap_or_else(|| {
        (parts.iter().map(|p| p.0).max().unwrap_or(0), parts.iter().map(|p| p.1).max().unwrap_or(0))
    });
    let starts: Vec<usize> = parts.into_iter().flat_map(|p| p.2).collect();
    (ranges(&starts), opts.threads_per_block.unwrap_or(threads), opts.smem_per_block.unwrap_or(smem))
}

/// What request `r` (of `warp`-lane warps) needs of its block: the threads up to its last
/// lane's, and the shared memory up to one past the highest byte it touches. A block's
/// threads and bytes are the most its requests need.
pub fn request_extent(r: &EngineRequest<'_>, warp: u32) -> (u32, u32) {
    let threads = r.lanes.last().map_or(0, |&last| {
        let top = r.warp as u64 * warp as u64 + last as u64 + 1;
        top.min(u32::MAX as u64) as u32
    });
    let smem = match (r.op.is_memory(), r.addrs.iter().max()) {
        (true, Some(&top)) => top.saturating_add(r.bytes as u32),
        _ => 0,
    };
    (threads, smem)
}
