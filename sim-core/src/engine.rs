//! The cycle engine: SMs with resident blocks, warps issuing requests in program order,
//! barriers, and one shared-memory pipe per SM.
//!
//! ```text
//!            dispatcher: blocks in id order, to the SM whose slot frees first
//!                 │            (ties: lowest SM index), round-robin at launch
//!   ┌─────────────┴───────────────┐
//!   SM 0                        SM n          simulated in parallel (rayon) between
//!   resident blocks ≤ occupancy                dispatch decisions; each SM orders its
//!   per block: a petgraph DAG of               events by (cycle, sequence)
//!     requests (program order, data
//!     dependences, barrier joins)
//!   schedulers: issue slots shared by the warps of a sub-partition (gap work + issue)
//!   pipe: W wavefronts busy W × pipe_cycles_per_wavefront; a load completes
//!         latency_base + latency_per_wavefront × W after it enters the pipe
//! ```
//!
//! Results depend only on the workload and the hardware, never on the thread count:
//! every SM runs its own events in (cycle, sequence) order, and dispatch decisions are
//! taken in (cycle, SM index) order between parallel steps. With several threads the
//! dispatcher speculates on the next decisions and rolls back the ones that turn out
//! wrong (`Dispatch`), so that many SMs run in each parallel step.

use crate::hardware::Hardware;
use crate::model::{BankModel, WarpRequest};
use crate::op::Op;
use crate::timing::Timing;
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::EdgeRef;
use petgraph::Direction;
use rayon::prelude::*;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::Arc;

/// Cycles.
pub type Cycle = u64;

/// One warp request as the engine sees it.
#[derive(Clone, Copy, Debug)]
pub struct EngineRequest<'a> {
    /// Block id.
    pub block: u32,
    /// Warp index within the block.
    pub warp: u32,
    /// Operation.
    pub op: Op,
    /// Access width.
    pub bytes: u8,
    /// Cycles of other work since the warp's previous request.
    pub gap: u32,
    /// Dependence on the warp's previous load (`None`: the engine's [`DepPolicy`]).
    pub dep: Option<bool>,
    /// Cycles into `gap` after which the warp first needs its previous load's data (the
    /// first instruction that uses it; `gap` when it is the request itself). The work
    /// before it runs under the load's latency, the rest waits for the data: a warp
    /// issues in order, so latency shows only from the first use on. `None`: `dep`
    /// decides, and a dependent request waits for the data before its whole gap.
    pub wait: Option<u32>,
    /// Active lanes.
    pub lanes: &'a [u16],
    /// Byte address per active lane.
    pub addrs: &'a [u32],
}

/// Warp requests ordered by (block, warp, step), as the engine consumes them.
///
/// Contract: `request(i)` for `i < len()` is sorted by block, then warp, then program
/// order; lanes are below the warp size the requests were grouped for.
pub trait Workload: Sync {
    /// Number of requests.
    fn len(&self) -> usize;
    /// Whether there are none.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Request `i`.
    fn request(&self, i: usize) -> EngineRequest<'_>;
}

/// What a request without a `dep` value depends on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DepPolicy {
    /// It waits for the warp's previous load (or returning atomic) to complete: the
    /// loaded value feeds the next shared access or what comes before it.
    #[default]
    PreviousLoad,
    /// It only waits for its turn in program order.
    Independent,
}

/// Options of one engine run.
#[derive(Clone, Debug, Default)]
pub struct EngineOptions {
    /// Default dependence of requests without a `dep` value.
    pub dep_policy: DepPolicy,
    /// Threads per block; `None`: the largest thread index in the workload + 1
    /// (rounded up to whole warps).
    pub threads_per_block: Option<u32>,
    /// Shared-memory bytes per block; `None`: the highest byte the workload touches.
    pub smem_per_block: Option<u32>,
    /// Keep per-request issue and completion cycles.
    pub per_request: bool,
}

/// Why the engine cannot run.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum EngineError {
    /// The hardware has no timing parameters.
    NoTiming {
        /// Hardware name.
        hardware: String,
    },
    /// One block does not fit on an SM.
    BlockTooLarge {
        /// What does not fit.
        what: &'static str,
        /// Needed.
        needed: u64,
        /// Available per SM.
        available: u64,
    },
}

impl std::fmt::Display for EngineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EngineError::NoTiming { hardware } => {
                write!(f, "hardware `{hardware}` has no `timing` parameters: the cycle engine needs them")
            }
            EngineError::BlockTooLarge { what, needed, available } => {
                write!(f, "a block needs {needed} {what} but an SM has {available}: no block can be resident")
            }
        }
    }
}

impl std::error::Error for EngineError {}

/// Stall cycles by cause, summed over requests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stalls {
    /// Waiting for the sub-partition's issue slot (other warps' issue and gap work).
    pub issue: Cycle,
    /// Waiting for a previous load's data (latency).
    pub latency: Cycle,
    /// Waiting in the pipe behind earlier requests.
    pub pipe_queue: Cycle,
    /// Pipe and latency cycles of wavefronts beyond the ideal (bank conflicts).
    pub bank_conflict: Cycle,
    /// Waiting at barriers for the block's other warps.
    pub barrier: Cycle,
}

impl Stalls {
    fn merge(&mut self, o: &Stalls) {
        self.issue += o.issue;
        self.latency += o.latency;
        self.pipe_queue += o.pipe_queue;
        self.bank_conflict += o.bank_conflict;
        self.barrier += o.barrier;
    }
}

/// Statistics of one SM.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SmStats {
    /// Cycle at which the SM's last block completed.
    pub cycles: Cycle,
    /// Cycles the shared-memory pipe was busy.
    pub pipe_busy: Cycle,
    /// Blocks run.
    pub blocks: u64,
    /// Memory requests run.
    pub requests: u64,
    /// Wavefronts.
    pub wavefronts: u64,
    /// Stall cycles by cause.
    pub stalls: Stalls,
}

impl SmStats {
    /// Fraction of the SM's cycles its pipe was busy.
    pub fn pipe_utilisation(&self) -> f64 {
        if self.cycles == 0 {
            0.0
        } else {
            self.pipe_busy as f64 / self.cycles as f64
        }
    }
}

/// Timing of one request (with [`EngineOptions::per_request`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RequestTiming {
    /// Index of the request in the workload.
    pub index: u32,
    /// SM that ran it.
    pub sm: u32,
    /// Cycle it issued.
    pub issue: Cycle,
    /// Cycle it entered the pipe.
    pub pipe_start: Cycle,
    /// Cycle its data was available (loads) or the pipe was done with it.
    pub done: Cycle,
    /// Wavefronts.
    pub wavefronts: u32,
    /// Ideal wavefronts.
    pub ideal: u32,
}

/// Result of a run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EngineReport {
    /// Total cycles: the last SM's last cycle.
    pub cycles: Cycle,
    /// Resident blocks per SM (occupancy).
    pub blocks_per_sm: u32,
    /// Warps per block.
    pub warps_per_block: u32,
    /// Shared-memory bytes per block used for occupancy.
    pub smem_per_block: u32,
    /// Per-SM statistics, in SM order.
    pub sms: Vec<SmStats>,
    /// Totals over SMs.
    pub total: SmStats,
    /// Per-request timings in workload order (if asked for).
    pub requests: Vec<RequestTiming>,
}

/// Runs `work` on `hw`. Uses the current rayon thread pool.
pub fn run(hw: &Hardware, work: &dyn Workload, opts: &EngineOptions) -> Result<EngineReport, EngineError> {
    let timing = hw.timing.clone().ok_or_else(|| EngineError::NoTiming { hardware: hw.name.clone() })?;
    let (blocks, threads, smem) = scan(work, hw.warp, opts);
    let warps_per_block = threads.div_ceil(hw.warp).max(1);
    let threads_rounded = warps_per_block * hw.warp;
    if threads_rounded > timing.max_threads_per_sm {
        return Err(EngineError::BlockTooLarge {
            what: "threads",
            needed: threads_rounded as u64,
            available: timing.max_threads_per_sm as u64,
        });
    }
    if smem > hw.smem_per_sm {
        return Err(EngineError::BlockTooLarge {
            what: "bytes of shared memory",
            needed: smem as u64,
            available: hw.smem_per_sm as u64,
        });
    }
    let by_smem = hw.smem_per_sm.checked_div(smem).unwrap_or(u32::MAX);
    let blocks_per_sm =
        timing.max_blocks_per_sm.min(timing.max_threads_per_sm / threads_rounded).min(by_smem).max(1);
    let ctx = Ctx { timing: &timing, work, opts, blocks: &blocks, warps_per_block };
    let mut sms: Vec<Sm> = (0..timing.sms).map(|i| Sm::new(i, hw, &timing, blocks_per_sm)).collect();

    // Breadth-first initial fill: block b to SM b mod sms while slots last.
    let mut next = 0usize;
    'fill: for _ in 0..blocks_per_sm {
        for sm in sms.iter_mut() {
            if next == blocks.len() {
                break 'fill;
            }
            sm.assign(next, 0);
            next += 1;
        }
    }
    let mut dispatch = Dispatch { speculate: rayon::current_num_threads() > 1, horizon: 1 };
    sms.par_iter_mut().for_each(|sm| sm.advance(&ctx, next < blocks.len()));
    while next < blocks.len() {
        if !dispatch.round(&ctx, &mut sms, &mut next) {
            debug_assert!(false, "blocks left but no SM waiting for one");
            break;
        }
    }
    // No blocks left: every SM runs what it holds to the end.
    sms.par_iter_mut().for_each(|sm| {
        sm.waiting_since = None;
        sm.advance(&ctx, false)
    });
    let mut report =
        EngineReport { blocks_per_sm, warps_per_block, smem_per_block: smem, ..EngineReport::default() };
    for sm in &mut sms {
        let s = &sm.stats;
        report.cycles = report.cycles.max(s.cycles);
        report.total.cycles = report.total.cycles.max(s.cycles);
        report.total.pipe_busy += s.pipe_busy;
        report.total.blocks += s.blocks;
        report.total.requests += s.requests;
        report.total.wavefronts += s.wavefronts;
        report.total.stalls.merge(&s.stalls);
        report.requests.append(&mut sm.timings);
    }
    report.requests.sort_unstable_by_key(|r| r.index);
    report.sms = sms.into_iter().map(|sm| sm.stats).collect();
    Ok(report)
}

/// Each block's request range, and the threads and shared-memory bytes of a block
/// (given in `opts`, or the most any block uses): parallel passes over the workload.
fn scan(work: &dyn Workload, warp: u32, opts: &EngineOptions) -> (Vec<(usize, usize)>, u32, u32) {
    const MIN_LEN: usize = 1 << 12;
    let n = work.len();
    let (threads, smem) = (0..n)
        .into_par_iter()
        .with_min_len(MIN_LEN)
        .map(|i| {
            let r = work.request(i);
            let threads = r.lanes.last().map_or(0, |&last| r.warp * warp + last as u32 + 1);
            let smem = if r.op.is_memory() {
                r.addrs.iter().fold(0, |m, &a| m.max(a.saturating_add(r.bytes as u32)))
            } else {
                0
            };
            (threads, smem)
        })
        .reduce(|| (0, 0), |a, b| (a.0.max(b.0), a.1.max(b.1)));
    let starts: Vec<usize> = (0..n)
        .into_par_iter()
        .with_min_len(MIN_LEN)
        .filter(|&i| i == 0 || work.request(i).block != work.request(i - 1).block)
        .collect();
    let blocks = starts.iter().zip(starts.iter().skip(1).chain([&n])).map(|(&s, &e)| (s, e)).collect();
    (blocks, opts.threads_per_block.unwrap_or(threads), opts.smem_per_block.unwrap_or(smem))
}

struct Ctx<'a> {
    timing: &'a Timing,
    work: &'a dyn Workload,
    opts: &'a EngineOptions,
    blocks: &'a [(usize, usize)],
    warps_per_block: u32,
}

/// The dispatcher: hands blocks, in id order, to the SM whose slot frees first (ties:
/// lowest SM index first, one block each in turn).
///
/// Between rounds every SM with blocks left to run has paused at its first freed slot
/// (`waiting_since`). The SMs waiting earliest get the next blocks and run, in
/// parallel, to their next freed slot. Serially that is one group of tied SMs a round.
/// With several threads the dispatcher also *speculates*: it hands the following blocks
/// to the groups waiting up to `horizon` cycles later, as if none of the SMs it runs
/// would free a slot before them, and runs those too. Afterwards it checks, group by
/// group in dispatch order, that no SM run in this round paused before the group's
/// cycle; the first group where one did, and every later one, is rolled back to its
/// snapshot and its blocks go back to the queue. So results are those of the serial
/// order, whatever the thread count.
struct Dispatch {
    speculate: bool,
    /// Cycles past the earliest waiting SM within which groups are speculated on: the
    /// shortest run (from a block's dispatch to the SM's next freed slot) seen in the
    /// last round.
    horizon: Cycle,
}

impl Dispatch {
    /// One round; `false` if no SM waits for a block.
    fn round(&mut self, ctx: &Ctx<'_>, sms: &mut [Sm], next: &mut usize) -> bool {
        let mut waiting: Vec<(Cycle, usize)> =
            sms.iter().enumerate().filter_map(|(i, sm)| Some((sm.waiting_since?, i))).collect();
        let Some(&(t0, _)) = waiting.iter().min() else { return false };
        let limit = if self.speculate { t0.saturating_add(self.horizon) } else { t0 + 1 };
        waiting.retain(|&(t, _)| t < limit);
        waiting.sort_unstable();
        // groups of tied SMs in dispatch order: (cycle, SMs, first block)
        let mut groups: Vec<(Cycle, std::ops::Range<usize>, usize)> = Vec::new();
        let mut i = 0;
        while i < waiting.len() && *next < ctx.blocks.len() {
            let t = waiting[i].0;
            let mut e = i;
            while e < waiting.len() && waiting[e].0 == t {
                e += 1;
            }
            let first = *next;
            if !groups.is_empty() {
                // (taken in the parallel step below, as the state before this dispatch)
                for &(_, sm) in &waiting[i..e] {
                    sms[sm].speculated = Some(t);
                }
            }
            let mut gave = true;
            while gave && *next < ctx.blocks.len() {
                gave = false;
                for &(_, sm) in &waiting[i..e] {
                    if *next < ctx.blocks.len() && sms[sm].free_slots > 0 {
                        sms[sm].assign(*next, t);
                        *next += 1;
                        gave = true;
                    }
                }
            }
            for &(_, sm) in &waiting[i..e] {
                sms[sm].waiting_since = None;
            }
            groups.push((t, i..e, first));
            i = e;
        }
        sms.par_iter_mut().filter(|sm| sm.waiting_since.is_none()).for_each(|sm| {
            if let Some(t) = sm.speculated.take() {
                sm.snapshot = Some(sm.snapshot(t));
            }
            sm.advance(ctx, true)
        });
        // check the speculation: a group stands if every SM run before it paused later
        let mut earliest = Cycle::MAX;
        let mut shortest = Cycle::MAX;
        let mut wrong = None;
        for (g, (t, members, first)) in groups.iter().enumerate() {
            if g > 0 && *t >= earliest {
                wrong = Some((g, *first));
                break;
            }
            for &(_, sm) in &waiting[members.clone()] {
                if let Some(f) = sms[sm].waiting_since {
                    earliest = earliest.min(f);
                    shortest = shortest.min(f - t);
                }
                sms[sm].snapshot = None;
            }
        }
        if let Some((g, first)) = wrong {
            for (_, members, _) in &groups[g..] {
                for &(_, sm) in &waiting[members.clone()] {
                    let snap = sms[sm].snapshot.take().expect("a speculated SM's snapshot");
                    sms[sm].restore(snap);
                }
            }
            *next = first;
        }
        if shortest != Cycle::MAX {
            self.horizon = shortest.max(1);
        }
        true
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Node {
    /// A memory request (index into the workload).
    Request(u32),
    /// A warp's arrival at a barrier (index into the workload).
    Arrive(u32),
    /// A barrier's release, joining the block's arrivals.
    Join,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Edge {
    /// Program order: the successor may issue one issue slot after the predecessor.
    Order,
    /// Data: the successor needs the predecessor's loaded value.
    Data,
    /// Barrier arrival (predecessor) or release (successor).
    Barrier,
}

/// A block's request graph and per-node constants, shared (not copied) by a
/// [`Resident`] and the snapshots of it a speculative dispatch takes.
struct BlockGraph {
    graph: DiGraph<Node, Edge, u32>,
    /// Scheduler of each node's warp.
    scheduler: Vec<u8>,
    /// Each node's `gap` (0 for joins).
    gap: Vec<u32>,
    /// Each node's `wait`: with one, it starts its gap in program order and meets its
    /// data part-way.
    wait: Vec<Option<u32>>,
}

/// A resident block: its request graph and the progress through it.
#[derive(Clone)]
struct Resident {
    g: Arc<BlockGraph>,
    /// Unsatisfied incoming edges per node.
    waiting: Vec<u32>,
    /// Earliest issue allowed by program order / barrier release, and by data.
    order_ready: Vec<Cycle>,
    data_ready: Vec<Cycle>,
    /// Issue cycle per node (arrivals: their arrival).
    issued: Vec<Cycle>,
    left: usize,
    end: Cycle,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum EventKind {
    Ready,
    /// The part of a request's gap after its `wait`: the data it needs is back.
    Resume,
    Issue,
    BlockDone,
}

/// An event: its cycle and sequence number (the order: earliest first, then first
/// pushed) packed in one key, and its kind, slot and node packed in the payload.
type Event = Reverse<(u128, u64)>;

const KINDS: [EventKind; 4] = [EventKind::Ready, EventKind::Resume, EventKind::Issue, EventKind::BlockDone];

fn event(at: Cycle, seq: u64, kind: EventKind, slot: u32, node: u32) -> Event {
    debug_assert!(slot < 1 << 24);
    let payload = (kind as u64) << 56 | (slot as u64) << 32 | node as u64;
    Reverse(((at as u128) << 64 | seq as u128, payload))
}

/// (cycle, kind, slot, node) of an event.
fn unpack(e: Event) -> (Cycle, EventKind, u32, u32) {
    let Reverse((key, payload)) = e;
    (
        (key >> 64) as Cycle,
        KINDS[(payload >> 56) as usize & 3],
        (payload >> 32) as u32 & 0xFF_FFFF,
        payload as u32,
    )
}

// (aligned to two cache lines: SMs run on different threads side by side in one `Vec`,
// and their counters change on every event)
#[repr(align(128))]
struct Sm {
    index: u32,
    model: BankModel,
    events: BinaryHeap<Event>,
    seq: u64,
    slots: Vec<Option<Resident>>,
    free_slots: u32,
    pipe_free: Cycle,
    sched_free: Vec<Cycle>,
    /// Set when a slot freed and blocks may remain: the SM waits for the dispatcher.
    waiting_since: Option<Cycle>,
    /// Cycle the SM may launch its next block (`block_launch_cycles` after the last).
    next_launch: Cycle,
    stats: SmStats,
    timings: Vec<RequestTiming>,
    /// Scratch: nodes released by the current event.
    ready: Vec<(u32, Cycle)>,
    /// Blocks handed over by the dispatcher, built at the start of the next parallel
    /// step (so graph building runs on the worker threads, not the dispatcher).
    to_launch: Vec<(usize, Cycle)>,
    /// The cycle the SM waited since, if the dispatcher's last blocks for it are a
    /// speculation ([`Dispatch`]).
    speculated: Option<Cycle>,
    /// The state before a speculative dispatch.
    snapshot: Option<Box<Snapshot>>,
}

/// What an SM's run changes (its bank model holds only scratch).
struct Snapshot {
    events: BinaryHeap<Event>,
    seq: u64,
    slots: Vec<Option<Resident>>,
    free_slots: u32,
    pipe_free: Cycle,
    sched_free: Vec<Cycle>,
    waiting_since: Option<Cycle>,
    next_launch: Cycle,
    stats: SmStats,
    timings: usize,
}

impl Sm {
    fn new(index: u32, hw: &Hardware, timing: &Timing, blocks_per_sm: u32) -> Sm {
        Sm {
            index,
            model: BankModel::new(hw),
            events: BinaryHeap::new(),
            seq: 0,
            slots: (0..blocks_per_sm).map(|_| None).collect(),
            free_slots: blocks_per_sm,
            pipe_free: 0,
            sched_free: vec![0; timing.schedulers_per_sm as usize],
            waiting_since: None,
            next_launch: 0,
            stats: SmStats::default(),
            timings: Vec::new(),
            ready: Vec::new(),
            to_launch: Vec::new(),
            speculated: None,
            snapshot: None,
        }
    }

    /// The state before the dispatcher's last blocks (in `to_launch`), for which the SM
    /// waited since `at`.
    fn snapshot(&self, at: Cycle) -> Box<Snapshot> {
        Box::new(Snapshot {
            events: self.events.clone(),
            seq: self.seq,
            slots: self.slots.clone(),
            free_slots: self.free_slots + self.to_launch.len() as u32,
            pipe_free: self.pipe_free,
            sched_free: self.sched_free.clone(),
            waiting_since: Some(at),
            next_launch: self.next_launch,
            stats: self.stats.clone(),
            timings: self.timings.len(),
        })
    }

    fn restore(&mut self, s: Box<Snapshot>) {
        let s = *s;
        self.events = s.events;
        self.seq = s.seq;
        self.slots = s.slots;
        self.free_slots = s.free_slots;
        self.pipe_free = s.pipe_free;
        self.sched_free = s.sched_free;
        self.waiting_since = s.waiting_since;
        self.next_launch = s.next_launch;
        self.stats = s.stats;
        self.timings.truncate(s.timings);
        self.to_launch.clear();
    }

    fn push(&mut self, at: Cycle, kind: EventKind, slot: usize, node: u32) {
        self.seq += 1;
        self.events.push(event(at, self.seq, kind, slot as u32, node));
    }

    /// Takes `block` at cycle `at`; it is built when the SM next advances.
    fn assign(&mut self, block: usize, at: Cycle) {
        self.to_launch.push((block, at));
        self.free_slots -= 1;
    }

    fn launch(&mut self, ctx: &Ctx<'_>, block: usize, at: Cycle) {
        let at = at.max(self.next_launch);
        self.next_launch = at + ctx.timing.block_launch_cycles as Cycle;
        let slot = self.slots.iter().position(Option::is_none).expect("a free slot");
        let res = build_block(ctx, block, slot);
        let roots: Vec<u32> =
            (0..res.waiting.len() as u32).filter(|&n| res.waiting[n as usize] == 0).collect();
        self.slots[slot] = Some(res);
        self.stats.blocks += 1;
        if roots.is_empty() {
            self.push(at, EventKind::BlockDone, slot, 0);
        }
        for n in roots {
            self.push(at, EventKind::Ready, slot, n);
        }
    }

    /// Processes events until a block completes while more blocks wait to be dispatched
    /// (then `waiting_since` is set), or until no events are left.
    fn advance(&mut self, ctx: &Ctx<'_>, more_blocks: bool) {
        for (block, at) in std::mem::take(&mut self.to_launch) {
            self.launch(ctx, block, at);
        }
        while let Some((at, kind, slot, node)) = self.events.pop().map(unpack) {
            match kind {
                EventKind::Ready => self.on_ready(ctx, at, slot as usize, node),
                EventKind::Resume => self.on_resume(ctx, at, slot as usize, node),
                EventKind::Issue => self.on_issue(ctx, at, slot as usize, node),
                EventKind::BlockDone => {
                    self.slots[slot as usize] = None;
                    self.free_slots += 1;
                    self.stats.cycles = self.stats.cycles.max(at);
                    if more_blocks {
                        // Take every other completion of the same cycle before pausing.
                        while let Some((t, EventKind::BlockDone, s, _)) =
                            self.events.peek().copied().map(unpack)
                        {
                            if t != at {
                                break;
                            }
                            self.events.pop();
                            self.slots[s as usize] = None;
                            self.free_slots += 1;
                        }
                        self.waiting_since = Some(at);
                        return;
                    }
                }
            }
        }
    }

    fn on_ready(&mut self, ctx: &Ctx<'_>, at: Cycle, slot: usize, node: u32) {
        let res = self.slots[slot].as_mut().expect("resident block");
        let n = NodeIndex::new(node as usize);
        match res.g.graph[n] {
            Node::Join => {
                res.issued[node as usize] = at;
                self.finish(slot, node, at, at);
            }
            Node::Request(_) | Node::Arrive(_) => {
                let (gap, wait) = (res.g.gap[node as usize], res.g.wait[node as usize]);
                let s = res.g.scheduler[node as usize] as usize;
                let (order, data) = (res.order_ready[node as usize], res.data_ready[node as usize]);
                let start = at.max(self.sched_free[s]);
                match wait {
                    // the work before the first use runs under the load's latency; the
                    // rest resumes when the data is back
                    Some(w) if data > start + w as Cycle => {
                        self.stats.stalls.issue += start - at;
                        self.sched_free[s] = start + held(ctx.timing, w);
                        self.stats.stalls.latency += data - (start + w as Cycle);
                        self.push(data, EventKind::Resume, slot, node);
                    }
                    _ => {
                        self.stats.stalls.latency += at.saturating_sub(order);
                        self.work_then_issue(ctx, at, s, gap, slot, node);
                    }
                }
            }
        }
    }

    /// From `at`, the warp on scheduler `s` does `work` cycles of other work (holding the
    /// scheduler for its share) and then issues `node`.
    fn work_then_issue(&mut self, ctx: &Ctx<'_>, at: Cycle, s: usize, work: u32, slot: usize, node: u32) {
        let start = at.max(self.sched_free[s]);
        self.stats.stalls.issue += start - at;
        self.sched_free[s] = start + held(ctx.timing, work) + ctx.timing.issue_cycles as Cycle;
        self.push(start + work as Cycle, EventKind::Issue, slot, node);
    }

    /// The rest of a request's gap after its `wait`, once the data it needs is back.
    fn on_resume(&mut self, ctx: &Ctx<'_>, at: Cycle, slot: usize, node: u32) {
        let res = self.slots[slot].as_ref().expect("resident block");
        let (gap, wait) = (res.g.gap[node as usize], res.g.wait[node as usize]);
        let s = res.g.scheduler[node as usize] as usize;
        let rest = gap - wait.unwrap_or(0).min(gap);
        self.work_then_issue(ctx, at, s, rest, slot, node);
    }

    fn on_issue(&mut self, ctx: &Ctx<'_>, at: Cycle, slot: usize, node: u32) {
        let t = ctx.timing;
        let res = self.slots[slot].as_mut().expect("resident block");
        res.issued[node as usize] = at;
        let Node::Request(i) = res.g.graph[NodeIndex::new(node as usize)] else {
            // a barrier arrival
            return self.finish(slot, node, at, at + t.issue_cycles as Cycle);
        };
        let r = ctx.work.request(i as usize);
        let o =
            self.model.evaluate(&WarpRequest { op: r.op, bytes: r.bytes, lanes: r.lanes, addrs: r.addrs });
        let busy = o.wavefronts as Cycle * t.pipe_cycles_per_wavefront as Cycle;
        let pipe_start = at.max(self.pipe_free);
        self.pipe_free = pipe_start + busy;
        let returns = r.op.returns();
        let done = if r.op == Op::GlobalLoad {
            pipe_start + busy + t.global_latency as Cycle
        } else if returns {
            pipe_start + t.latency_base as Cycle + t.latency_per_wavefront as Cycle * o.wavefronts as Cycle
        } else {
            pipe_start + busy
        };
        let extra = o.conflicts() as Cycle;
        self.stats.pipe_busy += busy;
        self.stats.requests += 1;
        self.stats.wavefronts += o.wavefronts as u64;
        self.stats.stalls.pipe_queue += pipe_start - at;
        self.stats.stalls.bank_conflict += extra
            * (t.pipe_cycles_per_wavefront as Cycle
                + if returns { t.latency_per_wavefront as Cycle } else { 0 });
        if ctx.opts.per_request {
            self.timings.push(RequestTiming {
                index: i,
                sm: self.index,
                issue: at,
                pipe_start,
                done,
                wavefronts: o.wavefronts,
                ideal: o.ideal,
            });
        }
        self.finish(slot, node, at + t.issue_cycles as Cycle, done);
    }

    /// Node `node` may let program-order successors go at `next` and data successors
    /// at `done`; releases successors whose edges are all satisfied.
    fn finish(&mut self, slot: usize, node: u32, next: Cycle, done: Cycle) {
        let res = self.slots[slot].as_mut().expect("resident block");
        let n = NodeIndex::new(node as usize);
        if res.g.graph[n] == Node::Join {
            // barrier stall: each arrival waited from its arrival to the release
            for pred in res.g.graph.neighbors_directed(n, Direction::Incoming) {
                self.stats.stalls.barrier += done - res.issued[pred.index()];
            }
        }
        let mut ready = std::mem::take(&mut self.ready);
        let g = Arc::clone(&res.g);
        for e in g.graph.edges_directed(n, Direction::Outgoing) {
            let k = e.target().index();
            match *e.weight() {
                Edge::Order | Edge::Barrier => res.order_ready[k] = res.order_ready[k].max(next),
                Edge::Data => res.data_ready[k] = res.data_ready[k].max(done),
            }
            res.waiting[k] -= 1;
            if res.waiting[k] == 0 {
                // a request that needs the data only part-way through its gap starts its
                // gap in program order; any other waits for the data first
                let at = if res.g.wait[k].is_some() {
                    res.order_ready[k]
                } else {
                    res.order_ready[k].max(res.data_ready[k])
                };
                ready.push((k as u32, at));
            }
        }
        res.left -= 1;
        res.end = res.end.max(done);
        let block_done = (res.left == 0).then_some(res.end);
        for &(k, at) in &ready {
            self.push(at, EventKind::Ready, slot, k);
        }
        ready.clear();
        self.ready = ready;
        if let Some(end) = block_done {
            self.push(end, EventKind::BlockDone, slot, 0);
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

/// The request graph of one block: program order per warp, data dependences on the
/// previous load, and a join node per barrier.
fn build_block(ctx: &Ctx<'_>, block: usize, slot: usize) -> Resident {
    let (start, end) = ctx.blocks[block];
    let mut graph = DiGraph::<Node, Edge, u32>::with_capacity(end - start + 8, end - start + 8);
    let mut scheduler = Vec::with_capacity(end - start + 8);
    let mut gaps = Vec::with_capacity(end - start + 8);
    let mut waits = Vec::with_capacity(end - start + 8);
    let mut joins: Vec<NodeIndex<u32>> = Vec::new();
    let schedulers = ctx.timing.schedulers_per_sm;
    let mut i = start;
    while i < end {
        let warp = ctx.work.request(i).warp;
        let sched = ((slot as u32 * ctx.warps_per_block + warp) % schedulers) as u8;
        let mut prev: Option<NodeIndex<u32>> = None;
        let mut last_load: Option<NodeIndex<u32>> = None;
        let mut barriers = 0;
        while i < end {
            let r = ctx.work.request(i);
            if r.warp != warp {
                break;
            }
            let node = graph.add_node(if r.op == Op::Barrier {
                Node::Arrive(i as u32)
            } else {
                Node::Request(i as u32)
            });
            scheduler.push(sched);
            gaps.push(r.gap);
            waits.push(r.wait);
            if let Some(p) = prev {
                let after_barrier = graph[p] != Node::Join;
                if after_barrier {
                    graph.add_edge(p, node, Edge::Order);
                } else {
                    graph.add_edge(p, node, Edge::Barrier);
                }
            }
            let dep = match r.dep {
                Some(d) => d,
                None => ctx.opts.dep_policy == DepPolicy::PreviousLoad,
            };
            if let (true, Some(l)) = (r.wait.is_some() || (dep && r.op != Op::Barrier), last_load) {
                graph.add_edge(l, node, Edge::Data);
            }
            prev = Some(node);
            match r.op {
                Op::Load | Op::Atomic | Op::GlobalLoad => last_load = Some(node),
                Op::Barrier => {
                    if joins.len() == barriers {
                        joins.push(graph.add_node(Node::Join));
                        scheduler.push(0);
                        gaps.push(0);
                        waits.push(None);
                    }
                    graph.add_edge(node, joins[barriers], Edge::Barrier);
                    prev = Some(joins[barriers]);
                    barriers += 1;
                }
                _ => {}
            }
            i += 1;
        }
    }
    let nodes = graph.node_count();
    let mut waiting = vec![0u32; nodes];
    for e in graph.raw_edges() {
        waiting[e.target().index()] += 1;
    }
    Resident {
        g: Arc::new(BlockGraph { graph, scheduler, gap: gaps, wait: waits }),
        waiting,
        order_ready: vec![0; nodes],
        data_ready: vec![0; nodes],
        issued: vec![0; nodes],
        left: nodes,
        end: 0,
    }
}
