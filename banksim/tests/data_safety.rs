//! Nothing silently wrong (issue 58): no data lost, no wrong answer given as right.
//!
//! - **Data lost.** Nothing is written before every check has passed; files banksim did
//!   not write are never changed (a sweep folder is adopted only with banksim's marker).
//! - **Silent wrong answers.** Cached cells are keyed on what they are computed from;
//!   one sweep holds a folder at a time; a command's outputs are checked against each
//!   other; study names are plain file names; hardware values are one value each; a
//!   contradiction is refused; a cell that cannot run is refused up front or skipped as
//!   the study says; messages name the file, the line and the field; a repeated key is
//!   refused.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn banksim_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_banksim")).args(args).current_dir(dir).env("CI", "1").output().unwrap()
}

/// A fresh folder and its path; the folder goes when the `TempDir` is dropped, so keep it
/// bound until the test ends.
fn tmp(name: &str) -> (tempfile::TempDir, PathBuf) {
    let d = tempfile::Builder::new().prefix(&format!("banksim-safety-{name}-")).tempdir().unwrap();
    let path = d.path().to_path_buf();
    (d, path)
}

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// `o` succeeded.
fn ok(o: Output, what: &str) -> Output {
    assert!(o.status.success(), "{what}: {}", err(&o));
    o
}

/// `o` failed with exit 1 (never a panic), its message holding every needle.
fn refused(o: &Output, needles: &[&str]) {
    let e = err(o);
    assert_eq!(o.status.code(), Some(1), "{e}");
    assert!(!e.contains("panicked"), "{e}");
    for n in needles {
        assert!(e.contains(n), "message lacks `{n}`: {e}");
    }
}

/// Every file under `dir` and its bytes (sorted): to show that nothing changed.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            if e.file_type().unwrap().is_dir() {
                todo.push(e.path());
            } else {
                out.push((e.path(), std::fs::read(e.path()).unwrap()));
            }
        }
    }
    out.sort();
    out
}

const STUDY: &str =
    r#"(name: "s", presets: ["h100"], workloads: [(gen: "strided", params: {"stride": "1..=6"})])"#;

const TRACE: &str = "block,thread,step,op,addr,bytes\n0,0,0,ld,0,4\n0,1,0,ld,128,4\n0,2,0,ld,256,4\n";

// ---------------------------------------------------------------- data lost

#[test]
fn merge_onto_one_of_its_shards_refuses_before_writing() {
    let (_tmp, dir) = tmp("merge-onto");
    std::fs::write(dir.join("s.ron"), STUDY).unwrap();
    for i in 0..3 {
        ok(
            banksim_in(&dir, &["sweep", "s.ron", "--shard", &format!("{i}/3"), "-o", &format!("s{i}")]),
            "shard",
        );
    }
    let before = snapshot(&dir);
    let o = banksim_in(&dir, &["merge", "s0", "s1", "s2", "-o", "s0"]);
    refused(&o, &["s0/results.csv", "input of this command"]);
    assert_eq!(snapshot(&dir), before, "a refused merge changes nothing");
    // into a new folder it works, and the folder is banksim's
    ok(banksim_in(&dir, &["merge", "s0", "s1", "s2", "-o", "all"]), "merge");
    assert!(dir.join("all/.banksim-sweep").is_file());
}

#[test]
fn folders_banksim_did_not_write_are_never_changed() {
    let (_tmp, dir) = tmp("foreign");
    std::fs::write(dir.join("s.ron"), STUDY).unwrap();
    // a journal of someone else's with a last line cut short, and results of someone else's
    let journal = "{\"mine\": 1}\n{\"half";
    std::fs::create_dir(dir.join("j")).unwrap();
    std::fs::write(dir.join("j/cells.jsonl"), journal).unwrap();
    std::fs::create_dir(dir.join("r")).unwrap();
    std::fs::write(dir.join("r/results.csv"), "my,own\n1,2\n").unwrap();
    std::fs::write(dir.join("r/results.json"), "{\"mine\": true}").unwrap();
    ok(banksim_in(&dir, &["sweep", "s.ron", "--shard", "0/1", "-o", "shard"]), "shard");
    let before = snapshot(&dir);
    for out in ["j", "r"] {
        let o = banksim_in(&dir, &["sweep", "s.ron", "-o", out]);
        refused(&o, &[out, "did not write", ".banksim-sweep"]);
        let o = banksim_in(&dir, &["merge", "shard", "-o", out]);
        refused(&o, &[out, "did not write"]);
    }
    assert_eq!(snapshot(&dir), before, "nothing of another's was changed or added");
    // an empty folder is taken, and marked as banksim's
    std::fs::create_dir(dir.join("empty")).unwrap();
    ok(banksim_in(&dir, &["sweep", "s.ron", "-o", "empty"]), "empty folder");
    assert!(dir.join("empty/.banksim-sweep").is_file() && dir.join("empty/results.csv").is_file());
    // a folder of banksim's is resumed
    let o = ok(banksim_in(&dir, &["sweep", "s.ron", "-o", "empty"]), "again");
    assert!(err(&o).contains("6 done, 0 to run"), "{}", err(&o));
}

/// `report -o` and `run --out` write into folders as a sweep does: a folder with files
/// banksim did not write is refused and left as it was; a folder of banksim's is
/// written again.
#[test]
fn report_and_run_folders_banksim_did_not_write_are_never_changed() {
    let (_tmp, dir) = tmp("foreign-out");
    std::fs::write(dir.join("s.ron"), STUDY).unwrap();
    std::fs::write(dir.join("t.csv"), "block,thread,step,op,addr,bytes\n0,0,0,ld,0,4\n0,1,0,ld,128,4\n")
        .unwrap();
    ok(banksim_in(&dir, &["sweep", "s.ron", "-o", "sweep"]), "sweep");
    for out in ["notes", "mine"] {
        std::fs::create_dir(dir.join(out)).unwrap();
    }
    std::fs::write(dir.join("notes/index.md"), "my notes\n").unwrap();
    std::fs::write(dir.join("mine/requests.csv"), "my,own\n").unwrap();
    let before = snapshot(&dir);
    let o = banksim_in(&dir, &["report", "sweep", "-o", "notes"]);
    refused(&o, &["notes", "did not write", ".banksim-sweep"]);
    let o = banksim_in(&dir, &["run", "t.csv", "--out", "mine"]);
    refused(&o, &["mine", "did not write"]);
    let o = banksim_in(&dir, &["run", "--cycles", "t.csv", "--out", "mine"]);
    refused(&o, &["mine", "did not write"]);
    assert_eq!(snapshot(&dir), before, "nothing of another's was changed or added");
    // new folders are banksim's, and written again
    for _ in 0..2 {
        ok(banksim_in(&dir, &["report", "sweep", "-o", "charts"]), "report");
        ok(banksim_in(&dir, &["run", "t.csv", "--out", "run"]), "run --out");
    }
    assert!(dir.join("charts/.banksim-sweep").is_file() && dir.join("charts/index.md").is_file());
    assert!(dir.join("run/.banksim-sweep").is_file() && dir.join("run/requests.csv").is_file());
}

#[test]
fn measure_csv_of_another_header_is_refused() {
    let (_tmp, dir) = tmp("measure");
    std::fs::write(dir.join("k.wgsl"), "@compute @workgroup_size(1) fn main() {}").unwrap();
    std::fs::write(dir.join("other.csv"), "a,b\n1,2\n").unwrap();
    let before = snapshot(&dir);
    // checked before a GPU is opened: the same result on a machine without one
    let o = banksim_in(&dir, &["measure", "k.wgsl", "--dispatch", "1", "--csv", "other.csv"]);
    if cfg!(feature = "gpu") {
        refused(&o, &["other.csv", "its header is `a,b`"]);
    } else {
        refused(&o, &["needs the `gpu` feature"]);
    }
    assert_eq!(snapshot(&dir), before);
}

// ---------------------------------------------------------------- silent wrong answers

#[test]
fn an_edited_trace_runs_its_cells_again() {
    let (_tmp, dir) = tmp("edited");
    std::fs::write(dir.join("t.csv"), TRACE).unwrap();
    let study = r#"(name: "f", presets: ["h100", "g80"], workloads: [(file: "t.csv"), (gen: "tile")])"#;
    std::fs::write(dir.join("f.ron"), study).unwrap();
    ok(banksim_in(&dir, &["sweep", "f.ron", "-o", "out"]), "first");
    let first = std::fs::read_to_string(dir.join("out/results.csv")).unwrap();
    // the same size, other addresses: 3 lanes on one bank become 3 banks
    let edited = TRACE.replace(",128,", ",132,").replace(",256,", ",264,");
    assert_eq!(edited.len(), TRACE.len());
    std::fs::write(dir.join("t.csv"), &edited).unwrap();
    let o = ok(banksim_in(&dir, &["sweep", "f.ron", "-o", "out"]), "after the edit");
    let e = err(&o);
    assert!(e.contains("2 done, 2 to run") && e.contains("2 cells were computed from other inputs"), "{e}");
    let second = std::fs::read_to_string(dir.join("out/results.csv")).unwrap();
    assert_ne!(first, second, "the edited trace's cells were computed again");
    ok(banksim_in(&dir, &["sweep", "f.ron", "-o", "fresh"]), "fresh");
    assert_eq!(second, std::fs::read_to_string(dir.join("fresh/results.csv")).unwrap());
    // unchanged, nothing runs again
    let o = ok(banksim_in(&dir, &["sweep", "f.ron", "-o", "out"]), "unchanged");
    assert!(err(&o).contains("4 done, 0 to run"), "{}", err(&o));
}

#[test]
fn a_sweep_folder_is_held_by_one_sweep_at_a_time() {
    let (_tmp, dir) = tmp("lock");
    std::fs::write(dir.join("s.ron"), STUDY).unwrap();
    ok(banksim_in(&dir, &["sweep", "s.ron", "-o", "out", "--shard", "0/2"]), "first");
    let journal = std::fs::read(dir.join("out/cells.jsonl")).unwrap();
    // another process (this test) holds the folder
    let marker =
        std::fs::File::options().read(true).write(true).open(dir.join("out/.banksim-sweep")).unwrap();
    marker.try_lock().unwrap();
    let started = std::time::Instant::now();
    for args in [&["sweep", "s.ron", "-o", "out"][..], &["merge", "out", "-o", "out", "--allow-partial"][..]]
    {
        let o = banksim_in(&dir, args);
        refused(&o, &["out: another banksim command is writing to this folder"]);
    }
    assert!(started.elapsed().as_secs() < 20, "refused at once, not after waiting");
    assert_eq!(std::fs::read(dir.join("out/cells.jsonl")).unwrap(), journal);
    marker.unlock().unwrap();
    ok(banksim_in(&dir, &["sweep", "s.ron", "-o", "out"]), "once released");
    let text = std::fs::read_to_string(dir.join("out/cells.jsonl")).unwrap();
    assert_eq!(text.lines().count(), 1 + 6);
    assert!(text.lines().all(|l| serde_json::from_str::<serde_json::Value>(l).is_ok()), "{text}");
}

#[test]
fn two_sweeps_started_together_on_one_folder_lose_nothing() {
    let (_tmp, dir) = tmp("race");
    let study = r#"(name: "r", presets: ["h100", "g80", "cdna3"], hardware: {"banks": [16, 32]}, workloads: [(gen: "strided", params: {"stride": "1..=100"})])"#;
    std::fs::write(dir.join("r.ron"), study).unwrap();
    ok(banksim_in(&dir, &["sweep", "r.ron", "-o", "alone"]), "alone");
    let start = || {
        Command::new(env!("CARGO_BIN_EXE_banksim"))
            .args(["sweep", "r.ron", "-o", "both", "--threads", "1"])
            .current_dir(&dir)
            .env("CI", "1")
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (a, b) = (start(), start());
    let outs = [a.wait_with_output().unwrap(), b.wait_with_output().unwrap()];
    assert!(outs.iter().any(|o| o.status.success()), "one of them ran");
    for o in &outs {
        if !o.status.success() {
            refused(o, &["both: another banksim command is writing to this folder"]);
        }
    }
    let journal = std::fs::read_to_string(dir.join("both/cells.jsonl")).unwrap();
    assert_eq!(journal.lines().count(), 1 + 600, "each cell once");
    assert!(journal.lines().all(|l| serde_json::from_str::<serde_json::Value>(l).is_ok()));
    for f in ["results.csv", "results.json"] {
        assert_eq!(
            std::fs::read(dir.join("alone").join(f)).unwrap(),
            std::fs::read(dir.join("both").join(f)).unwrap()
        );
    }
}

#[test]
fn two_outputs_on_one_path_are_refused_before_anything_is_written() {
    let (_tmp, dir) = tmp("outputs");
    std::fs::write(dir.join("t.csv"), TRACE).unwrap();
    std::fs::write(dir.join("x.csv"), "keep").unwrap();
    std::fs::create_dir(dir.join("sub")).unwrap();
    let before = snapshot(&dir);
    let cases: &[(&[&str], &str)] = &[
        (
            &["run", "--cycles", "t.csv", "--per-request", "x.csv", "--per-sm", "x.csv"],
            "x.csv: given as both --per-request and --per-sm",
        ),
        (
            &["run", "--cycles", "t.csv", "--per-request", "sub/../x.csv", "--per-sm", "./x.csv"],
            "./x.csv: given as both",
        ),
        (
            &["run", "t.csv", "--by-line-csv", "x.csv", "--by-line-png", "x.csv"],
            "x.csv: given as both --by-line-csv and --by-line-png",
        ),
        (
            &["run", "t.csv", "--per-request", "x.csv", "--out", "x.csv"],
            "x.csv: given as both --per-request and --out",
        ),
        (
            &["run", "t.csv", "--per-request", "new.csv", "--out", "new.csv"],
            "new.csv: given as both --per-request and --out",
        ),
    ];
    for (args, needle) in cases {
        let o = banksim_in(&dir, args);
        refused(&o, &[needle, "each output needs a path of its own"]);
    }
    let o = banksim_in(&dir, &["run", "t.csv", "--per-request", "-", "--per-sm", "-", "--cycles"]);
    refused(&o, &["-: given as both --per-request and --per-sm"]);
    if cfg!(feature = "gpu") {
        std::fs::write(dir.join("k.wgsl"), "@compute @workgroup_size(1) fn main() {}").unwrap();
        let o =
            banksim_in(&dir, &["measure", "k.wgsl", "--dispatch", "1", "--json", "m.out", "--csv", "m.out"]);
        refused(&o, &["m.out", "--json and --csv"]);
        std::fs::remove_file(dir.join("k.wgsl")).unwrap();
    }
    assert_eq!(snapshot(&dir), before, "nothing written");
}

#[test]
fn a_study_name_is_a_plain_file_name() {
    let (_tmp, root) = tmp("name");
    let dir = root.join("a/b/c");
    std::fs::create_dir_all(&dir).unwrap();
    for name in ["../../../x", "/tmp/x", ".hidden", ""] {
        let study = STUDY.replace("name: \"s\"", &format!("name: {name:?}"));
        std::fs::write(dir.join("s.ron"), study).unwrap();
        let o = banksim_in(&dir, &["sweep", "s.ron"]);
        refused(&o, &["s.ron:1: `name`", "not a plain file name"]);
    }
    assert!(!root.join("x").exists() && !root.join("sweep-").exists());
    assert_eq!(snapshot(&root).len(), 1, "only the study file");
}

#[test]
fn hardware_values_are_one_value_of_a_known_field() {
    let (_tmp, dir) = tmp("smuggle");
    let cases: &[(&str, &[&str])] = &[
        (
            r#"{"mapping": ["Linear, banks: 8"]}"#,
            &["`hardware.mapping`", "`Linear, banks: 8` is not one value"],
        ),
        (r#"{"mapping": ["Linear) // x"]}"#, &["`hardware.mapping`", "is not one value"]),
        (r#"{"banks: 8, warp": [16]}"#, &["`hardware.banks: 8, warp`", "not a config field"]),
        (r#"{"crossbar.wdth": [64]}"#, &["`hardware.crossbar.wdth`", "not a crossbar field"]),
        (r#"{"base": ["\"g80\""]}"#, &["`hardware.base`", "not a config field"]),
        (r#"{"banks": [16], "banks": [32]}"#, &["s.ron:2:", "`banks` is given twice"]),
    ];
    for (hardware, needles) in cases {
        let study = format!(
            "(name: \"s\", presets: [\"h100\"],\n hardware: {hardware},\n workloads: [(gen: \"tile\")])"
        );
        std::fs::write(dir.join("s.ron"), study).unwrap();
        let o = banksim_in(&dir, &["sweep", "s.ron", "-o", "out"]);
        refused(&o, needles);
        assert!(!dir.join("out").exists(), "{hardware}: nothing made");
    }
    // a value of one field, whole, still works
    let study = "(name: \"s\", presets: [\"h100\"], hardware: {\"mapping\": [\"Linear\", \"Xor(shift: 5, mask: 31)\"]}, workloads: [(gen: \"tile\")])";
    std::fs::write(dir.join("s.ron"), study).unwrap();
    ok(banksim_in(&dir, &["sweep", "s.ron", "-o", "out"]), "mappings");
}

#[test]
fn a_crossbar_width_that_would_be_ignored_is_refused() {
    let (_tmp, dir) = tmp("width");
    std::fs::write(dir.join("t.csv"), TRACE).unwrap();
    let lanes = "(b1: 32, b2: 32, b4: 32, b8: 16, b16: 8)";
    let config = format!("(base: \"h100\",\n phase_lanes: {lanes},\n crossbar: (width: 256))");
    std::fs::write(dir.join("c.ron"), config).unwrap();
    let o = banksim_in(&dir, &["run", "-c", "c.ron", "t.csv"]);
    refused(&o, &["c.ron:3: `crossbar.width`", "would be ignored", "give one of the two"]);
    // a study that varies the width where the lanes are set (in either spelling): the same
    for axis in ["phase_lanes", "crossbar.lanes"] {
        let value = if axis == "phase_lanes" { lanes.to_string() } else { format!("Some({lanes})") };
        let study = format!(
            "(name: \"s\", presets: [\"h100\"],\n hardware: {{\"crossbar.width\": [256], \"{axis}\": [\"{value}\"]}},\n workloads: [(gen: \"tile\")])"
        );
        std::fs::write(dir.join("s.ron"), study).unwrap();
        let o = banksim_in(&dir, &["sweep", "s.ron", "-o", "out"]);
        refused(&o, &["s.ron:2", "`crossbar.width` would be ignored"]);
    }
    // what banksim writes back for hardware with lanes (width and lanes) reads back: the
    // lanes take precedence, as documented
    let dump = format!("(base: \"h100\", crossbar: (width: 128, lanes: Some({lanes})))");
    std::fs::write(dir.join("c.ron"), dump).unwrap();
    ok(banksim_in(&dir, &["run", "-c", "c.ron", "t.csv"]), "width and lanes in the crossbar section");
    // the width alone, or the lanes taken from it, are fine
    std::fs::write(dir.join("c.ron"), "(base: \"h100\", crossbar: (width: 256, lanes: None))").unwrap();
    ok(banksim_in(&dir, &["run", "-c", "c.ron", "t.csv"]), "lanes: None");
}

/// A study whose widest 16-byte strides reach past the g80's 16 KiB of shared memory.
const UNFIT: &str = "(name: \"u\",\n presets: [\"h100\", \"g80\"],\n workloads: [\n  (gen: \"strided\", params: {\"width\": 16, \"stride\": [1, 20, 40]}),\n ],\n ON_UNFIT)";

#[test]
fn cells_that_cannot_run_are_refused_up_front_or_skipped() {
    let (_tmp, dir) = tmp("unfit");
    std::fs::write(dir.join("u.ron"), UNFIT.replace("ON_UNFIT", "")).unwrap();
    let o = banksim_in(&dir, &["sweep", "u.ron", "-o", "out"]);
    // g80 (cells 3..5): 32 threads x stride 20 x 16 bytes = 10 KiB fits, stride 40 does not
    refused(
        &o,
        &["1 cells cannot run on their hardware", "on_unfit: skip", "u.ron:4: `workloads[0]`: cell 5 on g80"],
    );
    assert!(!dir.join("out").exists(), "refused before anything was made");
    std::fs::write(dir.join("u.ron"), UNFIT.replace("ON_UNFIT", "on_unfit: skip")).unwrap();
    let o = ok(banksim_in(&dir, &["sweep", "u.ron", "-o", "out"]), "skip");
    assert!(err(&o).contains("1 skipped, 5 to run") && err(&o).contains("cell 5 on g80"), "{}", err(&o));
    let mut rdr = csv::Reader::from_path(dir.join("out/results.csv")).unwrap();
    let header: Vec<String> = rdr.headers().unwrap().iter().map(String::from).collect();
    let (skipped, wavefronts) = (
        header.iter().position(|h| h == "skipped").unwrap(),
        header.iter().position(|h| h == "wavefronts").unwrap(),
    );
    let rows: Vec<csv::StringRecord> = rdr.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), 6, "every cell has its row");
    for (i, r) in rows.iter().enumerate() {
        assert_eq!(r[skipped].contains("beyond the 16384 bytes"), i == 5, "{r:?}");
        assert_eq!(r[wavefronts].is_empty(), i == 5, "{r:?}");
    }
}

#[test]
fn the_ready_strides_study_runs_to_completion() {
    let (_tmp, dir) = tmp("strides");
    let study = Path::new(env!("CARGO_MANIFEST_DIR")).join("../studies/strides.ron");
    let o = ok(banksim_in(&dir, &["sweep", study.to_str().unwrap(), "-o", "out"]), "strides");
    assert!(err(&o).contains("128 skipped, 832 to run"), "{}", err(&o));
    let rows = std::fs::read_to_string(dir.join("out/results.csv")).unwrap();
    assert_eq!(rows.lines().count(), 1 + 960);
}

#[test]
fn every_problem_of_a_study_at_once_with_file_line_and_field() {
    let (_tmp, dir) = tmp("all-at-once");
    let study = "(\n name: \"s\",\n presets: [\"h100\", \"h300\"],\n hardware: {\"warp\": [48]},\n workloads: [\n  (gen: \"tilez\"),\n  (gen: \"tile\", params: {\"pad\": \"5..=1\"}),\n  (gen: \"tile\", params: {\"padding\": 1}),\n  (file: \"missing.csv\"),\n ],\n)";
    std::fs::write(dir.join("s.ron"), study).unwrap();
    let o = banksim_in(&dir, &["sweep", "s.ron", "-o", "out"]);
    refused(
        &o,
        &[
            "s.ron: invalid study",
            "s.ron:3: `presets`: unknown preset `h300`",
            "s.ron:4: `hardware.warp`: on h100 with warp = 48: `warp`",
            "s.ron:6: `workloads[0].gen`: unknown generator `tilez`",
            "s.ron:7: `workloads[1].params.pad`",
            "s.ron:8: `workloads[2].params.padding`",
            "s.ron:9: `workloads[3].file`: `missing.csv`: cannot read",
        ],
    );
    assert!(!dir.join("out").exists());
}

#[test]
fn messages_name_the_file_and_say_what_was_expected() {
    let (_tmp, dir) = tmp("messages");
    std::fs::write(dir.join("t.csv"), TRACE).unwrap();
    // results.json of `{}`: the file and the missing field
    std::fs::create_dir(dir.join("r")).unwrap();
    std::fs::write(dir.join("r/results.json"), "{}").unwrap();
    let o = banksim_in(&dir, &["merge", "r", "-o", "m"]);
    refused(&o, &["r/results.json: not the results of a sweep: missing field `study`"]);
    if cfg!(feature = "charts") {
        let o = banksim_in(&dir, &["report", "r", "-o", "rep"]);
        refused(&o, &["r/results.json: not the results of a sweep: missing field"]);
        assert!(!err(&o).contains("invalid type: null"));
    }
    // a float where whole numbers are expected
    std::fs::write(dir.join("f.ron"), STUDY.replace("\"1..=6\"", "1.5")).unwrap();
    let o = banksim_in(&dir, &["sweep", "f.ron", "-o", "out"]);
    refused(&o, &["f.ron:1:", "1.5", "expected a whole number, a list of whole numbers", "\"0..=32\""]);
    assert!(!err(&o).contains("untagged"), "{}", err(&o));
    std::fs::write(dir.join("f.ron"), STUDY.replace("\"1..=6\"", "[1, 2.5]")).unwrap();
    refused(
        &banksim_in(&dir, &["sweep", "f.ron", "-o", "out"]),
        &["f.ron:1:", "2.5", "whole numbers in the list"],
    );
    // a byte-order mark is not part of the file
    std::fs::write(dir.join("bom.ron"), format!("\u{feff}{STUDY}")).unwrap();
    ok(banksim_in(&dir, &["sweep", "bom.ron", "-o", "bom"]), "study with a BOM");
    std::fs::write(dir.join("bom-c.ron"), "\u{feff}(base: \"h100\", banks: 16)").unwrap();
    let o = ok(banksim_in(&dir, &["run", "-c", "bom-c.ron", "t.csv"]), "config with a BOM");
    assert!(String::from_utf8_lossy(&o.stdout).contains("16 banks"));
    // nesting: banksim's words, not the parser's
    let deep = format!("(base: \"h100\", extra: {}{})", "[".repeat(300), "]".repeat(300));
    std::fs::write(dir.join("deep.ron"), deep).unwrap();
    let o = banksim_in(&dir, &["run", "-c", "deep.ron", "t.csv"]);
    refused(&o, &["deep.ron:1:", "nested too deeply"]);
    assert!(!err(&o).contains("serde_stacker") && !err(&o).contains("recursion"), "{}", err(&o));
    // an unknown field of a workload: no Rust type names
    std::fs::write(dir.join("w.ron"), STUDY.replace("params:", "parms:")).unwrap();
    let o = banksim_in(&dir, &["sweep", "w.ron", "-o", "out"]);
    refused(&o, &["w.ron:1:", "`parms`", "a workload"]);
    assert!(!err(&o).contains("WorkloadSpec"), "{}", err(&o));
}

#[test]
fn a_repeated_key_is_refused() {
    let (_tmp, dir) = tmp("repeated");
    let o = banksim_in(&dir, &["gen", "strided", "stride=2", "stride=4"]);
    refused(&o, &["`stride` is given twice"]);
    assert!(o.stdout.is_empty(), "no trace written");
    // generator parameters in a study map: the same
    std::fs::write(dir.join("s.ron"), STUDY.replace("{\"stride\"", "{\"stride\": 1, \"stride\"")).unwrap();
    refused(&banksim_in(&dir, &["sweep", "s.ron", "-o", "out"]), &["s.ron:1:", "`stride` is given twice"]);
    if cfg!(feature = "gpu") {
        std::fs::write(dir.join("k.wgsl"), "@compute @workgroup_size(1) fn main() {}").unwrap();
        for (flag, a, b, key) in
            [("--override", "N=1", "N=2", "`N`"), ("--bind", "0.0=zeros:4", "0.0=iota:4", "`0.0`")]
        {
            let o =
                banksim_in(&dir, &["capture", "k.wgsl", "--dispatch", "1", flag, a, flag, b, "-o", "t.csv"]);
            refused(&o, &[flag, key, "is given twice"]);
            assert!(!dir.join("t.csv").exists());
        }
    }
    // distinct keys are fine
    ok(banksim_in(&dir, &["gen", "strided", "stride=2", "width=8"]), "distinct");
}
