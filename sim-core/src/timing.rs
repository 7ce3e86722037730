//! Timing parameters of the cycle engine (per SM / CU).

use serde::{Deserialize, Serialize};

/// What the cycle engine needs to know about an SM and its shared-memory pipe.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Timing {
    /// SMs (CUs) on the device.
    pub sms: u32,
    /// Resident threads per SM.
    pub max_threads_per_sm: u32,
    /// Resident blocks per SM.
    pub max_blocks_per_sm: u32,
    /// Warp schedulers (sub-partitions) per SM; a warp's issue slots are shared with the
    /// warps of its sub-partition.
    pub schedulers_per_sm: u32,
    /// Load-to-use latency of a conflict-free (one-wavefront) shared load, minus
    /// `latency_per_wavefront`: latency = `latency_base + latency_per_wavefront × W`.
    pub latency_base: u32,
    /// Latency added per wavefront of the request.
    pub latency_per_wavefront: u32,
    /// Cycles the shared-memory pipe is busy per wavefront (1 / throughput).
    pub pipe_cycles_per_wavefront: u32,
    /// Cycles an instruction occupies its scheduler's issue slot.
    pub issue_cycles: u32,
    /// Share of a request's `gap` (other work) during which the warp also holds its
    /// scheduler's issue slot: 1 when the other work is issue-bound (many warps per
    /// scheduler), towards 0 when it is dependent-instruction latency that other warps
    /// can issue under. The warp itself always waits the whole gap. Default 1.
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub gap_issue_fraction: f64,
    /// Fewest cycles between two block launches on one SM (the block scheduler's launch
    /// rate): kernels of many tiny blocks are bound by it, whatever their shared
    /// memory does. Default 0 (no limit).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub block_launch_cycles: u32,
    /// Fixed cycles of a dispatch besides running its blocks (launch and drain, the time
    /// of an empty kernel). The engine does not simulate it; whoever compares engine
    /// cycles with a measured dispatch adds it (`banksim calibrate`). Default 0.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub dispatch_overhead_cycles: u32,
    /// Cycles from a global load's last wavefront in the pipe to its data (`gld`
    /// requests: captured traces have them). Default 0 (traces without global accesses
    /// do not need it).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub global_latency: u32,
}

/// The `gap_issue_fraction` of gaps counted in operations of `cycles_per_op` cycles each,
/// of which an operation holds its scheduler `issue_per_op` cycles (at most the whole
/// gap).
pub fn gap_issue_fraction(issue_per_op: f64, cycles_per_op: f64) -> f64 {
    if cycles_per_op > issue_per_op {
        issue_per_op / cycles_per_op
    } else {
        1.0
    }
}

fn is_zero(v: &u32) -> bool {
    *v == 0
}

fn one() -> f64 {
    1.0
}

fn is_one(v: &f64) -> bool {
    *v == 1.0
}

impl Timing {
    pub(crate) fn check(&self, bad: &mut dyn FnMut(&str, String)) {
        let positive = [
            ("sms", self.sms),
            ("max_threads_per_sm", self.max_threads_per_sm),
            ("max_blocks_per_sm", self.max_blocks_per_sm),
            ("schedulers_per_sm", self.schedulers_per_sm),
            ("pipe_cycles_per_wavefront", self.pipe_cycles_per_wavefront),
            ("issue_cycles", self.issue_cycles),
        ];
        for (field, value) in positive {
            if value == 0 {
                bad(field, "must be positive".into());
            }
        }
        if !(0.0..=1.0).contains(&self.gap_issue_fraction) {
            bad("gap_issue_fraction", format!("must be between 0 and 1, got {}", self.gap_issue_fraction));
        }
        if self.sms > 100_000 {
            bad("sms", format!("must be at most 100000, got {}", self.sms));
        }
    }
}
