//! `banksim probe`: a GPU's shared-memory banks found by timing it. A microbenchmark
//! (`validate/kernels/probe_banks.wgsl`) loads one access pattern again and again with
//! many warps, so that its time follows the wavefronts of one load; the patterns
//! ([`patterns`]) are stride sweeps, broadcasts, lane blocks, lane pairs `l ^ k` and
//! pair-merge probes at 4, 8 and 16 bytes. Every bank structure banksim's bank model
//! can hold from a family of hypotheses ([`model`]: 16, 32 or 64 banks of 4 or 8 bytes,
//! the lanes served together at each width, how a word read by many lanes is served,
//! the H100's pair merge) predicts each pattern's wavefronts; the one that best matches
//! the times wins ([`infer`]), and becomes a preset with its evidence ([`report`]).
//!
//! Without a GPU the inference runs on times read back from a probe's CSV
//! ([`evidence`]) or made from a preset's own bank model ([`synthesize`]):
//!
//! ```
//! use pipeline::probe::{infer, patterns, synthesize, Verdict};
//! let h100 = configs::preset("h100").unwrap();
//! let e = synthesize(&h100, &patterns::patterns(32), 1.0, 0.02);
//! let found = infer::infer(&e);
//! assert_eq!(found.verdict, Verdict::Banks);
//! assert_eq!((found.best.candidate.banks, found.best.candidate.bank_bytes), (32, 4));
//! ```

pub mod evidence;
pub mod infer;
pub mod model;
pub mod patterns;
pub mod report;
#[cfg(feature = "gpu")]
pub mod run;

pub use infer::Verdict;
pub use patterns::{Pattern, ROW_BYTES};

use std::path::PathBuf;

/// What went wrong in a probe.
#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    /// A file could not be read or written.
    #[error("{}: {what}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What could not be done.
        what: &'static str,
        /// Why.
        source: std::io::Error,
    },
    /// An evidence file does not hold what a probe writes.
    #[error("{}:{line}: {what}", path.display())]
    Parse {
        /// The file.
        path: PathBuf,
        /// Its line (1-based).
        line: usize,
        /// What is wrong.
        what: String,
    },
    /// The options cannot be run.
    #[error("{0}")]
    Options(String),
    /// The GPU failed.
    #[cfg(feature = "gpu")]
    #[error(transparent)]
    Gpu(#[from] validate::GpuError),
    /// The written preset could not be made.
    #[error("the probed preset: {0}")]
    Preset(String),
}

/// Repeated times of one dispatch, nanoseconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Timing {
    /// Median.
    pub median_ns: f64,
    /// First quartile.
    pub q1_ns: f64,
    /// Third quartile.
    pub q3_ns: f64,
    /// Timed repetitions.
    pub reps: u32,
}

impl Timing {
    /// The statistics of `times` (not empty).
    pub fn of(times: &[f64]) -> Timing {
        let mut v = times.to_vec();
        v.sort_by(f64::total_cmp);
        let q = |p: f64| {
            let x = p * (v.len().max(1) - 1) as f64;
            let (lo, hi) = (x.floor() as usize, x.ceil() as usize);
            v[lo] + (v[hi] - v[lo]) * (x - lo as f64)
        };
        Timing { median_ns: q(0.5), q1_ns: q(0.25), q3_ns: q(0.75), reps: v.len() as u32 }
    }
}

/// A probe's measurements: each pattern's time, and each width's fixed cost (the
/// dispatch with no loop), with what ran them.
#[derive(Clone, Debug, PartialEq)]
pub struct Evidence {
    /// The adapter (name, type, driver).
    pub adapter: String,
    /// The warp sizes the adapter may run (its subgroup sizes, powers of two from 4 to
    /// 64): the hypotheses' warps. The patterns' period is the largest.
    pub warps: Vec<u32>,
    /// Workgroup memory the adapter allows a workgroup, bytes (the preset's shared
    /// memory per SM where no base preset gives one).
    pub smem_per_sm: u32,
    /// `timestamp` (GPU timestamps) or `wall` (host clock), and the dispatch.
    pub timer: String,
    /// The patterns.
    pub patterns: Vec<Pattern>,
    /// Their times, in the same order.
    pub times: Vec<Timing>,
    /// The fixed cost of a dispatch at 4, 8 and 16 bytes.
    pub overhead: [Timing; 3],
}

/// Pseudo-random factors within `1 ± noise` (xorshift from `seed`, never 0), the same
/// sequence for the same seed: the noise of [`synthesize`]'s times.
pub fn jitter(mut seed: u64, noise: f64) -> impl FnMut() -> f64 {
    move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        1.0 + noise * ((seed >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0)
    }
}

/// Times made from `hw`'s bank model instead of a GPU: pattern `p` takes
/// `1000 + 100 * max(W(p), floor)` ns (W its wavefronts on `hw`), times a pseudo-random
/// factor within `1 ± noise`; the fixed cost is 1000 ns. For tests of the inference,
/// and `banksim probe --simulate`.
pub fn synthesize(hw: &sim_core::Hardware, patterns: &[Pattern], floor: f64, noise: f64) -> Evidence {
    let w = model::predict_hardware(hw, patterns);
    let mut jitter = jitter(0x2545_f491_4f6c_dd1d, noise);
    let at = |ns: f64| Timing { median_ns: ns, q1_ns: ns, q3_ns: ns, reps: 1 };
    let times = w.iter().map(|&w| at(1000.0 + 100.0 * w.max(floor) * jitter())).collect();
    Evidence {
        adapter: format!("the bank model of `{}`", hw.name),
        warps: vec![hw.warp],
        smem_per_sm: hw.smem_per_sm,
        timer: "synthesized".into(),
        patterns: patterns.to_vec(),
        times,
        overhead: [at(1000.0); 3],
    }
}
