//! `banksim sweep --slurm`: the batch scripts it writes, run by bash as Slurm would run
//! them, merge to the one-machine result; bad options fail with a message; and, against a
//! real Slurm (the single node `.ci/slurm-up.sh` starts), a 4-shard study submitted with
//! `--submit` merges to the local result byte for byte; when two tasks fail, Slurm
//! cancels the merge job, and submitting again runs only those two shards, resuming from
//! their journals, to the same result.
//!
//! Where no Slurm answers, the real-Slurm test prints why and passes; with
//! `BANKSIM_SLURM_TEST=1` (set by `.ci/run`) it fails instead.

use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_banksim");

fn banksim(cwd: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(BIN);
    c.current_dir(cwd).args(args).env("CI", "1");
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().unwrap()
}

fn ok(o: Output, what: &str) -> String {
    assert!(o.status.success(), "{what}: {}\n{}", o.status, String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// A fresh folder under `std::env::temp_dir()` (where the Slurm jobs read and write it
/// too) and its path; the folder goes when the `TempDir` is dropped, so keep it bound
/// until the test ends.
fn tmp(name: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::Builder::new().prefix(&format!("banksim-slurm-{name}-")).tempdir().unwrap();
    let path = dir.path().to_path_buf();
    (dir, path)
}

/// A study of 2 presets x 2 bank counts x 8 workloads = 32 cells. The first workload is
/// a trace file named relative to the folder the sweep starts in (so the jobs must start
/// there too), of 16384 records; the others have 32 (strided) to 768 (tile).
fn study_in(dir: &Path) -> PathBuf {
    ok(
        banksim(dir, &["gen", "random", "threads=256", "steps=64", "range=4096", "-o", "trace.csv"], &[]),
        "gen",
    );
    let study = dir.join("study.ron");
    std::fs::write(
        &study,
        r#"(
    name: "slurm-test",
    presets: ["h100", "g80"],
    hardware: {"banks": [16, 32]},
    workloads: [
        (file: "trace.csv"),
        (gen: "tile", params: {"pad": "0..=3"}),
        (gen: "strided", params: {"stride": [1, 2, 3]}),
    ],
)"#,
    )
    .unwrap();
    study
}

fn read(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn assert_same_results(a: &Path, b: &Path) {
    for f in ["results.csv", "results.json"] {
        assert!(
            read(&a.join(f)) == read(&b.join(f)),
            "{} differs from {}",
            b.join(f).display(),
            a.join(f).display()
        );
    }
}

#[test]
fn written_scripts_run_by_bash_merge_to_the_local_result() {
    let (_tmp, dir) = tmp("bash");
    let study = study_in(&dir);
    let s = study.to_str().unwrap();
    ok(banksim(&dir, &["sweep", s, "-o", "local"], &[]), "local sweep");
    let stdout = ok(
        banksim(
            &dir,
            &[
                "sweep",
                "study.ron",
                "--slurm",
                "--array-size",
                "3",
                "--partition",
                "p1",
                "--time",
                "5",
                "--mem",
                "1G",
                "-o",
                "out",
            ],
            &[],
        ),
        "--slurm",
    );
    assert!(stdout.contains("sbatch --array=0-2 "), "{stdout}");
    let out = std::fs::canonicalize(dir.join("out")).unwrap();
    let script = std::fs::read_to_string(out.join("slurm/sweep.sbatch")).unwrap();
    let bin = std::fs::canonicalize(BIN).unwrap();
    for needle in [
        "#SBATCH --array=0-2\n".to_string(),
        "#SBATCH --partition=p1\n".into(),
        "#SBATCH --time=5\n".into(),
        "#SBATCH --mem=1G\n".into(),
        format!("#SBATCH --chdir={}\n", std::fs::canonicalize(&dir).unwrap().display()),
        format!("exec '{}' sweep '{}'", bin.display(), std::fs::canonicalize(&study).unwrap().display()),
        "--shard \"${SLURM_ARRAY_TASK_ID}/3\"".into(),
    ] {
        assert!(script.contains(&needle), "no `{needle}` in\n{script}");
    }
    // the plan: 3 shards holding the 32 cells once each
    let plan = std::fs::read_to_string(out.join("slurm/plan.csv")).unwrap();
    let cells: usize =
        plan.lines().skip(1).map(|l| l.split(',').nth(1).unwrap().parse::<usize>().unwrap()).sum();
    assert_eq!((plan.lines().count(), cells), (4, 32), "{plan}");

    // run the tasks as Slurm would: bash, the task id in the environment, from elsewhere
    for i in 0..3 {
        let o = Command::new("bash")
            .arg(out.join("slurm/sweep.sbatch"))
            .current_dir("/")
            .env("SLURM_ARRAY_TASK_ID", i.to_string())
            .env("CI", "1")
            .output()
            .unwrap();
        ok(o, &format!("task {i}"));
    }
    ok(Command::new("bash").arg(out.join("slurm/merge.sbatch")).current_dir("/").output().unwrap(), "merge");
    assert_same_results(&dir.join("local"), &out);

    // every shard complete: --submit would submit only the merge; without a task id the script says why
    let o = Command::new("bash")
        .arg(out.join("slurm/sweep.sbatch"))
        .env_remove("SLURM_ARRAY_TASK_ID")
        .output()
        .unwrap();
    assert!(!o.status.success() && String::from_utf8_lossy(&o.stderr).contains("--array=0-2"));
    let stdout =
        ok(banksim(&dir, &["sweep", "study.ron", "--slurm", "--array-size", "3", "-o", "out"], &[]), "again");
    assert!(stdout.contains("all 3 shards are complete"), "nothing left to run: {stdout}");
}

#[test]
fn cost_balancing_puts_the_big_trace_cells_on_shards_of_their_own() {
    let (_tmp, dir) = tmp("balance");
    study_in(&dir);
    ok(banksim(&dir, &["sweep", "study.ron", "--slurm", "--array-size", "4", "-o", "out"], &[]), "--slurm");
    let plan = std::fs::read_to_string(dir.join("out/slurm/plan.csv")).unwrap();
    let rows: Vec<(usize, u64)> = plan
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f[1].parse().unwrap(), f[2].parse().unwrap())
        })
        .collect();
    // 4 hardware cells x the 16384-record trace (cells 0, 8, 16, 24): one per shard, the
    // 28 small cells spread among them (by count, id mod 4, shard 0 would get all four)
    assert_eq!(rows.len(), 4);
    assert_eq!(rows.iter().map(|r| r.0).sum::<usize>(), 32);
    let (min, max) = (rows.iter().map(|r| r.1).min().unwrap(), rows.iter().map(|r| r.1).max().unwrap());
    assert!(max as f64 / (min as f64) < 1.2, "{plan}");
    // and sharded sweeps follow that plan: every shard runs exactly one trace cell
    for (i, row) in rows.iter().enumerate() {
        let o = format!("s{i}");
        ok(banksim(&dir, &["sweep", "study.ron", "--shard", &format!("{i}/4"), "-o", &o], &[]), "shard");
        let csv = std::fs::read_to_string(dir.join(&o).join("results.csv")).unwrap();
        assert_eq!(csv.lines().filter(|l| l.contains("trace.csv")).count(), 1, "shard {i}: {csv}");
        assert_eq!(csv.lines().count() - 1, row.0, "shard {i}: {csv}");
    }
}

#[test]
fn bad_slurm_options_fail_with_a_message() {
    let (_tmp, dir) = tmp("bad");
    study_in(&dir);
    // extra arguments, environment, what the error says
    type Case = (&'static [&'static str], &'static [(&'static str, &'static str)], &'static str);
    let cases: &[Case] = &[
        (&["--array-size", "0"], &[], "--array-size 0"),
        (&["--time", "1 hour"], &[], "--time `1 hour`"),
        (&["--sbatch-arg", "account=x"], &[], "expected an sbatch option"),
        (&["--threads", "0"], &[], "--threads 0"),
        (&["--shard", "0/2"], &[], "cannot be used with"),
        (&["--submit"], &[("PATH", "/nonexistent")], "sbatch not found"),
    ];
    for (extra, env, needle) in cases {
        let mut args = vec!["sweep", "study.ron", "--slurm", "-o", "out"];
        args.extend_from_slice(extra);
        let o = banksim(&dir, &args, env);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success() && err.contains(needle), "{extra:?}: {err}");
        assert!(!err.contains("panicked"), "{extra:?}: {err}");
    }
    let o = banksim(&dir, &["sweep", "study.ron", "--submit"], &[]);
    assert!(!o.status.success() && String::from_utf8_lossy(&o.stderr).contains("--slurm"));
    // merge with the study refuses an incomplete set of shards
    ok(banksim(&dir, &["sweep", "study.ron", "--shard", "0/2", "-o", "h0"], &[]), "shard");
    let o = banksim(&dir, &["merge", "h0", "-o", "m", "--study", "study.ron"], &[]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains("of the 32 cells") && err.contains("missing cells"), "{err}");
}

/// A line for the test log even when the harness captures output (CI runs plain
/// `cargo test`): written straight to the process's stderr.
fn log(line: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

/// Whether a Slurm controller answers, and its nodes.
fn slurm_nodes() -> Result<Vec<String>, String> {
    let o = Command::new("sinfo").args(["-h", "-N", "-o", "%N %T"]).output().map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => "sinfo not found: Slurm is not installed".to_string(),
        _ => format!("cannot run sinfo: {e}"),
    })?;
    if !o.status.success() {
        let err = String::from_utf8_lossy(&o.stderr);
        return Err(format!("sinfo failed: {}", err.trim().lines().collect::<Vec<_>>().join(" / ")));
    }
    let text = String::from_utf8_lossy(&o.stdout);
    let up: Vec<String> = text
        .lines()
        .filter(|l| ["idle", "mixed", "allocated"].iter().any(|s| l.ends_with(s)))
        .map(|l| l.split(' ').next().unwrap_or("").to_string())
        .collect();
    if up.is_empty() {
        return Err(format!("no node is up: `{}`", text.trim()));
    }
    Ok(up)
}

/// The job ids `banksim sweep --slurm --submit` printed.
fn job_ids(stdout: &str) -> (String, String) {
    let after = |key: &str| {
        let rest =
            &stdout[stdout.find(key).unwrap_or_else(|| panic!("no `{key}` in: {stdout}")) + key.len()..];
        rest.chars().take_while(char::is_ascii_digit).collect::<String>()
    };
    (after("submitted job array "), after("merge job "))
}

/// The jobs' logs (`*.out` in `logs`), for a failure message.
fn dump_logs(logs: &Path) -> String {
    let mut s = String::new();
    for e in std::fs::read_dir(logs).into_iter().flatten().flatten() {
        if e.path().extension().is_some_and(|x| x == "out") {
            let text = std::fs::read_to_string(e.path()).unwrap_or_default();
            s += &format!("--- {}\n{text}\n", e.path().display());
        }
    }
    s
}

/// Waits for `file` (the merged results.json, written atomically after results.csv), at
/// most `limit`;
/// fails early, with the jobs' logs, when the jobs have left the queue without it.
fn wait_for(file: &Path, jobs: &[&str], logs: &Path, limit: Duration) -> Duration {
    let start = Instant::now();
    let dump = || dump_logs(logs);
    let mut gone_since: Option<Instant> = None;
    while !file.exists() {
        if start.elapsed() > limit {
            let q = Command::new("squeue").output().map(|o| String::from_utf8_lossy(&o.stdout).into_owned());
            panic!("no {} after {limit:?}; squeue: {q:?}\n{}", file.display(), dump());
        }
        let queued = Command::new("squeue").args(["-h", "-o", "%i", "-j", &jobs.join(",")]).output();
        match queued {
            Ok(o) if o.status.success() && o.stdout.iter().all(u8::is_ascii_whitespace) => {
                // out of the queue: give the file a moment, then give up
                let since = *gone_since.get_or_insert_with(Instant::now);
                if since.elapsed() > Duration::from_secs(5) && !file.exists() {
                    panic!("jobs {jobs:?} left the queue without writing {}\n{}", file.display(), dump());
                }
            }
            _ => gone_since = None,
        }
        std::thread::sleep(Duration::from_millis(250));
    }
    start.elapsed()
}

/// Waits, at most `limit`, until `jobs` have left the queue (finished, failed or cancelled).
fn wait_gone(jobs: &[&str], logs: &Path, limit: Duration) {
    let start = Instant::now();
    loop {
        let o = Command::new("squeue").args(["-h", "-o", "%i %T", "-j", &jobs.join(",")]).output().unwrap();
        if o.status.success() && o.stdout.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        if start.elapsed() > limit {
            panic!(
                "jobs still queued after {limit:?}: {}\n{}",
                String::from_utf8_lossy(&o.stdout),
                dump_logs(logs)
            );
        }
        std::thread::sleep(Duration::from_millis(250));
    }
}

#[test]
fn study_on_a_real_slurm_merges_to_the_local_result_and_resubmits_only_missing_shards() {
    let required = std::env::var("BANKSIM_SLURM_TEST").is_ok_and(|v| v == "1");
    let nodes = match slurm_nodes() {
        Ok(nodes) => nodes,
        Err(why) if !required => {
            log(&format!(
                "slurm test: SKIPPED, no Slurm here ({why}); start one with `.ci/slurm-up.sh DIR` and \
                 export SLURM_CONF=DIR/slurm.conf (BANKSIM_SLURM_TEST=1 makes this a failure)"
            ));
            return;
        }
        Err(why) => panic!("BANKSIM_SLURM_TEST=1 but Slurm does not work: {why}"),
    };
    let limit = Duration::from_secs(180);
    let (_tmp, dir) = tmp("real");
    study_in(&dir);
    let started = Instant::now();
    ok(banksim(&dir, &["sweep", "study.ron", "-o", "local"], &[]), "local sweep");
    let local = started.elapsed();
    let out = std::fs::canonicalize(&dir).unwrap().join("cluster");
    let submit =
        ["sweep", "study.ron", "--slurm", "--array-size", "4", "--time", "5", "--submit", "-o", "cluster"];

    let stdout = ok(banksim(&dir, &submit, &[]), "--submit");
    assert!(stdout.contains("shards 0-3 of 4 (0 complete)"), "{stdout}");
    let (array, merge) = job_ids(&stdout);
    let first = wait_for(&out.join("results.json"), &[&array, &merge], &out.join("slurm"), limit);
    assert_same_results(&dir.join("local"), &out);
    let mut ran_on = BTreeSet::new();
    for i in 0..4 {
        let log = std::fs::read_to_string(out.join(format!("slurm/shard-{i}.out"))).unwrap();
        let line = log.lines().find(|l| l.starts_with(&format!("banksim: shard {i}/4 "))).expect(&log);
        assert!(line.contains(&format!("job {array}_{i} ")), "{line}");
        ran_on.insert(line.rsplit(' ').next().unwrap().to_string());
    }
    assert!(ran_on.iter().all(|n| nodes.contains(n)), "{ran_on:?} vs sinfo's {nodes:?}");

    // shards 1 and 3 start over and fail after one cell (the sweep's test hook, which
    // sbatch passes on with the environment): Slurm cancels the merge job
    let before: Vec<Vec<u8>> =
        [0, 2].iter().map(|i| read(&out.join(format!("shard-{i}/results.json")))).collect();
    let stamp = |i: usize| {
        std::fs::metadata(out.join(format!("shard-{i}/results.json"))).unwrap().modified().unwrap()
    };
    let stamps = (stamp(0), stamp(2));
    for d in ["shard-1", "shard-3"] {
        std::fs::remove_dir_all(out.join(d)).unwrap();
    }
    for f in ["results.csv", "results.json"] {
        std::fs::remove_file(out.join(f)).unwrap();
    }
    let stdout = ok(banksim(&dir, &submit, &[("BANKSIM_SWEEP_KILL_AFTER", "1")]), "failing submit");
    assert!(stdout.contains("shards 1,3 of 4 (2 complete)"), "{stdout}");
    let (failing, cancelled) = job_ids(&stdout);
    wait_gone(&[&failing, &cancelled], &out.join("slurm"), limit);
    assert!(!out.join("results.csv").exists(), "the merge job ran after a failed task");
    for i in [1, 3] {
        let journal = std::fs::read_to_string(out.join(format!("shard-{i}/cells.jsonl"))).unwrap();
        assert_eq!(journal.lines().count(), 2, "shard {i}: header and one cell: {journal}");
        assert!(!out.join(format!("shard-{i}/results.json")).exists());
    }

    // the same command again: only shards 1 and 3 run, each from its one journaled cell
    let stdout = ok(banksim(&dir, &submit, &[]), "re-submit");
    assert!(stdout.contains("shards 1,3 of 4 (2 complete)"), "{stdout}");
    let (array2, merge2) = job_ids(&stdout);
    let second = wait_for(&out.join("results.json"), &[&array2, &merge2], &out.join("slurm"), limit);
    assert_same_results(&dir.join("local"), &out);
    assert_eq!((stamp(0), stamp(2)), stamps, "complete shards were not run again");
    let after: Vec<Vec<u8>> =
        [0, 2].iter().map(|i| read(&out.join(format!("shard-{i}/results.json")))).collect();
    assert_eq!(before, after);
    for i in [1, 3] {
        let log = std::fs::read_to_string(out.join(format!("slurm/shard-{i}.out"))).unwrap();
        assert!(log.contains(&format!("job {array2}_{i} ")) && log.contains("; 1 done, "), "{log}");
    }

    let cells = std::fs::read_to_string(out.join("results.csv")).unwrap().lines().count() - 1;
    log(&format!(
        "slurm test: 4 shards ran on node {} (job array {array}, merge job {merge}), merged CSV equals local run \
         ({cells} cells; Slurm {:.1} s, local {:.1} s); shards 1,3 failed in job {failing} (merge job {cancelled} \
         cancelled), re-submitted alone (job {array2}), resumed from their journals, merged CSV equal again ({:.1} s)",
        ran_on.into_iter().collect::<Vec<_>>().join(","),
        first.as_secs_f64(),
        local.as_secs_f64(),
        second.as_secs_f64()
    ));
}
