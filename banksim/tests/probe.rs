//! `banksim probe` end to end: the inference on times made from a preset's own bank model
//! (no GPU), and a real probe of the default adapter (lavapipe in CI: no banks), skipped
//! without one (see `common::gpu_or_skip`).

mod common;

use std::process::{Command, Output};

fn banksim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_banksim")).args(args).output().unwrap()
}

fn text(o: &Output) -> (String, String) {
    (String::from_utf8_lossy(&o.stdout).into_owned(), String::from_utf8_lossy(&o.stderr).into_owned())
}

/// The `total` line of `banksim run --config CONFIG TRACE`, with the preset's name taken out.
fn totals(config: &str, trace: &str) -> String {
    let o = banksim(&["run", "--config", config, trace]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{err}");
    out.lines().filter(|l| l.starts_with("total") || l.starts_with("ld ")).collect::<Vec<_>>().join("\n")
}

#[test]
fn probe_simulating_the_h100_writes_a_preset_that_runs_as_the_h100() {
    let dir = tempfile::Builder::new().prefix("banksim-probe-").tempdir().unwrap();
    let preset = dir.path().join("probed.ron");
    let o = banksim(&["probe", "--simulate", "h100", "--compare", "h100", "-o", preset.to_str().unwrap()]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{err}");
    assert!(out.contains("banks: 32 of 4 bytes (warp 32)"), "{out}");
    assert!(out.contains("0 of 8 fields differ"), "{out}");
    assert!(out.contains("4B stride 32"), "the evidence table: {out}");
    // the preset is a config: loads of 4, 8 and 16 bytes at strides that conflict
    // differently cost on it what they cost on the h100
    let trace = strided_trace(dir.path());
    assert_eq!(totals(preset.to_str().unwrap(), &trace), totals("h100", &trace));
}

/// A trace of one warp's loads of 4, 8 and 16 bytes at strides that conflict differently,
/// written in `dir`.
fn strided_trace(dir: &std::path::Path) -> String {
    let trace = dir.join("t.csv");
    let mut csv = String::from("block,thread,step,op,addr,bytes\n");
    for t in 0..32u32 {
        for (step, (stride, bytes)) in [(1, 4), (32, 4), (2, 8), (3, 8), (1, 16), (4, 16)].iter().enumerate()
        {
            csv += &format!("0,{t},{step},ld,{},{bytes}\n", t * stride * bytes);
        }
    }
    std::fs::write(&trace, csv).unwrap();
    trace.to_str().unwrap().to_string()
}

#[cfg(feature = "gpu")]
#[test]
fn probe_of_the_default_adapter_writes_evidence_that_reads_back() {
    if !common::gpu_or_skip("probe_of_the_default_adapter_writes_evidence_that_reads_back") {
        return;
    }
    let cpu = validate::gpu::Gpu::open(None).is_ok_and(|g| format!("{:?}", g.info.device_type) == "Cpu");
    let dir = tempfile::Builder::new().prefix("banksim-probe-").tempdir().unwrap();
    let (csv, preset) = (dir.path().join("probe.csv"), dir.path().join("probed.ron"));
    let (csv, preset) = (csv.to_str().unwrap(), preset.to_str().unwrap());
    let o = banksim(&["probe", "--quick", "--compare", "h100", "--csv", csv, "-o", preset]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{err}");
    assert!(out.contains("4B stride 32") && out.contains("16B broadcast"), "the evidence table: {out}");
    let seen = out.contains("no bank structure seen");
    if cpu {
        // a CPU adapter (lavapipe) has no banks: it says so and writes no preset
        assert!(seen, "{out}");
    }
    assert_eq!(std::path::Path::new(preset).exists(), !seen, "{out}");
    if !seen {
        let o = banksim(&["run", "--config", preset, &strided_trace(dir.path())]);
        assert!(o.status.success(), "the probed preset runs: {}", text(&o).1);
    }
    // the times read back to the same verdict, with no GPU
    let again = banksim(&["probe", "--from", csv]);
    let (again, err) = text(&again);
    assert!(!err.contains("error"), "{err}");
    assert_eq!(again.contains("no bank structure seen"), seen, "{again}");
    assert!(common::stray_temporaries(dir.path()).is_empty());
}

/// The microbenchmark does what the patterns say: captured with a pattern's lane table,
/// its loads cost on the h100 what the inference predicts for that pattern there.
#[cfg(feature = "gpu")]
#[test]
fn the_probe_kernel_loads_each_pattern_as_the_inference_assumes() {
    if !common::gpu_or_skip("the_probe_kernel_loads_each_pattern_as_the_inference_assumes") {
        return;
    }
    let kernel = format!("{}/../validate/kernels/probe_banks.wgsl", env!("CARGO_MANIFEST_DIR"));
    let h100 = configs::preset("h100").unwrap();
    let dir = tempfile::Builder::new().prefix("banksim-probe-").tempdir().unwrap();
    let trace = dir.path().join("probe.csv");
    let trace = trace.to_str().unwrap();
    let all = pipeline::probe::patterns::patterns(32);
    let wanted = [
        "4B stride 2",
        "4B stride 32",
        "4B broadcast",
        "4B halves 128",
        "4B pairs ^5",
        "8B stride 1",
        "8B pairs ^3",
        "8B merge ^1 r4",
        "16B stride 3",
        "16B two words",
        "16B blocks of 4",
    ];
    for name in wanted {
        let p = all.iter().find(|p| p.name == name).unwrap();
        let predicted = pipeline::probe::model::predict_hardware(&h100, std::slice::from_ref(p))[0];
        let table: Vec<String> = p.table().iter().chain(&[0, 2]).map(u32::to_string).collect();
        let entry = format!("w{}", p.bytes);
        let bind = format!("0.0=u32:{}", table.join(","));
        let o = banksim(&[
            "capture",
            &kernel,
            "--entry",
            &entry,
            "--dispatch",
            "1",
            "--override",
            "WG=64",
            "--bind",
            &bind,
            "-o",
            trace,
        ]);
        assert!(o.status.success(), "{name}: {}", text(&o).1);
        let o = banksim(&["run", "--config", "h100", trace]);
        let (out, err) = text(&o);
        assert!(o.status.success(), "{err}");
        let ld: Vec<f64> = out
            .lines()
            .find(|l| l.starts_with("ld "))
            .unwrap_or_else(|| panic!("{name}: {out}"))
            .split_whitespace()
            .skip(1)
            .map(|f| f.parse().unwrap())
            .collect();
        // 2 warps x 2 iterations x 16 loads, each of the pattern
        assert_eq!(ld[0], 64.0, "{name}: {out}");
        assert_eq!(ld[2] / ld[0], predicted, "{name}: {out}");
    }
}
