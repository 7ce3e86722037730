//! Closed forms of the fast path: the cost of lanes whose keys (unit addresses) are in
//! arithmetic progression `k0 + d·i`, with no lane-by-lane count.
//!
//! With `d = 0` there is one key (multicast: 1 wavefront; serialize: every lane).
//! Otherwise the keys are distinct, and two lanes share a bank group exactly when their
//! positions are congruent modulo the period `P = G / gcd(d, G)` over the `G` groups, so
//! the busiest group holds the largest residue class mod `P`: `ceil(n / P)` for a run of
//! lanes ([`progression`]), any lane mask ([`affine_phases`]).

use crate::request::Outcome;

/// The closed form of `phase_units` for keys in arithmetic progression, given that
/// every lane's address is the previous lane's plus `d` modulo 2^32 (at least two lanes);
/// `None` where the addresses wrap around or `d` is not a whole number of units.
#[inline(always)]
pub(super) fn progression(
    addrs: &[u32],
    d: u32,
    unit_shift: u32,
    gmask: u32,
    serialize: bool,
) -> Option<u32> {
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
pub(super) fn period_log2(d: i64, groups_log2: u32) -> u32 {
    groups_log2 - d.unsigned_abs().trailing_zeros().min(groups_log2)
}

/// The most lanes of `m` (not empty) whose numbers are congruent modulo `2^period_log2`.
#[inline(always)]
pub(super) fn busiest_residue(m: u64, period_log2: u32) -> u32 {
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

/// The outcome of an affine request given by its lane mask `mask` (lane `l` at key
/// `k0 + d·(l − lowest lane)`), in phases of `1 << shift` lanes on `2^groups_log2` bank
/// groups: per phase with an active lane, one key (`d = 0`: 1, or with `serialize` every
/// lane) or its largest residue class modulo the period.
#[inline(always)]
pub(super) fn affine_phases(mask: u64, shift: u32, serialize: bool, d: i64, groups_log2: u32) -> Outcome {
    let period_log2 = period_log2(d, groups_log2);
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
    out
}
