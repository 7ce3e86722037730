//! Global loads and stores a compiler merges into wider ones: an invocation that loads
//! (or stores) neighbouring pieces of a buffer one after the other — the fields of a
//! struct read one by one, or a whole struct split into its members — gets one 8- or
//! 16-byte access where the pieces are contiguous and the first is aligned to the
//! whole (`LDG.64`, `LDG.128`). Measured on the H100 (`validate/kernels/aos_global.wgsl`):
//! arrays of 4-float structs read field by field run as fast as `vec4` loads, those of
//! 2 floats as `vec2` loads, those of 3 floats as three 4-byte loads.
//!
//! The decision is per pair of access sites, as a compiler's is per pair of
//! instructions: two sites are merged where every time an invocation makes the first
//! it makes the second next, of the same op and width, at the next bytes, the first
//! aligned to both; and never where any invocation does otherwise. Merging repeats
//! (4 + 4 bytes, then 8 + 8) up to 16 bytes. The second access and the operations
//! between the two (its own address arithmetic, which the compiler shares with the
//! first's) go; its step stays empty.

use sim_core::Op;
use std::collections::HashMap;
use traces::{Trace, NO_SITE};

/// Merges `trace`'s neighbouring global accesses as a compiler does (see the module
/// documentation); how many accesses were merged away.
pub fn merge_global_accesses(trace: &mut Trace) -> usize {
    let mut merged = 0;
    loop {
        let n = merge_once(trace);
        if n == 0 {
            return merged;
        }
        merged += n;
    }
}

/// One round of merges of pairs of equal widths; how many records went.
fn merge_once(trace: &mut Trace) -> usize {
    // each thread's records in step order
    let mut order: Vec<usize> = (0..trace.records.len()).collect();
    order.sort_by_key(|&i| {
        let r = &trace.records[i];
        (r.block, r.thread, r.step)
    });
    // per site pair: whether every occurrence qualifies; per first site: its only follower
    let mut pair_ok: HashMap<(u32, u32), bool> = HashMap::new();
    let mut follower: HashMap<u32, Option<u32>> = HashMap::new();
    let mut pairs = Vec::new();
    for w in order.windows(2) {
        let (a, b) = (&trace.records[w[0]], &trace.records[w[1]]);
        if (a.block, a.thread) != (b.block, b.thread) || !matches!(a.op, Op::GlobalLoad | Op::GlobalStore) {
            continue;
        }
        if a.site == NO_SITE {
            continue;
        }
        let next = follower.entry(a.site).or_insert(Some(b.site));
        if *next != Some(b.site) {
            *next = None;
        }
        let width = a.bytes as u32 * 2;
        let fits = b.op == a.op
            && b.bytes == a.bytes
            && width <= 16
            && b.site != NO_SITE
            && b.site != a.site
            && a.addr.checked_add(a.bytes as u32) == Some(b.addr)
            && a.addr.is_multiple_of(width);
        let ok = pair_ok.entry((a.site, b.site)).or_insert(true);
        *ok &= fits;
        pairs.push((w[0], w[1]));
    }
    // a site that is also ever something's second access stays as it is this round
    let seconds: std::collections::HashSet<u32> =
        pair_ok.iter().filter(|(_, &ok)| ok).map(|(&(_, b), _)| b).collect();
    let merge = |a: u32, b: u32| {
        pair_ok.get(&(a, b)) == Some(&true) && follower.get(&a) == Some(&Some(b)) && !seconds.contains(&a)
    };
    let mut gone = vec![false; trace.records.len()];
    let mut n = 0;
    for (i, j) in pairs {
        let (a, b) = (trace.records[i].site, trace.records[j].site);
        if gone[i] || !merge(a, b) {
            continue;
        }
        trace.records[i].bytes *= 2;
        gone[j] = true;
        n += 1;
    }
    if n > 0 {
        let mut k = 0;
        trace.records.retain(|_| {
            k += 1;
            !gone[k - 1]
        });
        let mut k = 0;
        trace.lines.retain(|_| {
            k += 1;
            !gone[k - 1]
        });
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;
    use traces::Record;

    fn rec(thread: u32, step: u32, op: Op, addr: u32, bytes: u8, site: u32) -> Record {
        Record { block: 0, thread, step, op, addr, bytes, gap: 1, dep: None, wait: None, site }
    }

    /// Threads 0..4 each reading `fields` 4-byte fields of struct `thread` (stride
    /// `stride` bytes) one after the other, at sites 0, 1, ...
    fn fields(fields: u32, stride: u32) -> Trace {
        let mut t = Trace::new("t");
        for thread in 0..4 {
            for f in 0..fields {
                t.push(rec(thread, f, Op::GlobalLoad, thread * stride + 4 * f, 4, f));
            }
        }
        t
    }

    #[test]
    fn four_fields_of_a_16_byte_struct_become_one_16_byte_load() {
        let mut t = fields(4, 16);
        assert_eq!(merge_global_accesses(&mut t), 12);
        assert!(t.records.iter().all(|r| r.bytes == 16 && r.addr % 16 == 0), "{:?}", t.records);
        assert_eq!(t.records.len(), 4);
    }

    #[test]
    fn two_fields_become_8_bytes_and_three_fields_stay() {
        let mut t = fields(2, 8);
        assert_eq!(merge_global_accesses(&mut t), 4);
        assert!(t.records.iter().all(|r| r.bytes == 8));
        // 12-byte structs: the second struct's first field is not 8-byte aligned
        let mut t = fields(3, 12);
        assert_eq!(merge_global_accesses(&mut t), 0);
        assert_eq!(t.records.len(), 12);
    }

    #[test]
    fn shared_accesses_and_pairs_that_do_not_always_qualify_stay() {
        let mut t = fields(2, 8);
        // thread 3 reads its second field elsewhere: no merge for any thread
        t.records[7].addr += 64;
        assert_eq!(merge_global_accesses(&mut t), 0);
        let mut t = fields(2, 8);
        for r in &mut t.records {
            r.op = Op::Load;
        }
        assert_eq!(merge_global_accesses(&mut t), 0);
    }
}
