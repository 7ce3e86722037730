//! The command-line tool end to end: exit codes, messages, outputs.

use std::path::PathBuf;
use std::process::{Command, Output};

fn banksim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_banksim")).args(args).output().unwrap()
}

fn text(o: &Output) -> (String, String) {
    (String::from_utf8_lossy(&o.stdout).into_owned(), String::from_utf8_lossy(&o.stderr).into_owned())
}

/// A fresh folder for one test's files, gone when dropped (also on a panic); each test
/// names its files in it with a `tmp` closure.
fn tmp_dir() -> tempfile::TempDir {
    tempfile::Builder::new().prefix("banksim-cli-").tempdir().unwrap()
}

#[test]
fn demo_needs_no_files_and_shows_32_way_vs_conflict_free() {
    let o = banksim(&["demo"]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{err}");
    assert!(out.contains("pad 0") && out.contains("pad 1"), "{out}");
    let ld: Vec<&str> = out.lines().filter(|l| l.starts_with("ld ")).collect();
    assert_eq!(ld.len(), 2, "{out}");
    assert!(
        ld[0].split_whitespace().collect::<Vec<_>>()[3] == "1024",
        "unpadded: 32 warps x 32 wavefronts: {}",
        ld[0]
    );
    assert!(ld[1].split_whitespace().collect::<Vec<_>>()[3] == "32", "padded: 1 per warp: {}", ld[1]);
}

#[test]
fn run_prints_summary_and_writes_per_request_csv() {
    let dir = tmp_dir();
    let tmp = |name: &str| dir.path().join(name);
    let trace = tmp("t.csv");
    let mut csv = String::from("block,thread,step,op,addr,bytes\n");
    for t in 0..64 {
        csv += &format!("0,{t},0,st,{},4\n0,{t},1,bar,0,0\n0,{t},2,ld,{},4\n", t * 4, t * 128);
    }
    std::fs::write(&trace, csv).unwrap();
    let out_csv = tmp("per-request.csv");
    let o = banksim(&[
        "run",
        "--config",
        "h100",
        trace.to_str().unwrap(),
        "--per-request",
        out_csv.to_str().unwrap(),
    ]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{err}");
    // the header counts records; every count of requests is the table's
    assert!(out.contains("192 records, warp 32 on h100"), "{out}");
    assert!(out.contains("total          4") && out.contains("(2 warp barriers)"), "{out}");
    let rows = std::fs::read_to_string(&out_csv).unwrap();
    let lines: Vec<&str> = rows.lines().collect();
    assert_eq!(lines[0], "block,warp,step,op,bytes,active,wavefronts,ideal,conflicts");
    assert_eq!(lines.len(), 7);
    assert!(lines.contains(&"0,0,2,ld,4,32,32,1,31"), "{rows}");
    assert!(lines.contains(&"0,1,0,st,4,32,1,1,0"), "{rows}");
    // the same trace on 64-lane warps: one request per step, two phases of 32
    let o = banksim(&[
        "run",
        "--warp",
        "64",
        trace.to_str().unwrap(),
        "--per-request",
        out_csv.to_str().unwrap(),
    ]);
    assert!(o.status.success());
    let rows = std::fs::read_to_string(&out_csv).unwrap();
    assert!(rows.contains("0,0,2,ld,4,64,64,2,62"), "{rows}");
}

#[test]
fn presets_lists_and_shows() {
    let (out, _) = text(&banksim(&["presets"]));
    for p in [
        "h100", "a100", "v100", "kepler", "gtx580", "g80", "hd5870", "cdna3", "cdna4", "rdna3", "h200",
        "b200", "rtx5090", "rdna4",
    ] {
        assert!(out.contains(p), "{p} missing from {out}");
    }
    let (out, _) = text(&banksim(&["presets", "--show", "g80"]));
    assert!(out.contains("OneBroadcastWord") && out.contains("banks: 16"));
}

/// Bad input on the command line: non-zero exit, a message with the place, no panic.
#[test]
fn bad_input_exits_non_zero_with_a_clear_message() {
    let dir = tmp_dir();
    let tmp = |name: &str| dir.path().join(name);
    let bad_trace = tmp("bad.csv");
    std::fs::write(&bad_trace, "block,thread,step,op,addr,bytes\n0,0,0,ld,0,4\n0,1,0,ld,4,5\n").unwrap();
    let far = tmp("far.csv");
    std::fs::write(&far, "block,thread,step,op,addr,bytes\n0,0,0,ld,0x40000,4\n").unwrap();
    let bad_cfg = tmp("bad.ron");
    std::fs::write(&bad_cfg, "(base: \"h100\", banks: 0)").unwrap();
    let cases: Vec<(Vec<&str>, Vec<String>)> = vec![
        (
            vec!["run", bad_trace.to_str().unwrap()],
            vec![format!("{}:3", bad_trace.display()), "`bytes`".into()],
        ),
        (vec!["run", "/no/such/trace.csv"], vec!["/no/such/trace.csv".into(), "cannot read".into()]),
        (vec!["run", dir.path().to_str().unwrap()], vec!["directory".into()]),
        (
            vec!["run", "--config", "h300", bad_trace.to_str().unwrap()],
            vec!["unknown preset `h300`".into(), "h100".into()],
        ),
        (
            vec!["run", "--config", bad_cfg.to_str().unwrap(), far.to_str().unwrap()],
            vec![format!("{}:1", bad_cfg.display()), "`banks`".into()],
        ),
        (vec!["run", "--warp", "48", far.to_str().unwrap()], vec!["`warp`".into(), "48".into()]),
        (
            vec!["run", far.to_str().unwrap()],
            vec![format!("{}:2", far.display()), "beyond".into(), "233472".into()],
        ),
        (
            vec![
                "run",
                "--per-request",
                "/no/such/dir/out.csv",
                far.to_str().unwrap(),
                "--config",
                "h100",
                "--banks",
                "64",
            ],
            // (the output is made before the trace is read: a mistyped path fails at once)
            vec!["/no/such/dir/out.csv".into(), "cannot create".into()],
        ),
        (vec!["frobnicate"], vec!["unrecognized subcommand".into()]),
    ];
    for (args, needles) in cases {
        let o = banksim(&args);
        let (_, err) = text(&o);
        assert!(!o.status.success(), "{args:?} should fail");
        assert!(!err.contains("panicked"), "{args:?} panicked: {err}");
        for n in needles {
            assert!(err.contains(&n), "{args:?}: `{err}` lacks `{n}`");
        }
    }
}

#[test]
fn unwritable_output_fails_and_leaves_nothing() {
    let dir = tmp_dir();
    let tmp = |name: &str| dir.path().join(name);
    let trace = tmp("ok.csv");
    std::fs::write(&trace, "block,thread,step,op,addr,bytes\n0,0,0,ld,0,4\n").unwrap();
    let o = banksim(&["run", trace.to_str().unwrap(), "--per-request", "/no/such/dir/out.csv"]);
    let (_, err) = text(&o);
    assert!(!o.status.success());
    assert!(err.contains("/no/such/dir/out.csv") && err.contains("cannot create"), "{err}");
}

#[test]
fn run_grid_repeats_blocks_and_cycles_per_op_scales_the_gaps() {
    let dir = tmp_dir();
    let tmp = |name: &str| dir.path().join(name);
    // one block of 8 warps, each 64 loads with 10 units of other work before each
    let path = tmp("grid.csv");
    let mut s = String::from("block,thread,step,op,addr,bytes,gap,dep\n");
    for t in 0..256u32 {
        for k in 0..64 {
            s += &format!("0,{t},{k},ld,{},4,10,0\n", (t % 32) * 4);
        }
    }
    std::fs::write(&path, s).unwrap();
    let cycles = |extra: &[&str]| -> u64 {
        let mut args = vec!["run", path.to_str().unwrap(), "--cycles", "--sms", "1"];
        args.extend_from_slice(extra);
        let o = banksim(&args);
        let (out, err) = text(&o);
        assert!(o.status.success(), "{err}");
        let line = out.lines().find(|l| l.starts_with("cycle engine:")).expect(&out);
        line.split_whitespace().nth(2).unwrap().parse().unwrap()
    };
    let one = cycles(&[]);
    // 64 blocks on one SM run in waves: far more cycles than one block
    let many = cycles(&["--grid", "64"]);
    assert!(many > 4 * one, "{one} vs {many}");
    // gaps of 10 ops at 3 cycles each, each holding its scheduler all 3, make the
    // issue-bound block slower
    let slow = cycles(&["--cycles-per-op", "3", "--issue-per-op", "3", "--issue-share", "1"]);
    assert!(slow > 2 * one, "{one} vs {slow}");
    // ... unless an op holds the scheduler 1 cycle of its 3: two warps per scheduler then
    // overlap their work (each warp's own 64 x 31 cycles, not 2 x 64 x 31 per scheduler)
    let overlapped = cycles(&["--cycles-per-op", "3", "--issue-per-op", "1", "--issue-share", "1"]);
    assert!(3 * overlapped < 2 * slow && overlapped >= 64 * 31, "{slow} vs {overlapped}");
    // a quarter of its 3 cycles (up to 1): less still
    let quarter = cycles(&["--cycles-per-op", "3", "--issue-per-op", "1", "--issue-share", "0.25"]);
    assert!(quarter <= overlapped && quarter >= 64 * 31, "{overlapped} vs {quarter}");
    // which is what the preset's calibration of an operation says (h100: a quarter, up
    // to 2 cycles)
    assert_eq!(cycles(&["--cycles-per-op", "3"]), quarter);
    assert_eq!(cycles(&["--gaps", "ops", "--cycles-per-op", "3"]), quarter);
    // gaps in cycles hold the scheduler as --issue-per-op says, not by the preset's share
    // of an operation's cycles
    let whole_gap = cycles(&["--cycles-per-op", "1", "--issue-per-op", "1", "--issue-share", "1"]);
    assert_eq!(cycles(&["--issue-per-op", "1"]), whole_gap);
    assert!(cycles(&["--cycles-per-op", "1", "--issue-per-op", "1", "--issue-share", "0.25"]) != whole_gap);
    let o = banksim(&["run", path.to_str().unwrap(), "--cycles", "--grid", "4", "--per-request", "x.csv"]);
    let (_, err) = text(&o);
    assert!(!o.status.success() && err.contains("--grid runs a workload other than the trace"), "{err}");
    // costed gaps run the trace's own requests: --per-request gives each its cycles, the
    // last done at the block's end
    let rows = tmp("costed.csv");
    let costed = cycles(&["--cycles-per-op", "3", "--per-request", rows.to_str().unwrap()]);
    assert_eq!(costed, quarter);
    let mut reader = csv::Reader::from_path(&rows).unwrap();
    let done = reader.headers().unwrap().iter().position(|h| h == "done").expect("a done column");
    let ends: Vec<u64> = reader.records().map(|r| r.unwrap()[done].parse().unwrap()).collect();
    assert_eq!(ends.len(), 8 * 64);
    assert_eq!(ends.iter().max().copied(), Some(costed));
}

#[test]
fn binary_traces_stream_to_the_same_totals_as_text() {
    let dir = tmp_dir();
    let tmp = |name: &str| dir.path().join(name);
    let csv = tmp("stream.csv");
    let bin = tmp("stream.bsim");
    let gen = banksim(&[
        "gen",
        "random",
        "threads=1024",
        "steps=200",
        "width=8",
        "range=4096",
        "-o",
        csv.to_str().unwrap(),
    ]);
    assert!(gen.status.success(), "{}", text(&gen).1);
    let conv = banksim(&["convert", csv.to_str().unwrap(), bin.to_str().unwrap()]);
    assert!(conv.status.success(), "{}", text(&conv).1);
    // the same totals, line for line, after the first line's file name
    let same_totals = |csv: &std::path::Path, bin: &std::path::Path| {
        for warp in ["16", "32", "64"] {
            let a = text(&banksim(&["run", csv.to_str().unwrap(), "--warp", warp])).0;
            let b = text(&banksim(&["run", bin.to_str().unwrap(), "--warp", warp, "--threads", "2"])).0;
            // (the file mapped, as by default, and read by position)
            let c = text(&banksim(&["run", bin.to_str().unwrap(), "--warp", warp, "--no-mmap"])).0;
            let tail = |s: &str| s.split_once(": ").map(|p| p.1.to_string()).unwrap_or_default();
            assert!(a.contains(" records"), "{a}");
            assert_eq!(tail(&a), tail(&b), "{} warp {warp}", csv.display());
            assert_eq!(tail(&a), tail(&c), "{} warp {warp}, --no-mmap", csv.display());
        }
    };
    same_totals(&csv, &bin);
    assert!(text(&banksim(&["run", csv.to_str().unwrap()])).0.contains("204800 records"));
    // affine requests (strides, shrinking masks, barriers) go through the model's memo
    for (kind, params) in [
        ("strided", &["threads=256", "stride=33"][..]),
        ("reduction", &["tile=2048"][..]),
        ("scan", &["n=1024", "padded=1"][..]),
        ("gemm", &["width=4", "skew=1"][..]),
    ] {
        let (c, b) = (tmp(&format!("stream_{kind}.csv")), tmp(&format!("stream_{kind}.bsim")));
        let mut args = vec!["gen", kind];
        args.extend_from_slice(params);
        args.extend_from_slice(&["-o", c.to_str().unwrap()]);
        assert!(banksim(&args).status.success(), "gen {kind}");
        assert!(banksim(&["convert", c.to_str().unwrap(), b.to_str().unwrap()]).status.success());
        same_totals(&c, &b);
    }
    // a bad access deep in the file is reported with its chunk and request
    let bad = tmp("stream_bad.csv");
    let mut s = std::fs::read_to_string(&csv).unwrap();
    s.push_str("7,3,999,ld,2,4\n");
    std::fs::write(&bad, s).unwrap();
    let badbin = tmp("stream_bad.bsim");
    assert!(banksim(&["convert", bad.to_str().unwrap(), badbin.to_str().unwrap()]).status.success());
    let o = banksim(&["run", badbin.to_str().unwrap()]);
    let (_, err) = text(&o);
    assert!(!o.status.success(), "{err}");
    assert!(
        err.contains("chunk at byte")
            && err.contains("block 7 warp 0 step 999")
            && err.contains("misaligned"),
        "{err}"
    );
    // a tile (rows of 8 threads, 16-byte loads) whose last rows run past the h100's 228
    // KiB of shared memory: stored as a tile, reported as from the text
    let tile = tmp("stream_tile.csv");
    let mut s = String::from("block,thread,step,op,addr,bytes\n");
    for thread in 0..64u32 {
        let addr = 227 * 1024 + (thread % 8) * 16 + (thread / 8) * 144;
        s.push_str(&format!("0,{thread},0,ld,{addr},16\n"));
    }
    std::fs::write(&tile, s).unwrap();
    let tilebin = tmp("stream_tile.bsim");
    assert!(banksim(&["convert", tile.to_str().unwrap(), tilebin.to_str().unwrap()]).status.success());
    let (_, want) = text(&banksim(&["run", tile.to_str().unwrap()]));
    let o = banksim(&["run", tilebin.to_str().unwrap()]);
    let (_, err) = text(&o);
    assert!(!o.status.success() && want.contains("beyond the 233472 bytes"), "{want}");
    assert!(err.contains("block 0 warp 1 step 0") && err.contains("beyond the 233472 bytes"), "{err}");
}

#[test]
fn binary_traces_load_whole_into_the_requests_their_text_groups_into() {
    let dir = tmp_dir();
    let tmp = |name: &str| dir.path().join(name);
    // 75 blocks of 1024 threads (about 140 000 records: three chunks, cut between the
    // slices of a block), lanes of one warp with different gaps, deps and waits, some
    // lanes idle: `run --cycles` on the binary trace splits its chunks into requests,
    // on the text trace it groups the records; every request, and every cycle, agrees
    let csv = tmp("whole.csv");
    let mut body = String::from("block,thread,step,op,addr,bytes,gap,dep,wait\n");
    for block in 0..75u32 {
        for thread in 0..1024u32 {
            for step in 0..2u32 {
                if (thread + step) % 11 == 3 {
                    continue;
                }
                let op = if step == 1 && block % 3 == 0 { "st" } else { "ld" };
                let addr = (block * 40 + thread * [1, 33][step as usize]) % 12288 * 4;
                let gap = (thread * 7 + block) % 9;
                let dep = if thread % 4 == 0 { "1" } else { "0" };
                let wait = if thread % 5 == 0 { String::new() } else { (thread % (gap + 1)).to_string() };
                body.push_str(&format!("{block},{thread},{step},{op},{addr},4,{gap},{dep},{wait}\n"));
            }
        }
    }
    std::fs::write(&csv, &body).unwrap();
    let bin = tmp("whole.bsim");
    assert!(banksim(&["convert", csv.to_str().unwrap(), bin.to_str().unwrap()]).status.success());
    let tail = |s: &str| s.split_once(": ").map(|p| p.1.to_string()).unwrap_or_default();
    for warp in ["16", "32", "64"] {
        let run = |trace: &PathBuf, threads: &str, map: bool| {
            let per = tmp(&format!(
                "whole_{warp}_{threads}_{map}_{}.csv",
                trace.extension().unwrap().to_str().unwrap()
            ));
            let mut args = vec![
                "run",
                trace.to_str().unwrap(),
                "--warp",
                warp,
                "--cycles",
                "--threads",
                threads,
                "--per-request",
                per.to_str().unwrap(),
            ];
            if !map {
                args.push("--no-mmap");
            }
            let o = banksim(&args);
            assert!(o.status.success(), "{}", text(&o).1);
            (tail(&text(&o).0), std::fs::read_to_string(per).unwrap())
        };
        let want = run(&csv, "2", true);
        assert!(want.0.contains("cycle engine: ") && want.1.lines().count() > 1000, "{}", want.0);
        for (threads, map) in [("1", true), ("2", true), ("2", false)] {
            let got = run(&bin, threads, map);
            assert_eq!(got.0, want.0, "warp {warp}, {threads} threads, mapped {map}");
            assert!(
                got.1 == want.1,
                "warp {warp}, {threads} threads, mapped {map}: the per-request rows differ"
            );
        }
    }
    // a bad access in a late chunk is named by its chunk and request, as a streamed run
    // names it; a thread beyond --threads-per-block too
    let bad = tmp("whole_bad.csv");
    std::fs::write(&bad, format!("{body}74,3,9,ld,2,4,0,0,\n")).unwrap();
    let badbin = tmp("whole_bad.bsim");
    assert!(banksim(&["convert", bad.to_str().unwrap(), badbin.to_str().unwrap()]).status.success());
    let o = banksim(&["run", badbin.to_str().unwrap(), "--cycles"]);
    let err = text(&o).1;
    assert!(!o.status.success(), "{err}");
    assert!(
        err.contains("chunk at byte") && err.contains("block 74 warp 0 step 9") && err.contains("misaligned"),
        "{err}"
    );
    let o = banksim(&["run", bin.to_str().unwrap(), "--cycles", "--threads-per-block", "200"]);
    let err = text(&o).1;
    assert!(
        !o.status.success() && err.contains("block 0 warp 6 step 0") && err.contains("beyond the block size"),
        "{err}"
    );
}

#[test]
fn text_traces_in_block_order_stream_to_the_totals_of_a_whole_read() {
    let dir = tmp_dir();
    let tmp = |name: &str| dir.path().join(name);
    // 40 blocks of 96 threads, 6 steps each, loads and stores at assorted strides
    let mut rows = Vec::new();
    for block in 0..40u32 {
        for thread in 0..96u32 {
            for step in 0..6u32 {
                let (op, stride) =
                    (if step % 3 == 2 { "st" } else { "ld" }, [1, 2, 32, 33, 7, 16][step as usize]);
                let addr = (block * 4 + thread * stride + step * 64) % 8192 * 4;
                rows.push((block, format!("{block},{thread},{step},{op},{addr},4")));
            }
        }
    }
    let write = |name: &str, rows: &[&(u32, String)], extra: &str| {
        let path = tmp(name);
        let body: Vec<&str> = rows.iter().map(|r| r.1.as_str()).collect();
        std::fs::write(
            &path,
            format!("block,thread,step,op,addr,bytes\n# traced\n{}\n{extra}", body.join("\n")),
        )
        .unwrap();
        path
    };
    let ordered: Vec<&(u32, String)> = rows.iter().collect();
    // the same records with the last block first: read whole, then grouped
    let mut unordered: Vec<&(u32, String)> = rows.iter().filter(|r| r.0 == 39).collect();
    unordered.extend(rows.iter().filter(|r| r.0 != 39));
    let (a, b) = (write("ordered.csv", &ordered, ""), write("unordered.csv", &unordered, ""));
    let tail = |s: &str| s.split_once(": ").map(|p| p.1.to_string()).unwrap_or_default();
    for warp in ["16", "32", "64"] {
        let oa = text(&banksim(&["run", a.to_str().unwrap(), "--warp", warp])).0;
        let ob = text(&banksim(&["run", b.to_str().unwrap(), "--warp", warp])).0;
        assert!(oa.contains("23040 records"), "{oa}");
        assert_eq!(tail(&oa), tail(&ob), "warp {warp}");
    }
    // converted to binary (streamed, or read whole) and back: the same records
    for (csv, name) in [(&a, "ordered"), (&b, "unordered")] {
        let bin = tmp(&format!("{name}.bsim"));
        let back = tmp(&format!("{name}_back.csv"));
        let o = banksim(&["convert", csv.to_str().unwrap(), bin.to_str().unwrap()]);
        assert!(o.status.success() && text(&o).0.contains(": 23040 records"), "{}", text(&o).1);
        assert!(banksim(&["convert", bin.to_str().unwrap(), back.to_str().unwrap()]).status.success());
        let sorted_records = |p: &std::path::Path| {
            let s = std::fs::read_to_string(p).unwrap();
            let mut v: Vec<String> =
                s.lines().filter(|l| !l.starts_with('#')).skip(1).map(String::from).collect();
            v.sort();
            v
        };
        assert_eq!(sorted_records(&back), sorted_records(&a), "{name}");
        let ran = text(&banksim(&["run", bin.to_str().unwrap()])).0;
        assert_eq!(tail(&ran), tail(&text(&banksim(&["run", a.to_str().unwrap()])).0), "{name}");
    }
    // a trace with the wait column, some waits empty, streams into a binary trace
    // that keeps each one
    let waits = tmp("waits.csv");
    let mut body = String::from("block,thread,step,op,addr,bytes,gap,dep,wait\n");
    for block in 0..3 {
        for thread in 0..40 {
            let wait = if thread % 3 == 0 { String::new() } else { (thread % 5).to_string() };
            body.push_str(&format!("{block},{thread},0,ld,{},4,6,1,{wait}\n", thread * 8));
        }
    }
    std::fs::write(&waits, &body).unwrap();
    let (wbin, wback) = (tmp("waits.bsim"), tmp("waits_back.csv"));
    assert!(banksim(&["convert", waits.to_str().unwrap(), wbin.to_str().unwrap()]).status.success());
    assert!(banksim(&["convert", wbin.to_str().unwrap(), wback.to_str().unwrap()]).status.success());
    let mut want: Vec<&str> = body.lines().collect();
    let got_text = std::fs::read_to_string(&wback).unwrap();
    let mut got: Vec<&str> = got_text.lines().collect();
    want.sort();
    got.sort();
    assert_eq!(got, want);
    // problems in a late block are named by their line, as a whole read names them
    let n = rows.len() + 3;
    for (extra, needles) in [
        ("39,5,0,ld,8,4\n", vec![format!(":{n}"), "thread 5 step 0".to_string()]),
        ("39,200,9,ld,6,4\n", vec![format!(":{n}"), "misaligned".to_string()]),
        ("39,200,9,ld,8,3\n", vec![format!(":{n}"), "`bytes`".to_string()]),
    ] {
        let bad = write("late_problem.csv", &ordered, extra);
        let o = banksim(&["run", bad.to_str().unwrap()]);
        let err = text(&o).1;
        assert!(!o.status.success(), "{extra}");
        for needle in needles {
            assert!(err.contains(&needle), "{extra}: `{err}` lacks `{needle}`");
        }
    }
}

/// A text trace of `blocks` blocks of 64 threads x 16 steps (stores and loads of
/// strides that depend on the block), the blocks' records in the order of `order`,
/// two blocks' records interleaved at a time.
fn blocks_text(order: &[u32]) -> String {
    let mut s = String::from("block,thread,step,op,addr,bytes\n");
    let record = |b: u32, i: u32| {
        let (t, step) = (i % 64, i / 64);
        let op = if step % 4 == 0 { "st" } else { "ld" };
        format!("{b},{t},{step},{op},{},4\n", (t * (b % 7 + 1) * 4 + step * 256) % 49152)
    };
    for pair in order.chunks(2) {
        for i in 0..64 * 16 {
            for &b in pair {
                s += &record(b, i);
            }
        }
    }
    s
}

/// A trace whose blocks are not in order gives the rows and totals of the same trace in
/// block order, when it is sorted in memory, through sorted runs on disk, and from
/// standard input; the runs' temporary folder is gone after.
#[test]
fn blocks_out_of_order_are_sorted_with_bounded_memory() {
    let dir = tmp_dir();
    let tmp = |name: &str| dir.path().join(name);
    let order: Vec<u32> = (0..48).map(|i| (i * 29) % 48).collect();
    let mut sorted = order.clone();
    sorted.sort_unstable();
    let (shuffled, in_order) = (tmp("shuffled.csv"), tmp("in-order.csv"));
    std::fs::write(&shuffled, blocks_text(&order)).unwrap();
    std::fs::write(&in_order, blocks_text(&sorted)).unwrap();
    let rows = |trace: &PathBuf, extra: &[&str], name: &str| {
        let out = tmp(name);
        let spill = tempfile::tempdir().unwrap();
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_banksim"));
        cmd.args(["run", "--per-request", out.to_str().unwrap()]).args(extra).env("TMPDIR", spill.path());
        let o = if trace.as_os_str() == "-" {
            cmd.arg("-").stdin(std::fs::File::open(&shuffled).unwrap()).output().unwrap()
        } else {
            cmd.arg(trace).output().unwrap()
        };
        let (summary, err) = text(&o);
        assert!(o.status.success(), "{err}");
        assert_eq!(std::fs::read_dir(spill.path()).unwrap().count(), 0, "runs left in TMPDIR");
        // (the first line names the trace)
        (std::fs::read_to_string(out).unwrap(), summary.lines().skip(1).collect::<Vec<_>>().join("\n"))
    };
    let want = rows(&in_order, &[], "want.csv");
    assert_eq!(want.0.lines().count(), 1 + 48 * 2 * 16);
    for (extra, name) in [(&[][..], "memory.csv"), (&["--memory", "1"][..], "spilled.csv")] {
        assert_eq!(rows(&shuffled, extra, name), want, "{extra:?}");
    }
    assert_eq!(rows(&PathBuf::from("-"), &["--memory", "1"], "stdin.csv"), want);

    // blocks in order for megabytes (streamed, rows written) before one goes down: the
    // trace is read again from its start, sorted, and the rows of the first reading are
    // not kept
    let one = |b: u32| blocks_text(&[b]).split_once('\n').unwrap().1.to_string();
    let head = "block,thread,step,op,addr,bytes\n";
    let late: String =
        head.to_string() + &(0..300).chain(310..320).chain(300..310).map(one).collect::<String>();
    let sorted: String = head.to_string() + &(0..320).map(one).collect::<String>();
    let (late_path, sorted_path) = (tmp("late.csv"), tmp("sorted.csv"));
    std::fs::write(&late_path, late).unwrap();
    std::fs::write(&sorted_path, sorted).unwrap();
    let want = rows(&sorted_path, &[], "sorted-rows.csv");
    assert_eq!(want.0.lines().count(), 1 + 320 * 2 * 16);
    assert_eq!(rows(&late_path, &[], "late-rows.csv"), want);
}

/// `script` runs `banksim ARGS` on a pseudo-terminal; what the terminal showed.
fn on_a_terminal(args: &str) -> String {
    let log = tempfile::NamedTempFile::new().unwrap();
    let command = format!("{} {args} > /dev/null", env!("CARGO_BIN_EXE_banksim"));
    let o = Command::new("script")
        .args(["-q", "-e", "-c", &command, log.path().to_str().unwrap()])
        .stdout(std::process::Stdio::null())
        .output()
        .expect("`script` (util-linux) runs a command on a pseudo-terminal");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    std::fs::read_to_string(log.path()).unwrap()
}

/// Reading a trace draws a bar on a terminal, none with --quiet, and none when standard
/// error is not a terminal.
#[test]
fn progress_shows_on_a_terminal_only() {
    let dir = tmp_dir();
    let tmp = |name: &str| dir.path().join(name);
    let trace = tmp("progress.csv");
    std::fs::write(&trace, blocks_text(&(0..16).collect::<Vec<_>>())).unwrap();
    let t = trace.to_str().unwrap();
    assert!(on_a_terminal(&format!("run {t}")).contains(&format!("reading {t}")));
    assert!(!on_a_terminal(&format!("run --quiet {t}")).contains("reading"));
    let o = banksim(&["run", t]);
    assert!(o.status.success() && o.stderr.is_empty(), "{}", text(&o).1);
}

/// An Accel-Sim trace of many blocks, last block first, imported with runs of sorted
/// records on disk, gives the same trace as imported in memory, in block order, in
/// either output format.
#[test]
fn import_sorts_blocks_with_bounded_memory() {
    let dir = tmp_dir();
    let tmp = |name: &str| dir.path().join(name);
    let sample = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../traces/tests/data/accelsim_sample.traceg"),
    )
    .unwrap();
    let (head, rest) = sample.split_once("#BEGIN_TB").unwrap();
    let block = format!("#BEGIN_TB{}", rest.split("#BEGIN_TB").next().unwrap());
    let at = block.find("thread block = ").unwrap();
    let end = at + block[at..].find('\n').unwrap();
    let mut traceg = head.replace("-grid dim = (2,2,1)", "-grid dim = (40,40,1)");
    for b in (0..1600).rev() {
        traceg += &format!("{}thread block = {},{},0{}", &block[..at], b % 40, b / 40, &block[end..]);
    }
    let input = tmp("many.traceg");
    std::fs::write(&input, traceg).unwrap();
    let import = |out: &str, extra: &[&str]| {
        let out = tmp(out);
        let mut args =
            vec!["import", "--from", "accelsim", input.to_str().unwrap(), "-o", out.to_str().unwrap()];
        args.extend_from_slice(extra);
        let o = banksim(&args);
        assert!(o.status.success(), "{}", text(&o).1);
        std::fs::read(out).unwrap()
    };
    let memory = import("memory.csv", &[]);
    assert_eq!(import("spilled.csv", &["--memory", "1"]), memory);
    assert_eq!(import("memory.bsim", &[]), import("spilled.bsim", &["--memory", "1"]));
    let trace = traces::text::read(&tmp("memory.csv")).unwrap();
    assert!(trace.len() > 100_000 && traces::blocks_in_order(&trace.records));
}

/// `bench` reports the inner loops and every whole-process path, each with a rate.
#[test]
fn bench_reports_every_path() {
    let o = banksim(&["bench", "--threads", "1", "--blocks", "132", "--iters", "8", "--run-blocks", "132"]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{err}");
    for what in [
        "bank model, 1 thread",
        "cycle engine, 1 threads",
        "run T.csv, 1 threads",
        "run T.csv --per-request, 1 threads",
        "run T.bsim, 1 threads",
        "run T.bsim --cycles, 1 threads",
        "run T.bsim --cycles --per-request, 1 threads",
    ] {
        let line = out.lines().find(|l| l.contains(what)).unwrap_or_else(|| panic!("no `{what}` in {out}"));
        let rate: f64 = line.split(": ").nth(1).and_then(|r| r.split(' ').next()).unwrap().parse().unwrap();
        assert!(rate > 0.0, "{line}");
    }
}

/// `run --cycles` holding a window of blocks at a time (a file, no per-request output)
/// gives the report and per-SM rows of the engine holding every request, whole (as it
/// does for `--per-request`) or costed (as it does without), on few SMs (many dispatcher rounds, the window moving through the
/// file), on 1 and 2 threads, for a binary trace and a text trace out of block order.
#[test]
fn cycles_with_a_window_of_blocks_are_cycles_with_every_request() {
    let dir = tmp_dir();
    let tmp = |name: &str| dir.path().join(name);
    let order: Vec<u32> = (0..60).map(|i| (i * 37) % 60).collect();
    let csv = tmp("engine.csv");
    std::fs::write(&csv, blocks_text(&order)).unwrap();
    let binary = tmp("engine.bsim");
    assert!(banksim(&["convert", csv.to_str().unwrap(), binary.to_str().unwrap()]).status.success());
    for trace in [&csv, &binary] {
        for threads in ["1", "2"] {
            // (`window`: --memory 0; `whole`: --per-request, every request held with its
            // lanes; `costed`: every request held as the engine needs it)
            let report = |name: &str| {
                let (sms, rows) = (tmp(&format!("{name}-sms.csv")), tmp(&format!("{name}-rows.csv")));
                let mut args = vec!["run", "--cycles", "--sms", "4", "--threads", threads, "--per-sm"];
                args.extend([sms.to_str().unwrap(), trace.to_str().unwrap()]);
                match name {
                    "whole" => args.extend(["--per-request", rows.to_str().unwrap()]),
                    "window" => args.extend(["--memory", "0"]),
                    _ => {}
                }
                let o = banksim(&args);
                assert!(o.status.success(), "{}", text(&o).1);
                (text(&o).0, std::fs::read_to_string(sms).unwrap())
            };
            let windowed = report("window");
            assert!(windowed.0.contains("cycle engine:"), "{}", windowed.0);
            assert_eq!(windowed, report("whole"), "{} {threads} threads", trace.display());
            assert_eq!(windowed, report("costed"), "{} {threads} threads", trace.display());
        }
    }
}

/// A trace of a header alone runs, with and without the engine, to zero totals (no
/// negative zero, no division by zero).
#[test]
fn a_trace_of_no_records_gives_zero_totals() {
    let dir = tmp_dir();
    let tmp = |name: &str| dir.path().join(name);
    let trace = tmp("empty.csv");
    std::fs::write(&trace, "block,thread,step,op,addr,bytes\n").unwrap();
    let o = banksim(&["run", "--cycles", trace.to_str().unwrap()]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{err}");
    assert!(
        out.contains("0 records, warp 32")
            && out.contains("total          0")
            && out.contains("cycle engine: 0 cycles"),
        "{out}"
    );
    assert!(
        out.contains("utilisation: mean 0.000, max 0.000") && !out.contains("-0.0") && !out.contains("NaN"),
        "{out}"
    );
}

#[test]
fn re_reads_come_from_the_l2_unless_the_buffers_are_too_large_for_it() {
    let dir = tmp_dir();
    let tmp = |name: &str| dir.path().join(name);
    // 64 blocks of 8 warps, each reading the same 32 KiB in whole lines: every line 64 times
    let path = tmp("l2.csv");
    let mut s = String::from("block,thread,step,op,addr,bytes\n");
    for b in 0..64u32 {
        for t in 0..256u32 {
            for k in 0..8u32 {
                s += &format!("{b},{t},{k},gld,{},16\n", (k * 256 + t) * 16);
            }
        }
    }
    std::fs::write(&path, s).unwrap();
    let run = |extra: &[&str]| -> (u64, String) {
        let mut args = vec!["run", path.to_str().unwrap(), "--cycles"];
        args.extend_from_slice(extra);
        let o = banksim(&args);
        let (out, err) = text(&o);
        assert!(o.status.success(), "{err}");
        let line = out.lines().find(|l| l.starts_with("cycle engine:")).expect(&out);
        let memory = out.lines().find(|l| l.contains("global memory:")).expect(&out).trim().to_string();
        (line.split_whitespace().nth(2).unwrap().parse().unwrap(), memory)
    };
    // 2 MiB moved over the trace's 32 KiB of distinct lines: only the first touch (0.03
    // MB) from DRAM
    let (l2, memory) = run(&[]);
    assert!(memory.contains("2.1 MB moved") && memory.contains("0.0 MB from DRAM"), "{memory}");
    assert!(memory.contains("2.1 MB from the L2"), "{memory}");
    // buffers of 100 GB, as a kernel's might be: nearly every re-read misses the L2
    let (dram, memory) = run(&["--footprint", "100000000000"]);
    assert!(memory.contains("2.1 MB from DRAM"), "{memory}");
    assert!(dram > l2, "{l2} vs {dram}");
    // the engine holding a window of blocks (a trace too large for --memory) gives the same
    assert_eq!(run(&["--memory", "0"]).0, l2);
    assert_eq!(run(&["--memory", "0", "--footprint", "100000000000"]).0, dram);
}

/// The op column is as wide as the longest op name in the table, so every column lines
/// up (`ldgsts.cg` outgrew the old 6 characters).
#[test]
fn the_run_table_lines_up_with_long_op_names() {
    let dir = tmp_dir();
    let t = dir.path().join("t.csv");
    std::fs::write(
        &t,
        "block,thread,step,op,addr,bytes\n0,0,0,ldgsts.cg,0,16\n0,1,0,ldgsts.cg,16,16\n0,0,1,ld,0,4\n",
    )
    .unwrap();
    let o = banksim(&["run", t.to_str().unwrap()]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{err}");
    let rows: Vec<&str> = out
        .lines()
        .filter(|l| ["op ", "ld ", "ldgsts.cg ", "total "].iter().any(|p| l.starts_with(p)))
        .collect();
    assert_eq!(rows.len(), 4, "{out}");
    // the header's and every row's `requests` column ends at one place
    let end = |l: &str| l.find("requests").map(|i| i + "requests".len());
    let at = end(rows[0]).unwrap();
    for r in &rows[1..] {
        let first_number_end =
            r.char_indices().skip_while(|(_, c)| !c.is_whitespace()).find(|(_, c)| c.is_ascii_digit());
        let (i, _) = first_number_end.unwrap_or_else(|| panic!("{r}"));
        let j = i + r[i..].find(' ').unwrap_or(r.len() - i);
        assert_eq!(j, at, "columns do not line up:\n{out}");
    }
}
