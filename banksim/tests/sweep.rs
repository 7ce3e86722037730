//! Sweeps end to end: one row per cell, resume after a kill, shards merge to the whole,
//! reports draw non-blank PNGs; and the generators against closed-form expectations.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

fn banksim(args: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_banksim"));
    c.args(args).env("CI", "1");
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().unwrap()
}

/// A fresh folder and its path; the folder goes when the `TempDir` is dropped, so keep it
/// bound until the test ends.
fn tmp(name: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::Builder::new().prefix(&format!("banksim-sweep-{name}-")).tempdir().unwrap();
    let path = dir.path().to_path_buf();
    (dir, path)
}

const STUDY: &str = r#"(
    name: "t",
    presets: ["h100", "g80"],
    hardware: {"banks": [16, 32]},
    workloads: [(gen: "tile", params: {"pad": "0..=3", "rows": 16}), (gen: "strided", params: {"stride": [1, 2]})],
    plot: (x: "pad", y: ["ld_per_request"]),
)"#;

fn study_file(dir: &Path) -> PathBuf {
    let p = dir.join("study.ron");
    std::fs::write(&p, STUDY).unwrap();
    p
}

fn run_ok(args: &[&str]) {
    let o = banksim(args, &[]);
    assert!(o.status.success(), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn sweep_writes_one_row_per_cell_with_its_parameters() {
    let (_tmp, dir) = tmp("rows");
    let study = study_file(&dir);
    let out = dir.join("out");
    run_ok(&["sweep", study.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    let mut rdr = csv::Reader::from_path(out.join("results.csv")).unwrap();
    let header: Vec<String> = rdr.headers().unwrap().iter().map(String::from).collect();
    assert_eq!(&header[..6], ["cell", "preset", "banks", "workload", "pad", "rows"]);
    assert!(header.contains(&"stride".to_string()) && header.contains(&"ld_per_request".to_string()));
    let rows: Vec<BTreeMap<String, String>> = rdr
        .records()
        .map(|r| header.iter().cloned().zip(r.unwrap().iter().map(String::from)).collect())
        .collect();
    // 2 presets x 2 bank counts x (4 pads + 2 strides)
    assert_eq!(rows.len(), 2 * 2 * 6);
    for (i, r) in rows.iter().enumerate() {
        assert_eq!(r["cell"], i.to_string());
    }
    let find = |preset: &str, banks: &str, pad: &str| {
        rows.iter().find(|r| r["preset"] == preset && r["banks"] == banks && r["pad"] == pad).unwrap()
    };
    // the 16x16 tile's column read on 32 banks: 8, 2, 1, 2 wavefronts for pad 0..3
    let degrees: Vec<&str> =
        ["0", "1", "2", "3"].iter().map(|p| find("h100", "32", p)["ld_per_request"].as_str()).collect();
    assert_eq!(degrees, ["8.000000", "2.000000", "1.000000", "2.000000"]);
    let strided: Vec<&BTreeMap<String, String>> =
        rows.iter().filter(|r| r["workload"] == "strided").collect();
    assert_eq!(strided.len(), 8);
    assert!(strided.iter().all(|r| r["pad"].is_empty() && !r["stride"].is_empty()));
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap()).unwrap();
    assert_eq!(json["rows"].as_array().unwrap().len(), rows.len());
}

#[test]
fn killed_sweep_resumes_to_the_same_results() {
    let (_tmp, dir) = tmp("resume");
    let study = study_file(&dir);
    let (whole, killed) = (dir.join("whole"), dir.join("killed"));
    run_ok(&["sweep", study.to_str().unwrap(), "-o", whole.to_str().unwrap()]);
    let o = banksim(
        &["sweep", study.to_str().unwrap(), "-o", killed.to_str().unwrap()],
        &[("BANKSIM_SWEEP_KILL_AFTER", "5")],
    );
    assert_eq!(o.status.code(), Some(3), "the test hook stops the sweep");
    assert!(!killed.join("results.csv").exists(), "no result file from a killed sweep");
    let journal = std::fs::read_to_string(killed.join("cells.jsonl")).unwrap();
    assert_eq!(journal.lines().count(), 1 + 5, "header and five finished cells");
    let o = banksim(&["sweep", study.to_str().unwrap(), "-o", killed.to_str().unwrap()], &[]);
    assert!(o.status.success());
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("5 done, 19 to run"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    for f in ["results.csv", "results.json"] {
        assert_eq!(std::fs::read(whole.join(f)).unwrap(), std::fs::read(killed.join(f)).unwrap(), "{f}");
    }
    // a changed study refuses the old progress
    std::fs::write(&study, STUDY.replace("[1, 2]", "[1, 3]")).unwrap();
    let o = banksim(&["sweep", study.to_str().unwrap(), "-o", killed.to_str().unwrap()], &[]);
    assert!(!o.status.success() && String::from_utf8_lossy(&o.stderr).contains("--fresh"));
}

#[test]
fn shards_merged_equal_the_whole() {
    let (_tmp, dir) = tmp("shards");
    let study = study_file(&dir);
    let whole = dir.join("whole");
    run_ok(&["sweep", study.to_str().unwrap(), "-o", whole.to_str().unwrap()]);
    let mut shard_dirs = Vec::new();
    for i in 0..3 {
        let d = dir.join(format!("shard-{i}"));
        run_ok(&["sweep", study.to_str().unwrap(), "-o", d.to_str().unwrap(), "--shard", &format!("{i}/3")]);
        shard_dirs.push(d.to_str().unwrap().to_string());
    }
    let merged = dir.join("merged");
    let mut args = vec!["merge", "-o", merged.to_str().unwrap(), "--study", study.to_str().unwrap()];
    args.extend(shard_dirs.iter().map(String::as_str));
    run_ok(&args);
    for f in ["results.csv", "results.json"] {
        assert_eq!(std::fs::read(whole.join(f)).unwrap(), std::fs::read(merged.join(f)).unwrap(), "{f}");
    }
    let o = banksim(&["sweep", study.to_str().unwrap(), "--shard", "3/3"], &[]);
    assert!(!o.status.success() && String::from_utf8_lossy(&o.stderr).contains("I/N"));
}

/// Width, height and the share of non-white pixels of a PNG.
#[cfg(feature = "charts")]
fn png_stats(path: &Path) -> (u32, u32, f64, usize) {
    let img = image::open(path).unwrap().to_rgb8();
    let (w, h) = img.dimensions();
    let mut colours = std::collections::BTreeSet::new();
    let mut ink = 0usize;
    for p in img.pixels() {
        colours.insert(p.0);
        if p.0 != [255, 255, 255] {
            ink += 1;
        }
    }
    (w, h, ink as f64 / (w * h) as f64, colours.len())
}

#[cfg(feature = "charts")]
#[test]
fn reports_draw_every_chart_non_blank() {
    let (_tmp, dir) = tmp("report");
    let study = study_file(&dir);
    let out = dir.join("out");
    run_ok(&["sweep", study.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    let rep = dir.join("rep");
    run_ok(&["report", out.to_str().unwrap(), "-o", rep.to_str().unwrap()]);
    // a run with cycles: histogram, heatmap, timeline
    let trace = dir.join("tile.csv");
    run_ok(&["gen", "tile", "pad=0", "-o", trace.to_str().unwrap()]);
    let run = dir.join("run");
    run_ok(&["run", "--cycles", "--out", run.to_str().unwrap(), trace.to_str().unwrap()]);
    let rep2 = dir.join("rep2");
    run_ok(&["report", run.to_str().unwrap(), "-o", rep2.to_str().unwrap()]);
    let mut pngs = Vec::new();
    for d in [&rep, &rep2] {
        let index = std::fs::read_to_string(d.join("index.md")).unwrap();
        for entry in std::fs::read_dir(d).unwrap() {
            let p = entry.unwrap().path();
            if p.extension().is_some_and(|e| e == "png") {
                assert!(
                    index.contains(p.file_name().unwrap().to_str().unwrap()),
                    "index.md shows {}",
                    p.display()
                );
                pngs.push(p);
            }
        }
    }
    let names: Vec<String> =
        pngs.iter().map(|p| p.file_name().unwrap().to_string_lossy().into_owned()).collect();
    for want in ["histogram.png", "heatmap.png", "timeline.png", "sweep-ld_per_request-0.png"] {
        assert!(names.iter().any(|n| n == want), "{want} missing from {names:?}");
    }
    for p in &pngs {
        let (w, h, ink, colours) = png_stats(p);
        assert_eq!((w, h), (1200, 700), "{}", p.display()); // every chart is 1200 x 700
        assert!(ink > 0.02, "{}: only {:.1}% drawn", p.display(), ink * 100.0);
        assert!(colours >= 4, "{}: {colours} colours", p.display());
    }
}

/// Bank conflicts of each request of `op`.
fn conflicts(gen: &str, params: &[(&str, i64)], op: sim_core::Op) -> Vec<u32> {
    let params = params.iter().map(|(k, v)| (k.to_string(), *v)).collect();
    let trace = traces::generators::generate(gen, &params).unwrap();
    let hw = configs::preset("h100").unwrap();
    let reqs = traces::Requests::group(&trace, 32).unwrap();
    let mut m = sim_core::BankModel::new(&hw);
    reqs.iter().filter(|r| r.op == op).map(|r| m.evaluate(&r.warp_request()).conflicts()).collect()
}

#[test]
fn generators_match_closed_forms() {
    use sim_core::Op::{Load, Store};
    let worst = |v: Vec<u32>| v.into_iter().max().unwrap();
    // GEMM As[64][16 + skew] read down its columns: 16-byte loads need a skew of one
    // vector (4 floats), 4-byte loads a skew of 1
    assert!(worst(conflicts("gemm", &[("width", 16), ("skew", 0)], Load)) > 0);
    assert_eq!(worst(conflicts("gemm", &[("width", 16), ("skew", 4)], Load)), 0);
    assert_eq!(worst(conflicts("gemm", &[("width", 4), ("skew", 0)], Load)), 15);
    assert_eq!(worst(conflicts("gemm", &[("width", 4), ("skew", 1)], Load)), 0);
    // scan: the unpadded up-sweep reaches 16-way and more, the padded one stays near free
    assert!(worst(conflicts("scan", &[("padded", 0)], Load)) >= 15);
    assert!(worst(conflicts("scan", &[("padded", 1)], Load)) <= 1);
    // reductions: sequential addressing never conflicts; interleaved reaches 16-way
    assert_eq!(worst(conflicts("reduction", &[("interleaved", 0)], Load)), 0);
    assert_eq!(worst(conflicts("reduction", &[("interleaved", 1)], Load)), 15);
    // AoS of 4 words: 4-way; SoA: conflict-free
    assert_eq!(worst(conflicts("aos", &[("k", 4)], Load)), 3);
    assert_eq!(worst(conflicts("aos", &[("k", 4), ("soa", 1)], Load)), 0);
    // an XOR swizzle of the 32x32 tile removes the column conflict without padding
    assert_eq!(worst(conflicts("tile", &[("rows", 32), ("cols", 32), ("swizzle", 5)], Load)), 0);
    assert_eq!(worst(conflicts("tile", &[("rows", 32), ("cols", 32)], Load)), 31);
    assert_eq!(worst(conflicts("tile", &[("rows", 32), ("cols", 32)], Store)), 0);
    // bad parameters are named
    let e =
        traces::generators::generate("gemm", &[("skew".to_string(), 2)].into_iter().collect()).unwrap_err();
    assert!(e.to_string().contains("`skew` = 2"), "{e}");
}

#[test]
fn hardware_axes_take_enums_and_mappings_as_ron_text() {
    let (_tmp, dir) = tmp("axes");
    let study = dir.join("axes.ron");
    std::fs::write(
        &study,
        r#"(name: "axes", presets: ["h100"],
            hardware: {"broadcast": ["Multicast", "Serialize"], "mapping": ["Linear", "Xor(shift: 5, mask: 31)"]},
            workloads: [(gen: "tile", params: {"rows": 32, "cols": 32})])"#,
    )
    .unwrap();
    let out = dir.join("out");
    run_ok(&["sweep", study.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    let mut rdr = csv::Reader::from_path(out.join("results.csv")).unwrap();
    let h = rdr.headers().unwrap().clone();
    let (b, m, d) = (
        h.iter().position(|c| c == "broadcast").unwrap(),
        h.iter().position(|c| c == "mapping").unwrap(),
        h.iter().position(|c| c == "ld_degree").unwrap(),
    );
    let rows: Vec<(String, String, String)> = rdr
        .records()
        .map(|r| r.unwrap())
        .map(|r| (r[b].to_string(), r[m].to_string(), r[d].to_string()))
        .collect();
    assert_eq!(rows.len(), 4);
    // the 32x32 column read: 32-way linear, conflict-free with the XOR swizzle, either rule
    for (bc, map, degree) in &rows {
        let want = if map.starts_with("Xor") { "1.000000" } else { "32.000000" };
        assert_eq!(degree, want, "{bc} {map}");
    }
    // an invalid value is reported with the study and the field
    std::fs::write(
        &study,
        r#"(name: "axes", presets: ["h100"], hardware: {"banks": [0, 32]}, workloads: [(gen: "tile")])"#,
    )
    .unwrap();
    let o = banksim(&["sweep", study.to_str().unwrap(), "-o", out.to_str().unwrap()], &[]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains("`banks`") && err.contains("got 0"), "{err}");
}

#[test]
fn sweep_results_do_not_depend_on_threads_or_repetition() {
    let (_tmp, dir) = tmp("threads");
    let study = dir.join("cycles.ron");
    std::fs::write(
        &study,
        r#"(name: "c", presets: ["h100", "v100"], hardware: {"warp": [16, 32]}, cycles: true,
            workloads: [(gen: "gemm", params: {"width": [4, 16], "skew": [0, 4]}), (gen: "scan", params: {"padded": [0, 1]})])"#,
    )
    .unwrap();
    let mut outputs = Vec::new();
    for (i, threads) in ["1", "2", "16", "2"].iter().enumerate() {
        let out = dir.join(format!("out{i}"));
        run_ok(&["sweep", study.to_str().unwrap(), "-o", out.to_str().unwrap(), "--threads", threads]);
        outputs.push((
            std::fs::read(out.join("results.csv")).unwrap(),
            std::fs::read(out.join("results.json")).unwrap(),
        ));
    }
    assert!(outputs[0].0.len() > 500);
    for o in &outputs[1..] {
        assert_eq!(o, &outputs[0]);
    }
}

/// A trace file as a workload (read by every cell, not held) gives the metrics of the
/// same trace generated, with and without cycles, in text out of block order and in
/// binary.
#[test]
fn a_file_workload_measures_as_the_generated_trace() {
    let (_tmp, dir) = tmp("file");
    let gen = dir.join("gemm.csv");
    run_ok(&["gen", "gemm", "width=16", "-o", gen.to_str().unwrap()]);
    // four copies of the block, as blocks 3, 1, 2, 0 (out of order)
    let text = std::fs::read_to_string(&gen).unwrap();
    let (header, body) = text.split_once('\n').unwrap();
    let mut shuffled = format!("{header}\n");
    for b in [3, 1, 2, 0] {
        for line in body.lines() {
            shuffled += &format!("{b}{}\n", &line[line.find(',').unwrap()..]);
        }
    }
    let csv = dir.join("shuffled.csv");
    std::fs::write(&csv, &shuffled).unwrap();
    let bsim = dir.join("shuffled.bsim");
    run_ok(&["convert", csv.to_str().unwrap(), bsim.to_str().unwrap()]);
    for cycles in [false, true] {
        let metrics = |workload: &str, name: &str| -> Vec<(String, String)> {
            let study = dir.join(format!("{name}.ron"));
            let text = format!(
                r#"(name: "{name}", presets: ["h100", "g80"], cycles: {cycles}, workloads: [{workload}])"#
            );
            std::fs::write(&study, text).unwrap();
            let out = dir.join(format!("out-{name}"));
            run_ok(&["sweep", study.to_str().unwrap(), "-o", out.to_str().unwrap()]);
            let mut rdr = csv::Reader::from_path(out.join("results.csv")).unwrap();
            let header: Vec<String> = rdr.headers().unwrap().iter().map(String::from).collect();
            rdr.records()
                .flat_map(|r| {
                    header.iter().cloned().zip(r.unwrap().iter().map(String::from)).collect::<Vec<_>>()
                })
                .filter(|(k, _)| !matches!(k.as_str(), "workload" | "width"))
                .collect()
        };
        let file = |p: &Path| format!(r#"(file: "{}")"#, p.display());
        let from_csv = metrics(&file(&csv), &format!("csv-{cycles}"));
        assert!(from_csv.iter().any(|(k, _)| k == "cycles") == cycles, "{from_csv:?}");
        assert_eq!(from_csv, metrics(&file(&bsim), &format!("bsim-{cycles}")));
        // the generated trace is one block: the file's four copies make four times its counts
        let generated = metrics(r#"(gen: "gemm", params: {"width": 16})"#, &format!("gen-{cycles}"));
        let get = |m: &[(String, String)], k: &str| -> Vec<f64> {
            m.iter().filter(|(key, _)| key == k).map(|(_, v)| v.parse().unwrap()).collect()
        };
        let four: Vec<f64> = get(&generated, "wavefronts").iter().map(|w| w * 4.0).collect();
        assert_eq!(get(&from_csv, "wavefronts"), four);
        assert_eq!(get(&from_csv, "degree"), get(&generated, "degree"));
    }
}

/// A study names a config file among its presets, by its path relative to the study's
/// folder (wherever the sweep runs from): its cells are that machine's, named by its
/// entry; a config file that is missing, or wrong, is a problem of the study, with its
/// line and the config's own.
#[test]
fn a_config_file_is_a_preset_relative_to_the_study() {
    let (_tmp, dir) = tmp("config-preset");
    std::fs::create_dir(dir.join("s")).unwrap();
    // 16 banks: 32 consecutive words take 2 wavefronts; with a one-bit XOR the stride-16
    // read takes 16, as on h100 (32 on 16 banks of a linear mapping)
    std::fs::write(
        dir.join("s/my-gpu.ron"),
        "(\n    base: \"h100\",\n    banks: 16,\n    mapping: Xor(shift: 4, mask: 1),\n)\n",
    )
    .unwrap();
    let study = dir.join("s/study.ron");
    std::fs::write(
        &study,
        r#"(name: "c", presets: ["h100", "my-gpu.ron"], workloads: [(gen: "strided", params: {"stride": [1, 16]})])"#,
    )
    .unwrap();
    let out = dir.join("out");
    run_ok(&["sweep", study.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    let csv = std::fs::read_to_string(out.join("results.csv")).unwrap();
    let rows: Vec<Vec<&str>> = csv.lines().skip(1).map(|l| l.split(',').collect()).collect();
    let presets: Vec<&str> = rows.iter().map(|r| r[1]).collect();
    assert_eq!(presets, ["h100", "h100", "my-gpu.ron", "my-gpu.ron"], "{csv}");
    // columns: cell,preset,workload,stride,requests,lanes,wavefronts,...
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let wf = header.iter().position(|c| *c == "wavefronts").unwrap();
    let wavefronts: Vec<&str> = rows.iter().map(|r| r[wf]).collect();
    assert_eq!(wavefronts, ["1", "16", "2", "16"], "{csv}");

    // the config's own problem, with its line, under the study's presets
    std::fs::write(dir.join("s/my-gpu.ron"), "(\n    base: \"h100\",\n    banks: 0,\n)\n").unwrap();
    let o = banksim(&["sweep", study.to_str().unwrap(), "-o", dir.join("out2").to_str().unwrap()], &[]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "{err}");
    assert!(
        err.contains("`presets`: config file `my-gpu.ron`") && err.contains("my-gpu.ron:3: `banks`"),
        "{err}"
    );
    // a missing one: named, and why
    std::fs::remove_file(dir.join("s/my-gpu.ron")).unwrap();
    let o = banksim(&["sweep", study.to_str().unwrap(), "-o", dir.join("out3").to_str().unwrap()], &[]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains("my-gpu.ron") && err.contains("cannot read"), "{err}");
    assert!(!err.contains("was not read"), "{err}");
}
