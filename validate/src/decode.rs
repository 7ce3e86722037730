//! Raw records read back from the GPU → a [`traces::Trace`].
//!
//! A record says which invocation made it, its per-invocation step, the static site and
//! the address. The trace's `step` must instead name the *dynamic warp instruction*:
//! lanes of one warp that execute the same instruction together get the same step, and
//! a lane that skips an instruction has no record for its step. With divergent control
//! flow the per-invocation counter does not give that (a lane that skipped an `if` is
//! behind the others). So the decoder gives every access a program-order key,
//!
//! ```text
//! [order(L1), iteration of L1, order(L2), iteration of L2, ..., order(site), piece]
//! ```
//!
//! (L1, L2, ... the enclosing loops, outermost first; `order` the position in the program
//! with calls inlined; `piece` the leaf of a whole-value copy), the key a SIMT machine
//! that reconverges after every `if` and every loop iteration executes in. Keys compare
//! lexicographically; the step of an access is the rank of its key among the keys of
//! its workgroup. Steps are therefore the same for every warp size, and the trace can be
//! grouped into warps of 16, 32 or 64 lanes.

use crate::error::DecodeError;
pub use crate::record::{raw_records_from_bytes, RawRecord, NO_USE};
use crate::record::{Site, SiteKind};
use sim_core::Op;
use std::collections::BTreeMap;
use traces::{Record, Trace};

/// Turns raw records into a trace of `blocks` workgroups of `threads` invocations.
pub fn decode(
    raw: Vec<RawRecord>,
    sites: &[Site],
    blocks: u32,
    threads: u32,
    source: &str,
) -> Result<Trace, DecodeError> {
    let mut decoder = Decoder::new(sites, blocks, threads, source);
    decoder.add(raw)?;
    Ok(decoder.finish())
}

/// A trace decoded a few workgroups at a time: [`Decoder::add`] takes every record of
/// some workgroups (those of a capture's window), in any order.
pub struct Decoder<'s> {
    sites: &'s [Site],
    blocks: u32,
    threads: u32,
    trace: Trace,
    /// Current iteration of each loop site, for the invocation being walked; a loop's
    /// record always precedes the accesses inside it, so stale values are never read.
    iteration: Vec<u32>,
    /// Records added so far (for the index in messages).
    seen: usize,
}

impl<'s> Decoder<'s> {
    /// A decoder of `blocks` workgroups of `threads` invocations with `sites`.
    pub fn new(sites: &'s [Site], blocks: u32, threads: u32, source: &str) -> Decoder<'s> {
        let mut trace = Trace::new(source);
        // every site's place, so that a record's site id is its static site's
        trace.sites = sites.iter().map(|s| s.location.clone()).collect();
        Decoder { sites, blocks, threads, trace, iteration: vec![0; sites.len()], seen: 0 }
    }

    /// Decodes all the records of the workgroups `raw` holds records of.
    pub fn add(&mut self, mut raw: Vec<RawRecord>) -> Result<(), DecodeError> {
        let (blocks, threads, sites) = (self.blocks, self.threads, self.sites);
        for (index, r) in raw.iter().enumerate() {
            let what = if r.block >= blocks {
                format!("workgroup {} of a dispatch of {blocks}", r.block)
            } else if r.thread >= threads {
                format!("invocation {} of a workgroup of {threads}", r.thread)
            } else if r.site as usize >= sites.len() {
                format!("site {} of {}", r.site, sites.len())
            } else {
                continue;
            };
            return Err(DecodeError::Corrupt { index: self.seen + index, what });
        }
        self.seen += raw.len();
        raw.sort_unstable();
        let mut start = 0;
        while start < raw.len() {
            let block = raw[start].block;
            let end = start + raw[start..].partition_point(|r| r.block == block);
            decode_block(&raw[start..end], sites, &mut self.iteration, &mut self.trace)?;
            start = end;
        }
        Ok(())
    }

    /// The trace decoded.
    pub fn finish(self) -> Trace {
        self.trace
    }
}

/// An access or barrier of one invocation, before steps are assigned.
struct Item {
    /// Program-order key (see the module documentation): `keys[key.0..key.1]` of its
    /// block (one vector for all, not one allocation per access).
    key: (u32, u32),
    thread: u32,
    /// The invocation's own step counter (for messages).
    thread_step: u32,
    op: Op,
    addr: u32,
    bytes: u8,
    /// IR operations since the invocation's previous access or barrier.
    gap: u32,
    dep: Option<bool>,
    /// IR operations of the gap before the first use of a loaded value.
    wait: Option<u32>,
    /// The static site (the trace's site id).
    site: u32,
}

/// One workgroup's records (sorted by thread and step) → trace records.
fn decode_block(
    raw: &[RawRecord],
    sites: &[Site],
    iteration: &mut [u32],
    trace: &mut Trace,
) -> Result<(), DecodeError> {
    let mut items: Vec<Item> = Vec::new();
    let mut keys: Vec<u32> = Vec::new();
    let mut expected = 0;
    let mut thread = u32::MAX;
    let mut ops = 0u32;
    for r in raw {
        if r.thread != thread {
            thread = r.thread;
            expected = 0;
            ops = 0;
        }
        if r.step != expected {
            return Err(DecodeError::Lost { block: r.block, thread: r.thread, expected, found: r.step });
        }
        expected += 1;
        let site = &sites[r.site as usize];
        let start = keys.len();
        for &l in &site.loops {
            keys.push(sites[l as usize].order);
            keys.push(iteration[l as usize]);
        }
        keys.push(site.order);
        let item = |key: (usize, usize), op, addr, bytes, gap, dep, wait| Item {
            key: (key.0 as u32, key.1 as u32),
            thread: r.thread,
            thread_step: r.step,
            op,
            addr,
            bytes,
            gap,
            dep,
            wait,
            site: r.site,
        };
        // the gap since the previous access or barrier, and where in it a loaded value
        // was first used
        let gap = r.ops.wrapping_sub(ops);
        let used = (r.first_use != NO_USE).then(|| r.first_use.wrapping_sub(ops).min(gap));
        match &site.kind {
            SiteKind::Loop => {
                iteration[r.site as usize] = r.value;
                keys.truncate(start);
            }
            SiteKind::Barrier => {
                keys.push(0);
                items.push(item((start, keys.len()), Op::Barrier, 0, 0, gap, None, used));
                ops = r.ops;
            }
            SiteKind::Access { op, leaves, dep, .. } => {
                // the gap goes to the first piece; an access that uses a loaded value
                // itself needs it at the end of its gap at the latest
                let (mut gap, mut wait) = (gap, used.or(dep.then_some(gap)));
                ops = r.ops;
                let end = keys.len();
                for (piece, &(offset, bytes)) in leaves.iter().enumerate() {
                    // the access's key and its piece (the first piece extends it in place)
                    let from = match piece {
                        0 => start,
                        _ => {
                            keys.extend_from_within(start..end);
                            keys.len() - (end - start)
                        }
                    };
                    keys.push(piece as u32);
                    let k = (from, keys.len());
                    items.push(item(k, *op, r.value.wrapping_add(offset), bytes, gap, Some(*dep), wait));
                    gap = 0;
                    wait = dep.then_some(0);
                }
            }
        }
    }
    // rank the distinct keys of the block
    let key = |it: &Item| &keys[it.key.0 as usize..it.key.1 as usize];
    let mut ranks: BTreeMap<&[u32], u32> = items.iter().map(|it| (key(it), 0)).collect();
    for (i, v) in ranks.values_mut().enumerate() {
        *v = i as u32;
    }
    let block = raw.first().map_or(0, |r| r.block);
    let mut last: Option<(u32, u32)> = None; // (thread, rank)
    trace.records.reserve(items.len());
    trace.lines.reserve(items.len());
    for it in &items {
        let k = key(it);
        let step = ranks[k];
        if let Some((t, s)) = last {
            if t == it.thread && s >= step {
                let site = sites.iter().find(|s| s.order == k[k.len() - 2]);
                return Err(DecodeError::Order {
                    block,
                    thread: it.thread,
                    step: it.thread_step,
                    what: site.map_or_else(String::new, |s| s.what.clone()),
                });
            }
        }
        last = Some((it.thread, step));
        trace.push(Record {
            block,
            thread: it.thread,
            step,
            op: it.op,
            addr: it.addr,
            bytes: it.bytes,
            gap: it.gap,
            dep: it.dep,
            wait: it.wait,
            site: it.site,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn site(kind: SiteKind, order: u32, loops: Vec<u32>) -> Site {
        Site {
            kind,
            order,
            loops,
            what: format!("site {order}"),
            location: format!("t.wgsl:{}:1", order + 1),
        }
    }

    fn ld() -> SiteKind {
        SiteKind::Access { op: Op::Load, leaves: vec![(0, 4)], dep: false, member: None }
    }

    fn rec(thread: u32, step: u32, site: u32, value: u32) -> RawRecord {
        RawRecord { block: 0, thread, step, site, value, ops: 0, first_use: NO_USE }
    }

    #[test]
    fn divergent_if_keeps_lanes_of_one_instruction_together() {
        // if (t == 0) { A } ; B   — thread 1 skips A, so its B has per-invocation step 0
        let sites = vec![site(ld(), 0, vec![]), site(ld(), 1, vec![])];
        let raw = vec![rec(0, 0, 0, 100), rec(0, 1, 1, 200), rec(1, 0, 1, 204)];
        let t = decode(raw, &sites, 1, 2, "t").unwrap();
        let steps: Vec<(u32, u32, u32)> = t.records.iter().map(|r| (r.thread, r.step, r.addr)).collect();
        assert_eq!(steps, vec![(0, 0, 100), (0, 1, 200), (1, 1, 204)]);
    }

    #[test]
    fn loop_iterations_order_alternating_branches() {
        // loop (site 0) { if (i == t) { A (order 1) } else { B (order 2) } }, 2 iterations
        let sites = vec![site(SiteKind::Loop, 0, vec![]), site(ld(), 1, vec![0]), site(ld(), 2, vec![0])];
        let raw = vec![
            rec(0, 0, 0, 0),
            rec(0, 1, 1, 0),
            rec(0, 2, 0, 1),
            rec(0, 3, 2, 4),
            rec(1, 0, 0, 0),
            rec(1, 1, 2, 8),
            rec(1, 2, 0, 1),
            rec(1, 3, 1, 12),
        ];
        let t = decode(raw, &sites, 1, 2, "t").unwrap();
        let steps: Vec<(u32, u32)> = t.records.iter().map(|r| (r.thread, r.step)).collect();
        // A@0, B@0, A@1, B@1 are steps 0..3
        assert_eq!(steps, vec![(0, 0), (0, 3), (1, 1), (1, 2)]);
    }

    #[test]
    fn whole_struct_copy_becomes_one_record_per_piece() {
        let sites = vec![site(
            SiteKind::Access {
                op: Op::Store,
                leaves: vec![(0, 4), (4, 4), (8, 8)],
                dep: false,
                member: None,
            },
            0,
            vec![],
        )];
        let t = decode(vec![rec(0, 0, 0, 32)], &sites, 1, 1, "t").unwrap();
        let got: Vec<(u32, u32, u8)> = t.records.iter().map(|r| (r.step, r.addr, r.bytes)).collect();
        assert_eq!(got, vec![(0, 32, 4), (1, 36, 4), (2, 40, 8)]);
    }

    #[test]
    fn gaps_and_waits_count_from_the_previous_access_or_barrier() {
        // a load; a load whose gap used the first's value 4 operations in; a barrier; a
        // store whose value is loaded (dep) but whose gap used nothing
        let dep_st = SiteKind::Access { op: Op::Store, leaves: vec![(0, 4)], dep: true, member: None };
        let sites = vec![
            site(ld(), 0, vec![]),
            site(ld(), 1, vec![]),
            site(SiteKind::Barrier, 2, vec![]),
            site(dep_st, 3, vec![]),
        ];
        let raw = [(5, NO_USE), (12, 9), (13, NO_USE), (20, NO_USE)]
            .iter()
            .enumerate()
            .map(|(i, &(ops, first_use))| RawRecord { ops, first_use, ..rec(0, i as u32, i as u32, 0) })
            .collect();
        let t = decode(raw, &sites, 1, 1, "t").unwrap();
        let got: Vec<(u32, Option<u32>)> = t.records.iter().map(|r| (r.gap, r.wait)).collect();
        assert_eq!(got, vec![(5, None), (7, Some(4)), (1, None), (7, Some(7))]);
    }

    #[test]
    fn a_missing_step_is_an_error_not_a_shorter_trace() {
        let sites = vec![site(ld(), 0, vec![]), site(ld(), 1, vec![])];
        let err = decode(vec![rec(0, 0, 0, 0), rec(0, 2, 1, 4)], &sites, 1, 1, "t").unwrap_err();
        assert!(matches!(err, DecodeError::Lost { expected: 1, found: 2, .. }), "{err}");
    }

    #[test]
    fn out_of_range_fields_are_errors() {
        let sites = vec![site(ld(), 0, vec![])];
        assert!(matches!(decode(vec![rec(5, 0, 0, 0)], &sites, 1, 2, "t"), Err(DecodeError::Corrupt { .. })));
        assert!(matches!(decode(vec![rec(0, 0, 3, 0)], &sites, 1, 2, "t"), Err(DecodeError::Corrupt { .. })));
    }
}
