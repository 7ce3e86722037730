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
            trace.push(Record { block, thread, step, op, addr, bytes, gap: 0, dep: None, wait: None });
        }
        let grouped = Requests::group(&trace, warp).unwrap();
        prop_assert_eq!(grouped.extent(warp), Some(pass(&grouped, warp)));
        prop_assert_eq!(grouped.extent(warp * 2), None, "another warp size: the engine's own pass");
        // the same requests pushed one by one
        let mut pushed = Requests::new(warp);
        for r in grouped.iter() {
            pushed.push(r.block, r.warp, r.step, r.op, r.bytes, r.gap, r.dep, r.wait, r.lanes, r.addrs);
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
