//! The AVX2 kernels of the fast path: `phase_units` for one phase of up to 32 lanes
//! ([`units`]), the pair-merge check of a full warp ([`pairs_equal`]) and the check that
//! a full warp in phases of 8 or 16 lanes is conflict-free ([`conflict_free_32`]).
//!
//! Each is compiled into its caller, which is compiled for AVX2 and POPCNT
//! (`Fast::evaluate_avx2` or `Fast::evaluate_avx512`); the results equal the scalar
//! code's.

use super::closed_form::progression;
use std::arch::x86_64::*;

/// Whether the CPU runs [`units`].
pub(super) fn available() -> bool {
    is_x86_feature_detected!("avx2") && is_x86_feature_detected!("popcnt")
}

/// The addresses of a full warp of 32 lanes as four vectors of eight.
///
/// # Safety
/// Only for code compiled for AVX2; `addrs` holds 32 addresses.
#[inline(always)]
unsafe fn load_warp(addrs: &[u32]) -> [__m256i; 4] {
    let p = addrs.as_ptr() as *const __m256i;
    [
        _mm256_loadu_si256(p),
        _mm256_loadu_si256(p.add(1)),
        _mm256_loadu_si256(p.add(2)),
        _mm256_loadu_si256(p.add(3)),
    ]
}

/// Whether `addrs[l] == addrs[l ^ mask]` for every lane `l` of a full warp of 32.
///
/// # Safety
/// Only for code compiled for AVX2 (`Fast::evaluate_avx2`); `addrs` holds 32
/// addresses and `0 < mask < 32`.
#[inline(always)]
pub(super) unsafe fn pairs_equal(addrs: &[u32], mask: u32) -> bool {
    debug_assert!(addrs.len() == 32 && (1..32).contains(&mask));
    let v = load_warp(addrs);
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
/// Only for code compiled for AVX2 and POPCNT (`Fast::evaluate_avx2`);
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
    let raw = load_warp(addrs);
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

/// `phase_units` for one phase of 1 to `8 × V` lanes (`V` = 1, 2 or 4) and
/// at most 64 groups (`gmask < 64`); `None` where a lane's address is not a multiple
/// of `align + 1` (then the caller counts words).
///
/// The lanes' addresses sit in `V` vectors of eight; lanes past the end, and for
/// multicast lanes repeating the previous lane's key, become padding with a group of
/// their own (`64 + lane`). Then:
/// 1. addresses in arithmetic progression: the closed form ([`progression`]);
/// 2. no two counted lanes in one group (a bitmask of the groups, up to 32): 1;
/// 3. lanes per group: the groups as bytes of one vector (16 or 32), compared with
///    each of its rotations (the count of each lane's group at each lane);
/// 4. serialize, or no group with two lanes: the largest count; multicast: the
///    groups from the largest count down have their keys compared until no group
///    further down can have more distinct keys than one already seen.
///
/// # Safety
/// Only for code compiled for AVX2 and POPCNT (`Fast::evaluate_avx2`).
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
        let turned_next = if v + 1 < V { _mm256_permutevar8x32_epi32(raw[v + 1], next_idx) } else { turned };
        let next = _mm256_blend_epi32::<0x80>(turned, turned_next);
        turned = turned_next;
        let has_next = if FULL && v + 1 < V { _mm256_set1_epi32(-1) } else { _mm256_cmpgt_epi32(nv1, idx) };
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
        if let Some(w) = progression(addrs, d, unit_shift, gmask, serialize) {
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
    let g =
        _mm256_packus_epi16(_mm256_packus_epi32(group[0], group[1]), _mm256_packus_epi32(group[2], group[3]));
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
