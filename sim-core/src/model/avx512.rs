//! The AVX-512 kernels of the fast path (AVX-512 F/BW/VL/VBMI/BITALG/CD and GFNI):
//! `phase_units` for one phase of 2 to 32 lanes on at most 32 groups ([`units`]),
//! counting lanes per group without a loop over lanes, and the same for both 32-lane
//! warps of a full 64-lane slice at once ([`units_pair`]).

use super::avx2;
use super::closed_form::progression;
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
        && avx2::available()
}

/// Whether the CPU's conflict detection (`vpconflictd`) is fast enough for [`units`]
/// to find a multicast phase's repeated keys with it: on AMD cores (Zen 4 and later are
/// the AMD cores with AVX-512) it beats the rotations by more than half; on Intel cores
/// the instruction is microcoded and slower than the rotations, so they keep those.
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

/// `phase_units` for one phase of 2 to 32 lanes (`addrs`) and at most 32
/// groups (`gmask < 32`); `None` where it leaves the phase to [`avx2::units`]
/// (a lane not aligned to `align + 1`; a multicast phase whose busiest groups hold a
/// key twice, or more than 16 lanes between them).
///
/// 1. addresses in arithmetic progression: the closed form ([`progression`]);
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
        if let Some(w) = progression(addrs, d, unit_shift, gmask, serialize) {
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
        _mm512_popcnt_epi8(_mm512_gf2p8affine_epi64_epi8::<0>(identity, _mm512_permutexvar_epi8(blocks, row)))
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
    avx2::bits_set(_mm256_or_si256(_mm512_castsi512_si256(bits), _mm512_extracti64x4_epi64::<1>(bits)))
}

/// The lanes of `n` (2 to 32; keys `k_lo` = lanes 0..16, `k_hi` = lanes 16..32,
/// zero past `n`) whose key no lower lane holds, as two 16-lane masks.
#[inline]
#[target_feature(enable = "avx512f,avx512cd")]
unsafe fn first_of_keys(k_lo: __m512i, k_hi: __m512i, n: usize, live_lo: u16, live_hi: u16) -> (u16, u16) {
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
