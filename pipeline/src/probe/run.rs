//! Timing the probe's patterns on a GPU (the `gpu` feature): the loop's trip count is
//! first raised until the conflict-free 4-byte load's loop takes the target time, then
//! every pattern (and each width's dispatch with no loop, its fixed cost) is timed once
//! per round, round after round, so that a slow drift of the clock touches every
//! pattern alike; each pattern's median over the rounds is its time.

use super::patterns::{patterns, WIDTHS};
use super::{Evidence, ProbeError, Timing};
use crate::progress::{Phase, Progress, Unit};
use validate::gpu::Gpu;
use validate::probe::{Bench, MAX_ITERS};

/// How a probe runs.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Timed rounds (each times every pattern once).
    pub reps: u32,
    /// Untimed rounds first.
    pub warmup: u32,
    /// Loop time of the conflict-free 4-byte load the trip count is raised to, ns.
    pub target_ns: f64,
    /// Workgroups per dispatch.
    pub groups: u32,
    /// Invocations per workgroup (default: the adapter's most, up to 1024).
    pub workgroup: Option<u32>,
}

impl RunOptions {
    /// A full probe: 5 rounds after 1, 2 ms for the conflict-free load, 1024 workgroups.
    pub fn full() -> RunOptions {
        RunOptions { reps: 5, warmup: 1, target_ns: 2e6, groups: 1024, workgroup: None }
    }

    /// A quick one (a CPU adapter, a smoke test): 3 rounds after 1, 0.3 ms, 4 workgroups.
    pub fn quick() -> RunOptions {
        RunOptions { reps: 3, warmup: 1, target_ns: 3e5, groups: 4, workgroup: None }
    }
}

/// The largest power of two of invocations per workgroup the adapter allows, up to 1024.
fn workgroup(gpu: &Gpu) -> u32 {
    let most = gpu.limits.max_compute_invocations_per_workgroup.min(gpu.limits.max_compute_workgroup_size_x);
    let most = most.clamp(1, 1024);
    1 << (31 - most.leading_zeros())
}

/// Times every pattern on `gpu`.
pub fn measure(gpu: &Gpu, opts: &RunOptions, progress: &dyn Progress) -> Result<Evidence, ProbeError> {
    if opts.reps == 0 {
        return Err(ProbeError::Options("--reps must be at least 1".into()));
    }
    if opts.groups == 0 {
        return Err(ProbeError::Options("--groups must be at least 1".into()));
    }
    let warps = validate::probe::warps(gpu);
    let period = warps.last().copied().unwrap_or(32);
    let patterns = patterns(period);
    let wg = opts.workgroup.unwrap_or_else(|| workgroup(gpu));
    if !wg.is_power_of_two() || wg < period {
        return Err(ProbeError::Options(format!(
            "workgroups of {wg} invocations: must be a power of two of at least the adapter's largest \
             subgroup ({period}), so that every warp is whole"
        )));
    }
    let bench = Bench::new(gpu, wg, opts.groups)?;
    let base = patterns.iter().find(|p| p.name == "4B stride 1").map(|p| p.table()).unwrap_or([0; 64]);
    let iters = {
        let _phase = Phase::begin(progress, "finding the trip count", None, Unit::Time);
        let mut iters = 4u32;
        loop {
            let fixed = bench.time(0, &base, 0)?;
            let t = bench.time(0, &base, iters)? - fixed;
            if t >= opts.target_ns || iters >= MAX_ITERS {
                break iters;
            }
            let factor = if t > 0.0 { (opts.target_ns / t).clamp(2.0, 16.0) } else { 16.0 };
            iters = ((iters as f64 * factor).ceil() as u32).min(MAX_ITERS);
        }
    };
    let rounds = opts.warmup + opts.reps;
    let per_round = patterns.len() + WIDTHS.len();
    let phase = Phase::begin(
        progress,
        &format!("timing {} patterns ({rounds} rounds, {iters} iterations)", patterns.len()),
        Some((rounds as usize * per_round) as u64),
        Unit::Steps("dispatches"),
    );
    let mut times = vec![Vec::with_capacity(opts.reps as usize); patterns.len()];
    let mut fixed = vec![Vec::with_capacity(opts.reps as usize); WIDTHS.len()];
    for round in 0..rounds {
        let keep = round >= opts.warmup;
        for (i, f) in fixed.iter_mut().enumerate() {
            let t = bench.time(i, &base, 0)?;
            if keep {
                f.push(t);
            }
            phase.progress().advance(1);
        }
        for (p, t) in patterns.iter().zip(times.iter_mut()) {
            let w = WIDTHS.iter().position(|&w| w == p.bytes).unwrap_or(0);
            let ns = bench.time(w, &p.table(), iters)?;
            if keep {
                t.push(ns);
            }
            phase.progress().advance(1);
        }
    }
    drop(phase);
    let (wg, groups) = bench.shape();
    Ok(Evidence {
        adapter: validate::gpu::describe(&gpu.info),
        warps,
        smem_per_sm: gpu.limits.max_compute_workgroup_storage_size,
        timer: format!("{} ({groups} workgroups of {wg}, {iters} iterations of 16 loads)", bench.timer()),
        patterns,
        times: times.iter().map(|t| Timing::of(t)).collect(),
        overhead: [0, 1, 2].map(|i| Timing::of(&fixed[i])),
    })
}
