//! Helpers shared by the integration tests.
#![allow(dead_code)] // each test target uses a part

/// Whether a Vulkan adapter is there for a test that runs kernels on a GPU. Without one
/// the test is skipped (this prints why and the test passes), unless
/// `BANKSIM_REQUIRE_GPU=1`, which makes a missing adapter a failure.
#[cfg(feature = "gpu")]
pub fn gpu_or_skip(test: &str) -> bool {
    match validate::gpu::Gpu::open(None) {
        Ok(_) => true,
        Err(e) if std::env::var("BANKSIM_REQUIRE_GPU").is_ok_and(|v| v == "1") => {
            panic!("{test}: BANKSIM_REQUIRE_GPU=1 but there is no Vulkan adapter: {e}")
        }
        Err(e) => {
            eprintln!(
                "skipped: {test}: no Vulkan adapter ({e}); set BANKSIM_REQUIRE_GPU=1 to make this a failure"
            );
            false
        }
    }
}
