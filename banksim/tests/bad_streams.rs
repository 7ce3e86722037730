//! Bad inputs beyond the catalog (bad_inputs.rs): targets that are links or FIFOs,
//! standard input and pipes, torn journals, incomplete merges, signals, endless or huge
//! input, reports that draw nothing: each fails cleanly or loses nothing.

mod common;

use std::path::PathBuf;
use std::process::Command;

const H: &[u8] = b"block,thread,step,op,addr,bytes\n";

fn banksim(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_banksim")).args(args).env("CI", "1").output().unwrap()
}

/// A fresh folder and its path; the folder goes when the `TempDir` is dropped, so keep it
/// bound until the test ends.
fn case_dir(name: &str) -> (tempfile::TempDir, PathBuf) {
    let d = tempfile::Builder::new().prefix(&format!("banksim-bad-{name}-")).tempdir().unwrap();
    let path = d.path().to_path_buf();
    (d, path)
}

const T: &[u8] = b"block,thread,step,op,addr,bytes\n0,0,0,ld,0,4\n0,1,0,ld,4,4\n";

#[cfg(unix)]
#[test]
fn symlink_and_fifo_targets_are_refused_and_left_as_they_are() {
    let (_tmp, dir) = case_dir("special");
    std::fs::write(dir.join("t.csv"), T).unwrap();
    std::fs::write(dir.join("keep.csv"), b"keep").unwrap();
    std::os::unix::fs::symlink(dir.join("keep.csv"), dir.join("link.csv")).unwrap();
    assert!(Command::new("mkfifo").arg(dir.join("ff")).status().unwrap().success());
    for target in ["link.csv", "ff"] {
        let t = dir.join(target);
        for args in [
            vec!["run", dir.join("t.csv").to_str().unwrap(), "--per-request", t.to_str().unwrap()],
            vec!["convert", dir.join("t.csv").to_str().unwrap(), t.to_str().unwrap()],
            vec!["gen", "strided", "-o", t.to_str().unwrap()],
        ] {
            let o = banksim(&args);
            let err = String::from_utf8_lossy(&o.stderr);
            assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
            assert!(err.contains("refusing to replace a"), "{args:?}: {err}");
        }
    }
    assert!(std::fs::symlink_metadata(dir.join("link.csv")).unwrap().file_type().is_symlink());
    assert_eq!(std::fs::read(dir.join("keep.csv")).unwrap(), b"keep");
    assert!(common::stray_temporaries(&dir).is_empty());
}

#[test]
fn traces_from_stdin_and_pipes_lose_nothing() {
    use std::io::Write;
    let (_tmp, dir) = case_dir("stdin");
    std::fs::write(dir.join("t.csv"), T).unwrap();
    let bsim = dir.join("t.bsim");
    let o = banksim(&["convert", dir.join("t.csv").to_str().unwrap(), bsim.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let from_file = banksim(&["run", "--cycles", bsim.to_str().unwrap()]);
    for (input, extra) in [(T.to_vec(), vec![]), (std::fs::read(&bsim).unwrap(), vec!["--cycles"])] {
        let mut args = vec!["run"];
        args.extend(extra.iter().copied());
        args.push("-");
        let mut child = Command::new(env!("CARGO_BIN_EXE_banksim"))
            .args(&args)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(&input).unwrap();
        let o = child.wait_with_output().unwrap();
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(o.status.success(), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
        assert!(out.contains("<stdin>: 2 records"), "{out}");
        if !extra.is_empty() {
            let want = String::from_utf8_lossy(&from_file.stdout);
            assert_eq!(want.lines().skip(1).collect::<Vec<_>>(), out.lines().skip(1).collect::<Vec<_>>());
        }
    }
}

#[test]
fn a_torn_journal_line_is_dropped_not_appended_onto() {
    let (_tmp, dir) = case_dir("journal");
    let study = dir.join("s.ron");
    std::fs::write(
        &study,
        "(name: \"s\", presets: [\"h100\"], workloads: [(gen: \"strided\", params: {\"stride\": [1, 2, 3, 4]})])",
    )
    .unwrap();
    let out = dir.join("out");
    let (s, o) = (study.to_str().unwrap(), out.to_str().unwrap());
    assert!(banksim(&["sweep", s, "-o", o]).status.success());
    let whole = std::fs::read(out.join("results.csv")).unwrap();
    // keep the header and one cell, then half of the next line
    let journal = std::fs::read_to_string(out.join("cells.jsonl")).unwrap();
    let lines: Vec<&str> = journal.lines().collect();
    let torn = format!("{}\n{}\n{}", lines[0], lines[1], &lines[2][..lines[2].len() / 2]);
    std::fs::write(out.join("cells.jsonl"), torn).unwrap();
    std::fs::remove_file(out.join("results.csv")).unwrap();
    let again = banksim(&["sweep", s, "-o", o]);
    let err = String::from_utf8_lossy(&again.stderr);
    assert!(again.status.success(), "{err}");
    assert!(err.contains("torn last line"), "{err}");
    assert_eq!(std::fs::read(out.join("results.csv")).unwrap(), whole);
    let journal = std::fs::read_to_string(out.join("cells.jsonl")).unwrap();
    assert!(journal.lines().all(|l| serde_json::from_str::<serde_json::Value>(l).is_ok()), "{journal}");
    assert!(common::stray_temporaries(&dir).is_empty());
}

#[test]
fn merge_refuses_an_incomplete_set_unless_allowed() {
    let (_tmp, dir) = case_dir("merge");
    let study = dir.join("s.ron");
    std::fs::write(
        &study,
        "(name: \"s\", presets: [\"h100\"], workloads: [(gen: \"strided\", params: {\"stride\": [1, 2, 3, 4]})])",
    )
    .unwrap();
    let s = study.to_str().unwrap();
    let shard = |i: usize| dir.join(format!("shard-{i}")).to_str().unwrap().to_string();
    for i in 0..4 {
        let o = banksim(&["sweep", s, "-o", &shard(i), "--shard", &format!("{i}/4")]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let all = dir.join("all");
    let o = banksim(&["merge", &shard(0), &shard(1), &shard(2), "-o", all.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("3 of the study's 4 cells"), "{err}");
    assert!(!all.join("results.csv").exists());
    let o =
        banksim(&["merge", &shard(0), &shard(1), &shard(2), "-o", all.to_str().unwrap(), "--allow-partial"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = banksim(&["merge", &shard(0), &shard(1), &shard(2), &shard(3), "-o", all.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[cfg(unix)]
#[test]
fn sigterm_leaves_no_temporary_file() {
    let (_tmp, dir) = case_dir("signal");
    let out = dir.join("big.csv");
    // a generator large enough that the write is under way when the signal comes
    let child = Command::new(env!("CARGO_BIN_EXE_banksim"))
        .args(["gen", "random", "threads=1024", "steps=4096", "-o", out.to_str().unwrap()])
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while common::stray_temporaries(&dir).is_empty() && started.elapsed().as_secs() < 20 {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let _ = Command::new("kill").args(["-TERM", &child.id().to_string()]).status();
    let o = child.wait_with_output().unwrap();
    if !out.exists() {
        assert_eq!(o.status.code(), Some(143));
    }
    assert!(common::stray_temporaries(&dir).is_empty(), "{:?}", common::stray_temporaries(&dir));
}

/// A file of one line repeated fails at its second record while it is read: an endless
/// stream of it on standard input ends the run (the reader does not hold the whole file
/// before grouping it).
#[test]
fn repeated_lines_fail_at_the_second_record_without_reading_on() {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = Command::new(env!("CARGO_BIN_EXE_banksim"))
        .args(["run", "-"])
        .env("CI", "1")
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let line = b"0,0,0,ld,0,4\n".repeat(4096);
    let limit: usize = 1 << 30; // far more than the reader may take before it fails
    let mut written = 0;
    let mut closed = stdin.write_all(H).is_err();
    while !closed && written < limit {
        closed = stdin.write_all(&line).is_err();
        written += line.len();
    }
    drop(stdin);
    let o = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("<stdin>:3:") && err.contains("already has a record (line 2)"), "{err}");
    assert!(closed, "the reader took {written} bytes of repeated lines without failing");
}

/// A field of 10 MB is named in the error cut short, with its length, not echoed whole.
#[test]
fn a_huge_field_is_cut_short_in_the_message() {
    let (_tmp, dir) = case_dir("huge");
    let mut text = b"block,thread,step,op,addr,bytes\n0,0,0,ld,".to_vec();
    text.extend(std::iter::repeat_n(b'9', 10_000_000));
    text.extend(b",4\n");
    std::fs::write(dir.join("t.csv"), &text).unwrap();
    let o = banksim(&["run", dir.join("t.csv").to_str().unwrap()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.len() < 1000, "{} bytes of message", err.len());
    assert!(err.contains("t.csv:2: column 5 `addr`") && err.contains("(10000000 bytes in all)"), "{err}");
}

/// A report whose plot spec draws nothing fails, leaving no index behind.
#[cfg(feature = "charts")]
#[test]
fn a_report_that_draws_nothing_fails() {
    let (_tmp, dir) = case_dir("noplot");
    let study = dir.join("s.ron");
    std::fs::write(
        &study,
        r#"(name: "s", presets: ["h100"], workloads: [(gen: "strided", params: {"stride": [1, 2]})],
            plot: (x: "no_such_column", y: ["degree"]))"#,
    )
    .unwrap();
    let out = dir.join("out");
    let o = banksim(&["sweep", study.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let rep = dir.join("rep");
    let o = banksim(&["report", out.to_str().unwrap(), "-o", rep.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("nothing to draw"), "{err}");
    assert!(!rep.join("index.md").exists() && common::stray_temporaries(&dir).is_empty());
}

/// `banksim import -` reads the CUDA trace from standard input, as from the file.
#[test]
fn import_reads_standard_input() {
    use std::io::Write;
    let (_tmp, dir) = case_dir("import-stdin");
    let sample = concat!(env!("CARGO_MANIFEST_DIR"), "/../traces/tests/data/memtrace_new.txt");
    let (a, b) = (dir.join("a.csv"), dir.join("b.csv"));
    let args = ["import", "--from", "nvbit-memtrace", "--kernel", "1", "--out"];
    let mut from_file = args.to_vec();
    from_file.extend([a.to_str().unwrap(), sample]);
    let o = banksim(&from_file);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mut from_stdin = args.to_vec();
    from_stdin.extend([b.to_str().unwrap(), "-"]);
    let mut child = Command::new(env!("CARGO_BIN_EXE_banksim"))
        .args(&from_stdin)
        .stdin(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(&std::fs::read(sample).unwrap()).unwrap();
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
}
