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
use crate::op::Op;

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

/// Marks a width without a phase size in `Fast::lanes_log2`.
const NO_WIDTH: u8 = u8::MAX;

/// Evaluates warp requests against one [`Hardware`]. Holds scratch space that is reused
/// from request to request, so the steady state allocates nothing.
#[derive(Clone, Debug)]
pub struct BankModel {
    hw: Hardware,
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
    /// log2(warp).
    warp_log2: u32,
    /// log2 of the lanes per phase (before the pair merge, capped at the warp) for each
    /// access width in bytes, `NO_WIDTH` for an unsupported width.
    lanes_log2: [u8; 17],
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
        let mut lanes_log2 = [NO_WIDTH; 17];
        for w in crate::op::WIDTHS {
            let lanes = hw.phase_lanes.lanes(w).min(hw.warp);
            if !lanes.is_power_of_two() {
                return None;
            }
            lanes_log2[w as usize] = lanes.trailing_zeros() as u8;
        }
        // Entries per phase are at most warp x words per lane; a 16-byte access at any
        // alignment touches at most 15 / bank_bytes + 2 words. The set is kept at most
        // half full.
        let max_entries = hw.warp as usize * (15 / hw.bank_bytes as usize + 2);
        let size = (2 * max_entries).next_power_of_two().max(64);
        Some(Box::new(Fast {
            banks,
            word_shift: hw.bank_bytes.trailing_zeros(),
            warp_log2: hw.warp.trailing_zeros(),
            lanes_log2,
            count: [0; 64],
            slots: [[0; SLOTS]; 64],
            keys: vec![0; size],
            stamps: vec![0; size],
            gen: 1,
            hash_shift: 32 - size.trailing_zeros(),
        }))
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
        }
    }

    /// The hardware this model evaluates.
    pub fn hardware(&self) -> &Hardware {
        &self.hw
    }

    /// Lanes per phase for `req`, after the load pair-merge rule.
    pub fn phase_lanes(&mut self, req: &WarpRequest<'_>) -> u32 {
        let base = self.hw.phase_lanes.lanes(req.bytes).min(self.hw.warp);
        if req.op == Op::Load && base < self.hw.warp && self.pairs_merge(req) {
            (base * 2).min(self.hw.warp)
        } else {
            base
        }
    }

    fn pairs_merge(&mut self, req: &WarpRequest<'_>) -> bool {
        let Some(pm) = &self.hw.load_pair_merge else { return false };
        if !pm.widths.contains(&req.bytes) {
            return false;
        }
        for (&lane, &addr) in req.lanes.iter().zip(req.addrs) {
            self.dense[lane as usize] = addr;
        }
        let warp = self.hw.warp;
        let merged = pm.masks.iter().any(|&mask| {
            req.lanes.iter().zip(req.addrs).all(|(&lane, &addr)| {
                let partner = lane as u32 ^ mask;
                partner >= warp || {
                    let other = self.dense[partner as usize];
                    other == NONE || other == addr
                }
            })
        });
        for &lane in req.lanes {
            self.dense[lane as usize] = NONE;
        }
        merged
    }

    /// Wavefronts and ideal wavefronts of one request. Barriers cost nothing.
    ///
    /// Hardware with at most 64 banks and the `Multicast` or `Serialize` rule takes an
    /// allocation-free fast path (a bitmask of the banks used and a word per bank; aligned
    /// accesses on a linear power-of-two mapping count one key per lane); everything
    /// else, and [`Self::picture`], takes the general path. Both give the same results.
    #[inline]
    pub fn evaluate(&mut self, req: &WarpRequest<'_>) -> Outcome {
        if let Some(fast) = self.fast.take() {
            let out = self.evaluate_fast(req, fast);
            if let Some(o) = out {
                return o;
            }
        }
        self.run_with(req, None)
    }

    /// [`Self::evaluate`] on the general path only (for tests that compare the paths).
    #[doc(hidden)]
    pub fn evaluate_general(&mut self, req: &WarpRequest<'_>) -> Outcome {
        self.run_with(req, None)
    }

    /// The fast path; `None` (with `fast` put back) where it does not apply.
    #[inline]
    fn evaluate_fast(&mut self, req: &WarpRequest<'_>, mut fast: Box<Fast>) -> Option<Outcome> {
        debug_assert_eq!(req.lanes.len(), req.addrs.len());
        if !req.op.is_memory() || req.lanes.is_empty() {
            self.fast = Some(fast);
            return Some(Outcome::default());
        }
        let serialize = match self.hw.same_word(req.op) {
            SameWord::Multicast => Some(false),
            SameWord::Serialize => Some(true),
            SameWord::OneBroadcastWord => None,
        };
        let base = fast.lanes_log2.get(req.bytes as usize).copied().unwrap_or(NO_WIDTH);
        let (Some(serialize), false) = (serialize, base == NO_WIDTH) else {
            self.fast = Some(fast);
            return None;
        };
        let mut shift = base as u32;
        if req.op == Op::Load && shift < fast.warp_log2 && self.pairs_merge(req) {
            shift += 1;
        }
        let (lanes, addrs) = (req.lanes, req.addrs);
        let bytes = req.bytes as u32;
        let ws = fast.word_shift;
        let f = &mut *fast;
        let out = match f.banks {
            FastBanks::LinearPow2 { mask, banks_log2 } => {
                // Accesses aligned to their width: a lane's words are one whole "unit" of
                // 2^span banks, so distinct words per bank = distinct units per group of
                // banks, and a lane is one entry (key = unit, bank = group).
                let unit_shift = bytes.trailing_zeros().max(ws);
                let span = unit_shift - ws;
                let aligned = addrs.iter().fold(0, |m, &a| m | a) & (bytes - 1) == 0;
                if aligned && span <= banks_log2 {
                    let gmask = mask >> span;
                    phases(lanes, addrs, shift, |a| phase_units(f, a, unit_shift, gmask, serialize))
                } else {
                    phases(lanes, addrs, shift, |a| phase_words(f, a, bytes, ws, serialize, |w| w & mask))
                }
            }
            FastBanks::XorPow2 { mask, shift: xs, xor } => phases(lanes, addrs, shift, |a| {
                phase_words(f, a, bytes, ws, serialize, |w| (w & mask) ^ ((w >> xs) & xor))
            }),
            FastBanks::Other { mapping, banks } => phases(lanes, addrs, shift, |a| {
                phase_words(f, a, bytes, ws, serialize, |w| mapping.bank(w, banks))
            }),
        };
        self.fast = Some(fast);
        Some(out)
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
            let last = (addr + req.bytes as u32 - 1) >> shift;
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

/// Splits the active lanes into phases of `1 << shift` lanes and sums `cost` over the
/// phases with an active lane (the fast path's phase loop).
#[inline(always)]
fn phases(lanes: &[u16], addrs: &[u32], shift: u32, mut cost: impl FnMut(&[u32]) -> u32) -> Outcome {
    let n = lanes.len();
    if lanes[0] >> shift == lanes[n - 1] >> shift {
        return Outcome { wavefronts: cost(addrs), ideal: 1 };
    }
    let mut out = Outcome::default();
    let mut start = 0;
    while start < n {
        let p = lanes[start] >> shift;
        let mut end = start + 1;
        while end < n && lanes[end] >> shift == p {
            end += 1;
        }
        out.wavefronts += cost(&addrs[start..end]);
        out.ideal += 1;
        start = end;
    }
    out
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
    if n >= 2 {
        let d = addrs[1].wrapping_sub(addrs[0]);
        let off = addrs[1..].iter().zip(addrs).fold(0u32, |acc, (&y, &x)| acc | (y.wrapping_sub(x) ^ d));
        let step = d as i32 as i64;
        let unit = 1u32 << unit_shift;
        // equal steps modulo 2^32 that add up in the integers: no wrap-around
        if off == 0 && (addrs[n - 1] as i64 - addrs[0] as i64) == step * (n as i64 - 1) && d & (unit - 1) == 0
        {
            let kd = step >> unit_shift;
            if kd == 0 {
                return if serialize { n as u32 } else { 1 };
            }
            let groups_log2 = (gmask + 1).trailing_zeros();
            let period = 1usize << (groups_log2 - kd.unsigned_abs().trailing_zeros().min(groups_log2));
            return n.div_ceil(period) as u32;
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
    bank: impl Fn(u32) -> u32,
) -> u32 {
    f.count(
        serialize,
        addrs.iter().flat_map(|&a| {
            let first = a >> word_shift;
            let last = (a + bytes - 1) >> word_shift;
            (first..=last).map(|word| (bank(word), word))
        }),
    )
}
