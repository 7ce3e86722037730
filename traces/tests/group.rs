//! Grouping: the extent `Requests` reports to the cycle engine (threads of the largest
//! block, one past the highest shared byte) and the block starts it keeps are what a
//! pass over its requests finds.

use proptest::prelude::*;
use sim_core::engine::Workload;
use sim_core::Op;
use traces::{Record, Requests, Trace};

/// The engine's own pass: threads from each request's last lane, bytes from loads,
/// stores and atomics.
fn pass(reqs: &Requests, warp: u32) -> (u32, u32) {
    reqs.iter().fold((0, 0), |(threads, smem), r| {
        let threads = r.lanes.last().map_or(threads, |&l| threads.max(r.warp * warp + l as u32 + 1));
        let top = r.addrs.iter().max().filter(|_| r.op.is_memory());
        (threads, top.map_or(smem, |&a| smem.max(a.saturating_add(r.bytes as u32))))
    })
}

proptest! {
    #[test]
    fn grouped_and_pushed_requests_know_their_extent(
        recs in prop::collection::vec((0u32..3, 0u32..300, 0u32..6, 0u32..1 << 20), 0..200),
        warp in prop::sample::select(vec![16u32, 32, 64]),
    ) {
        let mut trace = Trace::new("random");
        let mut seen = std::collections::HashSet::new();
        for (block, thread, step, addr) in recs {
            if !seen.insert((block, thread, step)) {
                continue;
            }
            // one op and width per (block, step) so that warps group
            let op = Op::ALL[(block + step) as usize % 7];
            let bytes = [1u8, 4, 16][(block + 2 * step) as usize % 3];
            let addr = addr / bytes as u32 * bytes as u32;
            trace.push(Record { block, thread, step, op, addr, bytes, gap: 0, dep: None, wait: None, site: traces::NO_SITE });
        }
        let grouped = Requests::group(&trace, warp).unwrap();
        prop_assert_eq!(grouped.extent(warp), Some(pass(&grouped, warp)));
        prop_assert_eq!(grouped.extent(warp * 2), None, "another warp size: the engine's own pass");
        // the same requests pushed one by one
        let mut pushed = Requests::new(warp);
        for r in grouped.iter() {
            pushed.push_ref(&r);
        }
        prop_assert_eq!(pushed.extent(warp), Some(pass(&grouped, warp)));
        prop_assert_eq!((0..grouped.len()).map(|i| grouped.block(i)).collect::<Vec<_>>(),
            grouped.iter().map(|r| r.block).collect::<Vec<_>>());
        // block starts: where the block changes
        let starts: Vec<usize> =
            (0..grouped.len()).filter(|&i| i == 0 || grouped.block(i) != grouped.block(i - 1)).collect();
        prop_assert_eq!(grouped.block_starts(), Some(&starts[..]));
        prop_assert_eq!(pushed.block_starts(), Some(&starts[..]));
    }
}

proptest! {
    /// `banksim run --cycles` on a binary trace: each chunk split into warp requests,
    /// pushed into a part, the parts appended in chunk order. Small chunks cut blocks
    /// between their slices; lanes of a warp differ in gap, dep and wait, and some are
    /// idle. The result is the requests (every field), the block starts and the extent
    /// that grouping the records gives.
    #[test]
    fn binary_chunks_split_and_appended_are_the_grouped_requests(
        recs in prop::collection::vec(
            (0u32..4, 0u32..300, 0u32..4, 0u32..1 << 16, 0u32..5, 0usize..3, 0u32..7),
            1..300,
        ),
        warp in prop::sample::select(vec![16u32, 32, 64]),
        chunk_lanes in 1u32..200,
    ) {
        let mut trace = Trace::new("random");
        trace.has_timing_columns = true;
        let mut seen = std::collections::HashSet::new();
        for (block, thread, step, addr, gap, dep, wait) in recs {
            if !seen.insert((block, thread, step)) {
                continue;
            }
            let op = [Op::Load, Op::Store][(block + step) as usize % 2];
            let bytes = [1u8, 4, 16][(block + 2 * step) as usize % 3];
            let addr = addr / bytes as u32 * bytes as u32;
            let dep = [None, Some(false), Some(true)][dep];
            let wait = (wait <= gap).then_some(wait);
            trace.push(Record { block, thread, step, op, addr, bytes, gap, dep, wait, site: traces::NO_SITE });
        }
        let grouped = Requests::group(&trace, warp).unwrap();
        let bytes = traces::binary::write_chunked(&trace, Vec::new(), chunk_lanes).unwrap();
        let mut reader = traces::binary::Reader::new(&bytes[..], "random.bsim", None).unwrap();
        let (mut raw, mut chunk) = (traces::binary::RawChunk::default(), traces::binary::Chunk::default());
        let mut whole = Requests::new(warp);
        let mut chunks = 0;
        while reader.next_chunk(&mut raw).unwrap() {
            raw.decode_lazy(&mut chunk).unwrap();
            chunk.split(warp).unwrap();
            let mut part = Requests::new(warp);
            for r in chunk.iter() {
                part.push_ref(&r);
            }
            whole.append(&part);
            chunks += 1;
        }
        prop_assert!(chunks >= 1);
        let fields = |r: traces::RequestRef<'_>| {
            (r.block, r.warp, r.step, r.op, r.bytes, r.gap, r.dep, r.wait, r.lanes.to_vec(), r.addrs.to_vec())
        };
        prop_assert_eq!(whole.len(), grouped.len());
        for (a, b) in whole.iter().zip(grouped.iter()) {
            prop_assert_eq!(fields(a), fields(b));
        }
        prop_assert_eq!(whole.block_starts(), grouped.block_starts());
        prop_assert_eq!(whole.extent(warp), grouped.extent(warp));
    }
}
