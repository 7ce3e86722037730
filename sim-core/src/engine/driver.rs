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
    let timing = hw.timing.clone().ok_or_else(|| EngineError::NoTiming { hardware: hw.name.clone() })?;
    let (blocks, threads, smem) = scan(work, hw.warp, opts);
    let Occupancy { warps_per_block, blocks_per_sm } = occupancy(hw, &timing, threads, smem)?;
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
    let mut dispatch = Dispatch::new(waits, free);
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
    // (the SMs are dropped in parallel: each holds a bank model and event buffers)
    report.sms = sms.into_par_iter().map(|sm| sm.run.stats).collect();
    Ok(report)
}
