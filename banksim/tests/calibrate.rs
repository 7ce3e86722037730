//! `banksim calibrate` on a small synthetic suite: outputs, and errors on bad input.
#![cfg(all(feature = "gpu", feature = "charts"))]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn banksim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_banksim")).args(args).output().unwrap()
}

/// `banksim calibrate` of `suite` with the times in `measured` and the traces in `traces`,
/// writing to `out`, with `extra` arguments.
fn calibrate(suite: &Path, measured: &Path, traces: &Path, out: &Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "calibrate",
        "--suite",
        suite.to_str().unwrap(),
        "--measured",
        measured.to_str().unwrap(),
        "--traces",
        traces.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    banksim(&args)
}

/// A fresh folder and its path; the folder goes when the `TempDir` is dropped, so keep it
/// bound until the test ends.
fn tmp(name: &str) -> (tempfile::TempDir, PathBuf) {
    let d = tempfile::Builder::new().prefix(&format!("banksim-calibrate-{name}-")).tempdir().unwrap();
    let path = d.path().to_path_buf();
    (d, path)
}

/// A trace of one 64-thread block: `steps` dependent loads, `stride` words apart, with
/// `ops` operations of other work before each.
fn trace(path: &Path, stride: u32, steps: u32, ops: u32) {
    let mut s = String::from("block,thread,step,op,addr,bytes,gap,dep\n");
    for t in 0..64u32 {
        for k in 0..steps {
            s += &format!("0,{t},{k},ld,{},4,{ops},1\n", ((t % 32) * stride % 1024) * 4);
        }
    }
    std::fs::write(path, s).unwrap();
}

fn suite(dir: &Path) -> (PathBuf, PathBuf) {
    let traces = dir.join("traces");
    std::fs::create_dir_all(&traces).unwrap();
    for (label, stride) in [("k_s1", 1), ("k_s4", 4), ("k_s32", 32), ("h_s1", 1), ("h_s16", 16)] {
        trace(&traces.join(format!("{label}.csv")), stride, 32, 10);
    }
    let suite = dir.join("suite.csv");
    std::fs::write(
        &suite,
        "# test suite\nlabel,family,role,blocks,scale\nk_s1,k,fit,132,1\nk_s4,k,fit,132,1\nk_s32,k,fit,132,1\nh_s1,h,holdout,264,2\nh_s16,h,holdout,264,2\n",
    )
    .unwrap();
    (suite, traces)
}

#[test]
fn writes_predictions_calibration_and_a_scatter_plot() {
    let (_tmp, dir) = tmp("ok");
    let (suite, traces) = suite(&dir);
    let measured = dir.join("measure.csv");
    // made-up times: conflicts slow the kernel down
    std::fs::write(&measured, "label,median_us\nk_s1,10\nk_s4,14\nk_s32,60\nh_s1,40\nh_s16,90\n").unwrap();
    let out = dir.join("out");
    let extra = ["--occupancy", "limits", "--issue-per-op", "1", "--issue-share", "1"];
    let o = calibrate(&suite, &measured, &traces, &out, &extra);
    let (stdout, stderr) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert!(o.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("holdout: 1 predicted variants with a measurement"), "{stdout}");
    // a measure.csv with no `global_bytes` (an older `banksim measure`) is warned about
    assert!(stderr.contains("no `global_bytes` column"), "{stderr}");
    let csv = std::fs::read_to_string(out.join("predictions.csv")).unwrap();
    assert_eq!(csv.lines().count(), 6, "{csv}");
    // references are given, not predicted
    let refs: Vec<&str> = csv.lines().skip(1).filter(|l| l.split(',').nth(3) == Some("1")).collect();
    assert_eq!(refs.len(), 2, "{csv}");
    assert!(refs.iter().all(|l| l.split(',').nth(10) == Some("0.0000")), "{csv}");
    // and every variant's time with no measurement at all (the preset's cost of an op)
    assert!(
        csv.lines().skip(1).all(|l| l.split(',').nth(11).is_some_and(|t| t.parse::<f64>().unwrap() > 0.0)),
        "{csv}"
    );
    let ron = std::fs::read_to_string(out.join("calibration.ron")).unwrap();
    assert!(ron.contains("overlap:") && ron.contains("(\"k\","), "{ron}");
    let img = image::open(out.join("speedups.png")).unwrap().to_rgb8();
    assert!(img.pixels().any(|p| p.0 != [255, 255, 255]), "an empty plot");
}

#[test]
fn an_unmeasured_variant_is_predicted_and_an_unmeasured_reference_or_missing_trace_is_an_error() {
    let (_tmp, dir) = tmp("bad");
    let (suite, traces) = suite(&dir);
    let measured = dir.join("measure.csv");
    std::fs::write(&measured, "label,median_us,global_bytes\nk_s1,10,0\nk_s4,14,0\nk_s32,60,0\nh_s1,40,0\n")
        .unwrap();
    let args = |m: &Path, t: &Path| calibrate(&suite, m, t, &dir.join("out"), &[]);
    // h_s16 has no time: predicted from its family's reference, never fitted to
    let o = args(&measured, &traces);
    let (out, err) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert!(o.status.success(), "{out}\n{err}");
    let csv = std::fs::read_to_string(dir.join("out/predictions.csv")).unwrap();
    let row = csv.lines().find(|l| l.starts_with("h_s16,")).expect(&csv);
    let f: Vec<&str> = row.split(',').collect();
    assert!(f[6].is_empty() && f[8].is_empty() && f[10].is_empty(), "no measured figures: {row}");
    assert!(f[7].parse::<f64>().unwrap() > 0.0, "a predicted time: {row}");
    assert!(out.contains("holdout: 0 predicted variants with a measurement"), "{out}");
    assert!(!err.contains("global_bytes"), "the column is there: {err}");
    // a family's reference without a time: the error says which and why
    std::fs::write(&measured, "label,median_us\nk_s1,10\nk_s4,14\nk_s32,60\nh_s16,40\n").unwrap();
    let o = args(&measured, &traces);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success()
            && err.contains("`h_s1`")
            && err.contains("reference of family `h`")
            && err.contains("no measurement"),
        "{err}"
    );
    std::fs::write(&measured, "label,median_us\nk_s1,10\nk_s4,14\nk_s32,60\nh_s1,40\nh_s16,x\n").unwrap();
    let o = args(&measured, &traces);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains("measure.csv:6") && err.contains("median_us `x`"), "{err}");
    std::fs::write(&measured, "label,median_us\nk_s1,10\nk_s4,14\nk_s32,60\nh_s1,40\nh_s16,9\n").unwrap();
    std::fs::remove_file(traces.join("h_s1.csv")).unwrap();
    let o = args(&measured, &traces);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains("no trace h_s1.csv"), "{err}");
    std::fs::write(&suite, "label,family,role,blocks,scale\nk_s1,k,maybe,132,1\n").unwrap();
    let o = args(&measured, &traces);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains("suite.csv:2") && err.contains("role `maybe`"), "{err}");
}

/// "cycle engine: N cycles" of `run --cycles`.
fn engine_cycles(out: &str) -> u64 {
    let line = out.lines().find(|l| l.starts_with("cycle engine:")).expect(out);
    line.split_whitespace().nth(2).unwrap().parse().unwrap()
}

#[test]
fn run_predict_and_calibrate_give_the_same_cycles_for_the_same_trace_and_dispatch() {
    let (_tmp, dir) = tmp("same");
    let (suite, traces) = suite(&dir);
    let trace = traces.join("h_s16.csv");
    let t = trace.to_str().unwrap();
    // the preset's cost of an operation: run --gaps ops and predict
    let o = banksim(&["run", t, "--cycles", "--gaps", "ops", "--grid", "264"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let run = engine_cycles(&String::from_utf8_lossy(&o.stdout));
    let o = banksim(&["predict", t, "--dispatch", "264"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{out}{}", String::from_utf8_lossy(&o.stderr));
    let predicted = out.lines().find(|l| l.starts_with("predicted:")).expect(&out);
    assert!(predicted.contains(&format!(": {run} of blocks + 8613 fixed")), "{run}: {predicted}");
    // calibrate's cycles of a variant at its family's solved cost, and run's at that cost
    let measured = dir.join("measure.csv");
    std::fs::write(&measured, "label,median_us\nk_s1,10\nk_s4,14\nk_s32,60\nh_s1,40\nh_s16,90\n").unwrap();
    let out_dir = dir.join("out");
    let o =
        calibrate(&suite, &measured, &traces, &out_dir, &["--issue-per-op", "1", "--issue-share", "0.25"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let ron = std::fs::read_to_string(out_dir.join("calibration.ron")).unwrap();
    let at = ron.find("(\"h\", ").expect(&ron) + "(\"h\", ".len();
    let c: &str = ron[at..].split(')').next().unwrap().trim();
    let csv = std::fs::read_to_string(out_dir.join("predictions.csv")).unwrap();
    let row = csv.lines().find(|l| l.starts_with("h_s16,")).expect(&csv);
    // (the suite's scale of 2 doubles calibrate's cycles)
    let calibrated: f64 = row.split(',').nth(5).unwrap().parse().unwrap();
    let o = banksim(&[
        "run",
        t,
        "--cycles",
        "--grid",
        "264",
        "--cycles-per-op",
        c,
        "--issue-per-op",
        "1",
        "--issue-share",
        "0.25",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let run = engine_cycles(&String::from_utf8_lossy(&o.stdout));
    assert_eq!(2 * run, calibrated as u64, "cycles per op {c}: {row}");
}

/// With no fit variant measured besides the references, nothing chooses between the
/// issue models tried: the preset's issue share is taken, as its overlap is.
#[test]
fn with_nothing_to_fit_the_preset_model_is_kept() {
    let (_tmp, dir) = tmp("nofit");
    let (suite, traces) = suite(&dir);
    let measured = dir.join("measure.csv");
    std::fs::write(&measured, "label,median_us,global_bytes\nk_s1,10,0\nh_s1,40,0\nh_s16,90,0\n").unwrap();
    let o = calibrate(&suite, &measured, &traces, &dir.join("out"), &["--issue-share", "0.2,0.33"]);
    let (out, err) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert!(o.status.success(), "{out}\n{err}");
    let summary = out.lines().find(|l| l.starts_with("fitted on the fit families")).expect(&out);
    // the h100 preset's: a quarter of an operation's cycles, up to 2 (neither share asked for)
    assert!(summary.contains("the preset's, and its issue share"), "{summary}");
    assert!(summary.contains("issue share 0.25 of an operation's cycles, at most 2 cycles"), "{summary}");
    assert!(summary.contains("pair tried: 0.25 up to 2:") && !summary.contains("0.33 up to"), "{summary}");
}
