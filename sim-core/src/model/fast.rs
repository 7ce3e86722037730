//! The fast path of `BankModel::evaluate`: its plan per op and
//! width, the choice of scalar, AVX2 or AVX-512 build, the common cases taken whole, and
//! the closed form of affine requests given by a lane mask.

use super::closed_form::affine_phases;
use super::counter::WordCounter;
use super::general::ideal_phases;
use super::pair_merge::pairs_merge;
use super::phase::{phases, Units, Words};
#[cfg(target_arch = "x86_64")]
use super::simd::units_simd;
use super::simd::{avx512_available, conflict_kernel, simd_available};
#[cfg(target_arch = "x86_64")]
use super::{avx2, avx512};
use crate::hardware::{Hardware, OpRule, SameWord};
use crate::mapping::BankMapping;
use crate::masked::LANE_NUMBERS;
use crate::op::{Op, WIDTHS};
use crate::request::{Outcome, WarpRequest};

/// Scratch and tables of the fast path (see `BankModel::evaluate`).
///
/// It applies to hardware with at most 64 banks of one port each and the `Multicast` and
/// `Serialize` rules; `OneBroadcastWord`, larger bank counts and banks of several ports
/// take the general path. Phases are consecutive lanes; explicit lane groups (CDNA 3's
/// b128 loads) are served by gathering a request's lanes into group order first (see
/// [`GroupOrder`]), so that each group is a phase of consecutive positions. Each phase is
/// counted by a [`WordCounter`], which clears nothing between phases. Results are
/// identical to the general path (`sim-core/tests/fast_path.rs` checks it on random
/// requests and hardware).
#[derive(Clone, Debug)]
pub(super) struct Fast {
    /// Bank function.
    banks: FastBanks,
    /// log2(bank_bytes).
    word_shift: u32,
    /// What to do with a request, by op and width in bytes.
    plans: [[Plan; 17]; Op::COUNT],
    /// The lane orders of the plans that gather ([`Plan::Fast`]'s `gather`).
    orders: Vec<GroupOrder>,
    /// The per-phase count's scratch.
    counter: WordCounter,
    /// Whether [`avx2::units`] may run (the CPU has AVX2).
    avx2: bool,
    /// Whether [`avx512::units`] may run (the CPU has AVX-512 and GFNI; only with `avx2`).
    avx512: bool,
    /// Whether [`avx512::units`] finds a multicast phase's repeated keys by conflict
    /// detection (only with `avx512`, where [`avx512::conflict_is_fast`]).
    conflict: bool,
}

/// What the fast path does with requests of one op and width.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Plan {
    /// Nothing to count (a barrier).
    Nothing,
    /// The general path (the `OneBroadcastWord` rule, an unsupported width).
    General,
    /// Phases of `1 << shift` lanes, doubled where `merge` is set and the lanes pair up;
    /// lanes on one word served together (multicast) or one by one (`serialize`); the
    /// ideal counts phases of `1 << ideal` lanes (`shift` but for a tensor-core op whose
    /// rule has phases of its own). With `gather`, the crossbar's explicit lane groups:
    /// the lanes are first put in the group order `orders[gather]`, whose groups are
    /// phases of `1 << shift` positions (`merge` is then unset and `ideal` is `shift`).
    Fast { shift: u8, merge: bool, serialize: bool, ideal: u8, gather: Option<u8> },
}

/// Explicit lane groups as phases of consecutive positions: lane `l` of the warp goes
/// to position `pos[l]`, the `i`-th lane (within the warp) of the `k`-th non-empty group
/// to `k * 2^shift + i`, where `2^shift` is the largest group's lane count rounded up to
/// a power of two. A phase of the fast path is then exactly one group (padded positions
/// hold no lane), and a phase's cost does not depend on the order of its lanes, so the
/// outcome is the general path's.
#[derive(Clone, Debug, PartialEq, Eq)]
struct GroupOrder {
    shift: u8,
    pos: [u8; 64],
    /// The warp size where every group has `2^shift` lanes of the warp (then a full
    /// warp's positions are exactly `0..warp`), else 0.
    full: usize,
    /// The largest power of two `b` (at most 16) for which every aligned block of `b`
    /// lanes goes to an aligned block of `b` positions in lane order (4 for CDNA 3's
    /// groups): a full warp is gathered block by block.
    block: usize,
}

impl GroupOrder {
    /// The order of `groups` on a warp of `warp` lanes (each lane below `warp` in exactly
    /// one group, as validated); `None` where the positions would pass 64.
    fn new(groups: &[Vec<u16>], warp: u32) -> Option<GroupOrder> {
        let in_warp = |g: &Vec<u16>| g.iter().filter(|&&l| (l as u32) < warp).count();
        let size = groups.iter().map(in_warp).max()?.max(1).next_power_of_two();
        let mut pos = [u8::MAX; 64];
        let mut next = 0;
        let even = groups.iter().all(|g| in_warp(g) == 0 || in_warp(g) == size);
        for g in groups.iter().filter(|g| in_warp(g) > 0) {
            for (i, &l) in g.iter().filter(|&&l| (l as u32) < warp).enumerate() {
                *pos.get_mut(l as usize)? = (next + i).min(255) as u8;
            }
            next += size;
        }
        let full = if even { next } else { 0 };
        let w = (warp as usize).min(64);
        let moves_whole = |b: usize| {
            (0..w).all(|l| pos[l] as usize % b == l % b && (l % b == 0 || pos[l] == pos[l - 1] + 1))
        };
        let block = [16, 8, 4, 2].into_iter().find(|&b| b <= w && moves_whole(b)).unwrap_or(1);
        (next <= 64).then_some(GroupOrder { shift: size.trailing_zeros() as u8, pos, full, block })
    }
}

/// How the fast path computes a word's bank.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum FastBanks {
    /// `Linear` mapping, power-of-two bank count: `bank = word & mask`.
    LinearPow2 { mask: u32, banks_log2: u32 },
    /// `Xor` mapping, power-of-two bank count: `(word & mask) ^ ((word >> shift) & xor)`
    /// (already below the bank count, so the final `mod banks` is the identity).
    XorPow2 { mask: u32, shift: u32, xor: u32 },
    /// Anything else: [`BankMapping::bank`].
    Other { mapping: BankMapping, banks: u32 },
}

impl Fast {
    /// The fast path of `hw`; `None` where it does not apply.
    pub(super) fn new(hw: &Hardware) -> Option<Box<Fast>> {
        if hw.banks > 64
            || !hw.bank_bytes.is_power_of_two()
            || !hw.warp.is_power_of_two()
            || hw.crossbar.ports != 1
        {
            return None;
        }
        let n = hw.banks;
        let banks = match hw.mapping {
            BankMapping::Linear if n.is_power_of_two() => {
                FastBanks::LinearPow2 { mask: n - 1, banks_log2: n.trailing_zeros() }
            }
            BankMapping::Xor { shift, mask } if n.is_power_of_two() && shift < 32 && mask < n => {
                FastBanks::XorPow2 { mask: n - 1, shift, xor: mask }
            }
            mapping => FastBanks::Other { mapping, banks: n },
        };
        let mut plans = [[Plan::General; 17]; Op::COUNT];
        let mut orders: Vec<GroupOrder> = Vec::new();
        plans[Op::Barrier as usize] = [Plan::Nothing; 17];
        for op in Op::ALL.into_iter().filter(|op| op.is_memory()) {
            let own = match hw.op_rule(op) {
                Some(OpRule::Bypass) => {
                    plans[op as usize] = [Plan::Nothing; 17];
                    continue;
                }
                Some(OpRule::Phases { lanes, .. }) => Some(lanes.map(|l| l.min(hw.warp))),
                Some(OpRule::Crossbar) | None => None,
            };
            let serialize = match hw.same_word(op) {
                SameWord::Multicast => false,
                SameWord::Serialize => true,
                SameWord::OneBroadcastWord => continue,
            };
            for w in WIDTHS {
                if let Some(groups) =
                    hw.crossbar.groups_for(Hardware::served_as(op), w).filter(|_| own.is_none())
                {
                    // explicit lane groups: gathered into group order (else the general path)
                    let Some(order) = GroupOrder::new(groups, hw.warp) else { continue };
                    let shift = order.shift;
                    let gather = match orders.iter().position(|o| *o == order) {
                        Some(i) => i,
                        None => {
                            orders.push(order);
                            orders.len() - 1
                        }
                    };
                    let gather = Some(gather as u8);
                    plans[op as usize][w as usize] =
                        Plan::Fast { shift, merge: false, serialize, ideal: shift, gather };
                    continue;
                }
                let ideal = hw.phase_lanes(w);
                let lanes = own.flatten().unwrap_or(ideal);
                if !lanes.is_power_of_two() || !ideal.is_power_of_two() {
                    return None;
                }
                let merge = op == Op::Load
                    && lanes < hw.warp
                    && hw.crossbar.load_pair_merge.as_ref().is_some_and(|pm| pm.widths.contains(&w));
                plans[op as usize][w as usize] = Plan::Fast {
                    shift: lanes.trailing_zeros() as u8,
                    merge,
                    serialize,
                    ideal: ideal.trailing_zeros() as u8,
                    gather: None,
                };
            }
        }
        Some(Box::new(Fast {
            banks,
            word_shift: hw.bank_bytes.trailing_zeros(),
            plans,
            orders,
            counter: WordCounter::new(hw.warp, hw.bank_bytes),
            avx2: simd_available(),
            // (`avx512::available` includes the AVX2 check)
            avx512: avx512_available(),
            conflict: conflict_kernel(),
        }))
    }

    /// Turns off the kernels not allowed (a kernel the CPU lacks stays off).
    pub(super) fn limit_kernels(&mut self, avx2: bool, avx512: bool, conflict: bool) {
        self.avx2 &= avx2;
        self.avx512 &= avx512;
        self.conflict &= conflict;
    }

    /// The fast path of `BankModel::evaluate`; `None` where it does not apply.
    #[inline]
    pub(super) fn evaluate(
        &mut self,
        hw: &Hardware,
        dense: &mut [u32],
        req: &WarpRequest<'_>,
    ) -> Option<Outcome> {
        #[cfg(target_arch = "x86_64")]
        if self.avx512 {
            // SAFETY: `self.avx512` is set only where `avx512::available()`.
            return unsafe { self.evaluate_avx512(hw, dense, req) };
        }
        #[cfg(target_arch = "x86_64")]
        if self.avx2 {
            // SAFETY: `self.avx2` is set only where `avx2::available()`.
            return unsafe { self.evaluate_avx2(hw, dense, req) };
        }
        self.evaluate_scalar(hw, dense, req)
    }

    /// Both 32-lane warps of a full 64-lane slice (`addrs`: lanes 0..32, then 32..64)
    /// where each is one phase of the fast path's common case (a linear power-of-two
    /// mapping, phases of 32 lanes, no pair merge, at most 32 groups of banks), by
    /// [`avx512::units_pair`]: the wavefronts of each. `None` where that does not apply
    /// or the kernel leaves it to the warps one by one.
    #[inline]
    pub(super) fn pair(&self, op: Op, bytes: u8, addrs: &[u32]) -> Option<(u32, u32)> {
        #[cfg(target_arch = "x86_64")]
        if self.avx512 {
            let plan = self.plan(op, bytes);
            let (
                Plan::Fast { shift: 5, merge: false, serialize, ideal: 5, gather: None },
                FastBanks::LinearPow2 { mask, banks_log2 },
            ) = (plan, self.banks)
            else {
                return None;
            };
            let addrs: &[u32; 64] = addrs.try_into().ok()?;
            let bytes = bytes as u32;
            let (unit_shift, span) = self.unit(bytes);
            let gmask = mask >> span;
            if span > banks_log2 || gmask >= 32 {
                return None;
            }
            // SAFETY: `self.avx512` is set only where `avx512::available()`.
            return unsafe {
                avx512::units_pair(addrs, bytes - 1, unit_shift, gmask, serialize, self.conflict)
            };
        }
        let _ = (op, bytes, addrs);
        None
    }

    /// [`Self::evaluate_with`] compiled for AVX-512 as well, so that [`avx512::units`] is
    /// inlined into it.
    ///
    /// # Safety
    /// The CPU must have what [`avx512::available`] checks.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512bitalg,avx512cd,gfni,avx2,popcnt")]
    unsafe fn evaluate_avx512(
        &mut self,
        hw: &Hardware,
        dense: &mut [u32],
        req: &WarpRequest<'_>,
    ) -> Option<Outcome> {
        self.evaluate_with::<true>(hw, dense, req)
    }

    /// [`Self::evaluate_with`] without SIMD kernels (out of line, so that
    /// `BankModel::evaluate` stays small enough to be inlined into a caller's loop).
    #[inline(never)]
    fn evaluate_scalar(
        &mut self,
        hw: &Hardware,
        dense: &mut [u32],
        req: &WarpRequest<'_>,
    ) -> Option<Outcome> {
        self.evaluate_with::<false>(hw, dense, req)
    }

    /// [`Self::evaluate_with`] compiled for AVX2, with the SIMD kernels inlined.
    ///
    /// # Safety
    /// The CPU must have AVX2 and POPCNT ([`avx2::available`]).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,popcnt")]
    unsafe fn evaluate_avx2(
        &mut self,
        hw: &Hardware,
        dense: &mut [u32],
        req: &WarpRequest<'_>,
    ) -> Option<Outcome> {
        self.evaluate_with::<true>(hw, dense, req)
    }

    /// The fast path, with the SIMD kernels where `SIMD` (which only
    /// [`Self::evaluate_avx2`] and [`Self::evaluate_avx512`] set).
    #[inline(always)]
    fn evaluate_with<const SIMD: bool>(
        &mut self,
        hw: &Hardware,
        dense: &mut [u32],
        req: &WarpRequest<'_>,
    ) -> Option<Outcome> {
        debug_assert_eq!(req.lanes.len(), req.addrs.len());
        let plan = self.plan(req.op, req.bytes);
        let Plan::Fast { shift, merge, serialize, ideal, gather } = plan else {
            return (plan == Plan::Nothing).then(Outcome::default);
        };
        if let Some(g) = gather {
            return self.evaluate_gathered::<SIMD>(hw, dense, req, g, shift, serialize);
        }
        let mut out = self.evaluate_phases::<SIMD>(hw, dense, req, shift, merge, serialize)?;
        if ideal != shift && !req.lanes.is_empty() {
            out.ideal = ideal_phases(req.lanes, 1 << ideal);
        }
        Some(out)
    }

    /// [`Self::evaluate_with`] for explicit lane groups: the request's lanes put in the
    /// group order `orders[g]` (a position per lane, the addresses moved with them), then
    /// evaluated in phases of `1 << shift` positions, one group each.
    #[inline(always)]
    fn evaluate_gathered<const SIMD: bool>(
        &mut self,
        hw: &Hardware,
        dense: &mut [u32],
        req: &WarpRequest<'_>,
        g: u8,
        shift: u8,
        serialize: bool,
    ) -> Option<Outcome> {
        let GroupOrder { ref pos, full, block, .. } = self.orders[g as usize];
        let n = req.lanes.len();
        let (mut lanes, mut addrs) = ([0u16; 64], [0u32; 64]);
        if n == full {
            // a full warp: positions 0..n, the addresses moved block by block
            let src = req.addrs;
            match block {
                16 => gather_blocks::<16>(pos, src, &mut addrs),
                8 => gather_blocks::<8>(pos, src, &mut addrs),
                4 => gather_blocks::<4>(pos, src, &mut addrs),
                2 => gather_blocks::<2>(pos, src, &mut addrs),
                _ => gather_blocks::<1>(pos, src, &mut addrs),
            }
            let req =
                WarpRequest { op: req.op, bytes: req.bytes, lanes: &LANE_NUMBERS[..n], addrs: &addrs[..n] };
            return self.evaluate_phases::<SIMD>(hw, dense, &req, shift, false, serialize);
        }
        // each active lane's address at its position, and the positions held
        let mut at = [0u32; 64];
        let mut held = 0u64;
        for (&l, &a) in req.lanes.iter().zip(req.addrs) {
            // (a lane below the warp has a position below 64)
            let p = pos[l as usize & 63] & 63;
            at[p as usize] = a;
            held |= 1 << p;
        }
        let mut n = 0;
        while held != 0 {
            let p = held.trailing_zeros() as usize;
            held &= held - 1;
            lanes[n] = p as u16;
            addrs[n] = at[p];
            n += 1;
        }
        let req = WarpRequest { op: req.op, bytes: req.bytes, lanes: &lanes[..n], addrs: &addrs[..n] };
        self.evaluate_phases::<SIMD>(hw, dense, &req, shift, false, serialize)
    }

    /// [`Self::evaluate_with`] in phases of `1 << shift` lanes (see [`Plan::Fast`]).
    #[inline(always)]
    fn evaluate_phases<const SIMD: bool>(
        &mut self,
        hw: &Hardware,
        dense: &mut [u32],
        req: &WarpRequest<'_>,
        shift: u8,
        merge: bool,
        serialize: bool,
    ) -> Option<Outcome> {
        let (lanes, addrs) = (req.lanes, req.addrs);
        if lanes.is_empty() {
            return Some(Outcome::default());
        }
        let mut shift = shift as u32;
        if merge && Self::pairs_merge::<SIMD>(hw, dense, req) {
            shift += 1;
        }
        let bytes = req.bytes as u32;
        let ws = self.word_shift;
        #[cfg(target_arch = "x86_64")]
        if SIMD {
            // the common case on its own, ahead of the phase loop: all lanes in one phase
            if let FastBanks::LinearPow2 { mask, banks_log2 } = self.banks {
                let n = lanes.len();
                let (unit_shift, span) = self.unit(bytes);
                let gmask = mask >> span;
                if span <= banks_log2 && gmask < 64 && n <= 32 && lanes[0] >> shift == lanes[n - 1] >> shift {
                    let (a, s) = (bytes - 1, serialize);
                    // SAFETY: `SIMD` is set only in `evaluate_avx2` and `evaluate_avx512`.
                    let w = unsafe { units_simd(self.avx512, self.conflict, addrs, a, unit_shift, gmask, s) };
                    if let Some(w) = w {
                        return Some(Outcome { wavefronts: w, ideal: 1 });
                    }
                } else if span <= banks_log2
                    && gmask < 32
                    && (n == 32 || n == 64)
                    && lanes[n - 1] as usize == n - 1
                    && (shift == 3 || shift == 4)
                    // SAFETY: `SIMD` is set only in `evaluate_avx2` and `evaluate_avx512`; 32
                    // lanes each (a condition, not `all`: a closure would not be compiled for AVX2).
                    && unsafe {
                        avx2::conflict_free_32(&addrs[..32], bytes - 1, unit_shift, gmask, shift, serialize)
                            && (n == 32
                                || avx2::conflict_free_32(&addrs[32..], bytes - 1, unit_shift, gmask, shift, serialize))
                    }
                {
                    // a full warp of 32 or 64 lanes in phases of 8 or 16, each conflict-free
                    let w = n as u32 >> shift;
                    return Some(Outcome { wavefronts: w, ideal: w });
                }
            }
        }
        Some(match self.banks {
            FastBanks::LinearPow2 { mask, banks_log2 } => {
                // Accesses aligned to their width: a lane's words are one whole "unit" of
                // 2^span banks, so distinct words per bank = distinct units per group of
                // banks, and a lane is one entry (key = unit, bank = group).
                let (unit_shift, span) = self.unit(bytes);
                // (the SIMD kernel checks the alignment itself, phase by phase)
                let aligned = || addrs.iter().fold(0, |m, &a| m | a) & (bytes - 1) == 0;
                if span <= banks_log2 && (SIMD || aligned()) {
                    let gmask = mask >> span;
                    let align = bytes - 1;
                    let mut cost = Units::<SIMD> {
                        counter: &mut self.counter,
                        avx512: self.avx512,
                        conflict: self.conflict,
                        word_shift: ws,
                        align,
                        bank_mask: mask,
                        unit_shift,
                        gmask,
                        serialize,
                    };
                    phases(lanes, addrs, shift, &mut cost)
                } else {
                    let counter = &mut self.counter;
                    let mut cost = Words { counter, bytes, word_shift: ws, serialize, bank: |w| w & mask };
                    phases(lanes, addrs, shift, &mut cost)
                }
            }
            FastBanks::XorPow2 { mask, shift: xs, xor } => {
                let bank = |w| (w & mask) ^ ((w >> xs) & xor);
                let counter = &mut self.counter;
                phases(lanes, addrs, shift, &mut Words { counter, bytes, word_shift: ws, serialize, bank })
            }
            FastBanks::Other { mapping, banks } => {
                let bank = |w| mapping.bank(w, banks);
                let counter = &mut self.counter;
                phases(lanes, addrs, shift, &mut Words { counter, bytes, word_shift: ws, serialize, bank })
            }
        })
    }

    /// The closed form of an affine request given by its lane mask (lane `l` at `first +
    /// stride × (l − lowest lane)`, no wrap-around), where it applies: a linear
    /// power-of-two mapping, no pair merge, every access aligned and the stride a whole
    /// number of units (so each lane is one entry, key `addr >> unit_shift`). Keys are
    /// then `k0 + d·(l − l0)`: with `d = 0` one key per phase (multicast 1, serialize
    /// every lane); otherwise distinct keys, and two lanes share a bank group exactly when
    /// their lane numbers are congruent modulo `P = G / gcd(d, G)` (`G` groups), so a
    /// phase costs its largest count of lanes in one residue class mod `P`. The same
    /// reasoning as `progression`, for any mask. `None`: evaluate it lane by lane.
    #[inline]
    pub(super) fn affine(&self, op: Op, bytes: u8, mask: u64, first: u32, stride: i64) -> Option<Outcome> {
        #[cfg(target_arch = "x86_64")]
        if self.avx2 {
            // SAFETY: `self.avx2` is set only where the CPU has AVX2 and POPCNT.
            return unsafe { self.affine_popcnt(op, bytes, mask, first, stride) };
        }
        self.affine_with(op, bytes, mask, first, stride)
    }

    /// [`Self::affine_with`] with the POPCNT instruction (its counts are most of it).
    ///
    /// # Safety
    /// The CPU must have POPCNT.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "popcnt")]
    unsafe fn affine_popcnt(&self, op: Op, bytes: u8, mask: u64, first: u32, stride: i64) -> Option<Outcome> {
        self.affine_with(op, bytes, mask, first, stride)
    }

    /// See [`Self::affine`].
    #[inline(always)]
    fn affine_with(&self, op: Op, bytes: u8, mask: u64, first: u32, stride: i64) -> Option<Outcome> {
        let plan = self.plan(op, bytes);
        let Plan::Fast { shift, merge: false, serialize, ideal, gather: None } = plan else {
            return (plan == Plan::Nothing).then(Outcome::default);
        };
        let FastBanks::LinearPow2 { banks_log2, .. } = self.banks else { return None };
        let (unit_shift, span) = self.unit(bytes as u32);
        if span > banks_log2 || first & (bytes as u32 - 1) != 0 || stride & ((1 << unit_shift) - 1) != 0 {
            return None;
        }
        let d = stride >> unit_shift;
        let mut out = affine_phases(mask, shift as u32, serialize, d, banks_log2 - span);
        if ideal != shift {
            out.ideal = mask_phases(mask, ideal as u32);
        }
        Some(out)
    }

    /// The plan for requests of `op` and `bytes` ([`Plan::General`] for a width it has
    /// none for).
    #[inline(always)]
    fn plan(&self, op: Op, bytes: u8) -> Plan {
        self.plans[op as usize].get(bytes as usize).copied().unwrap_or(Plan::General)
    }

    /// `(unit_shift, span)` of `bytes`-byte accesses: log2 of the "unit" a lane's words
    /// make (its width, at least a bank word) and log2 of the banks a unit spans.
    #[inline(always)]
    fn unit(&self, bytes: u32) -> (u32, u32) {
        let unit_shift = bytes.trailing_zeros().max(self.word_shift);
        (unit_shift, unit_shift - self.word_shift)
    }

    /// [`pairs_merge`], with a SIMD kernel for a full warp of 32 lanes where `SIMD`.
    #[inline(always)]
    fn pairs_merge<const SIMD: bool>(hw: &Hardware, dense: &mut [u32], req: &WarpRequest<'_>) -> bool {
        #[cfg(target_arch = "x86_64")]
        if SIMD && req.lanes.len() == 32 && hw.warp == 32 {
            // (the plan's `merge` says that the rule covers this width)
            let Some(pm) = &hw.crossbar.load_pair_merge else { return false };
            // a loop, not `any`: a closure would not be compiled for AVX2
            for &m in &pm.masks {
                // SAFETY: `SIMD` is set only in the AVX2 and AVX-512 builds; 32 lanes; every mask is
                // below the warp size (validated).
                if unsafe { avx2::pairs_equal(req.addrs, m) } {
                    return true;
                }
            }
            return false;
        }
        pairs_merge(hw, dense, req)
    }
}

/// A full warp's addresses `src` (lane `l`'s at `l`) to their positions in `dst`, in
/// blocks of `B` lanes that move whole (see `GroupOrder::block`).
#[inline(always)]
fn gather_blocks<const B: usize>(pos: &[u8; 64], src: &[u32], dst: &mut [u32; 64]) {
    for (i, lanes) in src.chunks_exact(B).enumerate() {
        let p = pos[(i * B) & 63] as usize & (64 - B);
        dst[p..p + B].copy_from_slice(lanes);
    }
}

/// Phases of `1 << shift` lanes that hold a lane of `mask`: the ideal of an affine
/// request whose rule has phases of its own.
#[inline(always)]
fn mask_phases(mask: u64, shift: u32) -> u32 {
    let size = 1u32 << shift;
    if size >= 64 {
        return (mask != 0) as u32;
    }
    let phase = u64::MAX >> (64 - size);
    (0..64 / size).filter(|&p| mask >> (p * size) & phase != 0).count() as u32
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crossbar::LaneGroups;
    use crate::presets_for_tests::h100_like;

    /// CDNA 3's documented b128 load groups (lanes 0-3 with 20-23, ...).
    fn cdna3_groups() -> Vec<Vec<u16>> {
        let firsts = [[0u16, 20], [4, 16], [8, 28], [12, 24]];
        (0..2u16)
            .flat_map(|half| firsts.map(|[a, b]| (a..a + 4).chain(b..b + 4).map(|l| l + 32 * half).collect()))
            .collect()
    }

    fn grouped(warp: u32, groups: Vec<Vec<u16>>) -> Hardware {
        let mut hw = h100_like();
        hw.warp = warp;
        hw.crossbar.load_pair_merge = None;
        hw.crossbar.groups = vec![LaneGroups { ops: vec![Op::Load], bytes: 16, groups }];
        hw.validate().expect("valid");
        hw
    }

    /// Explicit lane groups take the fast path, gathered: groups of 8 as phases of 8
    /// positions, on wave64 and on wave32 (the groups' lower halves).
    #[test]
    fn lane_groups_are_gathered() {
        for warp in [64, 32] {
            let fast = Fast::new(&grouped(warp, cdna3_groups())).expect("fast path");
            let Plan::Fast { shift: 3, merge: false, ideal: 3, gather: Some(g), .. } =
                fast.plan(Op::Load, 16)
            else {
                panic!("{:?}", fast.plan(Op::Load, 16));
            };
            assert_eq!(fast.orders[g as usize].block, 4);
            let pos = &fast.orders[g as usize].pos;
            // lanes 0-3 and 20-23 are the first group, lanes 4-7 and 16-19 the second
            assert_eq!(pos[..8], [0, 1, 2, 3, 8, 9, 10, 11]);
            assert_eq!(pos[16..24], [12, 13, 14, 15, 4, 5, 6, 7]);
            // stores keep their consecutive phases
            assert!(matches!(fast.plan(Op::Store, 16), Plan::Fast { gather: None, .. }));
        }
    }

    /// Groups whose padded positions pass 64 are left to the general path.
    #[test]
    fn uneven_lane_groups_past_64_positions_take_the_general_path() {
        // one group of 33 lanes (64 positions) and 31 groups of one: 95 positions
        let mut groups = vec![(0..33).collect::<Vec<u16>>()];
        groups.extend((33..64).map(|l| vec![l]));
        let fast = Fast::new(&grouped(64, groups)).expect("fast path");
        assert_eq!(fast.plan(Op::Load, 16), Plan::General);
        // two groups of 33 and 31 lanes: 128 positions too
        let fast = Fast::new(&grouped(64, vec![(0..33).collect(), (33..64).collect()])).expect("fast path");
        assert_eq!(fast.plan(Op::Load, 16), Plan::General);
        // 32 and 32: 64 positions, gathered
        let fast = Fast::new(&grouped(64, vec![(0..64).step_by(2).collect(), (1..64).step_by(2).collect()]))
            .expect("fast path");
        assert!(matches!(fast.plan(Op::Load, 16), Plan::Fast { shift: 5, gather: Some(_), .. }));
    }
}
