//! One SM ([`Sm`]): its resident blocks, schedulers and shared-memory pipe, the events
//! that move them, and the snapshot a speculative dispatch may roll back to.

use super::context::Ctx;
use super::events::{EventKind, Events};
use super::plan::{build_plan, ATOMIC, BARRIER, GLOBAL, GLOBAL_LOAD, HAS_WAIT, L1, L1_HIT, LOAD};
use super::report::{Cycle, RequestTiming, SmStats};
use super::resident::{arrive, ready_next, BarrierState, Resident, WarpState};
use super::workload::Workload;
use crate::hardware::Hardware;
use crate::model::BankModel;
use crate::timing::Timing;
use std::sync::Arc;

// (aligned to two cache lines: SMs run on different threads side by side in one `Vec`,
// and their counters change on every event)
#[repr(align(128))]
pub(super) struct Sm {
    pub(super) index: u32,
    model: BankModel,
    /// Scratch of the plans' L1 rule.
    l1: L1,
    /// Everything a run changes but the timings (one `Vec` for all runs).
    pub(super) run: SmRun,
    pub(super) timings: Vec<RequestTiming>,
    /// Blocks handed over by the dispatcher (put here by the thread that runs the SM
    /// next), launched at the start of that run (so plans are built on the worker
    /// threads, not the dispatcher).
    to_launch: Vec<(usize, Cycle)>,
    /// The state before a speculative dispatch, and how many timings it had (`None`:
    /// `saved` is stale). Only the round that took it reads it. `saved` is taken with
    /// `clone_from` and restored by a swap, so its buffers (a ring of 64 event queues,
    /// the resident blocks' vectors) are reused round after round instead of being
    /// allocated and freed for every snapshot.
    saved: SmRun,
    pub(super) saved_timings: Option<usize>,
}

/// An SM's state that its run changes (its bank model holds only scratch).
pub(super) struct SmRun {
    events: Events,
    slots: Vec<Option<Resident>>,
    pub(super) free_slots: u32,
    pipe_free: Cycle,
    /// When the SM's share of DRAM bandwidth is next free, in 256ths of a cycle.
    mem_free: u64,
    sched_free: Vec<Cycle>,
    /// Set when a slot freed and blocks may remain: the SM waits for the dispatcher.
    pub(super) waiting_since: Option<Cycle>,
    /// Cycle the SM may launch its next block (`block_launch_cycles` after the last).
    next_launch: Cycle,
    pub(super) stats: SmStats,
}

impl Clone for SmRun {
    fn clone(&self) -> SmRun {
        SmRun {
            events: self.events.clone(),
            slots: self.slots.clone(),
            free_slots: self.free_slots,
            pipe_free: self.pipe_free,
            mem_free: self.mem_free,
            sched_free: self.sched_free.clone(),
            waiting_since: self.waiting_since,
            next_launch: self.next_launch,
            stats: self.stats.clone(),
        }
    }

    /// (keeps this one's allocations: see [`Sm::saved`])
    fn clone_from(&mut self, o: &SmRun) {
        let SmRun {
            events,
            slots,
            free_slots,
            pipe_free,
            mem_free,
            sched_free,
            waiting_since,
            next_launch,
            stats,
        } = o;
        self.events.clone_from(events);
        self.slots.clone_from(slots);
        self.sched_free.clone_from(sched_free);
        self.stats.clone_from(stats);
        (self.free_slots, self.pipe_free, self.mem_free, self.waiting_since, self.next_launch) =
            (*free_slots, *pipe_free, *mem_free, *waiting_since, *next_launch);
    }
}

impl Sm {
    pub(super) fn new(index: u32, hw: &Hardware, timing: &Timing, blocks_per_sm: u32) -> Sm {
        let run = SmRun {
            events: Events::new(),
            slots: (0..blocks_per_sm).map(|_| None).collect(),
            free_slots: blocks_per_sm,
            pipe_free: 0,
            mem_free: 0,
            sched_free: vec![0; timing.schedulers_per_sm as usize],
            waiting_since: None,
            next_launch: 0,
            stats: SmStats::default(),
        };
        Sm {
            index,
            model: BankModel::new(hw),
            l1: L1::default(),
            saved: run.clone(),
            run,
            timings: Vec::new(),
            to_launch: Vec::new(),
            saved_timings: None,
        }
    }

    /// Saves the state before the dispatcher's last blocks (in `to_launch`), for which
    /// the SM waited since `at`.
    pub(super) fn save(&mut self, at: Cycle) {
        self.saved.clone_from(&self.run);
        self.saved.free_slots += self.to_launch.len() as u32;
        self.saved.waiting_since = Some(at);
        self.saved_timings = Some(self.timings.len());
    }

    /// Goes back to the state [`Self::save`] saved.
    pub(super) fn restore(&mut self) {
        let timings = self.saved_timings.take().expect("a speculated SM's saved state");
        std::mem::swap(&mut self.run, &mut self.saved);
        self.timings.truncate(timings);
        self.to_launch.clear();
    }

    pub(super) fn assign(&mut self, block: usize, at: Cycle) {
        self.to_launch.push((block, at));
        self.run.free_slots -= 1;
    }

    fn launch<W: Workload + ?Sized>(&mut self, ctx: &Ctx<'_, W>, block: usize, at: Cycle) {
        let at = at.max(self.run.next_launch);
        self.run.next_launch = at + ctx.timing.block_launch_cycles as Cycle;
        let slot = self.run.slots.iter().position(Option::is_none).expect("a free slot");
        let plan = Arc::new(build_plan(ctx, &mut self.model, &mut self.l1, block, slot));
        // (a warp's first step may go from the launch: no earlier cycle is a stall)
        let first = WarpState { order_ready: at, ..WarpState::default() };
        self.run.slots[slot] = Some(Resident {
            warps: vec![first; plan.warps.len()],
            barriers: vec![BarrierState::default(); plan.arrivals.len()],
            left: (plan.steps.len() + plan.arrivals.len()) as u32,
            end: 0,
            plan: Arc::clone(&plan),
        });
        self.run.stats.blocks += 1;
        if plan.steps.is_empty() {
            self.run.events.push(at, EventKind::BlockDone, slot, 0);
        }
        // each warp's first step
        let mut start = 0;
        for w in &plan.warps {
            self.run.events.push(at, EventKind::Ready, slot, start);
            start = w.end;
        }
    }

    /// Processes events until a block completes while more blocks wait to be dispatched
    /// (then `waiting_since` is set), or until no events are left.
    pub(super) fn advance<W: Workload + ?Sized>(&mut self, ctx: &Ctx<'_, W>, more_blocks: bool) {
        // (by index, so that the list keeps its buffer for the next round)
        for i in 0..self.to_launch.len() {
            let (block, at) = self.to_launch[i];
            self.launch(ctx, block, at);
        }
        self.to_launch.clear();
        while let Some((at, kind, slot, node)) = self.run.events.pop() {
            match kind {
                EventKind::Ready => self.on_ready(ctx, at, slot as usize, node),
                EventKind::Resume => self.on_resume(ctx, at, slot as usize, node),
                EventKind::Issue => self.on_issue(ctx, at, slot as usize, node),
                EventKind::Release => self.on_release(at, slot as usize, node),
                EventKind::BlockDone => {
                    self.run.slots[slot as usize] = None;
                    self.run.free_slots += 1;
                    self.run.stats.cycles = self.run.stats.cycles.max(at);
                    if more_blocks {
                        // Take every other completion of the same cycle before pausing.
                        while let Some((t, EventKind::BlockDone, s, _)) = self.run.events.peek() {
                            if t != at {
                                break;
                            }
                            self.run.events.pop();
                            self.run.slots[s as usize] = None;
                            self.run.free_slots += 1;
                        }
                        self.run.waiting_since = Some(at);
                        return;
                    }
                }
            }
        }
    }

    fn on_ready<W: Workload + ?Sized>(&mut self, ctx: &Ctx<'_, W>, at: Cycle, slot: usize, node: u32) {
        let res = self.run.slots[slot].as_ref().expect("resident block");
        let step = res.plan.steps[node as usize];
        let s = res.plan.warps[step.warp as usize].scheduler as usize;
        let w = &res.warps[step.warp as usize];
        let (order, data) = (w.order_ready, w.data_ready);
        let start = at.max(self.run.sched_free[s]);
        if step.flags & HAS_WAIT != 0 && data > start + step.wait as Cycle {
            // the work before the first use runs under the load's latency; the rest
            // resumes when the data is back
            self.run.stats.stalls.issue += start - at;
            self.run.sched_free[s] = start + held(ctx.timing, step.wait);
            self.run.stats.stalls.latency += data - (start + step.wait as Cycle);
            self.run.events.push(data, EventKind::Resume, slot, node);
        } else {
            self.run.stats.stalls.latency += at.saturating_sub(order);
            self.work_then_issue(ctx, at, s, step.gap, slot, node);
        }
    }

    /// From `at` (the current cycle), the warp on scheduler `s` does `work` cycles of
    /// other work (holding the scheduler for its share) and then issues `node`.
    fn work_then_issue<W: Workload + ?Sized>(
        &mut self,
        ctx: &Ctx<'_, W>,
        at: Cycle,
        s: usize,
        work: u32,
        slot: usize,
        node: u32,
    ) {
        let start = at.max(self.run.sched_free[s]);
        self.run.stats.stalls.issue += start - at;
        self.run.sched_free[s] = start + held(ctx.timing, work) + ctx.timing.issue_cycles as Cycle;
        let issue = start + work as Cycle;
        if issue == at && self.run.events.none_at(at) {
            // the issue would be the next event taken
            self.on_issue(ctx, at, slot, node);
        } else {
            self.run.events.push(issue, EventKind::Issue, slot, node);
        }
    }

    /// The rest of a request's gap after its `wait`, once the data it needs is back.
    fn on_resume<W: Workload + ?Sized>(&mut self, ctx: &Ctx<'_, W>, at: Cycle, slot: usize, node: u32) {
        let res = self.run.slots[slot].as_ref().expect("resident block");
        let step = res.plan.steps[node as usize];
        let s = res.plan.warps[step.warp as usize].scheduler as usize;
        self.work_then_issue(ctx, at, s, step.gap - step.wait.min(step.gap), slot, node);
    }

    fn on_issue<W: Workload + ?Sized>(&mut self, ctx: &Ctx<'_, W>, at: Cycle, slot: usize, node: u32) {
        let t = ctx.timing;
        let res = self.run.slots[slot].as_mut().expect("resident block");
        let step = res.plan.steps[node as usize];
        let w = step.warp as usize;
        if step.flags & BARRIER != 0 {
            // an arrival that uses the pipe waits its turn there, after every request
            // issued before it
            let at = if t.barrier_pipe_cycles > 0 {
                let enter = at.max(self.run.pipe_free);
                self.run.pipe_free = enter + t.barrier_pipe_cycles as Cycle;
                self.run.stats.pipe_busy += t.barrier_pipe_cycles as Cycle;
                self.run.stats.stalls.pipe_queue += enter - at;
                enter
            } else {
                at
            };
            return arrive(&mut self.run.events, res, slot, node, at, t.issue_cycles as Cycle);
        }
        let i = res.plan.first + node;
        let o = step.outcome;
        let busy = o.wavefronts as Cycle * t.pipe_cycles_per_wavefront as Cycle;
        let pipe_start = at.max(self.run.pipe_free);
        self.run.pipe_free = pipe_start + busy;
        let returns = step.flags & LOAD != 0;
        // a global request's lines pass through the SM's share of DRAM bandwidth
        let mut out = pipe_start + busy;
        if step.flags & GLOBAL != 0 && step.flags & L1_HIT == 0 && ctx.line_cost > 0 {
            let start = (out << 8).max(self.run.mem_free);
            self.run.mem_free = start + o.wavefronts as u64 * ctx.line_cost;
            let end = self.run.mem_free.div_ceil(256);
            self.run.stats.stalls.global += end - out;
            out = end;
        }
        let done = if step.flags & L1_HIT != 0 {
            out + t.l1_latency as Cycle
        } else if step.flags & GLOBAL_LOAD != 0 {
            out + t.global_latency as Cycle
        } else if step.flags & GLOBAL != 0 {
            out
        } else if returns {
            let extra = if step.flags & ATOMIC != 0 { t.atomic_extra_latency as Cycle } else { 0 };
            pipe_start
                + t.latency_base as Cycle
                + extra
                + t.latency_per_wavefront as Cycle * o.wavefronts as Cycle
        } else {
            pipe_start + busy
        };
        let extra = o.conflicts() as Cycle;
        let bank_conflict = extra
            * (t.pipe_cycles_per_wavefront as Cycle
                + if returns { t.latency_per_wavefront as Cycle } else { 0 });
        let stats = &mut self.run.stats;
        stats.pipe_busy += busy;
        stats.requests += 1;
        stats.wavefronts += o.wavefronts as u64;
        stats.stalls.pipe_queue += pipe_start - at;
        stats.stalls.bank_conflict += bank_conflict;
        if ctx.opts.per_request {
            self.timings.push(RequestTiming {
                index: i,
                sm: self.index,
                issue: at,
                pipe_start,
                done,
                wavefronts: o.wavefronts,
                ideal: o.ideal,
                bank_conflict,
            });
        }
        if step.flags & LOAD != 0 {
            res.warps[w].last_load = Some(done);
        }
        res.left -= 1;
        res.end = res.end.max(done);
        if node + 1 < res.plan.warps[w].end {
            ready_next(&mut self.run.events, res, slot, node + 1, at + t.issue_cycles as Cycle);
        } else if res.left == 0 {
            self.run.events.push(res.end, EventKind::BlockDone, slot, 0);
        }
    }

    /// Every warp expected at barrier `b` has arrived: their next steps go at `at`.
    fn on_release(&mut self, at: Cycle, slot: usize, b: u32) {
        let res = self.run.slots[slot].as_mut().expect("resident block");
        let bar = res.barriers[b as usize];
        // barrier stall: each arrival waited from its arrival to the release
        self.run.stats.stalls.barrier += bar.arrived as Cycle * at - bar.sum;
        res.left -= 1;
        res.end = res.end.max(at);
        // (the warps in reverse order, as the release order of the DAG form had it)
        for w in (0..res.warps.len()).rev() {
            if res.warps[w].barriers == b + 1 {
                if let Some(next) = res.warps[w].parked.take() {
                    ready_next(&mut self.run.events, res, slot, next, at);
                }
            }
        }
        if res.left == 0 {
            self.run.events.push(res.end, EventKind::BlockDone, slot, 0);
        }
    }
}

/// Cycles `gap` cycles of other work hold the warp's scheduler (`gap_issue_fraction`).
fn held(t: &Timing, gap: u32) -> Cycle {
    if t.gap_issue_fraction >= 1.0 {
        gap as Cycle
    } else {
        (gap as f64 * t.gap_issue_fraction).round() as Cycle
    }
}
