//! The hypotheses of `banksim probe`: bank structures banksim's own bank model can
//! describe ([`Candidate`]), turned into a [`Hardware`] and asked how many wavefronts
//! each probe pattern takes ([`Predictor`]).

use super::patterns::{Pattern, WIDTHS};
use sim_core::{BankMapping, BankModel, Crossbar, Hardware, LaneGroups, Op, PairMerge, PhaseLanes, SameWord};
use sim_core::{WarpRequest, MAX_WIDTH};
use std::collections::HashMap;

/// The lanes served together at one width, as a set of lane XOR offsets closed under
/// XOR (a subspace of the lane numbers over GF(2)): lanes `a` and `b` share a phase
/// when `a ^ b` is in the set. Bit `v` of the mask is offset `v`. Consecutive phases
/// of `p` lanes are the offsets `0..p`; the CDNA 3 16-byte groups (lanes 0-3 with
/// 20-23, ...) are the span of 1, 2 and 20.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LaneSet(pub u64);

impl LaneSet {
    /// Phases of `p` consecutive lanes (`p` a power of two, at most 64).
    pub fn consecutive(p: u32) -> LaneSet {
        LaneSet(if p >= 64 { u64::MAX } else { (1u64 << p) - 1 })
    }

    /// The offsets' span: the smallest set closed under XOR that holds `offsets`.
    pub fn span(offsets: &[u32]) -> LaneSet {
        offsets.iter().fold(LaneSet(1), |s, &o| s.with(o))
    }

    /// The set with `offset` added (and what XOR then adds).
    fn with(self, offset: u32) -> LaneSet {
        if self.holds(offset) {
            return self;
        }
        let mut next = self.0;
        for v in (0..64).filter(|&v| self.holds(v)) {
            next |= 1 << (v ^ offset);
        }
        LaneSet(next)
    }

    /// Lanes per phase.
    pub fn lanes(self) -> u32 {
        self.0.count_ones()
    }

    /// Whether the phases are runs of consecutive lanes.
    pub fn is_consecutive(self) -> bool {
        self == LaneSet::consecutive(self.lanes())
    }

    /// Whether lanes `l` and `l ^ offset` share a phase.
    pub fn holds(self, offset: u32) -> bool {
        offset < 64 && self.0 >> offset & 1 == 1
    }

    /// Offsets that generate the set, smallest first (a basis).
    pub fn basis(self) -> Vec<u32> {
        let mut basis = Vec::new();
        let mut spanned = LaneSet(1);
        for v in 1..64 {
            if self.holds(v) && !spanned.holds(v) {
                basis.push(v);
                spanned = LaneSet::span(&basis);
            }
        }
        basis
    }

    /// The phases of a warp of `warp` lanes: lane groups, each in ascending order, by
    /// their first lane.
    pub fn groups(self, warp: u32) -> Vec<Vec<u16>> {
        let mut seen = vec![false; warp as usize];
        let mut groups = Vec::new();
        for l in 0..warp {
            if !seen[l as usize] {
                let g: Vec<u16> = (0..warp).filter(|&m| self.holds(l ^ m)).map(|m| m as u16).collect();
                for &m in &g {
                    seen[m as usize] = true;
                }
                groups.push(g);
            }
        }
        groups
    }

    /// Every set of `lanes` lanes (a power of two) closed under XOR within a warp of
    /// `warp` lanes: the lane-group hypotheses of one width.
    pub fn all(warp: u32, lanes: u32) -> Vec<LaneSet> {
        let dim = lanes.trailing_zeros();
        let mut level = vec![LaneSet(1)];
        for _ in 0..dim {
            let mut next: Vec<LaneSet> = Vec::new();
            for s in &level {
                next.extend((1..warp).filter(|&v| !s.holds(v)).map(|v| s.with(v)));
            }
            next.sort();
            next.dedup();
            level = next;
        }
        level
    }
}

/// One hypothesis: a bank structure banksim's model can hold.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Candidate {
    /// Lanes per warp.
    pub warp: u32,
    /// Number of banks.
    pub banks: u32,
    /// Bank word width, bytes.
    pub bank_bytes: u32,
    /// Loads of one word by several lanes.
    pub broadcast: SameWord,
    /// The pair merge's lane masks (empty: no merge), for 8- and 16-byte loads.
    pub merge: Vec<u32>,
    /// Lanes served together at 4, 8 and 16 bytes ([`WIDTHS`]).
    pub lanes: [LaneSet; 3],
}

impl Candidate {
    /// The hardware of this hypothesis: `base`'s fields where it gives one (timing,
    /// shared memory, store and atomic rules, ...), else the defaults of a machine that
    /// only counts wavefronts (`smem_per_sm` bytes of shared memory, no timing).
    /// Lanes of 1 and 2 bytes are those of 4.
    pub fn hardware(&self, name: &str, base: Option<&Hardware>, smem_per_sm: u32) -> Hardware {
        let [l4, l8, l16] = self.lanes;
        let lanes =
            PhaseLanes { b1: l4.lanes(), b2: l4.lanes(), b4: l4.lanes(), b8: l8.lanes(), b16: l16.lanes() };
        // the base's groups of other ops stay; loads are measured
        let kept = base.into_iter().flat_map(|b| &b.crossbar.groups).filter_map(|g| {
            let ops: Vec<Op> = g.ops.iter().copied().filter(|&op| op != Op::Load).collect();
            (!ops.is_empty()).then(|| LaneGroups { ops, ..g.clone() })
        });
        let measured = WIDTHS
            .iter()
            .zip(self.lanes)
            .filter(|(_, s)| !s.is_consecutive())
            .map(|(&w, s)| LaneGroups { ops: vec![Op::Load], bytes: w as u8, groups: s.groups(self.warp) });
        let groups = kept.chain(measured).collect();
        let load_pair_merge =
            (!self.merge.is_empty()).then(|| PairMerge { widths: vec![8, 16], masks: self.merge.clone() });
        let width = (l4.lanes() * self.bank_bytes.max(4)).clamp(1, MAX_WIDTH);
        let unmeasured = base.map_or_else(assumed_crossbar, |b| b.crossbar.clone());
        let crossbar = Crossbar {
            width,
            lanes: Some(lanes),
            groups,
            broadcast: self.broadcast,
            load_pair_merge,
            ports: 1,
            ..unmeasured
        };
        Hardware {
            name: name.to_string(),
            banks: self.banks,
            bank_bytes: self.bank_bytes,
            warp: self.warp,
            crossbar,
            mapping: BankMapping::Linear,
            smem_per_sm: base.map_or(smem_per_sm, |b| b.smem_per_sm),
            timing: base.and_then(|b| b.timing.clone()),
        }
    }

    /// The fields that differ from `other`'s, by name.
    pub fn differences(&self, other: &Candidate) -> Vec<&'static str> {
        let mut d = Vec::new();
        let mut check = |differ: bool, what: &'static str| {
            if differ {
                d.push(what);
            }
        };
        check(self.warp != other.warp, "warp");
        check(self.banks != other.banks, "banks");
        check(self.bank_bytes != other.bank_bytes, "bank_bytes");
        check(self.broadcast != other.broadcast, "broadcast");
        check(self.merge != other.merge, "load_pair_merge");
        for (i, what) in ["lanes (4 B)", "lanes (8 B)", "lanes (16 B)"].into_iter().enumerate() {
            check(self.lanes[i] != other.lanes[i], what);
        }
        d
    }
}

/// The crossbar assumed where no base preset gives what the probe does not measure:
/// multicast stores, serialized atomics and reductions, and every other rule at
/// `sim_core`'s default (read from its serialized form, so that a rule added to
/// [`Crossbar`] takes its default here too).
fn assumed_crossbar() -> Crossbar {
    let text = r#"{"width": 128, "broadcast": "Multicast", "write_collision": "Multicast",
                   "atomic": "Serialize", "reduction": "Serialize"}"#;
    serde_json::from_str(text).expect("the assumed crossbar is a valid one")
}

/// Wavefronts of one load of pattern `p` on `hw`: the mean over the warps of `hw.warp`
/// lanes that the pattern's period holds (a warp wider than the period repeats it).
pub fn wavefronts(model: &mut BankModel, p: &Pattern) -> f64 {
    let warp = model.hardware().warp as usize;
    let addrs = p.addrs();
    let n = addrs.len();
    let lanes: Vec<u16> = (0..warp as u16).collect();
    let bytes = p.bytes as u8;
    let warps = (n / warp).max(1);
    let total: u32 = (0..warps)
        .map(|j| {
            let a: Vec<u32> = (0..warp).map(|l| addrs[(j * warp + l) % n]).collect();
            model.evaluate(&WarpRequest { op: Op::Load, bytes, lanes: &lanes, addrs: &a }).wavefronts
        })
        .sum();
    total as f64 / warps as f64
}

/// What a width's patterns depend on in a candidate.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct WidthKey {
    width: usize,
    warp: u32,
    banks: u32,
    bank_bytes: u32,
    broadcast: u8,
    merge: Vec<u32>,
    lanes: LaneSet,
}

/// Predicted wavefronts of every pattern under candidates, computed a width at a time
/// and remembered (candidates share most of their widths' hypotheses).
pub struct Predictor<'a> {
    patterns: &'a [Pattern],
    /// Indices of the patterns of each width.
    by_width: [Vec<usize>; 3],
    memo: HashMap<WidthKey, Vec<f64>>,
}

impl<'a> Predictor<'a> {
    /// A predictor of `patterns` (each of a width in [`WIDTHS`]).
    pub fn new(patterns: &'a [Pattern]) -> Predictor<'a> {
        let by_width = std::array::from_fn(|i| {
            patterns.iter().enumerate().filter(|(_, p)| p.bytes == WIDTHS[i]).map(|(j, _)| j).collect()
        });
        Predictor { patterns, by_width, memo: HashMap::new() }
    }

    /// The patterns.
    pub fn patterns(&self) -> &'a [Pattern] {
        self.patterns
    }

    /// Indices of the patterns of width `WIDTHS[i]`.
    pub fn of_width(&self, i: usize) -> &[usize] {
        &self.by_width[i]
    }

    /// Wavefronts of the patterns of width `WIDTHS[i]` (in [`Self::of_width`]'s order)
    /// under `c`.
    pub fn width(&mut self, c: &Candidate, i: usize) -> &[f64] {
        let merge = if WIDTHS[i] >= 8 { c.merge.clone() } else { Vec::new() };
        let key = WidthKey {
            width: i,
            warp: c.warp,
            banks: c.banks,
            bank_bytes: c.bank_bytes,
            broadcast: c.broadcast as u8,
            merge: merge.clone(),
            lanes: c.lanes[i],
        };
        let (patterns, idx) = (self.patterns, &self.by_width[i]);
        self.memo.entry(key).or_insert_with(|| {
            // only this width's rules matter: the others are any valid ones
            let mut lanes = [LaneSet::consecutive(c.warp); 3];
            lanes[i] = c.lanes[i];
            let only = Candidate { lanes, merge, ..c.clone() };
            let mut model = BankModel::new(&only.hardware("candidate", None, 1));
            idx.iter().map(|&j| wavefronts(&mut model, &patterns[j])).collect()
        })
    }

    /// Wavefronts of every pattern under `c`, in the patterns' order.
    pub fn all(&mut self, c: &Candidate) -> Vec<f64> {
        let mut out = vec![0.0; self.patterns.len()];
        for i in 0..3 {
            let idx = self.by_width[i].clone();
            for (&j, &w) in idx.iter().zip(self.width(c, i)) {
                out[j] = w;
            }
        }
        out
    }
}

/// Wavefronts of every pattern on a given machine (a preset to compare with).
pub fn predict_hardware(hw: &Hardware, patterns: &[Pattern]) -> Vec<f64> {
    let mut model = BankModel::new(hw);
    patterns.iter().map(|p| wavefronts(&mut model, p)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lane_sets_are_phases() {
        assert_eq!(LaneSet::consecutive(8).0, 0xff);
        assert!(LaneSet::consecutive(8).is_consecutive());
        assert_eq!(LaneSet::span(&[1, 2, 4]), LaneSet::consecutive(8));
        let cdna3 = LaneSet::span(&[1, 2, 20]);
        assert_eq!(cdna3.lanes(), 8);
        assert!(!cdna3.is_consecutive());
        assert_eq!(cdna3.groups(64)[0], vec![0, 1, 2, 3, 20, 21, 22, 23]);
        assert_eq!(cdna3.groups(64)[1], vec![4, 5, 6, 7, 16, 17, 18, 19]);
        assert_eq!(cdna3.basis(), vec![1, 2, 20]);
        // subspaces of GF(2)^5: 31 of dimension 1, 155 of dimension 2 and 3
        assert_eq!(LaneSet::all(32, 2).len(), 31);
        assert_eq!(LaneSet::all(32, 4).len(), 155);
        assert_eq!(LaneSet::all(32, 8).len(), 155);
        assert_eq!(LaneSet::all(32, 32), vec![LaneSet::consecutive(32)]);
    }

    #[test]
    fn a_candidate_is_valid_hardware_and_reads_back_its_lanes() {
        let c = Candidate {
            warp: 64,
            banks: 32,
            bank_bytes: 4,
            broadcast: SameWord::Multicast,
            merge: vec![],
            lanes: [LaneSet::consecutive(32), LaneSet::consecutive(16), LaneSet::span(&[1, 2, 20])],
        };
        let hw = c.hardware("x", None, 65536);
        hw.validate().unwrap();
        assert_eq!((hw.phase_lanes(4), hw.phase_lanes(8), hw.phase_lanes(16)), (32, 16, 8));
        let g = hw.crossbar.groups_for(Op::Load, 16).unwrap();
        assert_eq!(g.len(), 8);
        let h100 = configs::preset("h100").unwrap();
        let hw = c.hardware("x", Some(&h100), 0);
        assert_eq!((hw.smem_per_sm, hw.timing.is_some()), (h100.smem_per_sm, true));
        hw.validate().unwrap();
    }
}
