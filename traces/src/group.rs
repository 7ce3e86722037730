//! Grouping per-thread records into warp requests: warp = thread / k, request =
//! (block, warp, step).

use crate::error::GroupError;
use crate::record::{Record, Trace};
use sim_core::{Op, WarpRequest, LANE_NUMBERS};

/// Warp requests ordered by (block, warp, step): one header each, lanes and addresses
/// side by side.
#[derive(Clone, Debug, Default)]
pub struct Requests {
    /// Warp size the trace was grouped for.
    pub warp_size: u32,
    heads: Vec<Head>,
    /// The lanes of the requests whose lanes are not contiguous (a request with lanes
    /// `l..l + n`, most of them, borrows them from `LANE_NUMBERS` instead).
    lanes: Vec<u16>,
    addrs: Vec<u32>,
    /// Highest thread index + 1, and one past the highest byte of shared memory
    /// accessed.
    threads: u32,
    smem_extent: u32,
    /// Index of each block's first request, in order (kept as requests are added, so
    /// that the engine need not scan every header for block boundaries).
    block_starts: Vec<usize>,
}

/// A request's fields but its lanes: one bounds check reads them all (the engine reads
/// a request several times).
#[derive(Clone, Copy, Debug)]
struct Head {
    block: u32,
    warp: u32,
    step: u32,
    gap: u32,
    line: u32,
    site: u32,
    /// Start of the request's addresses in `addrs`.
    start: u32,
    /// Start of the request's lanes in `lanes`, or [`CONTIGUOUS`].
    lanes_at: u32,
    /// With [`CONTIGUOUS`]: the first lane.
    lane0: u16,
    wait: Option<u32>,
    /// Number of lanes.
    count: u16,
    op: Op,
    bytes: u8,
    dep: Option<bool>,
}

/// [`Head::lanes_at`] of a request whose lanes are `lane0..lane0 + count`.
const CONTIGUOUS: u32 = u32::MAX;

/// Whether ascending `lanes` are one run `l..l + n`.
fn contiguous(lanes: &[u16]) -> bool {
    match (lanes.first(), lanes.last()) {
        (Some(&a), Some(&b)) => (b - a) as usize + 1 == lanes.len(),
        _ => true,
    }
}

/// One warp request, borrowed from [`Requests`].
#[derive(Clone, Copy, Debug)]
pub struct RequestRef<'a> {
    /// Block id.
    pub block: u32,
    /// Warp index within the block.
    pub warp: u32,
    /// Step.
    pub step: u32,
    /// Operation.
    pub op: Op,
    /// Access width in bytes (0 for barriers).
    pub bytes: u8,
    /// Largest `gap` among the lanes.
    pub gap: u32,
    /// `Some(true)` if any lane depends on its previous load, `Some(false)` if every lane
    /// says it does not, `None` if unspecified.
    pub dep: Option<bool>,
    /// The earliest `wait` among the lanes that have one: the warp stalls at its first
    /// lane's first use of the loaded value.
    pub wait: Option<u32>,
    /// Source line of the request's first record.
    pub line: u32,
    /// The request's site (every lane's), or [`crate::NO_SITE`].
    pub site: u32,
    /// Active lanes, ascending.
    pub lanes: &'a [u16],
    /// Byte address per active lane.
    pub addrs: &'a [u32],
}

impl<'a> RequestRef<'a> {
    /// The request as the bank model sees it.
    pub fn warp_request(&self) -> WarpRequest<'a> {
        WarpRequest { op: self.op, bytes: self.bytes, lanes: self.lanes, addrs: self.addrs }
    }

    /// The request as the cycle engine sees it.
    #[inline]
    pub fn engine_request(&self) -> sim_core::engine::EngineRequest<'a> {
        sim_core::engine::EngineRequest {
            block: self.block,
            warp: self.warp,
            op: self.op,
            bytes: self.bytes,
            gap: self.gap,
            dep: self.dep,
            wait: self.wait,
            lanes: self.lanes,
            addrs: self.addrs,
            cost: None,
        }
    }
}

impl Requests {
    /// Groups `trace` into requests of `warp_size`-lane warps.
    pub fn group(trace: &Trace, warp_size: u32) -> Result<Requests, GroupError> {
        Requests::group_records(&trace.source, &trace.records, &trace.lines, warp_size)
    }

    /// [`Requests::group`] of the records `recs` of the trace `source`, with the line of
    /// each (`lines`, as long as `recs`): a part of a trace, grouped without a copy.
    pub fn group_records(
        source: &str,
        recs: &[Record],
        lines: &[u32],
        warp_size: u32,
    ) -> Result<Requests, GroupError> {
        if !(warp_size.is_power_of_two() && warp_size <= 64) {
            return Err(GroupError::WarpSize { warp: warp_size });
        }
        assert_eq!(recs.len(), lines.len(), "a line for every record");
        let order = request_order(recs, warp_size);
        let file = || source.to_string();
        // (a shift and a mask, not a division: a warp's size is a power of two)
        let shift = warp_size.trailing_zeros();
        let mut out = Requests { warp_size, ..Requests::default() };
        // (an address per record; a request per warp's worth of records, at least where
        // warps are full: room made once, not grown by copies)
        out.addrs.reserve_exact(recs.len());
        out.heads.reserve(recs.len() / warp_size as usize + 1);
        let mut prev: Option<u32> = None;
        for &i in &order {
            let r = &recs[i as usize];
            let line = lines[i as usize];
            let warp = r.thread >> shift;
            let lane = (r.thread & (warp_size - 1)) as u16;
            if let Some(p) = prev {
                let q = &recs[p as usize];
                if q.block == r.block && q.thread == r.thread && q.step == r.step {
                    let (first_line, line) = ordered_lines(lines[p as usize], line);
                    return Err(GroupError::Duplicate {
                        file: file(),
                        line,
                        first_line,
                        block: r.block,
                        thread: r.thread,
                        step: r.step,
                    });
                }
            }
            let same_request = prev.is_some_and(|p| {
                let q = &recs[p as usize];
                q.block == r.block && q.thread >> shift == warp && q.step == r.step
            });
            if same_request {
                let h = out.heads.last_mut().expect("a request");
                if h.op != r.op {
                    let (first_line, line) = (h.line, line);
                    return Err(GroupError::MixedOp {
                        file: file(),
                        line,
                        first_line,
                        block: r.block,
                        warp,
                        step: r.step,
                        first_op: h.op,
                        op: r.op,
                    });
                }
                if h.site != r.site {
                    return Err(GroupError::MixedSite {
                        file: file(),
                        line,
                        first_line: h.line,
                        block: r.block,
                        warp,
                        step: r.step,
                        first_site: h.site,
                        site: r.site,
                    });
                }
                if h.bytes != r.bytes {
                    return Err(GroupError::MixedWidth {
                        file: file(),
                        line,
                        first_line: h.line,
                        block: r.block,
                        warp,
                        step: r.step,
                        first_bytes: h.bytes,
                        bytes: r.bytes,
                    });
                }
                h.gap = h.gap.max(r.gap);
                h.dep = merge_dep(h.dep, r.dep);
                h.wait = merge_wait(h.wait, r.wait);
                h.line = h.line.min(line);
                h.count += 1;
            } else {
                out.seal_lanes();
                out.push_head(Head {
                    block: r.block,
                    warp,
                    step: r.step,
                    gap: r.gap,
                    line,
                    site: r.site,
                    start: out.addrs.len() as u32,
                    lanes_at: out.lanes.len() as u32,
                    lane0: 0,
                    wait: r.wait,
                    count: 1,
                    op: r.op,
                    bytes: r.bytes,
                    dep: r.dep,
                });
            }
            if r.op.is_memory() {
                out.smem_extent = out.smem_extent.max(r.addr.saturating_add(r.bytes as u32));
            }
            out.threads = out.threads.max(r.thread + 1);
            out.lanes.push(lane);
            out.addrs.push(r.addr);
            prev = Some(i);
        }
        out.seal_lanes();
        Ok(out)
    }

    /// Where the last request's lanes (the end of `lanes`) are one run, drops them from
    /// `lanes`: the request borrows them from `LANE_NUMBERS`. (A full warp's lanes would be
    /// a quarter of the bytes of a request in memory: the cycle engine holds them all.)
    fn seal_lanes(&mut self) {
        let Some(h) = self.heads.last_mut() else { return };
        if h.lanes_at == CONTIGUOUS {
            return;
        }
        let lanes = &self.lanes[h.lanes_at as usize..];
        if contiguous(lanes) {
            h.lane0 = lanes.first().copied().unwrap_or(0);
            self.lanes.truncate(h.lanes_at as usize);
            h.lanes_at = CONTIGUOUS;
        }
    }

    /// Number of requests.
    pub fn len(&self) -> usize {
        self.heads.len()
    }

    /// Whether there are no requests.
    pub fn is_empty(&self) -> bool {
        self.heads.is_empty()
    }

    /// Request `i`.
    #[inline]
    pub fn get(&self, i: usize) -> RequestRef<'_> {
        let h = self.heads[i];
        let (s, n) = (h.start as usize, h.count as usize);
        let lanes = if h.lanes_at == CONTIGUOUS {
            &LANE_NUMBERS[h.lane0 as usize..h.lane0 as usize + n]
        } else {
            &self.lanes[h.lanes_at as usize..h.lanes_at as usize + n]
        };
        RequestRef {
            block: h.block,
            warp: h.warp,
            step: h.step,
            op: h.op,
            bytes: h.bytes,
            gap: h.gap,
            dep: h.dep,
            wait: h.wait,
            line: h.line,
            site: h.site,
            lanes,
            addrs: &self.addrs[s..s + n],
        }
    }

    /// All requests in (block, warp, step) order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = RequestRef<'_>> + '_ {
        (0..self.len()).map(move |i| self.get(i))
    }
}

impl Requests {
    /// An empty set of requests for `warp_size`-lane warps, to fill with [`Requests::push`].
    pub fn new(warp_size: u32) -> Requests {
        Requests { warp_size, ..Requests::default() }
    }

    /// Makes room for `requests` more requests of `lanes` active lanes in all.
    pub fn reserve(&mut self, requests: usize, lanes: usize) {
        self.heads.reserve(requests);
        self.addrs.reserve(lanes);
    }

    /// Leaves no requests, keeping the buffers (to be filled again).
    pub fn clear(&mut self) {
        let warp_size = self.warp_size;
        let (mut heads, mut lanes, mut addrs, mut starts) = (
            std::mem::take(&mut self.heads),
            std::mem::take(&mut self.lanes),
            std::mem::take(&mut self.addrs),
            std::mem::take(&mut self.block_starts),
        );
        heads.clear();
        lanes.clear();
        addrs.clear();
        starts.clear();
        *self = Requests { warp_size, heads, lanes, addrs, block_starts: starts, ..Requests::default() };
    }

    /// Appends a request; requests must come in (block, warp, step) order, lanes
    /// ascending and below the warp size. For generators that build requests directly.
    #[allow(clippy::too_many_arguments)]
    pub fn push(
        &mut self,
        block: u32,
        warp: u32,
        step: u32,
        op: Op,
        bytes: u8,
        gap: u32,
        dep: Option<bool>,
        wait: Option<u32>,
        lanes: &[u16],
        addrs: &[u32],
    ) {
        debug_assert_eq!(lanes.len(), addrs.len());
        debug_assert!(lanes.windows(2).all(|w| w[0] < w[1]));
        debug_assert!(self.heads.last().is_none_or(|h| (h.block, h.warp, h.step) < (block, warp, step)));
        let run = contiguous(lanes);
        self.push_head(Head {
            block,
            warp,
            step,
            gap,
            line: 0,
            site: crate::NO_SITE,
            start: self.addrs.len() as u32,
            lanes_at: if run { CONTIGUOUS } else { self.lanes.len() as u32 },
            lane0: if run { lanes.first().copied().unwrap_or(0) } else { 0 },
            wait,
            count: lanes.len() as u16,
            op,
            bytes,
            dep,
        });
        if let (true, Some(&top)) = (op.is_memory(), addrs.iter().max()) {
            self.smem_extent = self.smem_extent.max(top.saturating_add(bytes as u32));
        }
        if let Some(&last) = lanes.last() {
            self.threads = self.threads.max(warp * self.warp_size + last as u32 + 1);
        }
        if !run {
            self.lanes.extend_from_slice(lanes);
        }
        self.addrs.extend_from_slice(addrs);
    }

    /// Appends one request taken from elsewhere (another `Requests`, a binary chunk's
    /// split), as [`Requests::push`] does.
    pub fn push_ref(&mut self, r: &RequestRef<'_>) {
        self.push(r.block, r.warp, r.step, r.op, r.bytes, r.gap, r.dep, r.wait, r.lanes, r.addrs);
    }

    /// Appends `other`'s requests, which must come after these in (block, warp, step)
    /// order and be for the same warp size (as the chunks of a binary trace, split one
    /// by one: `banksim run` builds one part per chunk on every thread and appends them
    /// in chunk order).
    pub fn append(&mut self, other: &Requests) {
        debug_assert_eq!(self.warp_size, other.warp_size);
        debug_assert!(match (self.heads.last(), other.heads.first()) {
            (Some(a), Some(b)) => (a.block, a.warp, a.step) < (b.block, b.warp, b.step),
            _ => true,
        });
        let (heads, lanes, addrs) = (self.heads.len(), self.lanes.len() as u32, self.addrs.len() as u32);
        let same_block =
            matches!((self.heads.last(), other.heads.first()), (Some(a), Some(b)) if a.block == b.block);
        self.heads.extend(other.heads.iter().map(|h| Head {
            start: h.start + addrs,
            lanes_at: if h.lanes_at == CONTIGUOUS { CONTIGUOUS } else { h.lanes_at + lanes },
            ..*h
        }));
        self.lanes.extend_from_slice(&other.lanes);
        self.addrs.extend_from_slice(&other.addrs);
        // (a block cut between the two parts starts where the first part holds it)
        let skip = usize::from(same_block);
        self.block_starts.extend(other.block_starts.iter().skip(skip).map(|&i| i + heads));
        self.threads = self.threads.max(other.threads);
        self.smem_extent = self.smem_extent.max(other.smem_extent);
    }

    /// Appends a request's header, noting where a new block starts.
    fn push_head(&mut self, h: Head) {
        if self.heads.last().is_none_or(|p| p.block != h.block) {
            self.block_starts.push(self.heads.len());
        }
        self.heads.push(h);
    }
}

// (inlined into the engine, which is generic over its workload)
impl sim_core::engine::Workload for Requests {
    #[inline]
    fn len(&self) -> usize {
        self.heads.len()
    }

    #[inline]
    fn request(&self, i: usize) -> sim_core::engine::EngineRequest<'_> {
        self.get(i).engine_request()
    }

    fn block(&self, i: usize) -> u32 {
        self.heads[i].block
    }

    fn extent(&self, warp: u32) -> Option<(u32, u32)> {
        (warp == self.warp_size).then_some((self.threads, self.smem_extent))
    }

    fn block_starts(&self) -> Option<&[usize]> {
        Some(&self.block_starts)
    }
}

/// Record indices in (block, warp, step, thread, index) order, for warps of
/// `warp_size` lanes (a power of two). Where the records come
/// block by block (any order within a block), as most traces do, each block is sorted
/// on its own, blocks side by side on the current rayon pool; otherwise all at once.
fn request_order(recs: &[Record], warp_size: u32) -> Vec<u32> {
    use rayon::prelude::*;
    debug_assert!(warp_size.is_power_of_two());
    let shift = warp_size.trailing_zeros();
    // within a block: (warp, step, thread, index) in one integer
    let key = |i: u32| {
        let r = &recs[i as usize];
        ((r.thread >> shift) as u128) << 96 | (r.step as u128) << 64 | (r.thread as u128) << 32 | i as u128
    };
    let mut order: Vec<u32> = (0..recs.len() as u32).collect();
    if !crate::record::blocks_in_order(recs) {
        order.par_sort_unstable_by_key(|&i| (recs[i as usize].block, key(i)));
        return order;
    }
    let mut blocks: Vec<&mut [u32]> = Vec::new();
    let mut rest = order.as_mut_slice();
    for run in crate::record::block_runs(recs, 0) {
        let (one, more) = rest.split_at_mut(run.len());
        blocks.push(one);
        rest = more;
    }
    // (records already in request order, as written by `convert`, need no sort)
    blocks.par_iter_mut().for_each(|b| {
        if b.windows(2).all(|w| key(w[0]) < key(w[1])) {
            return;
        }
        // a stable counting sort by warp, then each warp's records by (step, thread,
        // index) where they are not in that order yet: records in (step, thread) order
        // (as generators write them), or in several such runs, need no comparison sort
        let warp = |i: u32| (recs[i as usize].thread >> shift) as usize;
        let warps = b.iter().map(|&i| warp(i)).max().map_or(0, |w| w + 1);
        if warps > b.len() {
            b.sort_unstable_by_key(|&i| key(i));
            return;
        }
        let mut at = vec![0usize; warps + 1];
        for &i in b.iter() {
            at[warp(i) + 1] += 1;
        }
        for w in 1..=warps {
            at[w] += at[w - 1];
        }
        let starts = at.clone();
        let mut sorted = vec![0u32; b.len()];
        for &i in b.iter() {
            sorted[at[warp(i)]] = i;
            at[warp(i)] += 1;
        }
        let in_order = |one: &[u32]| one.windows(2).all(|p| key(p[0]) < key(p[1]));
        let mut scratch = Vec::new();
        for w in 0..warps {
            let one = &mut sorted[starts[w]..starts[w + 1]];
            if in_order(one) {
                continue;
            }
            // records in thread order within each step (thread-major, as a per-thread
            // log writes them): a stable counting sort by step puts them in order
            if !(sort_by_step(one, recs, &mut scratch) && in_order(one)) {
                one.sort_unstable_by_key(|&i| key(i));
            }
        }
        b.copy_from_slice(&sorted);
    });
    order
}

/// Sorts the record indices `one` stably by step with a counting sort, when the steps
/// span at most a few times as many values as there are records (else leaves `one` as
/// it is and returns false).
fn sort_by_step(one: &mut [u32], recs: &[Record], counts: &mut Vec<u32>) -> bool {
    let step = |i: u32| recs[i as usize].step;
    let (lo, hi) = one.iter().fold((u32::MAX, 0), |(lo, hi), &i| (lo.min(step(i)), hi.max(step(i))));
    let span = (hi - lo) as usize + 1;
    if span > 4 * one.len() + 64 {
        return false;
    }
    counts.clear();
    counts.resize(span + 1, 0);
    for &i in one.iter() {
        counts[(step(i) - lo) as usize + 1] += 1;
    }
    for k in 1..=span {
        counts[k] += counts[k - 1];
    }
    let mut out = vec![0u32; one.len()];
    for &i in one.iter() {
        let at = &mut counts[(step(i) - lo) as usize];
        out[*at as usize] = i;
        *at += 1;
    }
    one.copy_from_slice(&out);
    true
}

fn ordered_lines(a: u32, b: u32) -> (u32, u32) {
    (a.min(b), a.max(b))
}

/// The earlier of two lanes' waits (a lane without one does not stall the warp).
pub(crate) fn merge_wait(a: Option<u32>, b: Option<u32>) -> Option<u32> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, None) | (None, x) => x,
    }
}

/// Whether a request depends on its previous load: any lane that says so makes it so.
pub(crate) fn merge_dep(a: Option<bool>, b: Option<bool>) -> Option<bool> {
    match (a, b) {
        (Some(true), _) | (_, Some(true)) => Some(true),
        (Some(false), Some(false)) => Some(false),
        (x, None) | (None, x) => x,
    }
}
