//! A block's plan ([`BlockPlan`]): its requests as the engine needs them, each already
//! costed by the bank model, built once when the block launches ([`build_plan`]).

use super::context::Ctx;
use super::options::DepPolicy;
use super::workload::Workload;
use crate::model::BankModel;
use crate::op::Op;
use crate::request::{Outcome, WarpRequest};

/// A block's requests as the engine needs them, built when it launches and shared (not
/// copied) by a [`Resident`] and the snapshots of it a speculative dispatch takes.
///
/// This is the block's dependence DAG in compact form. Each warp is a chain in program
/// order (step `k + 1` follows step `k` one issue slot after it issues); a step with
/// [`DATA`] also needs the data of its warp's last load before it; the k-th barrier
/// joins the k-th arrival of every warp that reaches it and releases their next steps.
/// A chain's node has at most one predecessor of each kind, and all but the one in
/// program order are done by the time that one is, so the engine follows warp cursors
/// and barrier counters instead of walking edges.
pub(super) struct BlockPlan {
    /// Workload index of the block's first request: step `k` is request `first + k`.
    pub(super) first: u32,
    /// One per request, in workload order (warps in turn).
    pub(super) steps: Vec<Step>,
    /// Each warp in workload order: where its steps end, and its scheduler.
    pub(super) warps: Vec<WarpPlan>,
    /// How many warps arrive at each barrier (the k-th `bar` of a warp is barrier k).
    pub(super) arrivals: Vec<u32>,
}

#[derive(Clone, Copy)]
pub(super) struct Step {
    /// Cycles of other work before the request.
    pub(super) gap: u32,
    /// With [`HAS_WAIT`]: cycles into `gap` at which the warp needs its last load's data.
    pub(super) wait: u32,
    /// The bank model's outcome (evaluated when the plan is built: it does not depend on
    /// timing, and one pass over a block's requests reads each request once).
    pub(super) outcome: Outcome,
    /// The step's warp (index into [`BlockPlan::warps`]).
    pub(super) warp: u32,
    pub(super) flags: u8,
}

/// [`Step::wait`] is set.
pub(super) const HAS_WAIT: u8 = 1;
/// The step needs the data of its warp's last load (if there was one).
pub(super) const DATA: u8 = 2;
/// The step is a load (or returning atomic, global load): later steps' data.
pub(super) const LOAD: u8 = 4;
/// The step is a barrier arrival.
pub(super) const BARRIER: u8 = 8;
/// The step is a global load: done `global_latency` after its wavefronts.
pub(super) const GLOBAL_LOAD: u8 = 16;
/// The step is a global load or store: its lines pass through DRAM bandwidth.
pub(super) const GLOBAL: u8 = 32;
/// The step is a returning atomic: `atomic_extra_latency` more than a load.
pub(super) const ATOMIC: u8 = 64;
/// The step is a global load whose lines its block loaded recently: `l1_latency`, no
/// DRAM or L2 bandwidth.
pub(super) const L1_HIT: u8 = 128;

#[derive(Clone, Copy)]
pub(super) struct WarpPlan {
    /// One past the warp's last step.
    pub(super) end: u32,
    pub(super) scheduler: u8,
}

/// The plan of one block launched into `slot`: one pass over its requests, each
/// evaluated by the bank model on the way.
pub(super) fn build_plan<W: Workload + ?Sized>(
    ctx: &Ctx<'_, W>,
    model: &mut BankModel,
    l1: &mut L1,
    block: usize,
    slot: usize,
) -> BlockPlan {
    let (start, end) = ctx.blocks[block];
    let mut plan = BlockPlan {
        first: start as u32,
        steps: Vec::with_capacity(end - start),
        warps: Vec::new(),
        arrivals: Vec::new(),
    };
    let schedulers = ctx.timing.schedulers_per_sm;
    let mut warp = None;
    let mut barriers = 0;
    l1.reset(ctx.l1_lines);
    for i in start..end {
        let r = ctx.work.request(i);
        if warp != Some(r.warp) {
            if let Some(last) = plan.warps.last_mut() {
                last.end = (i - start) as u32;
            }
            let scheduler = ((slot as u32 * ctx.warps_per_block + r.warp) % schedulers) as u8;
            plan.warps.push(WarpPlan { end: 0, scheduler });
            warp = Some(r.warp);
            barriers = 0;
        }
        let dep = r.dep.unwrap_or(ctx.opts.dep_policy == DepPolicy::PreviousLoad);
        let mut flags = 0;
        if r.wait.is_some() {
            flags |= HAS_WAIT;
        }
        if r.wait.is_some() || (dep && r.op != Op::Barrier) {
            flags |= DATA;
        }
        if r.op.returns() {
            flags |= LOAD;
        }
        match r.op {
            Op::GlobalLoad => {
                flags |= GLOBAL_LOAD | GLOBAL;
                if l1.load(r.addrs) {
                    flags |= L1_HIT;
                }
            }
            Op::GlobalStore => flags |= GLOBAL,
            Op::Atomic => flags |= ATOMIC,
            Op::Barrier => {
                flags |= BARRIER;
                if plan.arrivals.len() == barriers {
                    plan.arrivals.push(0);
                }
                plan.arrivals[barriers] += 1;
                barriers += 1;
            }
            _ => {}
        }
        let mut o = match (r.cost, r.op) {
            (Some(o), _) => o,
            (None, Op::Barrier) => Outcome::default(),
            (None, op) => model.evaluate(&WarpRequest { op, bytes: r.bytes, lanes: r.lanes, addrs: r.addrs }),
        };
        if ctx.opts.no_conflicts && !r.op.is_global() {
            o.wavefronts = o.ideal;
        }
        let w = plan.warps.len() as u32 - 1;
        plan.steps.push(Step { gap: r.gap, wait: r.wait.unwrap_or(0), outcome: o, warp: w, flags });
    }
    if let Some(last) = plan.warps.last_mut() {
        last.end = (end - start) as u32;
    }
    plan
}

/// The global lines a block loaded last, up to its share of the L1, the least recently
/// loaded out first (scratch an SM reuses from one block's plan to the next).
#[derive(Default)]
pub(super) struct L1 {
    capacity: usize,
    /// Each line held, with the stamp of its last load.
    held: std::collections::HashMap<u32, u64>,
    /// Loads in order: (line, stamp); an entry whose stamp is no longer its line's is stale.
    order: std::collections::VecDeque<(u32, u64)>,
    stamp: u64,
}

impl L1 {
    /// Empties it, for a block whose share holds `capacity` lines.
    fn reset(&mut self, capacity: usize) {
        self.capacity = capacity;
        self.held.clear();
        self.order.clear();
    }

    /// Loads `addrs`' lines: whether every one was held already.
    fn load(&mut self, addrs: &[u32]) -> bool {
        if self.capacity == 0 || addrs.is_empty() {
            return false;
        }
        let mut hit = true;
        let mut last = None;
        for &a in addrs {
            let line = a / crate::model::GLOBAL_LINE_BYTES;
            if last == Some(line) {
                continue;
            }
            last = Some(line);
            self.stamp += 1;
            hit &= self.held.insert(line, self.stamp).is_some();
            self.order.push_back((line, self.stamp));
        }
        while self.held.len() > self.capacity {
            let Some((line, stamp)) = self.order.pop_front() else { break };
            if self.held.get(&line) == Some(&stamp) {
                self.held.remove(&line);
            }
        }
        // stale entries would grow the queue without bound
        if self.order.len() > 4 * self.capacity + 64 {
            let held = &self.held;
            self.order.retain(|(line, stamp)| held.get(line) == Some(stamp));
        }
        hit
    }
}
