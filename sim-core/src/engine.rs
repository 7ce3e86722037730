//! The cycle engine: SMs with resident blocks, warps issuing requests in program order,
//! barriers, and one shared-memory pipe per SM.
//!
//! ```text
//!            dispatcher: blocks in id order, to the SM whose slot frees first
//!                 │            (ties: lowest SM index), round-robin at launch
//!   ┌─────────────┴───────────────┐
//!   SM 0                        SM n          simulated in parallel (rayon) between
//!   resident blocks ≤ occupancy                dispatch decisions; each SM orders its
//!   per block: a dependence DAG (warp          events by (cycle, sequence)
//!     chains in program order, data
//!     edges, barrier joins), kept as warp
//!     cursors and barrier counters
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
use crate::model::{BankModel, Outcome, WarpRequest};
use crate::op::Op;
use crate::timing::Timing;
use rayon::prelude::*;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

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
    /// The block of request `i`, as `request(i)` has it (a workload may answer faster).
    fn block(&self, i: usize) -> u32 {
        self.request(i).block
    }
    /// The threads of the largest block (its highest thread index + 1, at `warp` lanes
    /// per warp) and one past the highest shared-memory byte any load, store or atomic
    /// touches, where the workload knows them without a pass over every request;
    /// `None`: the engine makes that pass.
    fn extent(&self, warp: u32) -> Option<(u32, u32)> {
        let _ = warp;
        None
    }
    /// The index of each block's first request, in order (`block(i) != block(i - 1)`
    /// exactly at these `i`, and 0 first where there are requests), where the workload
    /// keeps them; `None`: the engine finds them with a pass over every request's block.
    fn block_starts(&self) -> Option<&[usize]> {
        None
    }
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

/// Runs `work` on `hw`. Uses the current rayon thread pool ([`crate::thread_pool`]
/// builds the one it runs best on).
///
/// Generic over the workload (a `&dyn Workload` works too) so that its accessors are
/// inlined into the engine's loops: reading a request back from a struct a virtual call
/// returned was a fifth of the event loop's time.
pub fn run<W: Workload + ?Sized>(
    hw: &Hardware,
    work: &W,
    opts: &EngineOptions,
) -> Result<EngineReport, EngineError> {
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
    let mut sms: Vec<Sm> =
        (0..timing.sms).into_par_iter().map(|i| Sm::new(i, hw, &timing, blocks_per_sm)).collect();

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
    let all: Vec<usize> = (0..sms.len()).collect();
    let more = next < blocks.len();
    let (waits, free) = run_sms(&mut sms, &all, |sm| {
        sm.advance(&ctx, more);
        (sm.run.waiting_since, sm.run.free_slots)
    })
    .into_iter()
    .unzip();
    let mut dispatch = Dispatch {
        speculate: rayon::current_num_threads() > 1,
        horizon: 1,
        waits,
        free,
        given: vec![Vec::new(); sms.len()],
        speculated: vec![None; sms.len()],
        waiting: Vec::new(),
        groups: Vec::new(),
        run: Vec::new(),
    };
    while next < blocks.len() {
        if !dispatch.round(&ctx, &mut sms, &mut next) {
            debug_assert!(false, "blocks left but no SM waiting for one");
            break;
        }
    }
    // No blocks left: every SM runs what it holds to the end.
    run_sms(&mut sms, &all, |sm| {
        sm.run.waiting_since = None;
        sm.advance(&ctx, false)
    });
    let mut report =
        EngineReport { blocks_per_sm, warps_per_block, smem_per_block: smem, ..EngineReport::default() };
    for sm in &mut sms {
        let s = &sm.run.stats;
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
    // (the SMs are dropped in parallel: dropping them on this thread took 1 ms at 16
    // threads, 8% of a run of the mix)
    report.sms = sms.into_par_iter().map(|sm| sm.run.stats).collect();
    Ok(report)
}

/// Each block's request range, and the threads and shared-memory bytes of a block
/// (given in `opts`, or the most any block uses): one parallel pass over the workload
/// (over block ids only, where the workload knows its extent).
fn scan<W: Workload + ?Sized>(work: &W, warp: u32, opts: &EngineOptions) -> (Vec<(usize, usize)>, u32, u32) {
    const CHUNK: usize = 1 << 12;
    let n = work.len();
    let known = work.extent(warp);
    let ranges = |starts: &[usize]| -> Vec<(usize, usize)> {
        starts.iter().zip(starts.iter().skip(1).chain([&n])).map(|(&s, &e)| (s, e)).collect()
    };
    if let (Some((threads, smem)), Some(starts)) = (known, work.block_starts()) {
        debug_assert!(starts.first().is_none_or(|&s| s == 0) && starts.is_sorted());
        return (
            ranges(starts),
            opts.threads_per_block.unwrap_or(threads),
            opts.smem_per_block.unwrap_or(smem),
        );
    }
    // per chunk: (threads, shared bytes, first requests of blocks)
    let parts: Vec<(u32, u32, Vec<usize>)> = (0..n.div_ceil(CHUNK))
        .into_par_iter()
        .map(|c| {
            let (lo, hi) = (c * CHUNK, ((c + 1) * CHUNK).min(n));
            let mut prev = lo.checked_sub(1).map(|p| work.block(p));
            let (mut threads, mut smem, mut starts) = (0, 0, Vec::new());
            for i in lo..hi {
                let (block, r) = match known {
                    Some(_) => (work.block(i), None),
                    None => {
                        let r = work.request(i);
                        (r.block, Some(r))
                    }
                };
                if prev != Some(block) {
                    starts.push(i);
                    prev = Some(block);
                }
                let Some(r) = r else { continue };
                if let Some(&last) = r.lanes.last() {
                    threads = threads.max(r.warp * warp + last as u32 + 1);
                }
                if let (true, Some(&top)) = (r.op.is_memory(), r.addrs.iter().max()) {
                    smem = smem.max(top.saturating_add(r.bytes as u32));
                }
            }
            (threads, smem, starts)
        })
        .collect();
    let (threads, smem) = known.unwrap_or_else(|| {
        (parts.iter().map(|p| p.0).max().unwrap_or(0), parts.iter().map(|p| p.1).max().unwrap_or(0))
    });
    let starts: Vec<usize> = parts.into_iter().flat_map(|p| p.2).collect();
    (ranges(&starts), opts.threads_per_block.unwrap_or(threads), opts.smem_per_block.unwrap_or(smem))
}

/// Runs `f` on the SMs `run` (indices into `sms`, ascending), in parallel on the current
/// rayon pool's threads, and returns when all are done.
///
/// Each pool thread owns the SMs of one contiguous share of the SM indices and runs
/// those first, so that an SM tends to run on the same thread round after round, its
/// state in that core's caches; a thread done with its own takes, one SM at a time, the
/// others' not taken yet, so a slow or late thread holds up at most the SM it runs.
/// This thread wakes the others (one spawned task each) instead of a parallel
/// iterator's chain of splits stolen one after another, and the SMs' results come back
/// in one small array.
///
/// Measured on a 16-vCPU host, 16 threads against 16 single-threaded copies of the run
/// (`runner --only scaling`, medians of 9 rounds, in turns with the build before;
/// calls 6, 7 and 9 of `benches/results_session16.txt`): 0.80–0.93, 0.87 on average
/// over 10 runs, with a parallel iterator over the SMs; 0.83–1.06, 0.94 on average
/// over 11 runs, with this.
fn run_sms<R, F>(sms: &mut [Sm], run: &[usize], f: F) -> Vec<R>
where
    R: Send + Copy + Default,
    F: Fn(&mut Sm) -> R + Sync,
{
    let threads = rayon::current_num_threads();
    if threads == 1 || run.len() < 2 {
        return run.iter().map(|&i| f(&mut sms[i])).collect();
    }
    let n = sms.len();
    let owner = |sm: usize| sm * threads / n;
    // (each SM behind its own lock, with its result: taken once, by the thread whose
    // claim won)
    let mut cells: Vec<Mutex<(&mut Sm, R)>> = Vec::with_capacity(run.len());
    let mut want = run.iter().peekable();
    for (i, sm) in sms.iter_mut().enumerate() {
        if want.next_if_eq(&&i).is_some() {
            cells.push(Mutex::new((sm, R::default())));
        }
    }
    debug_assert!(want.peek().is_none(), "SM indices ascending and in range");
    // share k: cells[bounds[k]..bounds[k + 1]], claimed from the front through next[k]
    let bounds: Vec<usize> = (0..=threads).map(|k| run.partition_point(|&sm| owner(sm) < k)).collect();
    let next: Vec<AtomicUsize> = bounds[..threads].iter().map(|&b| AtomicUsize::new(b)).collect();
    let work = || {
        let me = rayon::current_thread_index().unwrap_or(0) % threads;
        for k in (0..threads).map(|d| (me + d) % threads) {
            loop {
                let j = next[k].fetch_add(1, Ordering::Relaxed);
                if j >= bounds[k + 1] {
                    break;
                }
                let mut cell = cells[j].lock().unwrap_or_else(|p| p.into_inner());
                cell.1 = f(cell.0);
            }
        }
    };
    rayon::in_place_scope(|s| {
        for _ in 1..threads {
            s.spawn(|_| work());
        }
        work();
    });
    cells.into_iter().map(|c| c.into_inner().unwrap_or_else(|p| p.into_inner()).1).collect()
}

struct Ctx<'a, W: ?Sized> {
    timing: &'a Timing,
    work: &'a W,
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
    /// Each SM's `waiting_since` and free slots after its last run, kept here in two
    /// small arrays so that a round's decisions read no SM (the SMs' own fields are
    /// lines that other cores have just written). A full round's dispatch took 15–22 µs
    /// at 16 threads on the H100 machine's host reading the SMs, 15–18 µs with these
    /// arrays (and 6.5–8.3 µs against 6.2–6.6 at 2 threads here): not the round's
    /// main cost, which is the SM runs themselves (rounds of about 600 µs there).
    waits: Vec<Option<Cycle>>,
    free: Vec<u32>,
    /// Per SM, during a round: the blocks handed to it (block, cycle), and the cycle it
    /// waited since if they are a speculation.
    given: Vec<Vec<(usize, Cycle)>>,
    speculated: Vec<Option<Cycle>>,
    /// A round's SMs waiting within the horizon, (cycle, SM) in dispatch order; its
    /// groups of tied SMs (cycle, range of `waiting`, first block); the SMs it runs, in
    /// index order. (Kept between rounds for their buffers.)
    waiting: Vec<(Cycle, usize)>,
    groups: Vec<(Cycle, std::ops::Range<usize>, usize)>,
    run: Vec<usize>,
}

impl Dispatch {
    /// One round; `false` if no SM waits for a block.
    fn round<W: Workload + ?Sized>(&mut self, ctx: &Ctx<'_, W>, sms: &mut [Sm], next: &mut usize) -> bool {
        let waiting = &mut self.waiting;
        waiting.clear();
        waiting.extend(self.waits.iter().enumerate().filter_map(|(i, w)| Some(((*w)?, i))));
        let Some(&(t0, _)) = waiting.iter().min() else { return false };
        let limit = if self.speculate { t0.saturating_add(self.horizon) } else { t0 + 1 };
        waiting.retain(|&(t, _)| t < limit);
        waiting.sort_unstable();
        let groups = &mut self.groups;
        groups.clear();
        let mut i = 0;
        while i < waiting.len() && *next < ctx.blocks.len() {
            let t = waiting[i].0;
            let mut e = i;
            while e < waiting.len() && waiting[e].0 == t {
                e += 1;
            }
            let first = *next;
            for &(_, sm) in &waiting[i..e] {
                self.waits[sm] = None;
                // (the state before is saved in the parallel step, by the thread that
                // runs the SM)
                self.speculated[sm] = (!groups.is_empty()).then_some(t);
            }
            let mut gave = true;
            while gave && *next < ctx.blocks.len() {
                gave = false;
                for &(_, sm) in &waiting[i..e] {
                    if *next < ctx.blocks.len() && self.free[sm] > 0 {
                        self.given[sm].push((*next, t));
                        self.free[sm] -= 1;
                        *next += 1;
                        gave = true;
                    }
                }
            }
            groups.push((t, i..e, first));
            i = e;
        }
        let run = &mut self.run;
        run.clear();
        run.extend(waiting[..i].iter().map(|&(_, sm)| sm));
        run.sort_unstable();
        let (given, speculated) = (&self.given, &self.speculated);
        let results = run_sms(sms, run, |sm| {
            let i = sm.index as usize;
            sm.run.waiting_since = None;
            for &(block, at) in &given[i] {
                sm.assign(block, at);
            }
            match speculated[i] {
                Some(t) => sm.save(t),
                None => sm.saved_timings = None,
            }
            sm.advance(ctx, true);
            (sm.run.waiting_since, sm.run.free_slots)
        });
        for (&sm, &(w, f)) in run.iter().zip(&results) {
            (self.waits[sm], self.free[sm]) = (w, f);
            self.given[sm].clear();
        }
        // check the speculation: a group stands if every SM run before it paused later
        let mut earliest = Cycle::MAX;
        let mut shortest = Cycle::MAX;
        let mut wrong = None;
        for (g, (t, members, first)) in self.groups.iter().enumerate() {
            if g > 0 && *t >= earliest {
                wrong = Some((g, *first));
                break;
            }
            for &(_, sm) in &self.waiting[members.clone()] {
                if let Some(f) = self.waits[sm] {
                    earliest = earliest.min(f);
                    shortest = shortest.min(f - t);
                }
            }
        }
        if let Some((g, first)) = wrong {
            for (_, members, _) in &self.groups[g..] {
                for &(_, sm) in &self.waiting[members.clone()] {
                    sms[sm].restore();
                    (self.waits[sm], self.free[sm]) = (sms[sm].run.waiting_since, sms[sm].run.free_slots);
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
struct BlockPlan {
    /// Workload index of the block's first request: step `k` is request `first + k`.
    first: u32,
    /// One per request, in workload order (warps in turn).
    steps: Vec<Step>,
    /// Each warp in workload order: where its steps end, and its scheduler.
    warps: Vec<WarpPlan>,
    /// How many warps arrive at each barrier (the k-th `bar` of a warp is barrier k).
    arrivals: Vec<u32>,
}

#[derive(Clone, Copy)]
struct Step {
    /// Cycles of other work before the request.
    gap: u32,
    /// With [`HAS_WAIT`]: cycles into `gap` at which the warp needs its last load's data.
    wait: u32,
    /// The bank model's outcome (evaluated when the plan is built: it does not depend on
    /// timing, and one pass over a block's requests reads each request once).
    outcome: Outcome,
    /// The step's warp (index into [`BlockPlan::warps`]).
    warp: u32,
    flags: u8,
}

/// [`Step::wait`] is set.
const HAS_WAIT: u8 = 1;
/// The step needs the data of its warp's last load (if there was one).
const DATA: u8 = 2;
/// The step is a load (or returning atomic, global load): later steps' data.
const LOAD: u8 = 4;
/// The step is a barrier arrival.
const BARRIER: u8 = 8;
/// The step is a global load: done `global_latency` after its wavefronts.
const GLOBAL_LOAD: u8 = 16;

#[derive(Clone, Copy)]
struct WarpPlan {
    /// One past the warp's last step.
    end: u32,
    scheduler: u8,
}

/// A resident block: its plan and the progress through it.
struct Resident {
    plan: Arc<BlockPlan>,
    warps: Vec<WarpState>,
    barriers: Vec<BarrierState>,
    /// Steps and barrier releases left.
    left: u32,
    /// Latest completion so far.
    end: Cycle,
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
struct WarpState {
    order_ready: Cycle,
    data_ready: Cycle,
    /// Completion of the warp's last load issued.
    last_load: Option<Cycle>,
    /// Barriers the warp has arrived at.
    barriers: u32,
    /// While the warp waits at a barrier: the step after its arrival.
    parked: Option<u32>,
}

#[derive(Clone, Copy, Default)]
struct BarrierState {
    arrived: u32,
    /// Latest arrival: the release.
    last: Cycle,
    /// Sum of the arrival cycles (for the barrier stall).
    sum: Cycle,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum EventKind {
    /// A step may start (its gap, then issue).
    Ready,
    /// The part of a request's gap after its `wait`: the data it needs is back.
    Resume,
    Issue,
    /// Every warp expected at a barrier has arrived (`node`: the barrier).
    Release,
    BlockDone,
}

/// Event kinds by code (3 bits; codes 5 to 7 never occur).
const KINDS: [EventKind; 8] = [
    EventKind::Ready,
    EventKind::Resume,
    EventKind::Issue,
    EventKind::Release,
    EventKind::BlockDone,
    EventKind::BlockDone,
    EventKind::BlockDone,
    EventKind::BlockDone,
];

/// An event's kind, slot and node in one word.
fn payload(kind: EventKind, slot: u32, node: u32) -> u64 {
    debug_assert!(slot < 1 << 24);
    (kind as u64) << 56 | (slot as u64) << 32 | node as u64
}

/// (kind, slot, node) of an event's payload.
fn unpack(p: u64) -> (EventKind, u32, u32) {
    (KINDS[(p >> 56) as usize & 7], (p >> 32) as u32 & 0xFF_FFFF, p as u32)
}

/// Cycles ahead of the last event taken that [`Events`] keeps in its ring.
const WINDOW: usize = 64;

/// An SM's pending events, taken earliest cycle first and, within a cycle, in the order
/// they were pushed (every event is pushed at or after the cycle of the last one taken).
///
/// Events due within [`WINDOW`] cycles go to a ring of per-cycle queues (a bit per
/// non-empty one), later ones to a binary heap keyed by (cycle, sequence). An event in
/// the heap was pushed before any ring event of its cycle (that one was pushed when
/// the cycle had come within the window), so within a cycle the heap goes first.
struct Events {
    /// Cycle of the last event taken: every pending event is due at or after it.
    now: Cycle,
    seq: u64,
    /// Per cycle mod [`WINDOW`]: payloads in push order, and how many are taken.
    ring: Vec<Vec<u64>>,
    taken: [u32; WINDOW],
    /// Bit `c mod WINDOW` set while the ring holds events for cycle `c`.
    occupied: u64,
    far: BinaryHeap<Reverse<(u128, u64)>>,
    /// Earliest cycle in `far` (`Cycle::MAX`: none).
    far_at: Cycle,
}

impl Clone for Events {
    fn clone(&self) -> Events {
        Events {
            now: self.now,
            seq: self.seq,
            ring: self.ring.clone(),
            taken: self.taken,
            occupied: self.occupied,
            far: self.far.clone(),
            far_at: self.far_at,
        }
    }

    /// (keeps this one's allocations, the ring's 64 queues among them)
    fn clone_from(&mut self, o: &Events) {
        let Events { now, seq, ring, taken, occupied, far, far_at } = o;
        (self.now, self.seq, self.taken, self.occupied, self.far_at) =
            (*now, *seq, *taken, *occupied, *far_at);
        self.ring.clone_from(ring);
        self.far.clone_from(far);
    }
}

impl Events {
    fn new() -> Events {
        Events {
            now: 0,
            seq: 0,
            ring: vec![Vec::new(); WINDOW],
            taken: [0; WINDOW],
            occupied: 0,
            far: BinaryHeap::new(),
            far_at: Cycle::MAX,
        }
    }

    #[inline(always)]
    fn push(&mut self, at: Cycle, kind: EventKind, slot: usize, node: u32) {
        debug_assert!(at >= self.now, "event at {at} pushed after {}", self.now);
        let p = payload(kind, slot as u32, node);
        self.seq += 1;
        if at < self.now + WINDOW as Cycle {
            let b = at as usize % WINDOW;
            self.ring[b].push(p);
            self.occupied |= 1 << b;
        } else {
            self.far.push(Reverse(((at as u128) << 64 | self.seq as u128, p)));
            self.far_at = self.far_at.min(at);
        }
    }

    /// Whether no event is pending at cycle `at` (at most `WINDOW` past the current one).
    fn none_at(&self, at: Cycle) -> bool {
        self.occupied & 1 << (at as usize % WINDOW) == 0 && self.far_at > at
    }

    /// The cycle of the ring's next event (`Cycle::MAX`: none).
    fn near_at(&self) -> Cycle {
        if self.occupied == 0 {
            Cycle::MAX
        } else {
            let d = self.occupied.rotate_right((self.now % WINDOW as Cycle) as u32).trailing_zeros();
            self.now + d as Cycle
        }
    }

    /// The next event: (cycle, kind, slot, node).
    fn peek(&self) -> Option<(Cycle, EventKind, u32, u32)> {
        let near = self.near_at();
        let (at, p) = if self.far_at <= near {
            let Reverse((key, p)) = *self.far.peek()?;
            ((key >> 64) as Cycle, p)
        } else {
            let b = near as usize % WINDOW;
            (near, self.ring[b][self.taken[b] as usize])
        };
        let (kind, slot, node) = unpack(p);
        Some((at, kind, slot, node))
    }

    #[inline(always)]
    fn pop(&mut self) -> Option<(Cycle, EventKind, u32, u32)> {
        let near = self.near_at();
        let (at, p) = if self.far_at <= near {
            let Reverse((key, p)) = self.far.pop()?;
            self.far_at = self.far.peek().map_or(Cycle::MAX, |Reverse((k, _))| (k >> 64) as Cycle);
            ((key >> 64) as Cycle, p)
        } else {
            let b = near as usize % WINDOW;
            let q = &mut self.ring[b];
            let p = q[self.taken[b] as usize];
            self.taken[b] += 1;
            if self.taken[b] as usize == q.len() {
                q.clear();
                self.taken[b] = 0;
                self.occupied &= !(1 << b);
            }
            (near, p)
        };
        self.now = at;
        let (kind, slot, node) = unpack(p);
        Some((at, kind, slot, node))
    }
}

// (aligned to two cache lines: SMs run on different threads side by side in one `Vec`,
// and their counters change on every event)
#[repr(align(128))]
struct Sm {
    index: u32,
    model: BankModel,
    /// Everything a run changes but the timings (one `Vec` for all runs).
    run: SmRun,
    timings: Vec<RequestTiming>,
    /// Blocks handed over by the dispatcher (put here by the thread that runs the SM
    /// next), launched at the start of that run (so plans are built on the worker
    /// threads, not the dispatcher).
    to_launch: Vec<(usize, Cycle)>,
    /// The state before a speculative dispatch, and how many timings it had (`None`:
    /// `saved` is stale). Only the round that took it reads it. `saved` is taken with
    /// `clone_from` and restored by a swap, so its buffers (a ring of 64 event queues,
    /// the resident blocks' vectors) are reused round after round: allocating and freeing
    /// them was most of a snapshot's time, and at 16 threads it took 5.9 ms of CPU time a
    /// run of the mix (of 11.5 ms wall).
    saved: SmRun,
    saved_timings: Option<usize>,
}

/// An SM's state that its run changes (its bank model holds only scratch).
struct SmRun {
    events: Events,
    slots: Vec<Option<Resident>>,
    free_slots: u32,
    pipe_free: Cycle,
    sched_free: Vec<Cycle>,
    /// Set when a slot freed and blocks may remain: the SM waits for the dispatcher.
    waiting_since: Option<Cycle>,
    /// Cycle the SM may launch its next block (`block_launch_cycles` after the last).
    next_launch: Cycle,
    stats: SmStats,
}

impl Clone for SmRun {
    fn clone(&self) -> SmRun {
        SmRun {
            events: self.events.clone(),
            slots: self.slots.clone(),
            free_slots: self.free_slots,
            pipe_free: self.pipe_free,
            sched_free: self.sched_free.clone(),
            waiting_since: self.waiting_since,
            next_launch: self.next_launch,
            stats: self.stats.clone(),
        }
    }

    /// (keeps this one's allocations: see [`Sm::saved`])
    fn clone_from(&mut self, o: &SmRun) {
        let SmRun { events, slots, free_slots, pipe_free, sched_free, waiting_since, next_launch, stats } = o;
        self.events.clone_from(events);
        self.slots.clone_from(slots);
        self.sched_free.clone_from(sched_free);
        self.stats.clone_from(stats);
        (self.free_slots, self.pipe_free, self.waiting_since, self.next_launch) =
            (*free_slots, *pipe_free, *waiting_since, *next_launch);
    }
}

impl Sm {
    fn new(index: u32, hw: &Hardware, timing: &Timing, blocks_per_sm: u32) -> Sm {
        let run = SmRun {
            events: Events::new(),
            slots: (0..blocks_per_sm).map(|_| None).collect(),
            free_slots: blocks_per_sm,
            pipe_free: 0,
            sched_free: vec![0; timing.schedulers_per_sm as usize],
            waiting_since: None,
            next_launch: 0,
            stats: SmStats::default(),
        };
        Sm {
            index,
            model: BankModel::new(hw),
            saved: run.clone(),
            run,
            timings: Vec::new(),
            to_launch: Vec::new(),
            saved_timings: None,
        }
    }

    /// Saves the state before the dispatcher's last blocks (in `to_launch`), for which
    /// the SM waited since `at`.
    fn save(&mut self, at: Cycle) {
        self.saved.clone_from(&self.run);
        self.saved.free_slots += self.to_launch.len() as u32;
        self.saved.waiting_since = Some(at);
        self.saved_timings = Some(self.timings.len());
    }

    /// Goes back to the state [`Self::save`] saved.
    fn restore(&mut self) {
        let timings = self.saved_timings.take().expect("a speculated SM's saved state");
        std::mem::swap(&mut self.run, &mut self.saved);
        self.timings.truncate(timings);
        self.to_launch.clear();
    }

    fn assign(&mut self, block: usize, at: Cycle) {
        self.to_launch.push((block, at));
        self.run.free_slots -= 1;
    }

    fn launch<W: Workload + ?Sized>(&mut self, ctx: &Ctx<'_, W>, block: usize, at: Cycle) {
        let at = at.max(self.run.next_launch);
        self.run.next_launch = at + ctx.timing.block_launch_cycles as Cycle;
        let slot = self.run.slots.iter().position(Option::is_none).expect("a free slot");
        let plan = Arc::new(build_plan(ctx, &mut self.model, block, slot));
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
    fn advance<W: Workload + ?Sized>(&mut self, ctx: &Ctx<'_, W>, more_blocks: bool) {
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
            return arrive(&mut self.run.events, res, slot, node, at, t.issue_cycles as Cycle);
        }
        let i = res.plan.first + node;
        let o = step.outcome;
        let busy = o.wavefronts as Cycle * t.pipe_cycles_per_wavefront as Cycle;
        let pipe_start = at.max(self.run.pipe_free);
        self.run.pipe_free = pipe_start + busy;
        let returns = step.flags & LOAD != 0;
        let done = if step.flags & GLOBAL_LOAD != 0 {
            pipe_start + busy + t.global_latency as Cycle
        } else if returns {
            pipe_start + t.latency_base as Cycle + t.latency_per_wavefront as Cycle * o.wavefronts as Cycle
        } else {
            pipe_start + busy
        };
        let extra = o.conflicts() as Cycle;
        let stats = &mut self.run.stats;
        stats.pipe_busy += busy;
        stats.requests += 1;
        stats.wavefronts += o.wavefronts as u64;
        stats.stalls.pipe_queue += pipe_start - at;
        stats.stalls.bank_conflict += extra
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

/// Step `node` (the next of its warp) may go from `order` by program order: sets its
/// warp's times and pushes it.
#[inline(always)]
fn ready_next(events: &mut Events, res: &mut Resident, slot: usize, node: u32, order: Cycle) {
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
fn arrive(events: &mut Events, res: &mut Resident, slot: usize, node: u32, at: Cycle, issue: Cycle) {
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

/// Cycles `gap` cycles of other work hold the warp's scheduler (`gap_issue_fraction`).
fn held(t: &Timing, gap: u32) -> Cycle {
    if t.gap_issue_fraction >= 1.0 {
        gap as Cycle
    } else {
        (gap as f64 * t.gap_issue_fraction).round() as Cycle
    }
}

/// The plan of one block launched into `slot`: one pass over its requests, each
/// evaluated by the bank model on the way.
fn build_plan<W: Workload + ?Sized>(
    ctx: &Ctx<'_, W>,
    model: &mut BankModel,
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
            Op::GlobalLoad => flags |= GLOBAL_LOAD,
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
        let o = if r.op == Op::Barrier {
            Outcome::default()
        } else {
            model.evaluate(&WarpRequest { op: r.op, bytes: r.bytes, lanes: r.lanes, addrs: r.addrs })
        };
        let w = plan.warps.len() as u32 - 1;
        plan.steps.push(Step { gap: r.gap, wait: r.wait.unwrap_or(0), outcome: o, warp: w, flags });
    }
    if let Some(last) = plan.warps.last_mut() {
        last.end = (end - start) as u32;
    }
    plan
}
