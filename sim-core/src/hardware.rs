//! The hardware description: every parameter of the bank model, validated once.
//!
//! A [`Hardware`] is plain data (presets live as RON files in `configs/`). Build it, call
//! [`Hardware::validate`], and the model may then rely on every invariant listed there.

pub use crate::crossbar::{Crossbar, OpRule, PairMerge, PhaseLanes, SameWord};
use crate::mapping::BankMapping;
use crate::op::Op;
use crate::timing::Timing;
use serde::{Deserialize, Serialize};
use std::fmt;

/// Every parameter of the bank model (and, optionally, of the cycle engine).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Hardware {
    /// Preset or config name, for reports.
    pub name: String,
    /// Number of banks `n`.
    pub banks: u32,
    /// Bank word width `m` in bytes.
    pub bank_bytes: u32,
    /// Lanes per warp / wavefront `k` (a simulation parameter: 16, 32, 64...).
    pub warp: u32,
    /// The crossbar between lanes and banks: phases, same-word rules, bank ports.
    pub crossbar: Crossbar,
    /// Bank mapping.
    pub mapping: BankMapping,
    /// Shared memory per SM / CU in bytes (also the largest address a block may use).
    pub smem_per_sm: u32,
    /// Cycle-engine parameters; `None` for a preset that only counts wavefronts.
    pub timing: Option<Timing>,
}

/// One invalid parameter: which field, and what is wrong with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// Field path, e.g. `banks` or `crossbar.lanes.b8`.
    pub field: String,
    /// What was expected and what was found.
    pub problem: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}`: {}", self.field, self.problem)
    }
}

impl Hardware {
    /// How lanes touching the same word are served for `op` (a tensor-core op: its
    /// rule's, or that of the load or store it is served as).
    #[inline]
    pub fn same_word(&self, op: Op) -> SameWord {
        match op {
            Op::Load | Op::Barrier | Op::GlobalLoad | Op::GlobalStore => self.crossbar.broadcast,
            Op::Store => self.crossbar.write_collision,
            Op::Atomic => self.crossbar.atomic,
            Op::Reduction => self.crossbar.reduction,
            Op::MatrixLoad | Op::MatrixStore | Op::AsyncCopy | Op::AsyncCopyBypass => {
                match self.crossbar.ops.rule(op) {
                    Some(OpRule::Phases { same_word, .. }) => same_word,
                    _ => self.same_word(Hardware::served_as(op)),
                }
            }
        }
    }

    /// The load or store whose phases and lane groups serve a tensor-core op under the
    /// [`OpRule::Crossbar`] rule: `ld` for `ldsm`, `st` for `stsm` and the copies; any
    /// other op itself.
    #[inline]
    pub fn served_as(op: Op) -> Op {
        match op {
            Op::MatrixLoad => Op::Load,
            Op::MatrixStore | Op::AsyncCopy | Op::AsyncCopyBypass => Op::Store,
            other => other,
        }
    }

    /// The rule of a tensor-core op (`None` for the other ops).
    #[inline]
    pub fn op_rule(&self, op: Op) -> Option<OpRule> {
        self.crossbar.ops.rule(op)
    }

    /// Lanes per phase for `bytes`-byte accesses (before the pair merge): the crossbar's
    /// table (or its width's), capped at the warp.
    #[inline]
    pub fn phase_lanes(&self, bytes: u8) -> u32 {
        self.crossbar.lane_table(self.bank_bytes).lanes(bytes).min(self.warp)
    }

    /// The most bytes one wavefront moves: `banks × bank_bytes × crossbar.ports`.
    pub fn wavefront_bytes(&self) -> u32 {
        self.banks * self.bank_bytes * self.crossbar.ports
    }

    /// Checks every invariant the model relies on and returns all violations at once.
    pub fn validate(&self) -> Result<(), Vec<Violation>> {
        let mut v = Vec::new();
        let mut bad = |field: &str, problem: String| v.push(Violation { field: field.to_string(), problem });
        if self.name.trim().is_empty() {
            bad("name", "must not be empty".into());
        }
        if !(1..=1024).contains(&self.banks) {
            bad("banks", format!("must be between 1 and 1024, got {}", self.banks));
        }
        if !(self.bank_bytes.is_power_of_two() && self.bank_bytes <= 64) {
            bad("bank_bytes", format!("must be a power of two from 1 to 64, got {}", self.bank_bytes));
        }
        if !(self.warp.is_power_of_two() && self.warp <= 64) {
            bad("warp", format!("must be a power of two from 1 to 64, got {}", self.warp));
        }
        self.crossbar.check(self.warp, &mut |field, problem| bad(&format!("crossbar.{field}"), problem));
        if let BankMapping::Xor { shift, mask } = self.mapping {
            if mask >= self.banks.max(1) {
                bad("mapping.mask", format!("must be below the bank count {}, got {mask}", self.banks));
            }
            if shift >= 32 {
                bad("mapping.shift", format!("must be below 32, got {shift}"));
            }
        }
        if self.smem_per_sm == 0 {
            bad("smem_per_sm", "must be positive".into());
        }
        if let Some(t) = &self.timing {
            t.check(&mut |field, problem| v.push(Violation { field: format!("timing.{field}"), problem }));
        }
        if v.is_empty() {
            Ok(())
        } else {
            Err(v)
        }
    }
}
