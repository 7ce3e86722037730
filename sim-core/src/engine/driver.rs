//! A whole run ([`run`]): occupancy, the initial fill of the SMs, the dispatcher's
//! rounds, the SMs run to their end, and the report.

use super::context::Ctx;
use super::dispatch::Dispatch;
use super::occupancy::{occupancy, scan, Occupancy};
use super::options::{EngineError, EngineOptions};
use super::parallel::run_sms;
use super::report::EngineReport;
use super::sm::Sm;
use super::workload::Workload;
use crate::hardware::Hardware;
use rayon::prelude::*;

/// Runs `work` on `hw`. Uses the current rayon thread pool ([`thread_pool`](crate::pool::thread_pool)
/// builds the one it runs best on).
///
/// Generic over the workload (a `&dyn Workload` works too) so that its accessors are
/// inlined into the engine's loops.
pub fn run<W: Workload + ?Sized>(
    hw: &Hardware,
    work: &W,
    opts: &EngineOptions,
) -> Result<EngineReport, EngineError> {
    let (blocks, threads, smem) = scan(work, hw.warp, opts);
    run_blocks(hw, &mut Whole(work), &Layout { blocks, threads, smem }, opts)
}

/// Where a run's blocks are and what they need, known before it starts: what [`run`]
/// finds with a pass over the workload, and a [`Window`] is told.
#[derive(Clone, Debug, Default)]
pub struct Layout {
    /// Each block's range of request indices (start, end), in block order.
    pub blocks: Vec<(usize, usize)>,
    /// Threads of a block (for occupancy).
    pub threads: u32,
    /// Shared-memory bytes of a block (for occupancy).
    pub smem: u32,
}

/// A workload that holds only some blocks' requests at a time: [`run_window`] asks for
/// the blocks it may launch next, in order, and lets go of the ones before.
pub trait Window: Workload {
    /// Makes `request(i)` answer for every request of the blocks `blocks` (indices into
    /// the run's [`Layout::blocks`]); blocks before `blocks.start` are not asked for
    /// again. `blocks.start` never goes down from one call to the next.
    fn hold(&mut self, blocks: std::ops::Range<usize>) -> Result<(), String>;
}

/// [`run`] on a workload whose requests are held a window of blocks at a time: memory is
/// the blocks an SM may launch in one dispatcher round (at most the SMs times the blocks
/// an SM holds), not the whole workload. `layout` comes from a pass the caller made;
/// with `opts.threads_per_block` and `opts.smem_per_block` overriding its threads and
/// bytes. The same report as [`run`] on the same requests.
pub fn run_window<W: Window>(
    hw: &Hardware,
    work: &mut W,
    layout: &Layout,
    opts: &EngineOptions,
) -> Result<EngineReport, EngineError> {
    let layout = Layout {
        blocks: layout.blocks.clone(),
        threads: opts.threads_per_block.unwrap_or(layout.threads),
        smem: opts.smem_per_block.unwrap_or(layout.smem),
    };
    run_blocks(hw, work, &layout, opts)
}

/// Cycles, in 256ths, one 128-byte line holds an SM's share of DRAM bandwidth when
/// `sharing` SMs share it (0: no limit).
fn line_cost(t: &crate::timing::Timing, sharing: u32) -> u64 {
    if t.dram_bytes_per_cycle > 0.0 {
        (128.0 * 256.0 * sharing.max(1) as f64 / t.dram_bytes_per_cycle).ceil() as u64
    } else {
        0
    }
}

/// A workload held whole, as a [`Window`] that never lets go.
struct Whole<'a, W: ?Sized>(&'a W);

impl<W: Workload + ?Sized> Workload for Whole<'_, W> {
    #[inline]
    fn len(&self) -> usize {
        self.0.len()
    }
    #[inline]
    fn request(&self, i: usize) -> crate::engine::EngineRequest<'_> {
        self.0.request(i)
    }
    #[inline]
    fn block(&self, i: usize) -> u32 {
        self.0.block(i)
    }
}

impl<W: Workload + ?Sized> Window for Whole<'_, W> {
    fn hold(&mut self, _: std::ops::Range<usize>) -> Result<(), String> {
        Ok(())
    }
}

fn run_blocks<W: Window>(
    hw: &Hardware,
    work: &mut W,
    layout: &Layout,
    opts: &EngineOptions,
) -> Result<EngineReport, EngineError> {
    let timing = hw.timing.clone().ok_or_else(|| EngineError::NoTiming { hardware: hw.name.clone() })?;
    let Layout { blocks, threads, smem } = layout;
    let (threads, smem) = (*threads, *smem);
    let Occupancy { warps_per_block, blocks_per_sm } = occupancy(hw, &timing, threads, smem)?;
    let line_cost = line_cost(&timing, opts.bandwidth_sms.unwrap_or(timing.sms.min(blocks.len() as u32)));
    let mut sms: Vec<Sm> =
        (0..timing.sms).into_par_iter().map(|i| Sm::new(i, hw, &timing, blocks_per_sm)).collect();
    // the most blocks one round can hand out: every slot of every SM
    let l1_lines = match timing.l1_latency {
        0 => 0,
        _ => (timing.l1_bytes as u64 / crate::memory::LINE_BYTES / blocks_per_sm.max(1) as u64) as usize,
    };
    let round = (timing.sms as usize).saturating_mul(blocks_per_sm as usize).max(1);
    let hold = |work: &mut W, next: usize| {
        work.hold(next..blocks.len().min(next.saturating_add(round))).map_err(EngineError::Input)
    };

    // Breadth-first initial fill: block b to SM b mod sms while slots last.
    let mut next = 0usize;
    hold(work, next)?;
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
    let ctx = Ctx { timing: &timing, work: &*work, opts, blocks, warps_per_block, line_cost, l1_lines };
    let (waits, free) = run_sms(&mut sms, &all, |sm| {
        sm.advance(&ctx, more);
        (sm.run.waiting_since, sm.run.free_slots)
    })
    .into_iter()
    .unzip();
    let mut dispatch = Dispatch::new(waits, free);
    while next < blocks.len() {
        hold(work, next)?;
        let ctx = Ctx { timing: &timing, work: &*work, opts, blocks, warps_per_block, line_cost, l1_lines };
        if !dispatch.round(&ctx, &mut sms, &mut next) {
            debug_assert!(false, "blocks left but no SM waiting for one");
            break;
        }
    }
    // No blocks left: every SM runs what it holds to the end (no block is launched).
    let ctx = Ctx { timing: &timing, work: &*work, opts, blocks, warps_per_block, line_cost, l1_lines };
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
    // (the SMs are dropped in parallel: each holds a bank model and event buffers)
    report.sms = sms.into_par_iter().map(|sm| sm.run.stats).collect();
    Ok(report)
}
