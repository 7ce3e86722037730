//! Which instruction-set extensions the running CPU has (std caches the answers).

/// Whether the AVX2 unpacking kernel may run: the CPU has AVX2.
pub(super) fn simd_available() -> bool {
    #[cfg(target_arch = "x86_64")]
    return std::arch::is_x86_feature_detected!("avx2");
    #[cfg(not(target_arch = "x86_64"))]
    return false;
}

/// Whether the CPU has POPCNT.
#[cfg(target_arch = "x86_64")]
pub(super) fn popcnt_available() -> bool {
    std::arch::is_x86_feature_detected!("popcnt")
}
