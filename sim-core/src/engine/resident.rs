//! A resident block's progress through its plan ([`Resident`]: warp cursors and barrier
//! counters), and the two moves that push its next events: a warp's next step becoming
//! ready ([`ready_next`]) and a warp's arrival at a barrier ([`arrive`]).

use super::events::{EventKind, Events};
use super::plan::{BlockPlan, DATA, HAS_WAIT};
use super::report::Cycle;
use std::sync::Arc;

/// A resident block: its plan and the progress through it.
pub(super) struct Resident {
    pub(super) plan: Arc<BlockPlan>,
    pub(super) warps: Vec<WarpState>,
    pub(super) barriers: Vec<BarrierState>,
    /// Steps and barrier releases left.
    pub(super) left: u32,
    /// Latest completion so far.
    pub(super) end: Cycle,
}

impl Clone for Resident {
    fn clone(&self) -> Resident {
        Resident {
            plan: Arc::clone(&self.plan),
            warps: self.warps.clone(),
            barriers: self.barriers.clone(),
            left: self.left,
            end: self.end,
        }
    }

    /// (keeps this one's allocations: see [`Sm::saved`])
    fn clone_from(&mut self, o: &Resident) {
        // (every field named: one added later cannot be left out of snapshots)
        let Resident { plan, warps, barriers, left, end } = o;
        self.plan.clone_from(plan);
        self.warps.clone_from(warps);
        self.barriers.clone_from(barriers);
        (self.left, self.end) = (*left, *end);
    }
}

/// A warp's progress: its pending step (the one after its last issued) may issue from
/// `order_ready` by program order (or barrier release) and from `data_ready` by data.
#[derive(Clone, Copy, Default)]
pub(super) struct WarpState {
    pub(super) order_ready: Cycle,
    pub(super) data_ready: Cycle,
    /// Completion of the warp's last load issued.
    pub(super) last_load: Option<Cycle>,
    /// Barriers the warp has arrived at.
    pub(super) barriers: u32,
    /// While the warp waits at a barrier: the step after its arrival.
    pub(super) parked: Option<u32>,
}

#[derive(Clone, Copy, Default)]
pub(super) struct BarrierState {
    pub(super) arrived: u32,
    /// Latest arrival: the release.
    pub(super) last: Cycle,
    /// Sum of the arrival cycles (for the barrier stall).
    pub(super) sum: Cycle,
}

/// Step `node` (the next of its warp) may go from `order` by program order: sets its
/// warp's times and pushes it.
#[inline(always)]
pub(super) fn ready_next(events: &mut Events, res: &mut Resident, slot: usize, node: u32, order: Cycle) {
    let step = res.plan.steps[node as usize];
    let w = &mut res.warps[step.warp as usize];
    w.order_ready = order;
    w.data_ready = if step.flags & DATA != 0 { w.last_load.unwrap_or(0) } else { 0 };
    // a request that needs the data only part-way through its gap starts its gap in
    // program order; any other waits for the data first
    let at = if step.flags & HAS_WAIT != 0 { order } else { order.max(w.data_ready) };
    events.push(at, EventKind::Ready, slot, node);
}

/// A warp arrives at its next barrier with step `node`, issued at `at`.
pub(super) fn arrive(
    events: &mut Events,
    res: &mut Resident,
    slot: usize,
    node: u32,
    at: Cycle,
    issue: Cycle,
) {
    let w = res.plan.steps[node as usize].warp as usize;
    res.left -= 1;
    res.end = res.end.max(at + issue);
    let ws = &mut res.warps[w];
    let b = ws.barriers as usize;
    ws.barriers += 1;
    ws.parked = (node + 1 < res.plan.warps[w].end).then_some(node + 1);
    let bar = &mut res.barriers[b];
    bar.arrived += 1;
    bar.last = bar.last.max(at);
    bar.sum += at;
    if bar.arrived == res.plan.arrivals[b] {
        events.push(bar.last, EventKind::Release, slot, b as u32);
    }
}
