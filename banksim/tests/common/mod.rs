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

/// Temporary files (`*.tmp`, `*.tmp.*`) anywhere under `dir`: an output left half-made.
pub fn stray_temporaries(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                todo.push(p);
            } else if p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.contains(".tmp")) {
                out.push(p);
            }
        }
    }
    out
}
