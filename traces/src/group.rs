//! Grouping per-thread records into warp requests: warp = thread / k, request =
//! (block, warp, step).

use crate::error::GroupError;
use crate::record::Trace;
use sim_core::{Op, WarpRequest};

/// Warp requests in columns, ordered by (block, warp, step).
#[derive(Clone, Debug, Default)]
pub struct Requests {
    /// Warp size the trace was grouped for.
    pub warp_size: u32,
    block: Vec<u32>,
    warp: Vec<u32>,
    step: Vec<u32>,
    op: Vec<Op>,
    bytes: Vec<u8>,
    gap: Vec<u32>,
    dep: Vec<Option<bool>>,
    wait: Vec<Option<u32>>,
    line: Vec<u32>,
    /// Start of each request's lanes in `lanes` / `addrs`; one extra entry at the end.
    start: Vec<u32>,
    lanes: Vec<u16>,
    addrs: Vec<u32>,
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
        }
    }
}

impl Requests {
    /// Groups `trace` into requests of `warp_size`-lane warps.
    pub fn group(trace: &Trace, warp_size: u32) -> Result<Requests, GroupError> {
        if !(warp_size.is_power_of_two() && warp_size <= 64) {
            return Err(GroupError::WarpSize { warp: warp_size });
        }
        let recs = &trace.records;
        let mut order: Vec<u32> = (0..recs.len() as u32).collect();
        order.sort_unstable_by_key(|&i| {
            let r = &recs[i as usize];
            (r.block, r.thread / warp_size, r.step, r.thread, i)
        });
        let file = || trace.source.clone();
        let mut out = Requests { warp_size, ..Requests::default() };
        let mut prev: Option<u32> = None;
        for &i in &order {
            let r = &recs[i as usize];
            let line = trace.lines[i as usize];
            let warp = r.thread / warp_size;
            let lane = (r.thread % warp_size) as u16;
            if let Some(p) = prev {
                let q = &recs[p as usize];
                if q.block == r.block && q.thread == r.thread && q.step == r.step {
                    let (first_line, line) = ordered_lines(trace.lines[p as usize], line);
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
                q.block == r.block && q.thread / warp_size == warp && q.step == r.step
            });
            if same_request {
                let k = out.op.len() - 1;
                if out.op[k] != r.op {
                    let (first_line, line) = (out.line[k], line);
                    return Err(GroupError::MixedOp {
                        file: file(),
                        line,
                        first_line,
                        block: r.block,
                        warp,
                        step: r.step,
                        first_op: out.op[k],
                        op: r.op,
                    });
                }
                if out.bytes[k] != r.bytes {
                    return Err(GroupError::MixedWidth {
                        file: file(),
                        line,
                        first_line: out.line[k],
                        block: r.block,
                        warp,
                        step: r.step,
                        first_bytes: out.bytes[k],
                        bytes: r.bytes,
                    });
                }
                out.gap[k] = out.gap[k].max(r.gap);
                out.dep[k] = merge_dep(out.dep[k], r.dep);
                out.wait[k] = merge_wait(out.wait[k], r.wait);
                out.line[k] = out.line[k].min(line);
            } else {
                out.start.push(out.lanes.len() as u32);
                out.block.push(r.block);
                out.warp.push(warp);
                out.step.push(r.step);
                out.op.push(r.op);
                out.bytes.push(r.bytes);
                out.gap.push(r.gap);
                out.dep.push(r.dep);
                out.wait.push(r.wait);
                out.line.push(line);
            }
            out.lanes.push(lane);
            out.addrs.push(r.addr);
            prev = Some(i);
        }
        out.start.push(out.lanes.len() as u32);
        Ok(out)
    }

    /// Number of requests.
    pub fn len(&self) -> usize {
        self.op.len()
    }

    /// Whether there are no requests.
    pub fn is_empty(&self) -> bool {
        self.op.is_empty()
    }

    /// Request `i`.
    pub fn get(&self, i: usize) -> RequestRef<'_> {
        let (s, e) = (self.start[i] as usize, self.start[i + 1] as usize);
        RequestRef {
            block: self.block[i],
            warp: self.warp[i],
            step: self.step[i],
            op: self.op[i],
            bytes: self.bytes[i],
            gap: self.gap[i],
            dep: self.dep[i],
            wait: self.wait[i],
            line: self.line[i],
            lanes: &self.lanes[s..e],
            addrs: &self.addrs[s..e],
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
        Requests { warp_size, start: vec![0], ..Requests::default() }
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
        debug_assert!(
            self.is_empty() || {
                let k = self.len() - 1;
                (self.block[k], self.warp[k], self.step[k]) < (block, warp, step)
            }
        );
        if self.start.is_empty() {
            self.start.push(0);
        }
        self.block.push(block);
        self.warp.push(warp);
        self.step.push(step);
        self.op.push(op);
        self.bytes.push(bytes);
        self.gap.push(gap);
        self.dep.push(dep);
        self.wait.push(wait);
        self.line.push(0);
        self.lanes.extend_from_slice(lanes);
        self.addrs.extend_from_slice(addrs);
        self.start.push(self.lanes.len() as u32);
    }
}

impl sim_core::engine::Workload for Requests {
    fn len(&self) -> usize {
        self.op.len()
    }

    fn request(&self, i: usize) -> sim_core::engine::EngineRequest<'_> {
        self.get(i).engine_request()
    }
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
