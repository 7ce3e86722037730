//! `banksim capture` and `banksim measure` on a real GPU (any Vulkan adapter, lavapipe
//! too); skipped without one (see `common::gpu_or_skip`).
#![cfg(feature = "gpu")]

mod common;

use std::path::PathBuf;
use std::process::Command;

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("banksim-gpu-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn kernel(name: &str) -> String {
    format!("{}/../validate/kernels/{name}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn capture_writes_a_trace_that_runs() {
    if !common::gpu_or_skip("capture_writes_a_trace_that_runs") {
        return;
    }
    let out = tmp("scan.csv");
    let o = Command::new(env!("CARGO_BIN_EXE_banksim"))
        .args(["capture", &kernel("scan.wgsl"), "--dispatch", "1", "-o", out.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let trace = traces::text::read(&out).unwrap();
    assert!(!trace.is_empty());
    let o =
        Command::new(env!("CARGO_BIN_EXE_banksim")).args(["run", out.to_str().unwrap()]).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn measure_appends_a_row_per_run() {
    if !common::gpu_or_skip("measure_appends_a_row_per_run") {
        return;
    }
    let csv = tmp("measure.csv");
    let _ = std::fs::remove_file(&csv);
    for _ in 0..2 {
        let o = Command::new(env!("CARGO_BIN_EXE_banksim"))
            .args(["measure", &kernel("scan.wgsl"), "--dispatch", "1", "--reps", "2", "--warmup", "1"])
            .args(["--csv", csv.to_str().unwrap()])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let text = std::fs::read_to_string(&csv).unwrap();
    assert_eq!(text.lines().count(), 3, "{text}");
    assert!(text.starts_with("label,"), "{text}");
}
