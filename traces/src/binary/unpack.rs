//! Unpacking the packed address mode's bit-packed offsets: a scalar loop, fixed-width
//! loops, and an AVX2 kernel.

use super::cpu::simd_available;

/// Unpacks `dst.len()` offsets of `bits` bits (LSB first) from `column[..len]` into
/// `dst[i] = base + (offset << shift)`; returns the largest `offset << shift`.
/// `len` is exactly `ceil(dst.len() × bits / 8)` and `shift + bits <= 32`. The bytes of
/// `column` after the offsets may be read (by whole vectors) but never change the result.
pub(super) fn unpack(column: &[u8], len: usize, bits: u32, shift: u32, base: u32, dst: &mut [u32]) -> u32 {
    #[cfg(target_arch = "x86_64")]
    if simd_available() {
        // SAFETY: the CPU has AVX2.
        return unsafe { unpack_avx2(column, len, bits, shift, base, dst) };
    }
    unpack_with(column, len, bits, shift, base, dst, false)
}

/// [`unpack_with`] compiled for AVX2 (the loops over whole bytes vectorize with it).
///
/// # Safety
/// The CPU must have AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn unpack_avx2(column: &[u8], len: usize, bits: u32, shift: u32, base: u32, dst: &mut [u32]) -> u32 {
    unpack_with(column, len, bits, shift, base, dst, true)
}

/// [`unpack`], with the AVX2 kernel where `simd` (which only a CPU with AVX2 may set).
#[inline(always)]
fn unpack_with(
    column: &[u8],
    len: usize,
    bits: u32,
    shift: u32,
    base: u32,
    dst: &mut [u32],
    simd: bool,
) -> u32 {
    let packed = &column[..len];
    // whole bytes per offset (random words of a few hundred KiB take 16 bits): plain
    // loops over fixed-size byte groups, which the compiler vectorizes
    macro_rules! whole_bytes {
        ($k:literal) => {{
            debug_assert!(shift + 8 * $k <= 32 && packed.len() == dst.len() * $k);
            let mut max = 0u32;
            for (d, b) in dst.iter_mut().zip(packed.chunks_exact($k)) {
                let mut w = [0u8; 4];
                w[..$k].copy_from_slice(b);
                let v = u32::from_le_bytes(w) << shift;
                max = max.max(v);
                *d = base.wrapping_add(v);
            }
            return max;
        }};
    }
    // otherwise eight offsets at a time from `bits` bytes, with the width a constant
    macro_rules! fixed {
        ($($b:literal)*) => {
            match bits {
                8 => whole_bytes!(1),
                16 => whole_bytes!(2),
                24 => whole_bytes!(3),
                32 => whole_bytes!(4),
                $($b => return unpack_fixed::<$b>(column, len, shift, base, dst, simd),)*
                _ => {}
            }
        };
    }
    fixed!(1 2 3 4 5 6 7 9 10 11 12 13 14 15 17 18 19 20 21 22 23);
    let mask = if bits == 32 { u32::MAX } else { (1u32 << bits) - 1 };
    let mut max = 0u32;
    let whole = packed.len().saturating_sub(7);
    for (i, d) in dst.iter_mut().enumerate() {
        let bit = i * bits as usize;
        let byte = bit / 8;
        let word = if byte < whole {
            u64::from_le_bytes(packed[byte..byte + 8].try_into().unwrap_or_default())
        } else {
            let mut w = [0u8; 8];
            let tail = &packed[byte.min(packed.len())..];
            w[..tail.len()].copy_from_slice(tail);
            u64::from_le_bytes(w)
        };
        // in u64: `shift` may be 32 (with `bits` 0), which a u32 shift does not allow
        let v = ((((word >> (bit % 8)) as u32 & mask) as u64) << shift) as u32;
        max = max.max(v);
        *d = base.wrapping_add(v);
    }
    max
}

/// [`unpack`] for offsets of `B` bits (`0 < B < 24`, `shift + B <= 32`): each eight
/// offsets are `B` bytes, read as one integer of up to 192 bits (with `B` a constant,
/// every offset's position is one too). With `simd` (the CPU has AVX2): [`avx2::unpack`].
#[inline(never)]
fn unpack_fixed<const B: usize>(
    column: &[u8],
    len: usize,
    shift: u32,
    base: u32,
    dst: &mut [u32],
    simd: bool,
) -> u32 {
    debug_assert!(B < 24 && shift as usize + B <= 32 && len == (dst.len() * B).div_ceil(8));
    #[cfg(target_arch = "x86_64")]
    if simd {
        // SAFETY: `simd` is set only where the CPU has AVX2 (`simd_available`).
        return unsafe { avx2::unpack::<B>(column, len, shift, base, dst) };
    }
    let packed = &column[..len];
    #[cfg(not(target_arch = "x86_64"))]
    let _ = simd;
    let mask = (1u32 << B) - 1;
    let mut max = 0u32;
    let mut eight = |d: &mut [u32], b: &[u8]| {
        let mut w = [0u8; 24];
        w[..b.len()].copy_from_slice(b);
        let lo = u128::from_le_bytes(w[..16].try_into().unwrap_or_default());
        let hi = u64::from_le_bytes(w[16..].try_into().unwrap_or_default());
        for (j, d) in d.iter_mut().enumerate() {
            let at = j * B;
            let x = if at + B <= 128 {
                (lo >> at) as u32
            } else if at >= 128 {
                (hi >> (at - 128)) as u32
            } else {
                (lo >> at) as u32 | (hi as u32) << (128 - at)
            };
            let v = (x & mask) << shift;
            max = max.max(v);
            *d = base.wrapping_add(v);
        }
    };
    let whole = dst.len() / 8;
    let mut out = dst.chunks_exact_mut(8);
    for (d, b) in (&mut out).zip(packed.chunks_exact(B)) {
        eight(d, b);
    }
    // the last offsets (fewer than eight), from the bytes after the whole groups of eight
    let tail = out.into_remainder();
    if !tail.is_empty() {
        eight(tail, &packed[whole * B..]);
    }
    max
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::*;

    /// For offsets of `B` bits, eight at a time in one 256-bit register: the low half
    /// holds the 16 bytes from the group's first byte (offsets 0-3), the high half the
    /// 16 bytes from byte `4B / 8` (offsets 4-7). Per offset: the `vpshufb` indices of
    /// the four bytes it lies in (an offset spans at most `7 + 23` bits), and the bit it
    /// starts at within the first.
    const fn layout<const B: usize>() -> ([u8; 32], [u32; 8]) {
        let high = 4 * B / 8;
        let (mut shuffle, mut bit) = ([0u8; 32], [0u32; 8]);
        let mut j = 0;
        while j < 8 {
            let first = j * B / 8;
            let (half, at) = if j < 4 { (0, first) } else { (16, first - high) };
            let mut k = 0;
            while k < 4 {
                // (at most byte 12 of its half: every index is a real byte)
                shuffle[half + (j % 4) * 4 + k] = (at + k) as u8;
                k += 1;
            }
            bit[j] = (j * B % 8) as u32;
            j += 1;
        }
        (shuffle, bit)
    }

    /// [`super::unpack_fixed`] for a CPU with AVX2: eight offsets a step, loaded straight
    /// from `column` (the offsets are `column[..len]`, the bytes after them are read but
    /// masked off) while both 16-byte loads stay inside it, then from a zero-padded copy
    /// of the rest (the last step's extra lanes are dropped, and left out of the largest
    /// `offset << shift`, which this returns). A copy read back at once stalls (the
    /// loads straddle its stores), so only the end of a column takes it.
    ///
    /// # Safety
    /// The CPU must have AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn unpack<const B: usize>(
        column: &[u8],
        len: usize,
        shift: u32,
        base: u32,
        dst: &mut [u32],
    ) -> u32 {
        let (shuffle, bit) = const { layout::<B>() };
        let high = 4 * B / 8;
        let shuffle = _mm256_loadu_si256(shuffle.as_ptr().cast());
        let bit = _mm256_loadu_si256(bit.as_ptr().cast());
        let mask = _mm256_set1_epi32(((1u32 << B) - 1) as i32);
        let count = _mm_cvtsi32_si128(shift as i32);
        let base = _mm256_set1_epi32(base as i32);
        // the offsets of the eight at `p` (`p + high + 16` readable), `<< shift`
        let step = |p: *const u8| {
            let lo = _mm_loadu_si128(p.cast());
            let hi = _mm_loadu_si128(p.add(high).cast());
            let bytes = _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(lo), hi);
            let words = _mm256_shuffle_epi8(bytes, shuffle);
            _mm256_sll_epi32(_mm256_and_si256(_mm256_srlv_epi32(words, bit), mask), count)
        };
        let mut max = _mm256_setzero_si256();
        // step g reads bytes g × B .. g × B + high + 16
        let direct = (dst.len() / 8).min((column.len() + 1).saturating_sub(high + 16).div_ceil(B));
        for g in 0..direct {
            debug_assert!(g * B + high + 16 <= column.len());
            // SAFETY: both loads lie inside `column` (`direct` above), the store inside
            // `dst`.
            let v = step(column.as_ptr().add(g * B));
            max = _mm256_max_epu32(max, v);
            _mm256_storeu_si256(dst.as_mut_ptr().add(g * 8).cast(), _mm256_add_epi32(v, base));
        }
        // the rest: fewer than `high + 16 + B` bytes (else one more step would have fit)
        // and at most eight steps
        let (rest, out) = (&column[direct * B..len], &mut dst[direct * 8..]);
        let mut buf = [0u8; 8 * 23 + 32];
        buf[..rest.len()].copy_from_slice(rest);
        let iota = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
        for (g, d) in out.chunks_mut(8).enumerate() {
            // SAFETY: step g reads bytes g × B .. g × B + high + 16 of `buf`, inside it
            // (g < 8, B < 24, high < 12).
            let v = step(buf.as_ptr().add(g * B));
            if d.len() == 8 {
                max = _mm256_max_epu32(max, v);
                // SAFETY: `d` holds the eight lanes stored.
                _mm256_storeu_si256(d.as_mut_ptr().cast(), _mm256_add_epi32(v, base));
                continue;
            }
            let real = _mm256_cmpgt_epi32(_mm256_set1_epi32(d.len() as i32), iota);
            max = _mm256_max_epu32(max, _mm256_and_si256(v, real));
            let mut lanes = [0u32; 8];
            _mm256_storeu_si256(lanes.as_mut_ptr().cast(), _mm256_add_epi32(v, base));
            d.copy_from_slice(&lanes[..d.len()]);
        }
        let mut lanes = [0u32; 8];
        _mm256_storeu_si256(lanes.as_mut_ptr().cast(), max);
        lanes.into_iter().max().unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    /// `unpack` (whole bytes, the per-width loops, the general loop) gives what reading
    /// the bits one by one gives, for every width, shift and lane count.
    #[test]
    fn unpack_equals_bit_by_bit_reading() {
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for bits in 0..=32u32 {
            // the format guarantees shift + bits <= 32 (`unpack`'s precondition)
            for shift in [0, 1, 4, 32 - bits].into_iter().filter(|s| s + bits <= 32) {
                for n in 1..=64usize {
                    let len = (n * bits as usize).div_ceil(8);
                    // the offsets, then (as in a column) bytes that must not matter: none,
                    // or as many as the kernel may read past the offsets
                    let extra = if n % 2 == 0 { 0 } else { 40 };
                    let packed: Vec<u8> = (0..len + extra).map(|_| next() as u8).collect();
                    let base = next() as u32 % 1000;
                    let want: Vec<u32> = (0..n)
                        .map(|i| {
                            let v = (0..bits as usize)
                                .map(|k| {
                                    let bit = i * bits as usize + k;
                                    ((packed[bit / 8] >> (bit % 8)) & 1) as u64
                                })
                                .enumerate()
                                .fold(0u64, |acc, (k, b)| acc | b << k);
                            ((v << shift) as u32).wrapping_add(base)
                        })
                        .collect();
                    // the scalar code, the AVX2 kernel where the CPU has it, and `unpack` as
                    // the decoder calls it (compiled for AVX2 where the CPU has it)
                    for (simd, dispatch) in [(false, false), (super::simd_available(), false), (true, true)] {
                        let mut got = vec![0; n];
                        let max = if dispatch {
                            super::unpack(&packed, len, bits, shift, base, &mut got)
                        } else {
                            super::unpack_with(&packed, len, bits, shift, base, &mut got, simd)
                        };
                        let simd = if dispatch {
                            "as dispatched"
                        } else if simd {
                            "avx2"
                        } else {
                            "scalar"
                        };
                        assert_eq!(got, want, "{bits} bits, shift {shift}, {n} lanes, simd {simd}");
                        let want_max = want.iter().map(|w| w.wrapping_sub(base)).max().unwrap_or(0);
                        assert_eq!(
                            max, want_max,
                            "{bits} bits, shift {shift}, {n} lanes, simd {simd}: the largest offset"
                        );
                    }
                }
            }
        }
    }
}
