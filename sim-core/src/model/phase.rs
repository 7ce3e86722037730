//! The fast path's phase loop ([`phases`]) and the cost of one phase: by unit keys for
//! width-aligned accesses on a linear power-of-two mapping ([`Units`], [`phase_units`]),
//! else by bank words ([`Words`], [`phase_words`]).

use super::closed_form::progression;
use super::counter::WordCounter;
#[cfg(target_arch = "x86_64")]
use super::simd::units_simd;
use crate::request::Outcome;

/// The cost of one phase, from its lanes' addresses.
pub(super) trait PhaseCost {
    fn cost(&mut self, addrs: &[u32]) -> u32;
}

/// [`phase_units`] as a [`PhaseCost`].
pub(super) struct Units<'a, const SIMD: bool> {
    pub(super) counter: &'a mut WordCounter,
    /// Whether the AVX-512 kernel may run (with conflict detection where `conflict`).
    pub(super) avx512: bool,
    pub(super) conflict: bool,
    /// log2(bank_bytes).
    pub(super) word_shift: u32,
    /// Access width - 1.
    pub(super) align: u32,
    /// Bank count - 1 (the linear mapping's mask).
    pub(super) bank_mask: u32,
    pub(super) unit_shift: u32,
    pub(super) gmask: u32,
    pub(super) serialize: bool,
}

impl<const SIMD: bool> PhaseCost for Units<'_, SIMD> {
    #[inline(always)]
    fn cost(&mut self, addrs: &[u32]) -> u32 {
        let (a, u, g, s) = (self.align, self.unit_shift, self.gmask, self.serialize);
        #[cfg(target_arch = "x86_64")]
        if SIMD && g < 64 && addrs.len() <= 32 {
            // SAFETY: `SIMD` is set only in the AVX2 and AVX-512 builds, `avx512` only where
            // the CPU has it.
            let w = unsafe { units_simd(self.avx512, self.conflict, addrs, a, u, g, s) };
            // `None`: an unaligned lane
            return w.unwrap_or_else(|| self.words(addrs));
        }
        // with SIMD, the caller leaves the alignment to each phase
        if SIMD && addrs.iter().fold(0, |m, &x| m | x) & a != 0 {
            return self.words(addrs);
        }
        phase_units(self.counter, addrs, u, g, s)
    }
}

impl<const SIMD: bool> Units<'_, SIMD> {
    /// The phase counted by words (some lane's address is not aligned to its width).
    #[cold]
    fn words(&mut self, addrs: &[u32]) -> u32 {
        let mask = self.bank_mask;
        phase_words(self.counter, addrs, self.align + 1, self.word_shift, self.serialize, &|w| w & mask)
    }
}

/// [`phase_words`] as a [`PhaseCost`].
pub(super) struct Words<'a, B> {
    pub(super) counter: &'a mut WordCounter,
    pub(super) bytes: u32,
    pub(super) word_shift: u32,
    pub(super) serialize: bool,
    pub(super) bank: B,
}

impl<B: Fn(u32) -> u32> PhaseCost for Words<'_, B> {
    #[inline(always)]
    fn cost(&mut self, addrs: &[u32]) -> u32 {
        phase_words(self.counter, addrs, self.bytes, self.word_shift, self.serialize, &self.bank)
    }
}

/// Splits the active lanes into phases of `1 << shift` lanes and sums the cost over the
/// phases with an active lane (the fast path's phase loop; one call site of `cost`, so
/// that it is inlined once).
#[inline(always)]
pub(super) fn phases(lanes: &[u16], addrs: &[u32], shift: u32, cost: &mut impl PhaseCost) -> Outcome {
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
fn phase_units(
    counter: &mut WordCounter,
    addrs: &[u32],
    unit_shift: u32,
    gmask: u32,
    serialize: bool,
) -> u32 {
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
        return counter.count(
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
    counter: &mut WordCounter,
    addrs: &[u32],
    bytes: u32,
    word_shift: u32,
    serialize: bool,
    bank: &impl Fn(u32) -> u32,
) -> u32 {
    counter.count(
        serialize,
        addrs.iter().flat_map(|&a| {
            let first = a >> word_shift;
            let last = (a + (bytes - 1)) >> word_shift;
            (first..=last).map(|word| (bank(word), word))
        }),
    )
}
