//! The crossbar: the switch between a warp's lanes and the banks, as plain data.
//!
//! ```text
//!   lanes 0 1 2 ... 31           which lanes go through together (a phase):
//!         \ | /   ...              `lanes` per width, or explicit `groups`
//!      ┌──────────────┐
//!      │   crossbar   │  width:  bytes it delivers per wavefront
//!      │              │  broadcast / write_collision / atomic / reduction:
//!      └──────────────┘           lanes on one bank word (multicast, serialize...)
//!        |  |  |  ...            load_pair_merge: paired lanes in twice the lanes
//!   banks 0 1 2 ... n-1          ports: distinct words a bank serves per wavefront
//! ```
//!
//! A warp request is cut into phases; each phase goes through the crossbar on its own,
//! in as many wavefronts as its busiest bank needs: `ceil(words / ports)` for that bank,
//! where `words` counts what the op's same-word rule counts (distinct words for
//! `Multicast`, lane accesses for `Serialize`).
//!
//! Phases are the compact default, `lanes(bytes)` consecutive lanes (the lane number's
//! high bits), taken from the `lanes` table or, without one, from the width:
//! `width / max(bytes, bank_bytes)` lanes (a lane narrower than a bank word still takes a
//! word's slot), at least 1, at most the warp. A preset may instead list the lane groups
//! of an op and width explicitly ([`LaneGroups`]): any sets of lanes, e.g. the CDNA 3
//! `ds_read_b128` groups of lanes 0–3 with 20–23. Ops a group list does not name keep the
//! compact default.
//!
//! The tensor-core ops (`ldsm`, `stsm`, `ldgsts`, `ldgsts.cg`) each have a rule of their
//! own ([`OpRules`]): by default the phases and same-word rule of a load or store of their
//! width, or measured phases of their own, or no wavefronts at all.

use crate::op::{width_index, Op, WIDTHS};
use serde::{Deserialize, Serialize};

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

    pub(crate) fn as_array(&self) -> [u32; 5] {
        [self.b1, self.b2, self.b4, self.b8, self.b16]
    }

    fn from_array(a: [u32; 5]) -> PhaseLanes {
        PhaseLanes { b1: a[0], b2: a[1], b4: a[2], b8: a[3], b16: a[4] }
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

/// Explicit lane groups (phases) for some ops at one access width.
///
/// Every lane of the warp is in exactly one group; the groups are served one after
/// another, each in its own wavefronts, in the order listed (the order changes no count).
/// Lanes at or past the warp size are left out, so groups written for wave64 serve a
/// wave32 override with their lower halves.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LaneGroups {
    /// The ops these groups serve (`Load`, `Store`, `Atomic`, `Reduction`).
    pub ops: Vec<Op>,
    /// The access width in bytes.
    pub bytes: u8,
    /// The groups: lane numbers, each lane of the warp in exactly one.
    pub groups: Vec<Vec<u16>>,
}

/// How the crossbar serves one of the tensor-core ops ([`Op::TENSOR`]).
///
/// Whatever the rule, a request's ideal is the number of the crossbar's phases of its
/// width that hold an active lane (what Nsight Compute counts as ideal), so a rule of
/// narrower phases shows conflicts even where no bank is shared: the H100's conflict-free
/// 4-byte `cp.async` of a warp takes 4 wavefronts against an ideal of 1.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum OpRule {
    /// As the crossbar serves a load (`ldsm`) or a store (`stsm`, `ldgsts`,
    /// `ldgsts.cg`) of the same width: its phases (or lane groups) and same-word rule,
    /// without the load pair merge. The default, for hardware whose rule is not measured.
    #[default]
    Crossbar,
    /// Phases of `lanes` consecutive lanes at any width, or (`lanes: None`) the crossbar's
    /// phases of the width (consecutive lanes, never lane groups); lanes on one bank word
    /// served by `same_word`, never pair-merged.
    Phases {
        /// Lanes per phase (a power of two, 1 to 64); `None`: the width's.
        #[serde(default)]
        lanes: Option<u32>,
        /// How lanes on one word are served.
        same_word: SameWord,
    },
    /// Not through the shared-memory pipe: no wavefronts (the H100's `cp.async.cg`,
    /// whose write into shared memory takes another path).
    Bypass,
}

/// The rules of the tensor-core ops, one field each.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OpRules {
    /// `ldmatrix` (`ldsm`).
    #[serde(default)]
    pub ldsm: OpRule,
    /// `stmatrix` (`stsm`).
    #[serde(default)]
    pub stsm: OpRule,
    /// `cp.async.ca` (`ldgsts`).
    #[serde(default)]
    pub ldgsts: OpRule,
    /// `cp.async.cg` (`ldgsts.cg`).
    #[serde(default)]
    pub ldgsts_cg: OpRule,
}

impl OpRules {
    /// The rule of `op`; `None` for an op that is not a tensor-core op.
    #[inline]
    pub fn rule(&self, op: Op) -> Option<OpRule> {
        match op {
            Op::MatrixLoad => Some(self.ldsm),
            Op::MatrixStore => Some(self.stsm),
            Op::AsyncCopy => Some(self.ldgsts),
            Op::AsyncCopyBypass => Some(self.ldgsts_cg),
            _ => None,
        }
    }

    /// Each field's name and rule.
    pub fn fields(&self) -> [(&'static str, OpRule); 4] {
        [("ldsm", self.ldsm), ("stsm", self.stsm), ("ldgsts", self.ldgsts), ("ldgsts_cg", self.ldgsts_cg)]
    }
}

/// The crossbar between lanes and banks: phases, same-word rules, merging, bank ports.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Crossbar {
    /// Bytes the crossbar delivers per wavefront (H100: 128). Gives the lanes per phase
    /// where `lanes` is `None`.
    pub width: u32,
    /// Lanes per phase by width, overriding the width's; `None`: from the width.
    #[serde(default)]
    pub lanes: Option<PhaseLanes>,
    /// Explicit lane groups for some ops and widths (the rest use `lanes`).
    #[serde(default)]
    pub groups: Vec<LaneGroups>,
    /// Loads: how lanes reading one word are served (multicast or broadcast).
    pub broadcast: SameWord,
    /// Stores: how lanes writing one word are served.
    pub write_collision: SameWord,
    /// Atomics that return their result (`atom`).
    pub atomic: SameWord,
    /// Atomic reductions whose result is unused (`red`).
    pub reduction: SameWord,
    /// Wide-load merging of paired lanes (H100); `None` where the hardware has none.
    #[serde(default)]
    pub load_pair_merge: Option<PairMerge>,
    /// Distinct words (or, under `Serialize`, lane accesses) one bank serves per
    /// wavefront: a phase costs `ceil(busiest bank's count / ports)`.
    #[serde(default = "one")]
    pub ports: u32,
    /// The rules of the tensor-core ops (`ldsm`, `stsm`, `ldgsts`, `ldgsts.cg`).
    #[serde(default)]
    pub ops: OpRules,
}

fn one() -> u32 {
    1
}

/// The most bytes a crossbar may deliver per wavefront.
pub const MAX_WIDTH: u32 = 4096;

/// The most ports a bank may have.
pub const MAX_PORTS: u32 = 64;

impl Crossbar {
    /// The lanes-per-phase table the width gives on banks of `bank_bytes`:
    /// `width / max(bytes, bank_bytes)`, from 1 to 64 (not yet capped at the warp).
    pub fn width_lanes(width: u32, bank_bytes: u32) -> PhaseLanes {
        PhaseLanes::from_array(WIDTHS.map(|w| (width / (w as u32).max(bank_bytes).max(1)).clamp(1, 64)))
    }

    /// The lanes-per-phase table in force: `lanes`, else the width's.
    pub fn lane_table(&self, bank_bytes: u32) -> PhaseLanes {
        self.lanes.unwrap_or_else(|| Crossbar::width_lanes(self.width, bank_bytes))
    }

    /// The explicit groups for `op` at `bytes`, if the crossbar lists some.
    #[inline]
    pub fn groups_for(&self, op: Op, bytes: u8) -> Option<&[Vec<u16>]> {
        self.groups.iter().find(|g| g.bytes == bytes && g.ops.contains(&op)).map(|g| g.groups.as_slice())
    }

    /// Checks the crossbar against the warp and bank width; `bad(field, problem)` for each
    /// problem (fields relative to `crossbar`).
    pub(crate) fn check(&self, warp: u32, bad: &mut impl FnMut(&str, String)) {
        if !(self.width.is_power_of_two() && self.width <= MAX_WIDTH) {
            bad("width", format!("must be a power of two from 1 to {MAX_WIDTH} bytes, got {}", self.width));
        }
        if let Some(lanes) = &self.lanes {
            for (i, &l) in lanes.as_array().iter().enumerate() {
                if !(l.is_power_of_two() && l <= 64) {
                    bad(
                        &format!("lanes.b{}", WIDTHS[i]),
                        format!("must be a power of two from 1 to 64, got {l}"),
                    );
                }
            }
        }
        for (name, rule) in self.ops.fields() {
            if let OpRule::Phases { lanes: Some(lanes), .. } = rule {
                if !(lanes.is_power_of_two() && lanes <= 64) {
                    bad(
                        &format!("ops.{name}.lanes"),
                        format!("must be a power of two from 1 to 64, got {lanes}"),
                    );
                }
            }
        }
        if !(1..=MAX_PORTS).contains(&self.ports) {
            bad("ports", format!("must be between 1 and {MAX_PORTS}, got {}", self.ports));
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
                if m == 0 || (warp.is_power_of_two() && m >= warp) {
                    bad(
                        "load_pair_merge.masks",
                        format!("mask {m} must be between 1 and warp - 1 ({})", warp.saturating_sub(1)),
                    );
                }
            }
        }
        let mut seen: Vec<(Op, u8)> = Vec::new();
        for (i, g) in self.groups.iter().enumerate() {
            let field = |f: &str| format!("groups[{i}].{f}");
            if width_index(g.bytes).is_none() {
                bad(&field("bytes"), format!("{} is not an access width (1, 2, 4, 8, 16)", g.bytes));
            }
            if g.ops.is_empty() {
                bad(&field("ops"), "must name at least one op (Load, Store, Atomic, Reduction)".into());
            }
            for &op in &g.ops {
                if !matches!(op, Op::Load | Op::Store | Op::Atomic | Op::Reduction) {
                    bad(
                        &field("ops"),
                        format!("{op:?}: only Load, Store, Atomic and Reduction have lane groups"),
                    );
                } else if seen.contains(&(op, g.bytes)) {
                    bad(&field("ops"), format!("{op:?} at {} bytes already has groups", g.bytes));
                } else {
                    seen.push((op, g.bytes));
                }
                let merges = self.load_pair_merge.as_ref().is_some_and(|pm| pm.widths.contains(&g.bytes));
                if op == Op::Load && merges {
                    bad(
                        &field("ops"),
                        format!(
                            "loads of {} bytes have both explicit groups and the pair merge; drop one",
                            g.bytes
                        ),
                    );
                }
            }
            // every lane of the warp in exactly one group
            let mut count = vec![0u32; warp.min(64) as usize];
            for group in &g.groups {
                if group.is_empty() {
                    bad(&field("groups"), "a group must hold at least one lane".into());
                }
                for &lane in group {
                    if lane >= 64 {
                        bad(
                            &field("groups"),
                            format!("lane {lane} is above 63, the last lane of the widest warp"),
                        );
                    } else if let Some(c) = count.get_mut(lane as usize) {
                        *c += 1;
                    }
                }
            }
            let twice: Vec<String> =
                count.iter().enumerate().filter(|(_, &c)| c > 1).map(|(l, _)| l.to_string()).collect();
            let missing: Vec<String> =
                count.iter().enumerate().filter(|(_, &c)| c == 0).map(|(l, _)| l.to_string()).collect();
            if !twice.is_empty() {
                bad(&field("groups"), format!("lanes in more than one group: {}", twice.join(", ")));
            }
            if !missing.is_empty() {
                bad(&field("groups"), format!("lanes of the warp in no group: {}", missing.join(", ")));
            }
        }
    }
}
