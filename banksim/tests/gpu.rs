//! `banksim capture` and `banksim measure` on a real GPU (any Vulkan adapter, lavapipe
//! too); skipped without one (see `common::gpu_or_skip`).
#![cfg(feature = "gpu")]

mod common;

use std::path::PathBuf;
use std::process::Command;

/// A path `name` in a fresh folder, and the folder (gone when dropped: keep it bound until
/// the test ends).
fn tmp(name: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::Builder::new().prefix("banksim-gpu-").tempdir().unwrap();
    let path = dir.path().join(name);
    (dir, path)
}

fn kernel(name: &str) -> String {
    format!("{}/../validate/kernels/{name}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn capture_writes_a_trace_that_runs() {
    if !common::gpu_or_skip("capture_writes_a_trace_that_runs") {
        return;
    }
    let (_tmp, out) = tmp("scan.csv");
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
    let (_tmp, csv) = tmp("measure.csv");
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

/// The fields of `explain`'s statistics on a printed line (`LINE | STATS | ...`).
fn stats_of(line: &str) -> Vec<f64> {
    line.split('|').nth(1).unwrap_or("").split_whitespace().filter_map(|f| f.parse().ok()).collect()
}

#[test]
fn explain_shows_the_transpose_column_read_and_its_padded_fix() {
    if !common::gpu_or_skip("explain_shows_the_transpose_column_read_and_its_padded_fix") {
        return;
    }
    let explain = |name: &str| {
        let o = Command::new(env!("CARGO_BIN_EXE_banksim"))
            .args(["explain", &kernel(name), "--dispatch", "1", "--config", "h100"])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8(o.stdout).unwrap()
    };
    // the source line of the column read, and its shared load's part below it
    let read = "dst[oy * height + ox] = tile[l.x][l.y];";
    let part = |text: &str| -> Vec<f64> {
        let lines: Vec<&str> = text.lines().collect();
        let at = lines.iter().position(|l| l.ends_with(read)).expect("the read's line is printed");
        let ld = lines[at + 1..].iter().find(|l| l.ends_with(": ld")).expect("the load's part");
        stats_of(ld)
    };
    let unpadded = explain("transpose32.wgsl");
    // 32 warps of a 32x32 block, each reading a column: 32 wavefronts, 31 of them conflicts
    let [requests, wavefronts, ideal, conflicts, per_request] = part(&unpadded)[..] else {
        panic!("{unpadded}")
    };
    assert_eq!((requests, wavefronts, ideal, conflicts, per_request), (32.0, 1024.0, 32.0, 992.0, 32.0));
    assert_eq!(conflicts / requests, 31.0);
    assert!(unpadded.contains("^ fix:"), "the advisor has a fix for the read:\n{unpadded}");
    let padded = explain("transpose32_pad1.wgsl");
    assert_eq!(part(&padded), vec![32.0, 32.0, 32.0, 0.0, 1.0], "{padded}");
    let total = padded.lines().find(|l| l.starts_with("total |")).expect("a total line");
    assert_eq!(stats_of(total)[3], 0.0, "no conflict anywhere:\n{padded}");
    assert!(!padded.contains("^ fix:"), "{padded}");
}

/// The advisor's array is the workgroup variable the conflicting line reads, not every
/// byte the kernel touches: a 4 x 16 tile followed by another variable.
#[test]
fn explain_s_fix_names_the_variable_s_own_rows() {
    if !common::gpu_or_skip("explain_s_fix_names_the_variable_s_own_rows") {
        return;
    }
    let (_dir, path) = tmp("two_vars.wgsl");
    std::fs::write(
        &path,
        "var<workgroup> tile: array<array<u32, 16>, 4>;
var<workgroup> ids: array<u32, 16>;
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) i: u32) {
    tile[i / 16u][i % 16u] = i;
    ids[i % 16u] = i;
    workgroupBarrier();
    let t = tile[i % 4u][i / 4u];
    out[i] = t + ids[i % 16u];
}
",
    )
    .unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_banksim"))
        .args(["explain", path.to_str().unwrap(), "--dispatch", "1"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let fix = text.lines().find(|l| l.contains("^ fix:")).unwrap_or_else(|| panic!("a fix:\n{text}"));
    assert!(fix.contains("4 rows x 16 elements of 4 B at byte 0"), "{fix}");
}

/// `banksim predict` on the transpose: the unpadded kernel's predicted time with no
/// bank conflicts is the padded kernel's predicted time (same accesses, no conflicts),
/// and the padded one's conflicts cost nothing; a measured reference gives its own
/// time back for itself.
#[test]
fn predict_prices_the_transpose_conflicts() {
    if !common::gpu_or_skip("predict_prices_the_transpose_conflicts") {
        return;
    }
    let predict = |name: &str, extra: &[&str]| {
        let o = Command::new(env!("CARGO_BIN_EXE_banksim"))
            .args(["predict", &kernel(name), "--dispatch", "32,32", "--config", "h100"])
            .args(extra)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8(o.stdout).unwrap()
    };
    // "predicted: 12.34 us ..." and "with no bank conflicts: 5.67 us; the conflicts cost 6.67 us, ..."
    let number_after = |out: &str, start: &str| -> f64 {
        let line = out.lines().find(|l| l.starts_with(start)).unwrap_or_else(|| panic!("{out}"));
        line[start.len()..].split_whitespace().next().unwrap().trim_end_matches(';').parse().unwrap()
    };
    let unpadded = predict("transpose32.wgsl", &[]);
    let padded = predict("transpose32_pad1.wgsl", &[]);
    let (t0, free0) =
        (number_after(&unpadded, "predicted:"), number_after(&unpadded, "with no bank conflicts:"));
    let (t1, free1) = (number_after(&padded, "predicted:"), number_after(&padded, "with no bank conflicts:"));
    assert!(t0 > 1.3 * t1, "the 32-way read costs time: {t0} vs {t1}");
    assert_eq!(free0, t1, "{unpadded}\n{padded}");
    assert_eq!(free1, t1, "{padded}");
    // a kernel is its own reference: the measured time comes back
    let own = predict(
        "transpose32_pad1.wgsl",
        &["--reference", &kernel("transpose32_pad1.wgsl"), "--reference-us", "80"],
    );
    assert_eq!(number_after(&own, "predicted:"), 80.0, "{own}");
}

#[test]
fn shader_stats_gives_the_drivers_statistics_or_says_why_not() {
    if !common::gpu_or_skip("shader_stats_gives_the_drivers_statistics_or_says_why_not") {
        return;
    }
    let (_tmp, csv) = tmp("shader_stats.csv");
    let o = Command::new(env!("CARGO_BIN_EXE_banksim"))
        .args(["shader-stats", &kernel("tile16.wgsl"), "--override", "PAD=1", "--label", "tile16_pad1"])
        .args(["--csv", csv.to_str().unwrap()])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    if o.status.success() {
        // a driver with VK_KHR_pipeline_executable_properties: one row per statistic
        let text = std::fs::read_to_string(&csv).unwrap();
        let mut lines = text.lines();
        assert_eq!(lines.next(), Some("label,adapter,executable,statistic,value"));
        let rows: Vec<&str> = lines.collect();
        assert!(!rows.is_empty() && rows.iter().all(|r| r.starts_with("tile16_pad1,")), "{text}");
        assert!(String::from_utf8_lossy(&o.stdout).contains("subgroup size"));
    } else {
        // one without it (lavapipe of Mesa 22): the error names the device and the
        // extension, and nothing is written
        assert!(stderr.contains("does not support VK_KHR_pipeline_executable_properties"), "{stderr}");
        assert!(!csv.exists());
    }
}

#[test]
fn shader_stats_names_the_file_of_a_kernel_that_does_not_parse() {
    let (_tmp, bad) = tmp("bad.wgsl");
    std::fs::write(&bad, "@compute @workgroup_size(1) fn main() { let x = ; }").unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_banksim"))
        .args(["shader-stats", bad.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(!o.status.success());
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("bad.wgsl") && stderr.contains("does not parse"), "{stderr}");
}

/// `measure` on a CPU adapter (lavapipe) says that its times are the CPU's, and on a GPU
/// says nothing of the kind.
#[test]
fn measure_on_a_cpu_adapter_warns_that_the_times_are_the_cpus() {
    let Some(gpu) =
        validate::gpu::open_for_tests("measure_on_a_cpu_adapter_warns_that_the_times_are_the_cpus")
    else {
        return;
    };
    let o = Command::new(env!("CARGO_BIN_EXE_banksim"))
        .args(["measure", &kernel("scan.wgsl"), "--dispatch", "1", "--reps", "2", "--warmup", "1"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    // (the adapter's description names its device type: `NAME (Cpu, Vulkan, driver ...)`)
    let cpu = validate::gpu::describe(&gpu.info).contains("(Cpu, ");
    assert_eq!(err.contains("is a CPU (software Vulkan): these are the CPU's times"), cpu, "{err}");
}

/// The rows of a by-line CSV, each column by name.
fn by_line_rows(path: &std::path::Path) -> Vec<std::collections::BTreeMap<String, String>> {
    let mut rdr = csv::Reader::from_path(path).unwrap();
    let h: Vec<String> = rdr.headers().unwrap().iter().map(String::from).collect();
    rdr.records().map(|r| h.iter().cloned().zip(r.unwrap().iter().map(String::from)).collect()).collect()
}

/// `explain --cycles` prices a line's conflicts as `predict` prices the kernel's: the
/// transpose's one conflicting line costs the share of the dispatch's time that all its
/// conflicts cost in `predict` (the same dispatch, two workgroups captured).
#[test]
fn explain_prices_the_conflicting_line_as_predict_prices_the_kernel() {
    if !common::gpu_or_skip("explain_prices_the_conflicting_line_as_predict_prices_the_kernel") {
        return;
    }
    let (_dir, csv) = tmp("lines.csv");
    let dispatch = ["--dispatch", "32,32", "--config", "h100"];
    let o = Command::new(env!("CARGO_BIN_EXE_banksim"))
        .args(["explain", &kernel("transpose32.wgsl"), "--cycles", "--capture-workgroups", "2"])
        .args(dispatch)
        .args(["--by-line-csv", csv.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = Command::new(env!("CARGO_BIN_EXE_banksim"))
        .args(["predict", &kernel("transpose32.wgsl"), "--json", "-"])
        .args(dispatch)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let p: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let share = p["conflict_share"].as_f64().unwrap();
    let rows = by_line_rows(&csv);
    let conflicting: Vec<_> = rows.iter().filter(|r| r["conflicts"] != "0").collect();
    assert_eq!(conflicting.len(), 1, "{rows:?}");
    let line = conflicting[0];
    let shown: f64 = line["time_share"].parse().unwrap();
    assert!((shown - share).abs() < 1e-4, "explain {shown}, predict {share}");
    assert!(shown > 0.1, "a 32-way read costs time: {shown}");
    // and the lines without conflicts save nothing
    assert!(rows.iter().filter(|r| r["conflicts"] == "0").all(|r| r["saved_cycles"] == "0"), "{rows:?}");
}

/// The fix `explain` prints in the kernel's WGSL, applied to the kernel, removes the
/// conflicts it was for.
#[test]
fn explain_s_wgsl_fix_applied_to_the_transpose_removes_its_conflicts() {
    if !common::gpu_or_skip("explain_s_wgsl_fix_applied_to_the_transpose_removes_its_conflicts") {
        return;
    }
    let (dir, csv) = tmp("lines.csv");
    let explain = |path: &str| {
        let o = Command::new(env!("CARGO_BIN_EXE_banksim"))
            .args([
                "explain",
                path,
                "--dispatch",
                "1",
                "--config",
                "h100",
                "--by-line-csv",
                csv.to_str().unwrap(),
            ])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        by_line_rows(&csv)
    };
    let rows = explain(&kernel("transpose32.wgsl"));
    let fix = rows.iter().find(|r| !r["fix_wgsl"].is_empty()).expect("a fix in WGSL");
    assert!(fix["fix_wgsl"].contains("tile[l.x][l.y ^ l.x] (line 23)"), "{fix:?}");
    // each edit: `NEW (line N)` replaces the array's index chain on line N
    let mut lines: Vec<String> =
        std::fs::read_to_string(kernel("transpose32.wgsl")).unwrap().lines().map(String::from).collect();
    for edit in fix["fix_wgsl"].split(" | ") {
        let (new, at) = edit.rsplit_once(" (line ").unwrap();
        let n: usize = at.trim_end_matches(')').parse().unwrap();
        let name = &new[..new.find('[').unwrap()];
        let text = &lines[n - 1];
        let start = text.find(&format!("{name}[")).unwrap();
        let mut end = start + name.len();
        while text[end..].starts_with('[') {
            end += text[end..].find(']').unwrap() + 1;
        }
        lines[n - 1] = format!("{}{new}{}", &text[..start], &text[end..]);
    }
    let fixed = dir.path().join("transpose32_fixed.wgsl");
    std::fs::write(&fixed, lines.join("\n") + "\n").unwrap();
    let after = explain(fixed.to_str().unwrap());
    let conflicts: u64 = after.iter().map(|r| r["conflicts"].parse::<u64>().unwrap()).sum();
    assert_eq!(conflicts, 0, "{after:?}");
    assert_eq!(fix["fix_line_conflicts"], "0");
}
