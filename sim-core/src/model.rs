//! The bank model: one warp request in, wavefronts out.
//!
//! ```text
//!  lanes  0  1  2  3 ...        phase splitting: lanes per phase by width
//!         |  |  |  |            (H100: 32 lanes for <= 4 B, 16 for 8 B, 8 for 16 B;
//!         v  v  v  v             doubled for loads whose lanes pair up)
//!  words  addr / bank_bytes     a lane touches ceil(bytes / bank_bytes) words
//!  banks  mapping(word)         linear or XOR swizzle
//!  cost   per phase: the busiest bank's number of distinct words (multicast),
//!         lanes (serialize), or the CC 1.x broadcast-word schedule
//! ```
//! A request's wavefronts are the sum over its phases; its ideal is the number of
//! phases with an active lane; conflicts = max(0, wavefronts - ideal).

use crate::hardware::{Hardware, SameWord};
use crate::mapping::BankMapping;
use crate::masked::Memo;
use crate::op::Op;
use crate::slice::SliceMemo;

/// One warp request: the active lanes of one warp at one step, all with the same op and
/// width. Lanes are ascending and unique; `addrs[i]` is the byte address of `lanes[i]`.
#[derive(Clone, Copy, Debug)]
pub struct WarpRequest<'a> {
    /// Operation.
    pub op: Op,
    /// Access width in bytes (1, 2, 4, 8 or 16).
    pub bytes: u8,
    /// Active lanes, ascending, each below the warp size.
    pub lanes: &'a [u16],
    /// Byte address of each active lane in shared memory.
    pub addrs: &'a [u32],
}

/// The cost of one warp request.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Wavefronts (bank-conflict-free passes) the request needs.
    pub wavefronts: u32,
    /// Wavefronts it would need without conflicts: its phases with an active lane.
    pub ideal: u32,
}

impl Outcome {
    /// Bank conflicts as Nsight Compute counts them: `max(0, wavefronts - ideal)`.
    pub fn conflicts(&self) -> u32 {
        self.wavefronts.saturating_sub(self.ideal)
    }
}

/// One lane's use of one bank in one wavefront: a cell of the bank × lane picture.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Cell {
    /// Wavefront index within the request (phases in order, wavefronts within a phase).
    pub wavefront: u32,
    /// Bank.
    pub bank: u32,
    /// Lane.
    pub lane: u16,
    /// Bank word (byte address / bank width).
    pub word: u32,
}

const NONE: u32 = u32::MAX;

/// Evaluates warp requests against one [`Hardware`]. Holds scratch space that is reused
/// from request to request, so the steady state allocates nothing.
#[derive(Clone, Debug)]
pub struct BankModel {
    pub(crate) hw: Hardware,
    /// Address per lane of the warp, `NONE` where inactive (pair-merge check).
    dense: Vec<u32>,
    /// (bank, word, lane) of every word touched in the current phase.
    entries: Vec<(u32, u32, u16)>,
    /// Per-bank counters.
    per_bank: Vec<u32>,
    /// Wavefront of each entry (picture only).
    slot: Vec<u32>,
    /// Distinct words seen per bank in the current phase (fast multicast count):
    /// `bank_words[bank * bank_cap ..][..per_bank[bank]]`.
    bank_words: Vec<u32>,
    bank_cap: usize,
    /// The fast path's tables and scratch; `None` where it does not apply.
    fast: Option<Box<Fast>>,
    /// Outcomes of affine requests ([`Self::evaluate_masked`]), made at the first one.
    pub(crate) memo: Memo,
    /// Outcomes of whole slices ([`Self::evaluate_slice`]), made at the first one.
    pub(crate) slices: SliceMemo,
}

/// Scratch and tables of the fast path (see [`BankModel::evaluate`]).
///
/// It applies to hardware with at most 64 banks and the `Multicast` and `Serialize`
/// rules; `OneBroadcastWord` and larger bank counts take the general path. Per phase it
/// keeps a bitmask of the banks used and, per bank, the number of distinct words
/// (multicast) or entries (serialize) and the first four distinct words; further
/// distinct words of a bank go to a small open-addressing set (emptied by bumping a
/// generation stamp). A bank's count and words are only read when its bit is set, so
/// nothing is cleared between phases. Results are identical to the general path
/// (`sim-core/tests/fast_path.rs` checks it on random requests and hardware).
#[derive(Clone, Debug)]
struct Fast {
    /// Bank function.
    banks: FastBanks,
    /// log2(bank_bytes).
    word_shift: u32,
    /// What to do with a request, by op and width in bytes.
    plans: [[Plan; 17]; 8],
    /// Distinct words (multicast) or entries (serialize) per bank in this phase.
    count: [u32; 64],
    /// The first four distinct words of each bank in this phase.
    slots: [[u32; SLOTS]; 64],
    /// Open-addressing set of words: `keys[h]` is in the set iff `stamps[h] == gen`.
    keys: Vec<u32>,
    stamps: Vec<u32>,
    gen: u32,
    /// `32 - log2(keys.len())`: the hash keeps the top bits of a multiplicative hash.
    hash_shift: u32,
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
    /// lanes on one word served together (multicast) or one by one (`serialize`).
    Fast { shift: u8, merge: bool, serialize: bool },
}

/// Distinct words per bank kept in [`Fast::slots`] before the set is used.
const SLOTS: usize = 4;

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
    fn new(hw: &Hardware) -> Option<Box<Fast>> {
        if hw.banks > 64 || !hw.bank_bytes.is_power_of_two() || !hw.warp.is_power_of_two() {
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
        let mut plans = [[Plan::General; 17]; 8];
        plans[Op::Barrier as usize] = [Plan::Nothing; 17];
        for op in Op::ALL.into_iter().filter(|op| op.is_memory()) {
            let serialize = match hw.same_word(op) {
                SameWord::Multicast => false,
                SameWord::Serialize => true,
                SameWord::OneBroadcastWord => continue,
            };
            for w in crate::op::WIDTHS {
                let lanes = hw.phase_lanes.lanes(w).min(hw.warp);
                if !lanes.is_power_of_two() {
                    return None;
                }
                let merge = op == Op::Load
                    && lanes < hw.warp
                    && hw.load_pair_merge.as_ref().is_some_and(|pm| pm.widths.contains(&w));
                plans[op as usize][w as usize] =
                    Plan::Fast { shift: lanes.trailing_zeros() as u8, merge, serialize };
            }
        }
        // Entries per phase are at most warp x words per lane; a 16-byte access at any
        // alignment touches at most 15 / bank_bytes + 2 words. The set is kept at most
        // half full.
        let max_entries = hw.warp as usize * (15 / hw.bank_bytes as usize + 2);
        let size = (2 * max_entries).next_power_of_two().max(64);
        Some(Box::new(Fast {
            banks,
            word_shift: hw.bank_bytes.trailing_zeros(),
            plans,
            count: [0; 64],
            slots: [[0; SLOTS]; 64],
            keys: vec![0; size],
            stamps: vec![0; size],
            gen: 1,
            hash_shift: 32 - size.trailing_zeros(),
            avx2: simd_available(),
            // (`avx512::available` includes the AVX2 check)
            avx512: avx512_available(),
            conflict: conflict_kernel(),
        }))
    }

    /// The fast path of [`BankModel::evaluate`]; `None` where it does not apply.
    #[inline]
    fn evaluate(&mut self, hw: &Hardware, dense: &mut [u32], req: &WarpRequest<'_>) -> Option<Outcome> {
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
    fn pair(&self, op: Op, bytes: u8, addrs: &[u32]) -> Option<(u32, u32)> {
        #[cfg(target_arch = "x86_64")]
        if self.avx512 {
            let plan = self.plans[op as usize & 7].get(bytes as usize).copied().unwrap_or(Plan::General);
            let (
                Plan::Fast { shift: 5, merge: false, serialize },
                FastBanks::LinearPow2 { mask, banks_log2 },
            ) = (plan, self.banks)
            else {
                return None;
            };
            let addrs: &[u32; 64] = addrs.try_into().ok()?;
            let bytes = bytes as u32;
            let unit_shift = bytes.trailing_zeros().max(self.word_shift);
            let span = unit_shift - self.word_shift;
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
    /// [`BankModel::evaluate`] stays small enough to be inlined into a caller's loop).
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
        let plan = self.plans[req.op as usize & 7].get(req.bytes as usize).copied().unwrap_or(Plan::General);
        let Plan::Fast { shift, merge, serialize } = plan else {
            return (plan == Plan::Nothing).then(Outcome::default);
        };
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
                let unit_shift = bytes.trailing_zeros().max(ws);
                let span = unit_shift - ws;
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
                    && n == 32
                    && lanes[31] == 31
                    && (shift == 3 || shift == 4)
                    // SAFETY: `SIMD` is set only in `evaluate_avx2` and `evaluate_avx512`; 32 lanes.
                    && unsafe { avx2::conflict_free_32(addrs, bytes - 1, unit_shift, gmask, shift, serialize) }
                {
                    // a full warp in phases of 8 or 16 lanes, each conflict-free
                    return Some(Outcome { wavefronts: 32 >> shift, ideal: 32 >> shift });
                }
            }
        }
        Some(match self.banks {
            FastBanks::LinearPow2 { mask, banks_log2 } => {
                // Accesses aligned to their width: a lane's words are one whole "unit" of
                // 2^span banks, so distinct words per bank = distinct units per group of
                // banks, and a lane is one entry (key = unit, bank = group).
                let unit_shift = bytes.trailing_zeros().max(ws);
                let span = unit_shift - ws;
                // (the SIMD kernel checks the alignment itself, phase by phase)
                let aligned = || addrs.iter().fold(0, |m, &a| m | a) & (bytes - 1) == 0;
                if span <= banks_log2 && (SIMD || aligned()) {
                    let gmask = mask >> span;
                    let align = bytes - 1;
                    let mut cost =
                        Units::<SIMD> { f: self, align, bank_mask: mask, unit_shift, gmask, serialize };
                    phases(lanes, addrs, shift, &mut cost)
                } else {
                    let mut cost = Words { f: self, bytes, word_shift: ws, serialize, bank: |w| w & mask };
                    phases(lanes, addrs, shift, &mut cost)
                }
            }
            FastBanks::XorPow2 { mask, shift: xs, xor } => {
                let bank = |w| (w & mask) ^ ((w >> xs) & xor);
                phases(lanes, addrs, shift, &mut Words { f: self, bytes, word_shift: ws, serialize, bank })
            }
            FastBanks::Other { mapping, banks } => {
                let bank = |w| mapping.bank(w, banks);
                phases(lanes, addrs, shift, &mut Words { f: self, bytes, word_shift: ws, serialize, bank })
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
    /// reasoning as [`progression`], for any mask. `None`: evaluate it lane by lane.
    #[inline]
    fn affine(&self, op: Op, bytes: u8, mask: u64, first: u32, stride: i64) -> Option<Outcome> {
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
        let plan = self.plans[op as usize & 7].get(bytes as usize).copied().unwrap_or(Plan::General);
        let Plan::Fast { shift, merge: false, serialize } = plan else {
            return (plan == Plan::Nothing).then(Outcome::default);
        };
        let FastBanks::LinearPow2 { banks_log2, .. } = self.banks else { return None };
        let unit_shift = (bytes as u32).trailing_zeros().max(self.word_shift);
        let span = unit_shift - self.word_shift;
        if span > banks_log2 || first & (bytes as u32 - 1) != 0 || stride & ((1 << unit_shift) - 1) != 0 {
            return None;
        }
        let d = stride >> unit_shift;
        let period_log2 = period_log2(d, banks_log2 - span);
        let mut out = Outcome::default();
        let mut left = mask;
        while left != 0 {
            // the active lanes of the next phase
            let phase = (left.trailing_zeros() >> shift) << shift;
            let in_phase = (u64::MAX >> (64 - (1u32 << shift))) << phase;
            let m = left & in_phase;
            left &= !in_phase;
            out.ideal += 1;
            out.wavefronts += if d == 0 {
                if serialize {
                    m.count_ones()
                } else {
                    1
                }
            } else {
                busiest_residue(m, period_log2)
            };
        }
        Some(out)
    }

    /// [`pairs_merge`], with a SIMD kernel for a full warp of 32 lanes where `SIMD`.
    #[inline(always)]
    fn pairs_merge<const SIMD: bool>(hw: &Hardware, dense: &mut [u32], req: &WarpRequest<'_>) -> bool {
        #[cfg(target_arch = "x86_64")]
        if SIMD && req.lanes.len() == 32 && hw.warp == 32 {
            // (the plan's `merge` says that the rule covers this width)
            let Some(pm) = &hw.load_pair_merge else { return false };
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

    /// The cost of one phase whose entries are the (bank, word) pairs of `entries`
    /// (banks below 64): the busiest bank's distinct words (multicast) or entries
    /// (serialize). At least one entry.
    #[inline(always)]
    fn count(&mut self, serialize: bool, entries: impl Iterator<Item = (u32, u32)>) -> u32 {
        let Fast { count, slots, keys, stamps, gen, hash_shift, .. } = self;
        let (gen_now, hash_shift) = (*gen, *hash_shift);
        let mut used = 0u64;
        let mut max = 0u32;
        let mut inserted = false;
        for (bank, word) in entries {
            debug_assert!(bank < 64);
            let b = bank as usize & 63;
            let bit = 1u64 << b;
            // Branch-free in the common case (random data would mispredict every branch):
            // the bank's count so far (0 when unused), whether the word is new among the
            // kept words, and an unconditional write of the word into the next slot.
            let c = if used & bit != 0 { count[b] } else { 0 };
            used |= bit;
            if c as usize >= SLOTS {
                // a bank with more than four distinct words (or entries) so far
                if !serialize {
                    if slots[b].contains(&word) {
                        continue;
                    }
                    inserted = true;
                    if !insert(keys, stamps, gen_now, hash_shift, word) {
                        continue;
                    }
                }
                count[b] = c + 1;
                max = max.max(c + 1);
                continue;
            }
            let new = if serialize {
                1
            } else {
                let s = &slots[b];
                let seen = (s[0] == word && c > 0)
                    | (s[1] == word && c > 1)
                    | (s[2] == word && c > 2)
                    | (s[3] == word && c > 3);
                1 - seen as u32
            };
            slots[b][c as usize & (SLOTS - 1)] = word;
            count[b] = c + new;
            max = max.max(c + new);
        }
        if inserted {
            self.clear_set();
        }
        max
    }

    /// Empties the set.
    #[inline]
    fn clear_set(&mut self) {
        self.gen = self.gen.wrapping_add(1);
        if self.gen == 0 {
            self.stamps.iter_mut().for_each(|s| *s = 0);
            self.gen = 1;
        }
    }
}

/// Whether this CPU runs the AVX-512 kernel (besides the AVX2 ones).
fn avx512_available() -> bool {
    #[cfg(target_arch = "x86_64")]
    return avx512::available();
    #[cfg(not(target_arch = "x86_64"))]
    return false;
}

/// Whether this CPU runs the AVX-512 kernel with conflict detection.
fn conflict_kernel() -> bool {
    #[cfg(target_arch = "x86_64")]
    return avx512::available() && avx512::conflict_is_fast();
    #[cfg(not(target_arch = "x86_64"))]
    return false;
}

/// Whether this CPU runs the SIMD kernels.
fn simd_available() -> bool {
    #[cfg(target_arch = "x86_64")]
    return avx2::available();
    #[cfg(not(target_arch = "x86_64"))]
    return false;
}

/// Inserts `word` into the open-addressing set `keys` (slot `h` is in the set iff
/// `stamps[h] == gen`); whether it was new. The set is never more than half full.
#[inline]
fn insert(keys: &mut [u32], stamps: &mut [u32], gen: u32, hash_shift: u32, word: u32) -> bool {
    let mask = keys.len() - 1;
    let mut h = (word.wrapping_mul(0x9E37_79B9) >> hash_shift) as usize;
    loop {
        if stamps[h] != gen {
            stamps[h] = gen;
            keys[h] = word;
            return true;
        }
        if keys[h] == word {
            return false;
        }
        h = (h + 1) & mask;
    }
}

impl BankModel {
    /// A model of `hw`. `hw` must have passed [`Hardware::validate`].
    pub fn new(hw: &Hardware) -> BankModel {
        debug_assert!(hw.validate().is_ok());
        BankModel {
            hw: hw.clone(),
            dense: vec![NONE; hw.warp as usize],
            entries: Vec::with_capacity(hw.warp as usize * 4),
            per_bank: vec![0; hw.banks as usize],
            slot: Vec::new(),
            bank_words: Vec::new(),
            bank_cap: 0,
            fast: Fast::new(hw),
            memo: Memo::new(hw),
            slices: SliceMemo::new(hw),
        }
    }

    /// The same model without the SIMD kernels (for tests that compare them with the
    /// scalar code).
    #[doc(hidden)]
    pub fn without_simd(self) -> BankModel {
        self.limit_kernels(false, false, false)
    }

    /// The same model without the AVX-512 kernel (the AVX2 ones where the CPU has them),
    /// for tests that compare the kernels.
    #[doc(hidden)]
    pub fn without_avx512(self) -> BankModel {
        self.limit_kernels(true, false, false)
    }

    /// The same model with the AVX-512 kernel (where the CPU has it) but without its
    /// conflict detection, for tests that compare the kernels.
    #[doc(hidden)]
    pub fn without_conflict_detection(self) -> BankModel {
        self.limit_kernels(true, true, false)
    }

    /// Turns off the kernels not allowed (a kernel the CPU lacks stays off).
    fn limit_kernels(mut self, avx2: bool, avx512: bool, conflict: bool) -> BankModel {
        if let Some(f) = &mut self.fast {
            f.avx2 &= avx2;
            f.avx512 &= avx512;
            f.conflict &= conflict;
        }
        self
    }

    /// [`Fast::affine`]: the closed form of an affine request given by its mask, where
    /// the fast path has one.
    #[inline]
    pub(crate) fn affine_closed_form(
        &self,
        op: Op,
        bytes: u8,
        mask: u64,
        first: u32,
        stride: i64,
    ) -> Option<Outcome> {
        self.fast.as_deref()?.affine(op, bytes, mask, first, stride)
    }

    /// [`Fast::pair`]: the two warp requests of a full 64-lane slice at warp 32, one
    /// 32-lane phase each, by the AVX-512 kernel that takes both at once; `None` where it
    /// does not apply or does not decide.
    /// (Public for the tests that check the kernel itself.)
    #[doc(hidden)]
    #[inline]
    pub fn full_slice_pair(&self, op: Op, bytes: u8, addrs: &[u32]) -> Option<(u32, u32)> {
        if self.hw.warp != 32 {
            return None;
        }
        self.fast.as_deref()?.pair(op, bytes, addrs)
    }

    /// The hardware this model evaluates.
    pub fn hardware(&self) -> &Hardware {
        &self.hw
    }

    /// Lanes per phase for `req`, after the load pair-merge rule.
    pub fn phase_lanes(&mut self, req: &WarpRequest<'_>) -> u32 {
        let base = self.hw.phase_lanes.lanes(req.bytes).min(self.hw.warp);
        if req.op == Op::Load && base < self.hw.warp && pairs_merge(&self.hw, &mut self.dense, req) {
            (base * 2).min(self.hw.warp)
        } else {
            base
        }
    }

    /// Wavefronts and ideal wavefronts of one request. Barriers cost nothing.
    ///
    /// Hardware with at most 64 banks and the `Multicast` or `Serialize` rule takes an
    /// allocation-free fast path (a bitmask of the banks used and a word per bank; aligned
    /// accesses on a linear power-of-two mapping count one key per lane); everything
    /// else, and [`Self::picture`], takes the general path. Both give the same results.
    #[inline]
    pub fn evaluate(&mut self, req: &WarpRequest<'_>) -> Outcome {
        if let Some(fast) = self.fast.as_deref_mut() {
            if let Some(out) = fast.evaluate(&self.hw, &mut self.dense, req) {
                return out;
            }
        }
        self.evaluate_general(req)
    }

    /// [`Self::evaluate`] on the general path only (for tests that compare the paths).
    #[doc(hidden)]
    #[inline(never)]
    pub fn evaluate_general(&mut self, req: &WarpRequest<'_>) -> Outcome {
        self.run_with(req, None)
    }

    /// The bank × lane picture of a request: which lane uses which bank in which
    /// wavefront, sorted by (wavefront, bank, lane).
    pub fn picture(&mut self, req: &WarpRequest<'_>) -> (Outcome, Vec<Cell>) {
        let mut cells = Vec::new();
        let outcome = self.run_with(req, Some(&mut cells));
        cells.sort_unstable();
        (outcome, cells)
    }

    fn run_with(&mut self, req: &WarpRequest<'_>, mut cells: Option<&mut Vec<Cell>>) -> Outcome {
        debug_assert_eq!(req.lanes.len(), req.addrs.len());
        if req.op.is_global() {
            return global_lines(req.addrs);
        }
        if !req.op.is_memory() || req.lanes.is_empty() {
            return Outcome::default();
        }
        // phase sizes are powers of two (validated)
        let phase_shift = self.phase_lanes(req).trailing_zeros();
        let rule = self.hw.same_word(req.op);
        let mut out = Outcome::default();
        let mut start = 0;
        while start < req.lanes.len() {
            let p = req.lanes[start] >> phase_shift;
            let mut end = start + 1;
            while end < req.lanes.len() && req.lanes[end] >> phase_shift == p {
                end += 1;
            }
            self.fill_entries(req, start, end);
            let w = self.phase_cost(rule, cells.is_some());
            if let Some(cells) = cells.as_deref_mut() {
                for (i, &(bank, word, lane)) in self.entries.iter().enumerate() {
                    cells.push(Cell { wavefront: out.wavefronts + self.slot[i], bank, lane, word });
                }
            }
            out.wavefronts += w;
            out.ideal += 1;
            start = end;
        }
        out
    }

    /// Collects the (bank, word, lane) entries of lanes `start..end` of `req`.
    fn fill_entries(&mut self, req: &WarpRequest<'_>, start: usize, end: usize) {
        // bank_bytes is a power of two (validated): shifts, not divisions
        let shift = self.hw.bank_bytes.trailing_zeros();
        let n = self.hw.banks;
        let linear_pow2 = self.hw.mapping == BankMapping::Linear && n.is_power_of_two();
        self.entries.clear();
        for i in start..end {
            let addr = req.addrs[i];
            let first = addr >> shift;
            let last = (addr + (req.bytes as u32 - 1)) >> shift;
            for word in first..=last {
                let bank = if linear_pow2 { word & (n - 1) } else { self.hw.mapping.bank(word, n) };
                self.entries.push((bank, word, req.lanes[i]));
            }
        }
    }

    /// Wavefronts of the current phase's entries under `rule`. With `assign`, also
    /// records each entry's wavefront in `slot`.
    fn phase_cost(&mut self, rule: SameWord, assign: bool) -> u32 {
        match rule {
            SameWord::Multicast => self.cost_multicast(assign),
            SameWord::Serialize => self.cost_serialize(assign),
            SameWord::OneBroadcastWord => self.cost_broadcast_word(assign),
        }
    }

    /// The busiest bank's number of distinct words.
    fn cost_multicast(&mut self, assign: bool) -> u32 {
        if !assign {
            return self.count_multicast();
        }
        self.entries.sort_unstable();
        self.slot.clear();
        let mut max = 0;
        let mut prev: Option<(u32, u32)> = None;
        let mut rank = 0;
        for &(bank, word, _) in &self.entries {
            rank = match prev {
                Some((b, w)) if b == bank && w == word => rank,
                Some((b, _)) if b == bank => rank + 1,
                _ => 0,
            };
            prev = Some((bank, word));
            max = max.max(rank + 1);
            if assign {
                self.slot.push(rank);
            }
        }
        max
    }

    /// [`Self::cost_multicast`] without the picture: per bank, a short list of the
    /// distinct words seen so far (usually one), no sorting.
    fn count_multicast(&mut self) -> u32 {
        if self.bank_cap < self.entries.len() {
            self.bank_cap = self.entries.len().next_power_of_two();
            self.bank_words = vec![0; self.bank_cap * self.hw.banks as usize];
        }
        let cap = self.bank_cap;
        let mut max = 0;
        for &(bank, word, _) in &self.entries {
            let b = bank as usize;
            let n = self.per_bank[b] as usize;
            let list = &mut self.bank_words[b * cap..b * cap + n + 1];
            if !list[..n].contains(&word) {
                list[n] = word;
                self.per_bank[b] += 1;
                max = max.max(n as u32 + 1);
            }
        }
        for &(bank, _, _) in &self.entries {
            self.per_bank[bank as usize] = 0;
        }
        max
    }

    /// The busiest bank's number of lane accesses.
    fn cost_serialize(&mut self, assign: bool) -> u32 {
        self.entries.sort_unstable_by_key(|&(bank, _, lane)| (bank, lane));
        self.slot.clear();
        let mut max = 0;
        let mut prev = None;
        let mut rank = 0;
        for &(bank, _, _) in &self.entries {
            rank = if prev == Some(bank) { rank + 1 } else { 0 };
            prev = Some(bank);
            max = max.max(rank + 1);
            if assign {
                self.slot.push(rank);
            }
        }
        max
    }

    /// CC 1.x: each wavefront serves every waiting lane on one broadcast word plus one
    /// waiting lane in each other bank. The hardware leaves the choice of broadcast word
    /// open; we take the word with the most waiting lanes (lowest word on a tie), which
    /// makes the cost independent of lane order.
    fn cost_broadcast_word(&mut self, _assign: bool) -> u32 {
        self.entries.sort_unstable();
        self.slot.clear();
        self.slot.resize(self.entries.len(), NONE);
        let mut left = self.entries.len();
        let mut wave = 0;
        while left > 0 {
            let mut best = (0, 0, 0); // (waiting lanes, bank, word)
            let mut i = 0;
            while i < self.entries.len() {
                let (bank, word, _) = self.entries[i];
                let mut j = i;
                let mut waiting = 0;
                while j < self.entries.len() && self.entries[j].0 == bank && self.entries[j].1 == word {
                    waiting += (self.slot[j] == NONE) as u32;
                    j += 1;
                }
                if waiting > best.0 {
                    best = (waiting, bank, word);
                }
                i = j;
            }
            let (_, bcast_bank, bcast_word) = best;
            self.per_bank.iter_mut().for_each(|c| *c = 0);
            self.per_bank[bcast_bank as usize] = 1;
            for i in 0..self.entries.len() {
                if self.slot[i] != NONE {
                    continue;
                }
                let (bank, word, _) = self.entries[i];
                let take = if bank == bcast_bank {
                    word == bcast_word
                } else if self.per_bank[bank as usize] == 0 {
                    self.per_bank[bank as usize] = 1;
                    true
                } else {
                    false
                };
                if take {
                    self.slot[i] = wave;
                    left -= 1;
                }
            }
            wave += 1;
        }
        self.per_bank.iter_mut().for_each(|c| *c = 0);
        wave
    }
}

/// Whether the lanes of load `req` pair up under `hw`'s pair-merge rule. `dense` holds
/// `NONE` for every lane of the warp, and does again on return.
fn pairs_merge(hw: &Hardware, dense: &mut [u32], req: &WarpRequest<'_>) -> bool {
    let Some(pm) = &hw.load_pair_merge else { return false };
    if !pm.widths.contains(&req.bytes) {
        return false;
    }
    for (&lane, &addr) in req.lanes.iter().zip(req.addrs) {
        dense[lane as usize] = addr;
    }
    let warp = hw.warp;
    let merged = pm.masks.iter().any(|&mask| {
        req.lanes.iter().zip(req.addrs).all(|(&lane, &addr)| {
            let partner = lane as u32 ^ mask;
            partner >= warp || {
                let other = dense[partner as usize];
                other == NONE || other == addr
            }
        })
    });
    for &lane in req.lanes {
        dense[lane as usize] = NONE;
    }
    merged
}

/// The cost of one phase, from its lanes' addresses.
trait PhaseCost {
    fn cost(&mut self, addrs: &[u32]) -> u32;
}

/// [`phase_units`] as a [`PhaseCost`].
struct Units<'a, const SIMD: bool> {
    f: &'a mut Fast,
    /// Access width - 1.
    align: u32,
    /// Bank count - 1 (the linear mapping's mask).
    bank_mask: u32,
    unit_shift: u32,
    gmask: u32,
    serialize: bool,
}

impl<const SIMD: bool> PhaseCost for Units<'_, SIMD> {
    #[inline(always)]
    fn cost(&mut self, addrs: &[u32]) -> u32 {
        let (a, u, g, s) = (self.align, self.unit_shift, self.gmask, self.serialize);
        #[cfg(target_arch = "x86_64")]
        if SIMD && g < 64 && addrs.len() <= 32 {
            // SAFETY: `SIMD` is set only in the AVX2 and AVX-512 builds, `avx512` only where
            // the CPU has it.
            let w = unsafe { units_simd(self.f.avx512, self.f.conflict, addrs, a, u, g, s) };
            // `None`: an unaligned lane
            return w.unwrap_or_else(|| self.words(addrs));
        }
        // with SIMD, the caller leaves the alignment to each phase
        if SIMD && addrs.iter().fold(0, |m, &x| m | x) & a != 0 {
            return self.words(addrs);
        }
        phase_units(self.f, addrs, u, g, s)
    }
}

impl<const SIMD: bool> Units<'_, SIMD> {
    /// The phase counted by words (some lane's address is not aligned to its width).
    #[cold]
    fn words(&mut self, addrs: &[u32]) -> u32 {
        let mask = self.bank_mask;
        phase_words(self.f, addrs, self.align + 1, self.f.word_shift, self.serialize, &|w| w & mask)
    }
}

/// One phase of 1 to 32 lanes (`gmask < 64`) by the SIMD kernels: [`avx512::units`]
/// (with conflict detection where `conflict`) where `avx512` and it decides, else
/// [`avx2::units`]; `None` where a lane's address is not a multiple of `align + 1`.
///
/// # Safety
/// Only for code compiled for AVX2 and POPCNT ([`Fast::evaluate_avx2`] or
/// [`Fast::evaluate_avx512`]); `avx512` only where [`avx512::available`].
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn units_simd(
    avx512: bool,
    conflict: bool,
    addrs: &[u32],
    align: u32,
    unit_shift: u32,
    gmask: u32,
    serialize: bool,
) -> Option<u32> {
    let (a, u, g, s) = (align, unit_shift, gmask, serialize);
    if avx512 && g < 32 && addrs.len() >= 2 {
        if let Some(w) = avx512::units(addrs, a, u, g, s, conflict) {
            return Some(w);
        }
    }
    match addrs.len() {
        8 => avx2::units::<1, true>(addrs, a, u, g, s),
        16 => avx2::units::<2, true>(addrs, a, u, g, s),
        32 => avx2::units::<4, true>(addrs, a, u, g, s),
        ..=7 => avx2::units::<1, false>(addrs, a, u, g, s),
        9..=15 => avx2::units::<2, false>(addrs, a, u, g, s),
        _ => avx2::units::<4, false>(addrs, a, u, g, s),
    }
}

/// [`phase_words`] as a [`PhaseCost`].
struct Words<'a, B> {
    f: &'a mut Fast,
    bytes: u32,
    word_shift: u32,
    serialize: bool,
    bank: B,
}

impl<B: Fn(u32) -> u32> PhaseCost for Words<'_, B> {
    #[inline(always)]
    fn cost(&mut self, addrs: &[u32]) -> u32 {
        phase_words(self.f, addrs, self.bytes, self.word_shift, self.serialize, &self.bank)
    }
}

/// Splits the active lanes into phases of `1 << shift` lanes and sums the cost over the
/// phases with an active lane (the fast path's phase loop; one call site of `cost`, so
/// that it is inlined once).
#[inline(always)]
fn phases(lanes: &[u16], addrs: &[u32], shift: u32, cost: &mut impl PhaseCost) -> Outcome {
    let n = lanes.len();
    let (first, last) = (lanes[0] as usize, lanes[n - 1] as usize);
    let contiguous = last - first + 1 == n;
    let mut out = Outcome::default();
    let mut start = 0;
    loop {
        let lane = lanes[start] as usize;
        let end = if lane >> shift == last >> shift {
            n
        } else if contiguous {
            // the phase ends at the next multiple of the phase size
            (lane | ((1 << shift) - 1)) + 1 - first
        } else {
            // a later lane is in a later phase: the scan stops before the end
            let mut e = start + 1;
            while lanes[e] as usize >> shift == lane >> shift {
                e += 1;
            }
            e
        };
        out.wavefronts += cost.cost(&addrs[start..end]);
        out.ideal += 1;
        if end == n {
            return out;
        }
        start = end;
    }
}

/// One phase of width-aligned accesses on a linear power-of-two mapping: one entry per
/// lane, key `addr >> unit_shift`, bank group `key & gmask`.
///
/// Three shortcuts before the general count, all exact:
/// - keys in arithmetic progression `k0 + d·i` (strided and tiled accesses): with
///   `d = 0` one key (multicast: 1; serialize: every lane); otherwise the keys are
///   distinct and the groups repeat with period `P = G / gcd(d, G)` over the `G`
///   groups, so the busiest group holds `ceil(n / P)` keys;
/// - lanes per group counted bit-sliced in registers (three bit planes of 64 groups;
///   for multicast, lanes repeating the previous lane's key left out),
///   which gives the serialize cost, and for multicast the answer when no group has two
///   lanes; otherwise the groups with the most lanes are checked for repeated keys, from
///   the top level down;
/// - only a group with `LEVELS` (8) or more lanes takes the general (memory) count.
#[inline(always)]
fn phase_units(f: &mut Fast, addrs: &[u32], unit_shift: u32, gmask: u32, serialize: bool) -> u32 {
    let n = addrs.len();
    if n == 1 {
        return 1;
    }
    let d = addrs[1].wrapping_sub(addrs[0]);
    let off = addrs[1..].iter().zip(addrs).fold(0u32, |acc, (&y, &x)| acc | (y.wrapping_sub(x) ^ d));
    if off == 0 {
        if let Some(w) = progression(addrs, d, unit_shift, gmask, serialize) {
            return w;
        }
    }
    // Lanes per group, bit-sliced in registers: three bit planes hold each group's count
    // (0 to 7) and `over` the groups that reached 8. For multicast, a lane whose key is
    // the previous lane's adds nothing (lanes sharing a word, e.g. the pairs of a merged
    // wide load) and is left out here and below.
    let (mut p0, mut p1, mut p2, mut over) = (0u64, 0u64, 0u64, 0u64);
    let mut prev = !(addrs[0] >> unit_shift);
    for &a in addrs {
        let key = a >> unit_shift;
        let repeat = !serialize && key == prev;
        prev = key;
        let bit = (!repeat as u64) << (key & gmask);
        let c0 = p0 & bit;
        p0 ^= bit;
        let c1 = p1 & c0;
        p1 ^= c0;
        over |= p2 & c1;
        p2 ^= c1;
    }
    if over != 0 {
        // a group with 8 or more lanes
        return f.count(
            serialize,
            addrs.iter().map(|&a| {
                let key = a >> unit_shift;
                (key & gmask, key)
            }),
        );
    }
    // groups holding at least k lanes (a bit-sliced comparison with k)
    let at_least = |k: usize| {
        let (mut gt, mut eq) = (0u64, u64::MAX);
        for (i, plane) in [(2, p2), (1, p1), (0, p0)] {
            if k >> i & 1 == 1 {
                eq &= plane;
            } else {
                gt |= eq & plane;
                eq &= !plane;
            }
        }
        gt | eq
    };
    // the largest count, from the top plane down
    let (mut top, mut cand) = (0usize, p0 | p1 | p2);
    for (weight, plane) in [(4, p2), (2, p1), (1, p0)] {
        if plane & cand != 0 {
            cand &= plane;
            top += weight;
        }
    }
    if serialize || top == 1 {
        return top as u32;
    }
    // Multicast: the answer is the largest k such that a group with at least k lanes
    // has k distinct keys (a group with fewer lanes has fewer distinct keys).
    for k in (2..=top).rev() {
        let mut groups = at_least(k);
        while groups != 0 {
            let g = groups.trailing_zeros();
            groups &= groups - 1;
            // the group's keys (fewer than LEVELS)
            let mut keys = [0u32; LEVELS];
            let mut m = 0;
            let mut prev = !(addrs[0] >> unit_shift);
            for &a in addrs {
                let key = a >> unit_shift;
                keys[m & (LEVELS - 1)] = key;
                m += (key & gmask == g && key != prev) as usize;
                prev = key;
            }
            let distinct = (0..m).filter(|&i| !keys[..i].contains(&keys[i])).count();
            if distinct >= k {
                return k as u32;
            }
        }
    }
    1
}

/// The closed form of [`phase_units`] for keys in arithmetic progression, given that
/// every lane's address is the previous lane's plus `d` modulo 2^32 (at least two lanes);
/// `None` where the addresses wrap around or `d` is not a whole number of units.
#[inline(always)]
fn progression(addrs: &[u32], d: u32, unit_shift: u32, gmask: u32, serialize: bool) -> Option<u32> {
    let n = addrs.len();
    let step = d as i32 as i64;
    let unit = 1u32 << unit_shift;
    // equal steps modulo 2^32 that add up in the integers: no wrap-around
    if (addrs[n - 1] as i64 - addrs[0] as i64) != step * (n as i64 - 1) || d & (unit - 1) != 0 {
        return None;
    }
    let kd = step >> unit_shift;
    if kd == 0 {
        return Some(if serialize { n as u32 } else { 1 });
    }
    Some(n.div_ceil(1 << period_log2(kd, (gmask + 1).trailing_zeros())) as u32)
}

/// log2 of the period `P = G / gcd(d, G)` with which keys `k0 + d·i` (`d ≠ 0`) revisit
/// the `G = 2^groups_log2` bank groups: keys `i` and `j` share a group exactly when
/// `i ≡ j (mod P)`.
#[inline(always)]
fn period_log2(d: i64, groups_log2: u32) -> u32 {
    groups_log2 - d.unsigned_abs().trailing_zeros().min(groups_log2)
}

/// The most lanes of `m` (not empty) whose numbers are congruent modulo `2^period_log2`.
#[inline(always)]
fn busiest_residue(m: u64, period_log2: u32) -> u32 {
    let width = 64 - m.leading_zeros() - m.trailing_zeros();
    if width <= 1 << period_log2 {
        // no two lanes as far apart as a period
        return 1;
    }
    let n = m.count_ones();
    if n == width {
        // a run of lanes: every residue class holds ceil(n / P) or fewer
        return n.div_ceil(1 << period_log2);
    }
    // lanes 0, P, 2P, ...
    const COMBS: [u64; 7] = {
        let mut c = [0u64; 7];
        let mut k = 0;
        while k < 7 {
            let mut l = 0;
            while l < 64 {
                c[k] |= 1 << l;
                l += 1 << k;
            }
            k += 1;
        }
        c
    };
    let comb = COMBS[period_log2 as usize];
    (0..1u32 << period_log2).map(|r| (m & comb << r).count_ones()).max().unwrap_or(0)
}

/// [`phase_units`] counts up to `LEVELS - 1` lanes per group in registers (a power of two).
const LEVELS: usize = 8;

/// One phase, every bank word of every lane an entry with its bank from `bank`.
#[inline(always)]
fn phase_words(
    f: &mut Fast,
    addrs: &[u32],
    bytes: u32,
    word_shift: u32,
    serialize: bool,
    bank: &impl Fn(u32) -> u32,
) -> u32 {
    f.count(
        serialize,
        addrs.iter().flat_map(|&a| {
            let first = a >> word_shift;
            let last = (a + (bytes - 1)) >> word_shift;
            (first..=last).map(|word| (bank(word), word))
        }),
    )
}

/// The AVX2 kernel of [`phase_units`]: one phase of 2 to 32 lanes, each one unit key.
#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::*;

    /// Whether the CPU runs [`units`].
    pub(super) fn available() -> bool {
        is_x86_feature_detected!("avx2") && is_x86_feature_detected!("popcnt")
    }

    /// Whether `addrs[l] == addrs[l ^ mask]` for every lane `l` of a full warp of 32.
    ///
    /// # Safety
    /// Only for code compiled for AVX2 ([`super::Fast::evaluate_avx2`]); `addrs` holds 32
    /// addresses and `0 < mask < 32`.
    #[inline(always)]
    pub(super) unsafe fn pairs_equal(addrs: &[u32], mask: u32) -> bool {
        debug_assert!(addrs.len() == 32 && (1..32).contains(&mask));
        let p = addrs.as_ptr() as *const __m256i;
        let v = [
            _mm256_loadu_si256(p),
            _mm256_loadu_si256(p.add(1)),
            _mm256_loadu_si256(p.add(2)),
            _mm256_loadu_si256(p.add(3)),
        ];
        let within =
            _mm256_xor_si256(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32((mask & 7) as i32));
        // the partners' vectors, picked with constant indices (kept in registers)
        let other = match (mask >> 3) & 3 {
            0 => v,
            1 => [v[1], v[0], v[3], v[2]],
            2 => [v[2], v[3], v[0], v[1]],
            _ => [v[3], v[2], v[1], v[0]],
        };
        let mut differ = _mm256_setzero_si256();
        for k in 0..4 {
            let partner = _mm256_permutevar8x32_epi32(other[k], within);
            differ = _mm256_or_si256(differ, _mm256_xor_si256(v[k], partner));
        }
        _mm256_testz_si256(differ, differ) == 1
    }

    /// Whether every phase of a full warp of 32 lanes (`addrs`) in phases of `1 << shift`
    /// (8 or 16) lanes is conflict-free: every lane's address a multiple of `align + 1`,
    /// and no two of a phase's counted lanes in one group (for multicast, a lane repeating
    /// the previous lane's key in its phase is not counted). `false` says nothing.
    ///
    /// # Safety
    /// Only for code compiled for AVX2 and POPCNT ([`super::Fast::evaluate_avx2`]);
    /// `addrs` holds 32 addresses, `gmask < 32`.
    #[inline(always)]
    pub(super) unsafe fn conflict_free_32(
        addrs: &[u32],
        align: u32,
        unit_shift: u32,
        gmask: u32,
        shift: u32,
        serialize: bool,
    ) -> bool {
        debug_assert!(addrs.len() == 32 && gmask < 32 && (shift == 3 || shift == 4));
        let p = addrs.as_ptr() as *const __m256i;
        let raw = [
            _mm256_loadu_si256(p),
            _mm256_loadu_si256(p.add(1)),
            _mm256_loadu_si256(p.add(2)),
            _mm256_loadu_si256(p.add(3)),
        ];
        let any = _mm256_or_si256(_mm256_or_si256(raw[0], raw[1]), _mm256_or_si256(raw[2], raw[3]));
        if _mm256_testz_si256(any, _mm256_set1_epi32(align as i32)) == 0 {
            return false;
        }
        let sh = _mm_cvtsi32_si128(unit_shift as i32);
        let key = [
            _mm256_srl_epi32(raw[0], sh),
            _mm256_srl_epi32(raw[1], sh),
            _mm256_srl_epi32(raw[2], sh),
            _mm256_srl_epi32(raw[3], sh),
        ];
        let all = _mm256_set1_epi32(-1);
        let mut counted = [all; 4];
        if !serialize {
            // each lane's previous lane in its phase; the first lane of a phase has none
            let rot = _mm256_setr_epi32(7, 0, 1, 2, 3, 4, 5, 6);
            let lane0 = _mm256_setr_epi32(-1, 0, 0, 0, 0, 0, 0, 0);
            for v in 0..4 {
                let r = _mm256_permutevar8x32_epi32(key[v], rot);
                let before = if shift == 4 && v % 2 == 1 {
                    _mm256_permutevar8x32_epi32(key[v - 1], rot)
                } else {
                    _mm256_xor_si256(r, all)
                };
                let prev = _mm256_blendv_epi8(r, before, lane0);
                counted[v] = _mm256_xor_si256(_mm256_cmpeq_epi32(key[v], prev), all);
            }
        }
        let one = _mm256_set1_epi32(1);
        let gm = _mm256_set1_epi32(gmask as i32);
        let mut bits = [_mm256_setzero_si256(); 4];
        for v in 0..4 {
            bits[v] = _mm256_and_si256(_mm256_sllv_epi32(one, _mm256_and_si256(key[v], gm)), counted[v]);
        }
        // (macros, not closures: a closure would not be compiled for AVX2)
        macro_rules! lanes_of {
            ($c:expr) => {
                (_mm256_movemask_ps(_mm256_castsi256_ps($c)) as u32).count_ones()
            };
        }
        let mut free = true;
        if shift == 3 {
            for v in 0..4 {
                free &= bits_set(bits[v]) == lanes_of!(counted[v]);
            }
        } else {
            for h in 0..2 {
                let lanes = lanes_of!(counted[2 * h]) + lanes_of!(counted[2 * h + 1]);
                free &= bits_set(_mm256_or_si256(bits[2 * h], bits[2 * h + 1])) == lanes;
            }
        }
        free
    }

    /// The bits set in the OR of the eight dwords of `v` (the groups a phase's lanes'
    /// one-hots cover).
    ///
    /// # Safety
    /// The CPU must have AVX2 and POPCNT.
    #[inline]
    #[target_feature(enable = "avx2,popcnt")]
    pub(super) unsafe fn bits_set(v: __m256i) -> u32 {
        let x = _mm_or_si128(_mm256_castsi256_si128(v), _mm256_extracti128_si256::<1>(v));
        let x = _mm_or_si128(x, _mm_shuffle_epi32::<0b01_00_11_10>(x));
        let x = _mm_or_si128(x, _mm_shuffle_epi32::<0b10_11_00_01>(x));
        (_mm_cvtsi128_si32(x) as u32).count_ones()
    }

    /// [`super::phase_units`] for one phase of 1 to `8 × V` lanes (`V` = 1, 2 or 4) and
    /// at most 64 groups (`gmask < 64`); `None` where a lane's address is not a multiple
    /// of `align + 1` (then the caller counts words).
    ///
    /// The lanes' addresses sit in `V` vectors of eight; lanes past the end, and for
    /// multicast lanes repeating the previous lane's key, become padding with a group of
    /// their own (`64 + lane`). Then:
    /// 1. addresses in arithmetic progression: the closed form ([`super::progression`]);
    /// 2. no two counted lanes in one group (a bitmask of the groups, up to 32): 1;
    /// 3. lanes per group: the groups as bytes of one vector (16 or 32), compared with
    ///    each of its rotations (the count of each lane's group at each lane);
    /// 4. serialize, or no group with two lanes: the largest count; multicast: the
    ///    groups from the largest count down have their keys compared until no group
    ///    further down can have more distinct keys than one already seen.
    ///
    /// # Safety
    /// Only for code compiled for AVX2 and POPCNT ([`super::Fast::evaluate_avx2`]).
    #[inline(always)]
    pub(super) unsafe fn units<const V: usize, const FULL: bool>(
        addrs: &[u32],
        align: u32,
        unit_shift: u32,
        gmask: u32,
        serialize: bool,
    ) -> Option<u32> {
        let n = addrs.len();
        debug_assert!((1..=8 * V).contains(&n) && matches!(V, 1 | 2 | 4) && gmask < 64);
        debug_assert!(!FULL || n == 8 * V);
        let p = addrs.as_ptr();
        let idx0 = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
        let eight = _mm256_set1_epi32(8);
        let nv = _mm256_set1_epi32(n as i32);
        let nv1 = _mm256_set1_epi32(n as i32 - 1);
        let d = if n > 1 { addrs[1].wrapping_sub(addrs[0]) } else { 0 };
        let dv = _mm256_set1_epi32(d as i32);
        // raw addresses (zero past the end), the lanes present
        let mut raw = [_mm256_setzero_si256(); 4];
        let mut live = [_mm256_setzero_si256(); 4];
        let mut any = _mm256_setzero_si256();
        let mut idx = idx0;
        for v in 0..V {
            live[v] = if FULL { _mm256_set1_epi32(-1) } else { _mm256_cmpgt_epi32(nv, idx) };
            if FULL || 8 * v + 8 <= n {
                raw[v] = _mm256_loadu_si256(p.add(8 * v) as *const __m256i);
            } else if 8 * v < n {
                // a masked load reads nothing past the slice (masked-off lanes never fault)
                raw[v] = _mm256_maskload_epi32(p.add(8 * v) as *const i32, live[v]);
            }
            any = _mm256_or_si256(any, raw[v]);
            idx = _mm256_add_epi32(idx, eight);
        }
        // whether each lane's successor is `d` further
        let mut steps_differ = _mm256_setzero_si256();
        let next_idx = _mm256_setr_epi32(1, 2, 3, 4, 5, 6, 7, 0);
        let mut idx = idx0;
        let mut turned = _mm256_permutevar8x32_epi32(raw[0], next_idx);
        for v in 0..V {
            let turned_next =
                if v + 1 < V { _mm256_permutevar8x32_epi32(raw[v + 1], next_idx) } else { turned };
            let next = _mm256_blend_epi32::<0x80>(turned, turned_next);
            turned = turned_next;
            let has_next =
                if FULL && v + 1 < V { _mm256_set1_epi32(-1) } else { _mm256_cmpgt_epi32(nv1, idx) };
            let step = _mm256_sub_epi32(next, raw[v]);
            let bad = _mm256_andnot_si256(_mm256_cmpeq_epi32(step, dv), has_next);
            steps_differ = _mm256_or_si256(steps_differ, bad);
            idx = _mm256_add_epi32(idx, eight);
        }
        if _mm256_testz_si256(any, _mm256_set1_epi32(align as i32)) == 0 {
            return None;
        }
        if n == 1 {
            return Some(1);
        }
        if _mm256_testz_si256(steps_differ, steps_differ) == 1 {
            if let Some(w) = super::progression(addrs, d, unit_shift, gmask, serialize) {
                return Some(w);
            }
        }
        let sh = _mm_cvtsi32_si128(unit_shift as i32);
        let mut key = [_mm256_setzero_si256(); 4];
        for v in 0..V {
            key[v] = _mm256_srl_epi32(raw[v], sh);
        }
        // counted lanes: present and, for multicast, not a repeat of the previous key
        let mut counted = live;
        if !serialize {
            let rot = _mm256_setr_epi32(7, 0, 1, 2, 3, 4, 5, 6);
            let mut prev_last = _mm256_xor_si256(
                _mm256_permutevar8x32_epi32(key[0], rot),
                _mm256_setr_epi32(-1, 0, 0, 0, 0, 0, 0, 0),
            );
            for v in 0..V {
                let r = _mm256_permutevar8x32_epi32(key[v], rot);
                let prev = _mm256_blend_epi32::<1>(r, prev_last);
                prev_last = r;
                counted[v] = _mm256_andnot_si256(_mm256_cmpeq_epi32(key[v], prev), live[v]);
            }
        }
        let gm = _mm256_set1_epi32(gmask as i32);
        let mut group = [_mm256_setzero_si256(); 4];
        let mut pad = _mm256_add_epi32(idx0, _mm256_set1_epi32(64));
        let mut ncounted = 0;
        for v in 0..4 {
            group[v] = if v < V {
                ncounted += (_mm256_movemask_ps(_mm256_castsi256_ps(counted[v])) as u32).count_ones();
                _mm256_blendv_epi8(pad, _mm256_and_si256(key[v], gm), counted[v])
            } else {
                pad
            };
            pad = _mm256_add_epi32(pad, eight);
        }
        if gmask < 32 {
            // a bitmask of the groups used (padding groups shift the bit out)
            let one = _mm256_set1_epi32(1);
            let mut bits = _mm256_setzero_si256();
            for g in &group[..V] {
                bits = _mm256_or_si256(bits, _mm256_sllv_epi32(one, *g));
            }
            let x = _mm_or_si128(_mm256_castsi256_si128(bits), _mm256_extracti128_si256::<1>(bits));
            let x = _mm_or_si128(x, _mm_shuffle_epi32::<0b01_00_11_10>(x));
            let x = _mm_or_si128(x, _mm_shuffle_epi32::<0b10_11_00_01>(x));
            if (_mm_cvtsi128_si32(x) as u32).count_ones() == ncounted {
                return Some(1);
            }
        }
        // groups as the bytes of one vector, in lane order
        let g = _mm256_packus_epi16(
            _mm256_packus_epi32(group[0], group[1]),
            _mm256_packus_epi32(group[2], group[3]),
        );
        let g = _mm256_permutevar8x32_epi32(g, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
        // minus the other lanes in each lane's group: compare with every rotation
        let c = if V == 4 {
            let t = _mm256_permute2x128_si256::<0x01>(g, g);
            let mut c = _mm256_cmpeq_epi8(g, t);
            macro_rules! rotations {
                ($($r:literal)*) => {$(
                    c = _mm256_add_epi8(c, _mm256_cmpeq_epi8(g, _mm256_alignr_epi8::<$r>(t, g)));
                    c = _mm256_add_epi8(c, _mm256_cmpeq_epi8(g, _mm256_alignr_epi8::<$r>(g, t)));
                )*};
            }
            rotations!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15);
            c
        } else {
            // lanes 0 to 15 in the low half
            let x = _mm256_castsi256_si128(g);
            let mut c = _mm_setzero_si128();
            macro_rules! rotations {
                ($($r:literal)*) => {$(
                    c = _mm_add_epi8(c, _mm_cmpeq_epi8(x, _mm_alignr_epi8::<$r>(x, x)));
                )*};
            }
            rotations!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15);
            _mm256_zextsi128_si256(c)
        };
        // the largest count: 1 + the most other lanes
        let others = _mm256_sub_epi8(_mm256_setzero_si256(), c);
        let x = _mm_max_epu8(_mm256_castsi256_si128(others), _mm256_extracti128_si256::<1>(others));
        let x = _mm_max_epu8(x, _mm_srli_si128::<8>(x));
        let x = _mm_max_epu8(x, _mm_srli_si128::<4>(x));
        let x = _mm_max_epu8(x, _mm_srli_si128::<2>(x));
        let x = _mm_max_epu8(x, _mm_srli_si128::<1>(x));
        let top = 1 + (_mm_cvtsi128_si32(x) as u32 & 0xFF);
        if serialize || top == 1 {
            return Some(top);
        }
        let mut keys = [0u32; 32];
        for (v, k) in key[..V].iter().enumerate() {
            _mm256_storeu_si256(keys.as_mut_ptr().add(8 * v) as *mut __m256i, *k);
        }
        let mut groups = [0u8; 32];
        _mm256_storeu_si256(groups.as_mut_ptr() as *mut __m256i, g);
        let mut best = 1;
        let mut level = top;
        while level > best {
            let at_level = _mm256_cmpeq_epi8(c, _mm256_set1_epi8(1 - level as i8));
            let mut at = _mm256_movemask_epi8(at_level) as u32;
            while at != 0 {
                let lane = at.trailing_zeros() as usize;
                let same = _mm256_cmpeq_epi8(g, _mm256_set1_epi8(groups[lane] as i8));
                let mut members = _mm256_movemask_epi8(same) as u32;
                at &= !members;
                // distinct keys among the group's `level` lanes
                let mut seen = [0u32; 32];
                let mut distinct = 0;
                while members != 0 {
                    let k = keys[members.trailing_zeros() as usize];
                    members &= members - 1;
                    if !seen[..distinct].contains(&k) {
                        seen[distinct] = k;
                        distinct += 1;
                    }
                }
                if distinct as u32 == level {
                    return Some(level);
                }
                best = best.max(distinct as u32);
            }
            level -= 1;
        }
        Some(best)
    }
}

/// The AVX-512 kernel of [`super::phase_units`] (AVX-512 F/BW/VL/VBMI/BITALG and GFNI):
/// one phase of 2 to 32 lanes on at most 32 groups, counting lanes per group without a
/// loop over lanes.
#[cfg(target_arch = "x86_64")]
mod avx512 {
    use std::arch::x86_64::*;

    /// Whether the CPU runs [`units`].
    pub(super) fn available() -> bool {
        is_x86_feature_detected!("avx512f")
            && is_x86_feature_detected!("avx512bw")
            && is_x86_feature_detected!("avx512vl")
            && is_x86_feature_detected!("avx512vbmi")
            && is_x86_feature_detected!("avx512bitalg")
            && is_x86_feature_detected!("avx512cd")
            && is_x86_feature_detected!("gfni")
            && super::avx2::available()
    }

    /// Whether the CPU's conflict detection (`vpconflictd`) is fast enough for [`units`]
    /// to find a multicast phase's repeated keys with it. On an AMD EPYC (Zen 4 and later
    /// are the AMD cores with AVX-512) the kernel took 9.4 ns for a random 32-lane phase
    /// this way against 22.6 ns with the rotations; on an Intel Xeon 50 ns against 28 ns
    /// (the instruction is microcoded there), so Intel keeps the rotations.
    pub(super) fn conflict_is_fast() -> bool {
        let id = __cpuid(0);
        // the vendor string "AuthenticAMD" in EBX, EDX, ECX
        (id.ebx, id.edx, id.ecx) == (0x6874_7541, 0x6974_6E65, 0x444D_4163)
    }

    /// `vpermb` indices that gather the lanes' group bitmasks (16 dwords, one per lane)
    /// into 8 × 8 bit blocks: qword `4b + j` holds byte `j` (groups `8j..8j + 8`) of
    /// lanes `8b..8b + 8`.
    const BLOCKS: [u8; 64] = {
        let mut idx = [0u8; 64];
        let mut q = 0;
        while q < 8 {
            let (b, j) = (q / 4, q % 4);
            let mut r = 0;
            while r < 8 {
                idx[q * 8 + r] = (4 * (8 * b + r) + j) as u8;
                r += 1;
            }
            q += 1;
        }
        idx
    };

    /// [`super::phase_units`] for one phase of 2 to 32 lanes (`addrs`) and at most 32
    /// groups (`gmask < 32`); `None` where it leaves the phase to [`super::avx2::units`]
    /// (a lane not aligned to `align + 1`; a multicast phase whose busiest groups hold a
    /// key twice, or more than 16 lanes between them).
    ///
    /// 1. addresses in arithmetic progression: the closed form ([`super::progression`]);
    /// 2. each counted lane (for multicast, a lane repeating the previous lane's key is
    ///    not counted) sets its group's bit in a 32-bit row; lanes per group are the
    ///    column sums of that 32 × 32 bit matrix: cut into 8 × 8 blocks (`vpermb`), each
    ///    block transposed (`gf2p8affineqb` with the identity), counted (`vpopcntb`) and
    ///    the blocks of one group added;
    /// 3. serialize, or no group with two lanes: the busiest group's count; multicast:
    ///    that count where the first busiest group's keys are distinct (two hashes of
    ///    their bits above the group, one-hots ORed: [`distinct_hashes`]), or else where
    ///    the busiest groups' keys are all distinct (compared lane by lane).
    ///
    /// With `conflict` (where [`conflict_is_fast`]), a multicast phase counts exactly the
    /// first lane of each key, found by conflict detection (`vpconflictd` compares each
    /// lane with every lower one: the two halves on their own, and each quarter of the
    /// upper half with each quarter of the lower one), and the busiest group's count is
    /// the answer: no second look at the busiest groups.
    ///
    /// Branches depend on the shape of the request, not on its random data.
    ///
    /// # Safety
    /// The CPU must have what [`available`] checks.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512bitalg,avx512cd,gfni,avx2,popcnt")]
    pub(super) unsafe fn units(
        addrs: &[u32],
        align: u32,
        unit_shift: u32,
        gmask: u32,
        serialize: bool,
        conflict: bool,
    ) -> Option<u32> {
        let n = addrs.len();
        debug_assert!((2..=32).contains(&n) && gmask < 32);
        let live = u32::MAX >> (32 - n);
        let (live_lo, live_hi) = (live as u16, (live >> 16) as u16);
        let p = addrs.as_ptr() as *const i32;
        // Masked loads only where a vector is part-full (masked-off lanes are not read,
        // and read as zero): a masked 64-byte load that crosses a cache line is slow.
        let a_lo = match n {
            16.. => _mm512_loadu_si512(p as *const _),
            8 => _mm512_zextsi256_si512(_mm256_loadu_si256(p as *const __m256i)),
            _ => _mm512_maskz_loadu_epi32(live_lo, p),
        };
        let a_hi = match n {
            32 => _mm512_loadu_si512(p.add(16) as *const _),
            ..=16 => _mm512_setzero_si512(),
            _ => _mm512_maskz_loadu_epi32(live_hi, p.add(16)),
        };
        if _mm512_test_epi32_mask(_mm512_or_si512(a_lo, a_hi), _mm512_set1_epi32(align as i32)) != 0 {
            return None;
        }
        // each lane's successor, and whether it is `d` further
        let d = addrs[1].wrapping_sub(addrs[0]);
        let dv = _mm512_set1_epi32(d as i32);
        let zero = _mm512_setzero_si512();
        let next_lo = _mm512_alignr_epi32::<1>(a_hi, a_lo);
        let next_hi = _mm512_alignr_epi32::<1>(zero, a_hi);
        let has_next = live >> 1;
        let bad = (_mm512_cmpneq_epi32_mask(_mm512_sub_epi32(next_lo, a_lo), dv) as u32
            | (_mm512_cmpneq_epi32_mask(_mm512_sub_epi32(next_hi, a_hi), dv) as u32) << 16)
            & has_next;
        if bad == 0 {
            if let Some(w) = super::progression(addrs, d, unit_shift, gmask, serialize) {
                return Some(w);
            }
        }
        let sh = _mm_cvtsi32_si128(unit_shift as i32);
        let (k_lo, k_hi) = (_mm512_srl_epi32(a_lo, sh), _mm512_srl_epi32(a_hi, sh));
        // counted lanes: present and, for multicast, not a repeat of the previous key
        // (as two 16-lane masks straight from the comparisons), or with `conflict`, of any
        // lower lane's key
        let (counted_lo, counted_hi) = if serialize {
            (live_lo, live_hi)
        } else if conflict {
            first_of_keys(k_lo, k_hi, n, live_lo, live_hi)
        } else {
            let prev_lo = _mm512_alignr_epi32::<15>(k_lo, zero);
            let prev_hi = _mm512_alignr_epi32::<15>(k_hi, k_lo);
            (
                _mm512_mask_cmpneq_epi32_mask(live_lo, k_lo, prev_lo) | (live_lo & 1),
                _mm512_mask_cmpneq_epi32_mask(live_hi, k_hi, prev_hi),
            )
        };
        let gm = _mm512_set1_epi32(gmask as i32);
        let (g_lo, g_hi) = (_mm512_and_si512(k_lo, gm), _mm512_and_si512(k_hi, gm));
        let one = _mm512_set1_epi32(1);
        let row_lo = _mm512_maskz_sllv_epi32(counted_lo, one, g_lo);
        let row_hi = _mm512_maskz_sllv_epi32(counted_hi, one, g_hi);
        // lanes per group (byte `g` of `counts`)
        let blocks = _mm512_loadu_si512(BLOCKS.as_ptr() as *const _);
        let identity = _mm512_set1_epi64(0x8040_2010_0804_0201u64 as i64);
        let t_lo = _mm512_gf2p8affine_epi64_epi8::<0>(identity, _mm512_permutexvar_epi8(blocks, row_lo));
        let t_hi = _mm512_gf2p8affine_epi64_epi8::<0>(identity, _mm512_permutexvar_epi8(blocks, row_hi));
        let s = _mm512_add_epi8(_mm512_popcnt_epi8(t_lo), _mm512_popcnt_epi8(t_hi));
        let counts = _mm256_add_epi8(_mm512_castsi512_si256(s), _mm512_extracti64x4_epi64::<1>(s));
        let x = _mm_max_epu8(_mm256_castsi256_si128(counts), _mm256_extracti128_si256::<1>(counts));
        let x = _mm_max_epu8(x, _mm_srli_si128::<8>(x));
        let x = _mm_max_epu8(x, _mm_srli_si128::<4>(x));
        let x = _mm_max_epu8(x, _mm_srli_si128::<2>(x));
        let x = _mm_max_epu8(x, _mm_srli_si128::<1>(x));
        let top = _mm_cvtsi128_si32(x) as u32 & 0xFF;
        if serialize || conflict || top == 1 {
            return Some(top);
        }
        // Multicast, the quick check: the first busiest group g* alone. Its counted
        // lanes' keys differ only above the group bits; where a hash of those bits takes
        // `top` distinct values among them (a one-hot of it per lane, ORed over the lanes:
        // `top` bits), its keys are distinct, so g* has `top` distinct keys and no group
        // more. The hashes: the low five bits, then (rarely needed) the xor of every five.
        let gstar = (_mm256_cmpeq_epi8_mask(counts, _mm256_set1_epi8(top as i8)) as u32).trailing_zeros();
        let gs = _mm512_set1_epi32(gstar as i32);
        let in_lo = _mm512_mask_cmpeq_epi32_mask(counted_lo, g_lo, gs);
        let in_hi = _mm512_mask_cmpeq_epi32_mask(counted_hi, g_hi, gs);
        let gbits = _mm_cvtsi32_si128((gmask + 1).trailing_zeros() as i32);
        let (h_lo, h_hi) = (_mm512_srl_epi32(k_lo, gbits), _mm512_srl_epi32(k_hi, gbits));
        if distinct_hashes::<false>(h_lo, h_hi, in_lo, in_hi) == top
            || distinct_hashes::<true>(h_lo, h_hi, in_lo, in_hi) == top
        {
            return Some(top);
        }
        // Otherwise the answer is `top` where no two counted lanes of the busiest groups
        // share a key (then each of those groups has `top` distinct keys, and no group
        // can have more). Those lanes, at most 16 of them, go into one vector and are
        // compared with its rotations by 1 to 8 (which meet every pair of lanes).
        // (each lane's group count looked up by `vpermb`, and `top` broadcast from the
        // vector: no round trip through general registers on the way)
        let low_byte = _mm512_set1_epi32(0xFF);
        let top_v = _mm512_and_si512(_mm512_broadcastb_epi8(x), low_byte);
        let counts_z = _mm512_zextsi256_si512(counts);
        let count_lo = _mm512_and_si512(_mm512_permutexvar_epi8(g_lo, counts_z), low_byte);
        let count_hi = _mm512_and_si512(_mm512_permutexvar_epi8(g_hi, counts_z), low_byte);
        let m_lo = _mm512_mask_cmpeq_epi32_mask(counted_lo, count_lo, top_v);
        let m_hi = _mm512_mask_cmpeq_epi32_mask(counted_hi, count_hi, top_v);
        let c_lo = m_lo.count_ones();
        let c = c_lo + m_hi.count_ones();
        if c > 16 {
            return None;
        }
        let iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
        let from_hi = _mm512_cmpge_epi32_mask(iota, _mm512_set1_epi32(c_lo as i32));
        let idx = _mm512_mask_add_epi32(iota, from_hi, iota, _mm512_set1_epi32(16 - c_lo as i32));
        let keys = _mm512_permutex2var_epi32(
            _mm512_maskz_compress_epi32(m_lo, k_lo),
            idx,
            _mm512_maskz_compress_epi32(m_hi, k_hi),
        );
        let valid = (u32::MAX >> (32 - c)) as u16;
        let fifteen = _mm512_set1_epi32(15);
        let mut repeated = 0u16;
        for r in 1..=8 {
            // lane i against lane (i + r) mod 16, where both hold a key
            let turn = _mm512_and_si512(_mm512_add_epi32(iota, _mm512_set1_epi32(r)), fifteen);
            let pairs = valid & valid.rotate_right(r as u32);
            repeated |= _mm512_mask_cmpeq_epi32_mask(pairs, keys, _mm512_permutexvar_epi32(turn, keys));
        }
        (repeated == 0).then_some(top)
    }

    /// [`units`] for the two 32-lane phases of a 64-lane slice at once (`addrs`: the
    /// first phase's lanes, then the second's): both phases' counts, or `None` where
    /// either needs more than the quick answer (a lane not aligned to `align + 1`; a
    /// multicast phase whose first busiest group's keys neither hash tells apart), and
    /// [`units`] takes the phases one by one.
    ///
    /// The steps of [`units`] without the closed form of a progression (the counts are
    /// exact for progressions too), on four vectors: the two phases' column sums added
    /// side by side in one vector (phase 0 in the low 256 bits, phase 1 in the high),
    /// their busiest groups found by one reduction, then the quick check of each. Two
    /// independent chains and one branch at the end, so the core runs them overlapped
    /// (one phase at a time, the chain of a phase is most of its time).
    ///
    /// # Safety
    /// The CPU must have what [`available`] checks.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512bitalg,avx512cd,gfni,avx2,popcnt")]
    pub(super) unsafe fn units_pair(
        addrs: &[u32; 64],
        align: u32,
        unit_shift: u32,
        gmask: u32,
        serialize: bool,
        conflict: bool,
    ) -> Option<(u32, u32)> {
        let p = addrs.as_ptr() as *const __m512i;
        // vectors 0, 1: phase 0's lanes 0..16, 16..32; vectors 2, 3: phase 1's
        let a = [0, 1, 2, 3].map(|i| _mm512_loadu_si512(p.add(i) as *const _));
        let any = _mm512_or_si512(_mm512_or_si512(a[0], a[1]), _mm512_or_si512(a[2], a[3]));
        if _mm512_test_epi32_mask(any, _mm512_set1_epi32(align as i32)) != 0 {
            return None;
        }
        let sh = _mm_cvtsi32_si128(unit_shift as i32);
        let k = a.map(|v| _mm512_srl_epi32(v, sh));
        let zero = _mm512_setzero_si512();
        // counted lanes, as in `units`: for multicast, not a repeat of the previous lane's
        // key within the phase (or with `conflict`, of any lower lane's)
        let counted: [u16; 4] = if serialize {
            [u16::MAX; 4]
        } else if conflict {
            let (c0, c1) = first_of_keys(k[0], k[1], 32, u16::MAX, u16::MAX);
            let (c2, c3) = first_of_keys(k[2], k[3], 32, u16::MAX, u16::MAX);
            [c0, c1, c2, c3]
        } else {
            [
                _mm512_cmpneq_epi32_mask(k[0], _mm512_alignr_epi32::<15>(k[0], zero)) | 1,
                _mm512_cmpneq_epi32_mask(k[1], _mm512_alignr_epi32::<15>(k[1], k[0])),
                _mm512_cmpneq_epi32_mask(k[2], _mm512_alignr_epi32::<15>(k[2], zero)) | 1,
                _mm512_cmpneq_epi32_mask(k[3], _mm512_alignr_epi32::<15>(k[3], k[2])),
            ]
        };
        let gm = _mm512_set1_epi32(gmask as i32);
        let g = k.map(|v| _mm512_and_si512(v, gm));
        let one = _mm512_set1_epi32(1);
        let blocks = _mm512_loadu_si512(BLOCKS.as_ptr() as *const _);
        let identity = _mm512_set1_epi64(0x8040_2010_0804_0201u64 as i64);
        let column = |i: usize| {
            let row = _mm512_maskz_sllv_epi32(counted[i], one, g[i]);
            _mm512_popcnt_epi8(_mm512_gf2p8affine_epi64_epi8::<0>(
                identity,
                _mm512_permutexvar_epi8(blocks, row),
            ))
        };
        let (s0, s1) = (_mm512_add_epi8(column(0), column(1)), _mm512_add_epi8(column(2), column(3)));
        // lanes per group: byte g of the low 256 bits for phase 0, of the high for phase 1
        let counts = _mm512_add_epi8(
            _mm512_shuffle_i64x2::<0b01_00_01_00>(s0, s1),
            _mm512_shuffle_i64x2::<0b11_10_11_10>(s0, s1),
        );
        // the largest count of each half, in byte 0 of its 128-bit lanes 0 and 2
        let x = _mm512_max_epu8(counts, _mm512_shuffle_i64x2::<0b10_11_00_01>(counts, counts));
        let x = _mm512_max_epu8(x, _mm512_bsrli_epi128::<8>(x));
        let x = _mm512_max_epu8(x, _mm512_bsrli_epi128::<4>(x));
        let x = _mm512_max_epu8(x, _mm512_bsrli_epi128::<2>(x));
        let x = _mm512_max_epu8(x, _mm512_bsrli_epi128::<1>(x));
        let top0 = _mm_cvtsi128_si32(_mm512_castsi512_si128(x)) as u32 & 0xFF;
        let top1 = _mm_cvtsi128_si32(_mm512_extracti32x4_epi32::<2>(x)) as u32 & 0xFF;
        if serialize || conflict {
            return Some((top0, top1));
        }
        // Multicast: the quick check of `units` for each phase (its first busiest group's
        // counted keys told apart by one of two hashes of their bits above the group);
        // a count of one passes it (one lane, one hash).
        let gbits = _mm_cvtsi32_si128((gmask + 1).trailing_zeros() as i32);
        let quick = |c: __m256i, top: u32, i: usize| {
            let gstar = (_mm256_cmpeq_epi8_mask(c, _mm256_set1_epi8(top as i8)) as u32).trailing_zeros();
            let gs = _mm512_set1_epi32(gstar as i32);
            let in_lo = _mm512_mask_cmpeq_epi32_mask(counted[i], g[i], gs);
            let in_hi = _mm512_mask_cmpeq_epi32_mask(counted[i + 1], g[i + 1], gs);
            let (h_lo, h_hi) = (_mm512_srl_epi32(k[i], gbits), _mm512_srl_epi32(k[i + 1], gbits));
            (distinct_hashes::<false>(h_lo, h_hi, in_lo, in_hi) == top)
                | (distinct_hashes::<true>(h_lo, h_hi, in_lo, in_hi) == top)
        };
        let ok0 = quick(_mm512_castsi512_si256(counts), top0, 0);
        let ok1 = quick(_mm512_extracti64x4_epi64::<1>(counts), top1, 2);
        (ok0 & ok1).then_some((top0, top1))
    }

    /// The distinct values of the hash `x & 31` among the lanes `in_lo` of `h_lo` (lanes
    /// 0..16) and `in_hi` of `h_hi` (lanes 16..32), `x` being `h` itself or, with `FOLD`,
    /// `h ^ h >> 5 ^ h >> 10 ^ h >> 15` (every five bits of the low twenty): the bits of
    /// their one-hots, ORed.
    #[inline]
    #[target_feature(enable = "avx512f,avx2,popcnt")]
    unsafe fn distinct_hashes<const FOLD: bool>(h_lo: __m512i, h_hi: __m512i, in_lo: u16, in_hi: u16) -> u32 {
        let fold = |h: __m512i| {
            if !FOLD {
                return h;
            }
            let h = _mm512_xor_si512(h, _mm512_srli_epi32::<5>(h));
            _mm512_xor_si512(h, _mm512_srli_epi32::<10>(h))
        };
        let (h_lo, h_hi) = (fold(h_lo), fold(h_hi));
        let (one, low5) = (_mm512_set1_epi32(1), _mm512_set1_epi32(31));
        let bits = _mm512_or_si512(
            _mm512_maskz_sllv_epi32(in_lo, one, _mm512_and_si512(h_lo, low5)),
            _mm512_maskz_sllv_epi32(in_hi, one, _mm512_and_si512(h_hi, low5)),
        );
        super::avx2::bits_set(_mm256_or_si256(
            _mm512_castsi512_si256(bits),
            _mm512_extracti64x4_epi64::<1>(bits),
        ))
    }

    /// The lanes of `n` (2 to 32; keys `k_lo` = lanes 0..16, `k_hi` = lanes 16..32,
    /// zero past `n`) whose key no lower lane holds, as two 16-lane masks.
    #[inline]
    #[target_feature(enable = "avx512f,avx512cd")]
    unsafe fn first_of_keys(
        k_lo: __m512i,
        k_hi: __m512i,
        n: usize,
        live_lo: u16,
        live_hi: u16,
    ) -> (u16, u16) {
        let zero = _mm512_setzero_si512();
        // (a lane past `n` is only ever compared as the higher lane: its result is masked)
        let first_lo = _mm512_mask_cmpeq_epi32_mask(live_lo, _mm512_conflict_epi32(k_lo), zero);
        if n <= 16 {
            return (first_lo, 0);
        }
        let within = _mm512_cmpeq_epi32_mask(_mm512_conflict_epi32(k_hi), zero);
        // Each upper quarter b (lanes 16 + 8b..) against each lower quarter a (8a..): the
        // upper half of the vector [lower quarter a, upper quarter b], whose bits 0..8
        // are the lower quarter's lanes.
        let cross = |v: __m512i| _mm512_conflict_epi32(v);
        let q00 = cross(_mm512_shuffle_i64x2::<0x44>(k_lo, k_hi));
        let q10 = cross(_mm512_shuffle_i64x2::<0x4E>(k_lo, k_hi));
        let q01 = cross(_mm512_shuffle_i64x2::<0xE4>(k_lo, k_hi));
        let q11 = cross(_mm512_shuffle_i64x2::<0xEE>(k_lo, k_hi));
        let low8 = _mm512_set1_epi32(0xFF);
        let clean0 = _mm512_testn_epi32_mask(_mm512_or_si512(q00, q10), low8) >> 8;
        let clean1 = _mm512_testn_epi32_mask(_mm512_or_si512(q01, q11), low8) >> 8;
        (first_lo, within & (clean0 | clean1 << 8) & live_hi)
    }
}

/// Bytes of one global-memory line: a global access costs one pipe wavefront per line
/// the warp touches (see [`Op::GlobalLoad`]).
pub const GLOBAL_LINE_BYTES: u32 = 128;

/// A global access's wavefronts: the distinct [`GLOBAL_LINE_BYTES`] lines among
/// `addrs` (never conflicts: `ideal` is the same).
fn global_lines(addrs: &[u32]) -> Outcome {
    let mut lines = [0u32; 64];
    let mut n = 0;
    for &a in addrs {
        let line = a / GLOBAL_LINE_BYTES;
        if !lines[..n].contains(&line) {
            if n == lines.len() {
                // more than 64 lanes (no supported warp size): count the rest as new
                return Outcome { wavefronts: addrs.len() as u32, ideal: addrs.len() as u32 };
            }
            lines[n] = line;
            n += 1;
        }
    }
    Outcome { wavefronts: n as u32, ideal: n as u32 }
}
