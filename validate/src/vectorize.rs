//! Accesses a compiler merges into wider ones: an invocation that loads (or stores)
//! neighbouring pieces of memory one after the other gets one 8- or 16-byte access
//! where the pieces are contiguous and the first is aligned to the whole (`LDG.64`,
//! `LDG.128`, `LDS.128`).
//!
//! - **Global loads and stores** merge wherever they are neighbours. Measured on the
//!   H100 (`validate/kernels/aos_global.wgsl`): arrays of 4-float structs read field by
//!   field run as fast as `vec4` loads, those of 2 floats as `vec2` loads, those of 3
//!   floats as three 4-byte loads.
//! - **Workgroup loads and stores** merge only within one element the compiler sees: the
//!   components of one vector, the members of one struct (read one by one, or a whole
//!   struct loaded at once), never neighbouring elements of an array, even where the
//!   compiler could prove them aligned. Measured on the H100
//!   (`validate/kernels/smem_merge.wgsl`, rows `smem_merge_*` of
//!   `validate/results/h100/micro.csv`): 4 components of a `vec4` element or 4 fields of
//!   a struct element read one by one ran as one `vec4` load (142.9 against 142.8 µs at
//!   a stride of 4 words), 4 neighbouring `u32` elements as four loads (537.0 µs).
//!   Stores are merged as loads are (the same compiler pass makes both; no store pair
//!   has been timed yet); atomics stay as written.
//!
//! The decision is per pair of access slots (a site, and which piece of it), as a
//! compiler's is per pair of instructions: two are merged where every time an
//! invocation makes the first it makes the second next, of the same op and width, at
//! the next bytes, the first aligned to both (and for workgroup accesses, in the same
//! element); and never where any invocation does otherwise. Merging repeats (4 + 4
//! bytes, then 8 + 8) up to 16 bytes. The second access and the operations between the
//! two (its own address arithmetic, which the compiler shares with the first's) go; its
//! step stays empty.

use crate::record::{Site, SiteKind};
use sim_core::Op;
use std::collections::{HashMap, HashSet};
use traces::{Trace, NO_SITE};

/// A record's slot: its site and which of the site's pieces it is.
type Slot = (u32, u32);

/// What the merge needs to know of a record besides the record.
#[derive(Clone, Copy)]
struct Place {
    slot: Option<Slot>,
    /// For a workgroup load or store inside an element (see [`SiteKind::Access`]'s `member`):
    /// the element's start.
    element: Option<u32>,
}

/// Merges `trace`'s neighbouring accesses as a compiler does (see the module
/// documentation), with `sites` the capture's site table (the trace's site ids index
/// it; empty where there is none: then each site is one piece and no workgroup load
/// is known to lie inside an element); how many accesses were merged away.
pub fn merge_accesses(trace: &mut Trace, sites: &[Site]) -> usize {
    let mut places = places(trace, sites);
    let mut merged = 0;
    loop {
        let n = merge_once(trace, &mut places);
        if n == 0 {
            return merged;
        }
        merged += n;
    }
}

/// The records' indices, each thread's in step order.
fn thread_order(trace: &Trace) -> Vec<usize> {
    let mut order: Vec<usize> = (0..trace.records.len()).collect();
    order.sort_by_key(|&i| {
        let r = &trace.records[i];
        (r.block, r.thread, r.step)
    });
    order
}

/// Each record's slot and element. The pieces of one access of a site are the
/// consecutive records of its thread, in the site's piece order.
fn places(trace: &Trace, sites: &[Site]) -> Vec<Place> {
    let mut places = vec![Place { slot: None, element: None }; trace.records.len()];
    let mut previous: Option<(usize, u32)> = None;
    for i in thread_order(trace) {
        let r = &trace.records[i];
        if r.site == NO_SITE {
            previous = None;
            continue;
        }
        let (pieces, member) = match sites.get(r.site as usize).map(|s| &s.kind) {
            Some(SiteKind::Access { leaves, member, .. }) => (leaves.as_slice(), *member),
            _ => (&[][..], None),
        };
        let piece = match previous {
            Some((p, k))
                if {
                    let q = &trace.records[p];
                    (q.block, q.thread, q.site) == (r.block, r.thread, r.site)
                } && (k as usize + 1) < pieces.len() =>
            {
                k + 1
            }
            _ => 0,
        };
        previous = Some((i, piece));
        let element = match (r.op, member, pieces.get(piece as usize)) {
            (Op::Load | Op::Store, Some(m), Some(&(offset, _))) => r.addr.checked_sub(m + offset),
            _ => None,
        };
        places[i] = Place { slot: Some((r.site, piece)), element };
    }
    places
}

/// Whether `b` may join `a` as the next bytes of one wider access (`pa`, `pb` their
/// places).
fn fits(a: &traces::Record, b: &traces::Record, pa: Place, pb: Place) -> bool {
    let width = a.bytes as u32 * 2;
    let same_element = match a.op {
        Op::GlobalLoad | Op::GlobalStore => true,
        Op::Load | Op::Store => pa.element.is_some() && pa.element == pb.element,
        _ => false,
    };
    b.op == a.op
        && b.bytes == a.bytes
        && width <= 16
        && pb.slot.is_some()
        && pb.slot != pa.slot
        && a.addr.checked_add(a.bytes as u32) == Some(b.addr)
        && a.addr.is_multiple_of(width)
        && same_element
}

/// One round of merges of pairs of equal widths; how many records went.
fn merge_once(trace: &mut Trace, places: &mut Vec<Place>) -> usize {
    let order = thread_order(trace);
    // per slot pair: whether every occurrence qualifies; per first slot: its only follower
    let mut pair_ok: HashMap<(Slot, Slot), bool> = HashMap::new();
    let mut follower: HashMap<Slot, Option<Slot>> = HashMap::new();
    let mut pairs = Vec::new();
    for w in order.windows(2) {
        let (a, b) = (&trace.records[w[0]], &trace.records[w[1]]);
        let (pa, pb) = (places[w[0]], places[w[1]]);
        if (a.block, a.thread) != (b.block, b.thread)
            || !matches!(a.op, Op::GlobalLoad | Op::GlobalStore | Op::Load | Op::Store)
        {
            continue;
        }
        let Some(sa) = pa.slot else { continue };
        let next = follower.entry(sa).or_insert(pb.slot);
        if *next != pb.slot {
            *next = None;
        }
        let Some(sb) = pb.slot else { continue };
        *pair_ok.entry((sa, sb)).or_insert(true) &= fits(a, b, pa, pb);
        pairs.push((w[0], w[1]));
    }
    // a slot that is also ever something's second access stays as it is this round
    let seconds: HashSet<Slot> = pair_ok.iter().filter(|(_, &ok)| ok).map(|(&(_, b), _)| b).collect();
    let merge = |a: Slot, b: Slot| {
        pair_ok.get(&(a, b)) == Some(&true) && follower.get(&a) == Some(&Some(b)) && !seconds.contains(&a)
    };
    let mut gone = vec![false; trace.records.len()];
    let mut n = 0;
    for (i, j) in pairs {
        let (Some(a), Some(b)) = (places[i].slot, places[j].slot) else { continue };
        if gone[i] || !merge(a, b) {
            continue;
        }
        trace.records[i].bytes *= 2;
        gone[j] = true;
        n += 1;
    }
    if n > 0 {
        keep(&mut trace.records, &gone);
        keep(&mut trace.lines, &gone);
        keep(places, &gone);
    }
    n
}

/// Keeps the items of `v` that are not `gone`.
fn keep<T>(v: &mut Vec<T>, gone: &[bool]) {
    let mut k = 0;
    v.retain(|_| {
        k += 1;
        !gone[k - 1]
    });
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
        assert_eq!(merge_accesses(&mut t, &[]), 12);
        assert!(t.records.iter().all(|r| r.bytes == 16 && r.addr % 16 == 0), "{:?}", t.records);
        assert_eq!(t.records.len(), 4);
    }

    #[test]
    fn two_fields_become_8_bytes_and_three_fields_stay() {
        let mut t = fields(2, 8);
        assert_eq!(merge_accesses(&mut t, &[]), 4);
        assert!(t.records.iter().all(|r| r.bytes == 8));
        // 12-byte structs: the second struct's first field is not 8-byte aligned
        let mut t = fields(3, 12);
        assert_eq!(merge_accesses(&mut t, &[]), 0);
        assert_eq!(t.records.len(), 12);
    }

    #[test]
    fn shared_accesses_and_pairs_that_do_not_always_qualify_stay() {
        let mut t = fields(2, 8);
        // thread 3 reads its second field elsewhere: no merge for any thread
        t.records[7].addr += 64;
        assert_eq!(merge_accesses(&mut t, &[]), 0);
        let mut t = fields(2, 8);
        for r in &mut t.records {
            r.op = Op::Load;
        }
        assert_eq!(merge_accesses(&mut t, &[]), 0);
    }

    /// A site table of `n` load sites of one 4-byte piece each, `member` of each.
    fn loads(n: u32, member: impl Fn(u32) -> Option<u32>) -> Vec<Site> {
        (0..n)
            .map(|i| Site {
                kind: SiteKind::Access { op: Op::Load, leaves: vec![(0, 4)], dep: false, member: member(i) },
                order: i,
                loops: vec![],
                what: format!("site {i}"),
                location: String::new(),
            })
            .collect()
    }

    fn shared(mut t: Trace) -> Trace {
        for r in &mut t.records {
            r.op = Op::Load;
        }
        t
    }

    #[test]
    fn workgroup_loads_of_the_fields_of_one_struct_element_become_one_wide_load() {
        // fields 0..3 of struct `thread` (16 bytes), read one by one
        let mut t = shared(fields(4, 16));
        assert_eq!(merge_accesses(&mut t, &loads(4, |f| Some(4 * f))), 12);
        assert!(t.records.iter().all(|r| r.bytes == 16 && r.addr % 16 == 0), "{:?}", t.records);
        // fields 0..3 of a 32-byte struct: one 16-byte load each
        let mut t = shared(fields(4, 32));
        assert_eq!(merge_accesses(&mut t, &loads(4, |f| Some(4 * f))), 12);
    }

    #[test]
    fn workgroup_loads_of_neighbouring_array_elements_stay() {
        // the same addresses as words `4 t + k` of a `u32` array: no element around them
        let mut t = shared(fields(4, 16));
        assert_eq!(merge_accesses(&mut t, &loads(4, |_| None)), 0);
        assert_eq!(t.records.len(), 16);
        // the last field of one element and the first of the next: two elements
        let mut t = Trace::new("t");
        for thread in 0..4 {
            t.push(rec(thread, 0, Op::Load, 32 * thread + 12, 4, 0));
            t.push(rec(thread, 1, Op::Load, 32 * thread + 16, 4, 1));
        }
        assert_eq!(merge_accesses(&mut t, &loads(2, |f| Some([12, 0][f as usize]))), 0);
    }

    #[test]
    fn a_whole_struct_loaded_at_once_is_one_wide_load() {
        // one site whose four pieces are the 4-byte fields of a 16-byte struct
        let mut sites = loads(1, |_| Some(0));
        if let SiteKind::Access { leaves, .. } = &mut sites[0].kind {
            *leaves = vec![(0, 4), (4, 4), (8, 4), (12, 4)];
        }
        let mut t = Trace::new("t");
        for thread in 0..4 {
            for (step, f) in (0..8).zip((0..4).cycle()) {
                // two loads of the struct, of elements `thread` and `thread + 4`
                let element = thread + 4 * (step / 4);
                t.push(rec(thread, step, Op::Load, 16 * element + 4 * f, 4, 0));
            }
        }
        assert_eq!(merge_accesses(&mut t, &sites), 24);
        assert!(t.records.iter().all(|r| r.bytes == 16), "{:?}", t.records);
        assert_eq!(t.records.len(), 8);
    }
}
