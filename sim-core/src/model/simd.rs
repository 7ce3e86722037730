//! Which SIMD kernels this CPU runs, and the choice of kernel for one phase.

#[cfg(target_arch = "x86_64")]
use super::{avx2, avx512};

/// Whether this CPU runs the AVX-512 kernel (besides the AVX2 ones).
pub(super) fn avx512_available() -> bool {
    #[cfg(target_arch = "x86_64")]
    return avx512::available();
    #[cfg(not(target_arch = "x86_64"))]
    return false;
}

/// Whether this CPU runs the AVX-512 kernel with conflict detection.
pub(super) fn conflict_kernel() -> bool {
    #[cfg(target_arch = "x86_64")]
    return avx512::available() && avx512::conflict_is_fast();
    #[cfg(not(target_arch = "x86_64"))]
    return false;
}

/// Whether this CPU runs the SIMD kernels.
pub(super) fn simd_available() -> bool {
    #[cfg(target_arch = "x86_64")]
    return avx2::available();
    #[cfg(not(target_arch = "x86_64"))]
    return false;
}

/// One phase of 1 to 32 lanes (`gmask < 64`) by the SIMD kernels: [`avx512::units`]
/// (with conflict detection where `conflict`) where `avx512` and it decides, else
/// [`avx2::units`]; `None` where a lane's address is not a multiple of `align + 1`.
///
/// # Safety
/// Only for code compiled for AVX2 and POPCNT (`Fast::evaluate_avx2` or
/// `Fast::evaluate_avx512`); `avx512` only where [`avx512::available`].
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(super) unsafe fn units_simd(
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
