//! The hardware description: every parameter of the bank model, validated once.
//!
//! A [`Hardware`] is plain data (presets live as RON files in `configs/`). Build it, call
//! [`Hardware::validate`], and the model may then rely on every invariant listed there.

use crate::mapping::BankMapping;
use crate::op::{width_index, Op, WIDTHS};
use crate::timing::Timing;
use serde::{Deserialize, Serialize};
use std::fmt;

/// How lanes that touch the same bank word in one phase are served.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SameWord {
    /// Every lane access is served on its own: a bank serves one lane per wavefront
    /// (no broadcast; atomics that return their result).
    Serialize,
    /// One broadcast word per wavefront (CC 1.x): all lanes on that word are served
    /// together, every other bank serves one lane.
    OneBroadcastWord,
    /// Any number of lanes on one word are served by one bank read (Fermi and later
    /// loads; stores of the same word, of which one wins).
    Multicast,
}

/// Lanes served together, per access width: the phase table.
///
/// A warp request of width `w` is cut into phases of `lanes(w)` consecutive lanes; each
/// phase is served on its own, so its conflict-free cost is one wavefront.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PhaseLanes {
    /// Lanes per phase for 1-byte accesses.
    pub b1: u32,
    /// Lanes per phase for 2-byte accesses.
    pub b2: u32,
    /// Lanes per phase for 4-byte accesses.
    pub b4: u32,
    /// Lanes per phase for 8-byte accesses.
    pub b8: u32,
    /// Lanes per phase for 16-byte accesses.
    pub b16: u32,
}

impl PhaseLanes {
    /// The same number of lanes for every width.
    pub fn uniform(lanes: u32) -> PhaseLanes {
        PhaseLanes { b1: lanes, b2: lanes, b4: lanes, b8: lanes, b16: lanes }
    }

    /// Lanes per phase for an access of `bytes` (a supported width).
    #[inline]
    pub fn lanes(&self, bytes: u8) -> u32 {
        self.as_array()[width_index(bytes).expect("width validated by the trace reader")]
    }

    fn as_array(&self) -> [u32; 5] {
        [self.b1, self.b2, self.b4, self.b8, self.b16]
    }
}

/// The load-merge rule the H100 shows for wide loads.
///
/// If, for one of the `masks`, every active lane `l` of the warp reads exactly the same
/// address as lane `l ^ mask` (or that lane is inactive), the warp needs only half as
/// many distinct lane addresses, and each phase of a load of one of `widths` serves twice
/// as many lanes (never more than the warp). On the H100 the masks are 1 and 2: lanes
/// pair up with their neighbour or with the lane two over, never further, and the check
/// covers the whole warp (one unpaired quad anywhere disables the merge).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PairMerge {
    /// Access widths (bytes) whose loads may merge.
    pub widths: Vec<u8>,
    /// Lane XOR masks that define the pairs; tried in order.
    pub masks: Vec<u32>,
}

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
    /// Lanes served together, per access width.
    pub phase_lanes: PhaseLanes,
    /// Loads: how lanes reading one word are served.
    pub broadcast: SameWord,
    /// Stores: how lanes writing one word are served.
    pub write_collision: SameWord,
    /// Atomics that return their result (`atom`).
    pub atomic: SameWord,
    /// Atomic reductions whose result is unused (`red`).
    pub reduction: SameWord,
    /// Wide-load merging of paired lanes (H100); `None` where the hardware has none.
    pub load_pair_merge: Option<PairMerge>,
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
    /// Field path, e.g. `banks` or `phase_lanes.b8`.
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
    /// How lanes touching the same word are served for `op`.
    #[inline]
    pub fn same_word(&self, op: Op) -> SameWord {
        match op {
            Op::Load | Op::Barrier | Op::GlobalLoad | Op::GlobalStore => self.broadcast,
            Op::Store => self.write_collision,
            Op::Atomic => self.atomic,
            Op::Reduction => self.reduction,
        }
    }

    /// Bytes one conflict-free wavefront moves: `banks × bank_bytes`.
    pub fn wavefront_bytes(&self) -> u32 {
        self.banks * self.bank_bytes
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
        let lanes = self.phase_lanes.as_array();
        for (i, &l) in lanes.iter().enumerate() {
            if !(l.is_power_of_two() && l <= 64) {
                bad(
                    &format!("phase_lanes.b{}", WIDTHS[i]),
                    format!("must be a power of two from 1 to 64, got {l}"),
                );
            }
        }
        if let Some(pm) = &self.load_pair_merge {
            for &w in &pm.widths {
                if width_index(w).is_none() {
                    bad("load_pair_merge.widths", format!("{w} is not an access width (1, 2, 4, 8, 16)"));
                }
            }
            if pm.masks.is_empty() {
                bad("load_pair_merge.masks", "must name at least one lane XOR mask".into());
            }
            for &m in &pm.masks {
                if m == 0 || (self.warp.is_power_of_two() && m >= self.warp) {
                    bad(
                        "load_pair_merge.masks",
                        format!("mask {m} must be between 1 and warp - 1 ({})", self.warp.saturating_sub(1)),
                    );
                }
            }
        }
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
