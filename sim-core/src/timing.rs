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
    /// Cycles a returning atomic (`atom`) takes beyond a load of as many wavefronts.
    /// Default 0.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub atomic_extra_latency: u32,
    /// Cycles the shared-memory pipe is busy per wavefront (1 / throughput).
    pub pipe_cycles_per_wavefront: u32,
    /// Cycles a warp's arrival at a barrier holds the shared-memory pipe. Above 0, the
    /// arrival also waits its turn in the pipe's queue, behind every request issued
    /// before it, so a barrier is reached only once the pipe has taken the requests
    /// queued ahead of it. Default 0 (barriers do not use the pipe).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub barrier_pipe_cycles: u32,
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
    /// Cycles from the pipe to the data of a global load that DRAM serves, where it
    /// differs from `global_latency` (then that of a load the L2 serves). A dispatch's
    /// loads wait the two in the proportion of its bytes each serves (see
    /// [`crate::memory`]). Default 0 (every load waits `global_latency`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub dram_latency: u32,
    /// Cycles from the pipe to the data of a global load whose lines its block loaded
    /// recently (the L1 holds them: see `l1_bytes`). Default 0 (no L1: every load waits
    /// `global_latency`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub l1_latency: u32,
    /// Bytes of an SM's L1 that hold global lines, shared by the blocks it runs at once: a
    /// global load whose every line is among the last `l1_bytes / blocks` bytes of lines
    /// its block loaded waits `l1_latency` and takes no DRAM or L2 bandwidth. Default 0.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub l1_bytes: u32,
    /// DRAM bandwidth of the whole device, bytes per SM clock cycle: the SMs that run
    /// blocks share it equally, and each global request's 128-byte lines pass through
    /// its SM's share (after the pipe, before `global_latency`). Default 0 (no limit).
    #[serde(default, skip_serializing_if = "is_zero_f64")]
    pub dram_bytes_per_cycle: f64,
    /// Read bandwidth of the L2 cache, bytes per SM clock cycle (the whole device). Lines
    /// that a dispatch reads again while the L2 still holds them come at this rate
    /// instead of DRAM's (see [`crate::memory`]). Default 0 (no L2: every line costs
    /// DRAM bandwidth).
    #[serde(default, skip_serializing_if = "is_zero_f64")]
    pub l2_bytes_per_cycle: f64,
    /// Size of the L2 cache, bytes: a dispatch whose global footprint fits in it reads
    /// each line from DRAM once. Default 0 (no L2).
    #[serde(default, skip_serializing_if = "is_zero_u64")]
    pub l2_bytes: u64,
    /// How many blocks an SM holds at once, besides the thread and block limits.
    /// Default `Limits`.
    #[serde(default, skip_serializing_if = "Occupancy::is_limits")]
    pub occupancy: Occupancy,
    /// SM clock, MHz: turns cycles into time. Default 0 (unknown: cycles only).
    #[serde(default, skip_serializing_if = "is_zero_f64")]
    pub clock_mhz: f64,
    /// The calibration of gaps counted in IR operations (captured traces). Default:
    /// none (such a trace needs `--cycles-per-op`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ops: Option<OpCost>,
}

/// How many blocks an SM holds at once, besides threads and the preset's block limit.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub enum Occupancy {
    /// As many as `smem_per_sm` holds (what CUDA's driver picks by default).
    #[default]
    Limits,
    /// The shared-memory carveout is the smallest of `sizes` (bytes, ascending) that
    /// holds one block plus `reserved` bytes, and the SM holds as many blocks (each with
    /// its reserve) as fit in it.
    SmallestCarveout {
        /// Supported carveouts, bytes, ascending.
        sizes: Vec<u32>,
        /// Bytes reserved per block.
        reserved: u32,
    },
}

impl Occupancy {
    fn is_limits(&self) -> bool {
        *self == Occupancy::Limits
    }

    /// Blocks of `smem` bytes an SM of `smem_per_sm` bytes holds by shared memory alone
    /// (`None`: no block fits).
    pub fn blocks_by_smem(&self, smem: u32, smem_per_sm: u32) -> Option<u32> {
        if smem > smem_per_sm {
            return None;
        }
        match self {
            Occupancy::Limits => Some(smem_per_sm.checked_div(smem).unwrap_or(u32::MAX)),
            Occupancy::SmallestCarveout { sizes, reserved } => {
                let need = smem.saturating_add(*reserved).max(1);
                // (a block that fits no carveout is given the whole of shared memory)
                let carveout = sizes.iter().copied().find(|&c| c >= need).unwrap_or(smem_per_sm);
                Some((carveout / need).max(1))
            }
        }
    }
}

/// What an IR operation of a captured trace's gaps costs (`banksim calibrate` measures
/// it; `run --cycles-per-op` and `--issue-per-op` override it).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OpCost {
    /// Cycles a warp spends per IR operation of other work, where no measured variant of
    /// the kernel's family says otherwise: the cost of an absolute prediction.
    pub cycles_per_op: f64,
    /// Most cycles an operation holds its warp's scheduler (issue slots), whatever its
    /// latency: past it, an operation's cost is waiting (on memory), not issuing.
    pub issue_per_op: f64,
    /// Share of an operation's cycles that hold its scheduler, up to `issue_per_op`: an
    /// IR operation that costs more cycles runs more machine instructions, each of which
    /// issues (measured: a quarter, `validate/results/h100/op_cost.csv`). 1: every cycle
    /// up to `issue_per_op`.
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub issue_share: f64,
    /// Share of the engine's predicted change between two variants that shows in their
    /// measured times (a prediction from a measured variant adds this times the change).
    #[serde(default = "one")]
    pub overlap: f64,
}

/// The `gap_issue_fraction` of gaps counted in operations of `cycles_per_op` cycles each,
/// of which an operation holds its scheduler `issue_share` of its cycles, at most
/// `issue_per_op` (and at most the whole gap).
pub fn gap_issue_fraction(issue_per_op: f64, issue_share: f64, cycles_per_op: f64) -> f64 {
    let share = issue_share.min(1.0);
    if cycles_per_op * share > issue_per_op {
        issue_per_op / cycles_per_op
    } else {
        share
    }
}

fn is_zero(v: &u32) -> bool {
    *v == 0
}

fn is_zero_u64(v: &u64) -> bool {
    *v == 0
}

fn is_zero_f64(v: &f64) -> bool {
    *v == 0.0
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
        if !(self.dram_bytes_per_cycle.is_finite() && self.dram_bytes_per_cycle >= 0.0) {
            bad(
                "dram_bytes_per_cycle",
                format!("must be a finite number >= 0, got {}", self.dram_bytes_per_cycle),
            );
        }
        if !(self.l2_bytes_per_cycle.is_finite() && self.l2_bytes_per_cycle >= 0.0) {
            bad(
                "l2_bytes_per_cycle",
                format!("must be a finite number >= 0, got {}", self.l2_bytes_per_cycle),
            );
        }
        if (self.l2_bytes_per_cycle > 0.0) != (self.l2_bytes > 0) {
            bad(
                "l2_bytes",
                "l2_bytes and l2_bytes_per_cycle are given together (an L2 has a size and a bandwidth)"
                    .into(),
            );
        }
        if !(self.clock_mhz.is_finite() && self.clock_mhz >= 0.0) {
            bad("clock_mhz", format!("must be a finite number >= 0, got {}", self.clock_mhz));
        }
        if let Occupancy::SmallestCarveout { sizes, .. } = &self.occupancy {
            if sizes.is_empty() || !sizes.is_sorted() || sizes[0] == 0 {
                bad("occupancy", format!("carveout sizes must be positive and ascending, got {sizes:?}"));
            }
        }
        if let Some(o) = &self.ops {
            for (field, v) in [("ops.cycles_per_op", o.cycles_per_op), ("ops.issue_per_op", o.issue_per_op)] {
                if !(v.is_finite() && v >= 0.0) {
                    bad(field, format!("must be a finite number >= 0, got {v}"));
                }
            }
            if !(o.issue_share > 0.0 && o.issue_share <= 1.0) {
                bad("ops.issue_share", format!("must be above 0 and at most 1, got {}", o.issue_share));
            }
            if !(o.overlap.is_finite() && o.overlap > 0.0) {
                bad("ops.overlap", format!("must be a positive number, got {}", o.overlap));
            }
        }
        if self.sms > 100_000 {
            bad("sms", format!("must be at most 100000, got {}", self.sms));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::gap_issue_fraction;

    #[test]
    fn an_operation_issues_its_share_of_its_cycles_up_to_the_cap() {
        // a quarter of 4 cycles: 1 on the scheduler
        assert_eq!(gap_issue_fraction(2.0, 0.25, 4.0), 0.25);
        // a quarter of 16 would be 4: capped at 2 of the 16
        assert_eq!(gap_issue_fraction(2.0, 0.25, 16.0), 0.125);
        // share 1: every cycle up to the cap, as issue cycles per operation alone
        assert_eq!(gap_issue_fraction(1.0, 1.0, 4.0), 0.25);
        assert_eq!(gap_issue_fraction(1.0, 1.0, 0.5), 1.0);
        // no cycles: the share
        assert_eq!(gap_issue_fraction(2.0, 0.25, 0.0), 0.25);
    }
}
