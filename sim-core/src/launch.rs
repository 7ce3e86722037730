//! The timing model of a kernel launch: one function ([`run`]) that every command
//! predicting cycles goes through (`run --cycles`, `calibrate`, `advise`, `predict`), so
//! the same trace and dispatch give the same cycles everywhere.
//!
//! A launch is a workload (a trace, or a capture of a few workgroups stretched to the
//! dispatch's blocks: [`Replicated`]), its gaps in cycles or in IR operations (then
//! costed by the preset's [`OpCost`](crate::timing::OpCost) or the caller's), the
//! preset's occupancy rule, DRAM bandwidth, block launch interval and global latency
//! (all in the engine; the bandwidth is the dispatch's, with the L2 serving the
//! re-reads of a footprint it holds, [`crate::memory`]), and its fixed dispatch overhead
//! and clock (added here, outside the engine).
//!
//! Where every block of the dispatch is the same to the engine, one SM with its share of
//! the blocks stands for all of them: SMs are identical and share nothing but the
//! dispatcher, which fills them breadth-first (block b to SM b mod S) and then hands
//! blocks to the SMs that free a slot first (tied SMs one block each, in SM order), so
//! with `B = q S + r` blocks the first `r` SMs run as one SM with `q + 1` blocks does and
//! the others as one with `q`: two small runs. That shortcut is exact, and taken only
//! then (and never with [`EngineOptions::full`]).

use crate::engine::{self, EngineError, EngineOptions, EngineReport, SmStats, Workload};
use crate::memory::{MemoryShare, Traffic};
use crate::replicate::Replicated;
use crate::{BankModel, Hardware};

/// What a trace's `gap` counts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Gaps {
    /// Cycles (hand-written and generated traces): the preset's `gap_issue_fraction`.
    Cycles,
    /// IR operations (captured traces): a warp spends `cycles_per_op` cycles on each,
    /// holding its scheduler `issue_share` of them, at most `issue_per_op`
    /// ([`crate::OpCost`]).
    Ops {
        /// Cycles per operation.
        cycles_per_op: f64,
        /// Most scheduler cycles per operation.
        issue_per_op: f64,
        /// Share of an operation's cycles on the scheduler.
        issue_share: f64,
    },
}

impl Gaps {
    /// Operations costed as `hw`'s calibration says (`None`: it has none).
    pub fn preset_ops(hw: &Hardware) -> Option<Gaps> {
        let o = hw.timing.as_ref()?.ops.as_ref()?;
        Some(Gaps::Ops {
            cycles_per_op: o.cycles_per_op,
            issue_per_op: o.issue_per_op,
            issue_share: o.issue_share,
        })
    }

    /// Cycles per unit of gap (1 for cycles).
    pub fn cycles_per_op(&self) -> f64 {
        match *self {
            Gaps::Cycles => 1.0,
            Gaps::Ops { cycles_per_op, .. } => cycles_per_op,
        }
    }
}

/// A launch to simulate.
#[derive(Clone, Debug)]
pub struct Launch {
    /// Blocks of the dispatch (block `b` does the workload's block `b mod B`); `None`:
    /// the workload's own blocks.
    pub blocks: Option<u32>,
    /// What the workload's gaps count.
    pub gaps: Gaps,
    /// The engine's options.
    pub options: EngineOptions,
    /// Distinct bytes of global memory the dispatch can touch (its buffers), for the
    /// share of its lines the L2 serves ([`crate::memory`]); `None`: the distinct lines
    /// of the workload's own global requests (exact for a trace of every block).
    pub footprint: Option<u64>,
}

/// A launch's cycles.
#[derive(Clone, Debug)]
pub struct LaunchReport {
    /// The engine's report of the blocks (with the one-SM shortcut, the simulated SM's
    /// figures stand for every SM's).
    pub engine: EngineReport,
    /// Blocks of the dispatch.
    pub blocks: u32,
    /// Whether one SM stood for all of them.
    pub one_sm: bool,
    /// The dispatch's fixed cycles besides its blocks (the timing's
    /// `dispatch_overhead_cycles`).
    pub overhead_cycles: u64,
    /// The SM clock, MHz (0: unknown).
    pub clock_mhz: f64,
    /// The dispatch's global traffic and the bandwidth the engine gave it (`None`: the
    /// timing has no DRAM bandwidth, or the workload no global requests).
    pub memory: Option<MemoryShare>,
}

impl LaunchReport {
    /// Cycles of the whole dispatch: its blocks and its fixed overhead.
    pub fn cycles(&self) -> u64 {
        self.engine.cycles + self.overhead_cycles
    }

    /// The dispatch's time in microseconds, where the clock is known.
    pub fn micros(&self) -> Option<f64> {
        (self.clock_mhz > 0.0).then(|| self.cycles() as f64 / self.clock_mhz)
    }
}

/// Simulates `launch` of `work` on `hw`: see the module documentation.
pub fn run<W: Workload + ?Sized>(
    hw: &Hardware,
    work: &W,
    launch: &Launch,
) -> Result<LaunchReport, EngineError> {
    let mut hw = hw.clone();
    let timing = hw.timing.as_mut().ok_or_else(|| EngineError::NoTiming { hardware: hw.name.clone() })?;
    if let Gaps::Ops { cycles_per_op, issue_per_op, issue_share } = launch.gaps {
        timing.gap_issue_fraction = crate::gap_issue_fraction(issue_per_op, issue_share, cycles_per_op);
    }
    let (overhead_cycles, clock_mhz, sms) =
        (timing.dispatch_overhead_cycles as u64, timing.clock_mhz, timing.sms);
    // the workload's own blocks: whether they are all the same to the engine, and what
    // a dispatch of them would take, known before anything grows with the dispatch
    let own = Replicated::new(work, None, launch.gaps.cycles_per_op());
    let blocks = launch.blocks.unwrap_or(own.blocks());
    // (no pass over the requests where the timing has no DRAM bandwidth)
    let memory = (timing.dram_bytes_per_cycle > 0.0)
        .then(|| dispatch_traffic(work, blocks))
        .and_then(|traffic| traffic.apply(timing, launch.footprint));
    let mut options = launch.options.clone();
    let one_sm = !options.per_request
        && sms > 1
        && blocks > 0
        && !options.full
        && own.identical_blocks(&mut BankModel::new(&hw));
    if launch.blocks.is_some() {
        check_size(&own, blocks, one_sm.then_some(sms), &options)?;
    }
    let engine = if one_sm {
        // SM s gets blocks s, s + S, ... (the breadth-first fill, then ties in SM order):
        // the first `blocks mod S` SMs run one block more than the others
        let (q, r) = (blocks / sms, blocks % sms);
        let timing = hw.timing.as_mut().expect("checked above");
        timing.sms = 1;
        options.bandwidth_sms = Some(options.bandwidth_sms.unwrap_or(sms.min(blocks)));
        let one = |n: u32| -> Result<Option<EngineReport>, EngineError> {
            if n == 0 {
                return Ok(None);
            }
            let share = Replicated::new(work, Some(n), launch.gaps.cycles_per_op());
            engine::run(&hw, &share, &options).map(Some)
        };
        let more = one(q + (r > 0) as u32)?.expect("at least one block");
        let fewer = if r > 0 { one(q)? } else { None };
        every_sm(more, if r > 0 { r } else { sms }, fewer, if r > 0 { sms - r } else { 0 })
    } else if launch.blocks.is_none() {
        engine::run(&hw, &own, &options)?
    } else {
        engine::run(&hw, &Replicated::new(work, launch.blocks, launch.gaps.cycles_per_op()), &options)?
    };
    Ok(LaunchReport { engine, blocks, one_sm, overhead_cycles, clock_mhz, memory })
}

/// Bytes the engine holds per block of a run (the replicated workload's block starts
/// and the engine's block ranges).
const BYTES_PER_BLOCK: u64 = 24;

/// That a dispatch of `blocks` blocks of `own` (the workload's own blocks), run as one
/// SM of `one_sm` standing for all where given, stays within
/// [`SIMULATED_REQUESTS`](crate::limits::SIMULATED_REQUESTS) and the options' memory.
fn check_size<W: Workload + ?Sized>(
    own: &Replicated<'_, W>,
    blocks: u32,
    one_sm: Option<u32>,
    options: &EngineOptions,
) -> Result<(), EngineError> {
    let runs: Vec<u32> = match one_sm {
        Some(sms) if !blocks.is_multiple_of(sms) => vec![blocks / sms + 1, blocks / sms],
        Some(sms) => vec![blocks / sms],
        None => vec![blocks],
    };
    let what = || match one_sm {
        Some(sms) => format!("a dispatch of {blocks} blocks (one SM of {sms} standing for all)"),
        None => format!("a dispatch of {blocks} blocks"),
    };
    let requests: u64 = runs.iter().map(|&b| own.requests_of(b)).fold(0, u64::saturating_add);
    crate::limits::SIMULATED_REQUESTS.check(what, requests)?;
    let timing = if options.per_request { std::mem::size_of::<engine::RequestTiming>() as u64 } else { 0 };
    let held = runs
        .iter()
        .map(|&b| (b as u64 * BYTES_PER_BLOCK).saturating_add(own.requests_of(b).saturating_mul(timing)))
        .max()
        .unwrap_or(0);
    options.memory.check(what, held)?;
    Ok(())
}

/// The global traffic of `work` stretched to `blocks` blocks (block `b` does what the
/// workload's block `b mod B` did; the distinct lines are the workload's own).
fn dispatch_traffic<W: Workload + ?Sized>(work: &W, blocks: u32) -> Traffic {
    let mut traffic = Traffic::default();
    // (lines, sectors) of the traffic before each of the workload's blocks, in order
    let mut per_block: Vec<(u64, u64)> = Vec::new();
    let mut last = None;
    for i in 0..work.len() {
        let r = work.request(i);
        if last != Some(r.block) {
            per_block.push((traffic.lines, traffic.sectors));
            last = Some(r.block);
        }
        traffic.add(r.op, r.addrs);
    }
    if traffic.lines == 0 {
        return traffic;
    }
    per_block.push((traffic.lines, traffic.sectors));
    let distinct = per_block.len() as u64 - 1;
    let (full, part) = (blocks as u64 / distinct, (blocks as u64 % distinct) as usize);
    // block b does what block b mod B did: `full` copies of all, then the first `part`
    (traffic.lines, traffic.sectors) =
        (full * traffic.lines + per_block[part].0, full * traffic.sectors + per_block[part].1);
    traffic
}

/// The report of a whole dispatch from those of one SM run with each share: `n_more` SMs
/// ran as `more` did (the first, in SM order), `n_fewer` as `fewer` (or ran no block, with
/// `None`).
fn every_sm(more: EngineReport, n_more: u32, fewer: Option<EngineReport>, n_fewer: u32) -> EngineReport {
    let Some(first) = more.sms.first().cloned() else { return more };
    let other = fewer.and_then(|f| f.sms.first().cloned()).unwrap_or_default();
    let mut out = EngineReport { sms: Vec::with_capacity((n_more + n_fewer) as usize), ..more };
    out.total = SmStats::default();
    for (sm, n) in [(&first, n_more), (&other, n_fewer)] {
        let n64 = n as u64;
        let t = &mut out.total;
        if n > 0 {
            t.cycles = t.cycles.max(sm.cycles);
        }
        (t.pipe_busy, t.blocks, t.requests, t.wavefronts) = (
            t.pipe_busy + sm.pipe_busy * n64,
            t.blocks + sm.blocks * n64,
            t.requests + sm.requests * n64,
            t.wavefronts + sm.wavefronts * n64,
        );
        for (c, cycles) in sm.stalls.iter() {
            *t.stalls.get_mut(c) += cycles * n64;
        }
        out.sms.extend(std::iter::repeat_n(sm.clone(), n as usize));
    }
    out
}
