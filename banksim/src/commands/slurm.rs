//! `banksim sweep STUDY --slurm`: a study as a Slurm job array, one task per shard, and a
//! merge job that runs when every task has succeeded. Glue only: Slurm schedules,
//! `banksim sweep --shard I/N` does a task's work (resumable through its journal) and
//! `banksim merge` joins the shards. Under the sweep's output folder DIR:
//!
//! ```text
//! DIR/slurm/sweep.sbatch   the job array: task I runs `banksim sweep STUDY --shard I/N --out DIR/shard-I`
//! DIR/slurm/merge.sbatch   `banksim merge DIR/shard-0 .. DIR/shard-(N-1) --out DIR --study STUDY`
//! DIR/slurm/plan.csv       shard, cells, estimated cost, state at writing
//! DIR/slurm/shard-I.out    task I's log (and merge.out)
//! DIR/shard-I/             task I's cells.jsonl, results.csv, results.json
//! DIR/results.csv, .json   the merged results, equal to a one-machine sweep's
//! ```
//!
//! With `--submit` it submits the array with `sbatch --parsable --array=LIST` where LIST
//! holds only the shards whose results are not there yet, then the merge job with
//! `--dependency=afterok:JOB`; a shard that was cut short resumes from its journal.

use anyhow::{bail, Context, Result};
use clap::Args;
use configs::study::ShardPlan;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;
use std::process::Command;

use pipeline::output::rows::{self, PlanRow};
use pipeline::output::{write_atomically, write_csv, Inputs};
use pipeline::study::journal::{read_journal, Resumed};
use pipeline::study::Expanded;
use pipeline::study::SweepFolder;

/// Tasks in the job array when `--array-size` is not given.
const DEFAULT_ARRAY_SIZE: usize = 8;

#[derive(Args)]
/// The Slurm options of `banksim sweep`.
pub struct SlurmArgs {
    /// Write Slurm job-array scripts to DIR/slurm (one task per shard, then a merge job)
    /// instead of running the cells here.
    #[arg(long, conflicts_with = "shard", help_heading = "Slurm")]
    pub slurm: bool,
    /// Tasks in the job array, i.e. shards (default 8, at most one per cell).
    #[arg(long, value_name = "N", requires = "slurm", help_heading = "Slurm")]
    array_size: Option<usize>,
    /// Partition (#SBATCH --partition) of both jobs.
    #[arg(long, value_name = "P", requires = "slurm", help_heading = "Slurm")]
    partition: Option<String>,
    /// Time limit of each task and of the merge job, e.g. 30 or 2:00:00 (#SBATCH --time).
    #[arg(long, value_name = "T", requires = "slurm", help_heading = "Slurm")]
    time: Option<String>,
    /// Memory of each task and of the merge job, e.g. 4G (#SBATCH --mem).
    #[arg(long, value_name = "M", requires = "slurm", help_heading = "Slurm")]
    mem: Option<String>,
    /// Another #SBATCH option for both jobs, e.g. --sbatch-arg=--account=proj (repeatable).
    #[arg(
        long = "sbatch-arg",
        value_name = "OPTION",
        requires = "slurm",
        allow_hyphen_values = true,
        help_heading = "Slurm"
    )]
    sbatch_args: Vec<String>,
    /// Submit with sbatch: the shards not complete yet, and the merge job after them.
    #[arg(long, requires = "slurm", help_heading = "Slurm")]
    submit: bool,
}

/// Where a shard stands, from its output folder.
#[derive(Debug, PartialEq)]
enum ShardState {
    /// results.json of this study and exactly this shard's cells.
    Complete,
    /// Not complete; this many of its cells are in its journal.
    Todo(usize),
}

/// Writes the scripts (and with `--submit` submits them) for sweeping `ex` into `out`.
pub fn run(
    args: &SlurmArgs,
    ex: &Expanded,
    study_path: &Path,
    out: &Path,
    threads: Option<usize>,
    fresh: bool,
    inputs: &Inputs,
) -> Result<()> {
    let cells = ex.cells();
    let asked = match args.array_size {
        Some(0) => bail!("--array-size 0: a job array needs at least one task"),
        Some(n) => n,
        None => DEFAULT_ARRAY_SIZE,
    };
    let n = asked.min(cells);
    if n < asked {
        eprintln!("note: the study has {cells} cells, so the array has {n} tasks (not {asked})");
    }
    let cpus = match threads {
        Some(0) => bail!("--threads 0: with --slurm it is each task's CPUs, at least 1"),
        Some(t) => t,
        None => 1,
    };
    let mut directives = vec![format!("--cpus-per-task={cpus}")];
    for (flag, value) in [("--partition", &args.partition), ("--time", &args.time), ("--mem", &args.mem)] {
        if let Some(v) = value {
            check_directive(flag, v)?;
            directives.push(format!("{flag}={v}"));
        }
    }
    for a in &args.sbatch_args {
        check_directive("--sbatch-arg", a)?;
        if !a.starts_with('-') {
            bail!("--sbatch-arg `{a}`: expected an sbatch option such as --account=NAME");
        }
        directives.push(a.clone());
    }

    let exe = std::env::current_exe().context("cannot find the path of the running banksim")?;
    let study = std::fs::canonicalize(study_path)
        .with_context(|| format!("{}: cannot resolve the study's path", study_path.display()))?;
    // the folder: banksim's own (or new or empty), held while the scripts are written
    let _folder = SweepFolder::open(out)?;
    std::fs::create_dir_all(out.join("slurm"))
        .with_context(|| format!("{}: cannot create the output folder", out.join("slurm").display()))?;
    let out = std::fs::canonicalize(out).with_context(|| format!("{}: cannot resolve", out.display()))?;
    let cwd = std::env::current_dir().context("cannot read the current folder")?;
    let paths = Paths {
        exe: utf8("the banksim binary", &exe)?,
        study: utf8("the study", &study)?,
        out: utf8("the output folder", &out)?,
        cwd: utf8("the current folder", &cwd)?,
    };
    for (what, p) in [("the output folder", &paths.out), ("the current folder", &paths.cwd)] {
        if p.chars().any(|c| c.is_whitespace() || c.is_control() || c == '"' || c == '\'') {
            bail!("{what} `{p}`: #SBATCH lines cannot hold a path with spaces or quotes; use another");
        }
    }

    if args.submit {
        // before --fresh removes anything
        check_sbatch()?;
    }
    let plan = ShardPlan::balance(&ex.costs, n);
    let shard_dir = |i: usize| out.join(format!("shard-{i}"));
    if fresh {
        for i in 0..n {
            for f in ["cells.jsonl", "results.csv", "results.json"] {
                remove_if_there(&shard_dir(i).join(f))?;
            }
        }
        for f in ["results.csv", "results.json"] {
            remove_if_there(&out.join(f))?;
        }
    }
    // what each cell is computed from (the study, its trace file, this build), as the
    // shards' sweeps will compute it
    let computed: Vec<usize> = (0..cells).filter(|id| !ex.skipped.contains_key(id)).collect();
    let keys = ex.cell_keys(&crate::args::build_id(), computed)?;
    let states: Vec<ShardState> =
        (0..n).map(|i| shard_state(&shard_dir(i), &ex.hash, &plan.cells(i), &keys)).collect::<Result<_>>()?;
    let todo: Vec<usize> = (0..n).filter(|&i| states[i] != ShardState::Complete).collect();

    let slurm_dir = out.join("slurm");
    let (sweep_script, merge_script) = (slurm_dir.join("sweep.sbatch"), slurm_dir.join("merge.sbatch"));
    write_file(&sweep_script, &sweep_sbatch(&ex.study.name, n, &paths, &directives), inputs)?;
    write_file(&merge_script, &merge_sbatch(&ex.study.name, n, &paths, &directives), inputs)?;
    write_plan(&slurm_dir.join("plan.csv"), &plan, &states, inputs)?;
    print_plan(&ex.study.name, cells, &plan, &states);
    eprintln!("wrote {} and {}", sweep_script.display(), merge_script.display());

    let merge_target = out.join("results.csv");
    if !args.submit {
        if todo.is_empty() {
            println!("all {n} shards are complete: merge with sbatch {}", merge_script.display());
        } else {
            println!(
                "to submit, run this again with --submit, or by hand: sbatch --array={} {} \
                 then sbatch --dependency=afterok:JOBID {}",
                ranges(&todo),
                sweep_script.display(),
                merge_script.display()
            );
        }
        return Ok(());
    }
    if todo.is_empty() {
        let merge = sbatch(&[merge_script.as_os_str()])?;
        println!("all {n} shards are complete; submitted merge job {merge} -> {}", merge_target.display());
        return Ok(());
    }
    let array_arg = format!("--array={}", ranges(&todo));
    let array = sbatch(&[array_arg.as_ref(), sweep_script.as_os_str()])?;
    println!(
        "submitted job array {array}: shards {} of {n} ({} complete) -> {}/shard-I",
        ranges(&todo),
        n - todo.len(),
        out.display()
    );
    let dependency = format!("--dependency=afterok:{array}");
    let merge = sbatch(&[dependency.as_ref(), merge_script.as_os_str()])?;
    println!(
        "submitted merge job {merge} (runs when job {array} has succeeded) -> {}",
        merge_target.display()
    );
    Ok(())
}

/// Absolute paths the scripts name.
struct Paths {
    exe: String,
    study: String,
    out: String,
    cwd: String,
}

fn utf8(what: &str, p: &Path) -> Result<String> {
    match p.to_str() {
        Some(s) => Ok(s.to_string()),
        None => bail!("{what} `{}`: the batch scripts need a UTF-8 path", p.display()),
    }
}

/// A value written after `#SBATCH`: one word, printable.
fn check_directive(flag: &str, v: &str) -> Result<()> {
    if v.is_empty() || v.chars().any(|c| c.is_whitespace() || c.is_control() || c == '"' || c == '\'') {
        bail!("{flag} `{}`: expected one word without spaces or quotes", v.escape_debug());
    }
    Ok(())
}

/// `s` as one shell word.
fn sh(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// A Slurm job name from a study name.
fn job_name(study: &str) -> String {
    let name: String =
        study.chars().map(|c| if c.is_ascii_alphanumeric() || "-_.".contains(c) { c } else { '_' }).collect();
    format!("banksim-{name}")
}

/// `--output` patterns treat `%` specially; `%%` is a literal one.
fn output_pattern(p: &str) -> String {
    p.replace('%', "%%")
}

fn header(out: &mut String, what: &str, job: &str, output: &str, cwd: &str, directives: &[String]) {
    let _ = writeln!(out, "#!/bin/bash");
    let _ = writeln!(out, "# {what}");
    let _ =
        writeln!(out, "# Written by `banksim sweep --slurm`; `banksim sweep --slurm --submit` submits it");
    let _ = writeln!(out, "# with only the shards that are not complete.");
    let _ = writeln!(out, "#SBATCH --job-name={job}");
    let _ = writeln!(out, "#SBATCH --output={output}");
    let _ = writeln!(out, "#SBATCH --chdir={cwd}");
    for d in directives {
        let _ = writeln!(out, "#SBATCH {d}");
    }
}

fn sweep_sbatch(study: &str, n: usize, p: &Paths, directives: &[String]) -> String {
    let mut s = String::new();
    let what = format!(
        "Study `{study}` ({}) as a job array: task I runs shard I of {n} (cells balanced by estimated cost) into {}/shard-I.",
        p.study, p.out
    );
    let mut all = vec![format!("--array=0-{}", n - 1)];
    all.extend(directives.iter().cloned());
    header(
        &mut s,
        &what,
        &job_name(study),
        &format!("{}/slurm/shard-%a.out", output_pattern(&p.out)),
        &p.cwd,
        &all,
    );
    let _ = writeln!(s, "set -eu");
    let _ = writeln!(s, "cd {}  # trace files in the study are named from here", sh(&p.cwd));
    let _ = writeln!(s, ": \"${{SLURM_ARRAY_TASK_ID:?submit with sbatch --array=0-{}}}\"", n - 1);
    let _ = writeln!(
        s,
        "echo \"banksim: shard ${{SLURM_ARRAY_TASK_ID}}/{n} of study \"{}\", job ${{SLURM_ARRAY_JOB_ID:-?}}_${{SLURM_ARRAY_TASK_ID}} on node ${{SLURMD_NODENAME:-$(hostname)}}\"",
        sh(study)
    );
    let _ = writeln!(
        s,
        "exec {} sweep {} --shard \"${{SLURM_ARRAY_TASK_ID}}/{n}\" --out {}/shard-\"${{SLURM_ARRAY_TASK_ID}}\" --threads \"${{SLURM_CPUS_PER_TASK:-1}}\"",
        sh(&p.exe),
        sh(&p.study),
        sh(&p.out)
    );
    s
}

fn merge_sbatch(study: &str, n: usize, p: &Paths, directives: &[String]) -> String {
    let mut s = String::new();
    let what = format!(
        "Joins the {n} shards of study `{study}` into {}/results.csv and results.json; submit with \
         --dependency=afterok:ARRAY_JOB (it is cancelled if a task fails).",
        p.out
    );
    let mut all = vec!["--kill-on-invalid-dep=yes".to_string()];
    // the merge needs one CPU whatever the tasks had
    all.extend(directives.iter().filter(|d| !d.starts_with("--cpus-per-task=")).cloned());
    header(
        &mut s,
        &what,
        &format!("{}-merge", job_name(study)),
        &format!("{}/slurm/merge.out", output_pattern(&p.out)),
        &p.cwd,
        &all,
    );
    let _ = writeln!(s, "set -eu");
    let _ = writeln!(s, "cd {}", sh(&p.cwd));
    let _ = writeln!(s, "out={}", sh(&p.out));
    let _ = writeln!(s, "shards=()");
    let _ = writeln!(s, "for i in $(seq 0 {}); do shards+=(\"$out/shard-$i\"); done", n - 1);
    let _ =
        writeln!(s, "exec {} merge \"${{shards[@]}}\" --out \"$out\" --study {}", sh(&p.exe), sh(&p.study));
    s
}

fn write_file(path: &Path, text: &str, inputs: &Inputs) -> Result<()> {
    write_atomically(path, inputs, |f| {
        f.write_all(text.as_bytes()).with_context(|| format!("{}: cannot write", path.display()))
    })
}

fn remove_if_there(path: &Path) -> Result<()> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            Err(e).with_context(|| format!("{}: cannot remove (--fresh)", path.display()))
        }
        _ => Ok(()),
    }
}

/// A shard is complete when its results.json is of this study (`hash`), holds exactly
/// its `cells`, and its journal holds each cell it computed with the key it would have
/// now (`keys`): results of another version of the study, of another shard count, of
/// another version of a trace file or of another build do not count. A journal of
/// another version of the study is an error (as for `sweep`).
fn shard_state(
    dir: &Path,
    hash: &str,
    cells: &[usize],
    keys: &BTreeMap<usize, String>,
) -> Result<ShardState> {
    let results = dir.join("results.json");
    let journal = dir.join("cells.jsonl");
    let Resumed { cells: done, torn, .. } = read_journal(&journal, hash, |id| keys.get(&id).cloned())?;
    if let Some(bytes) = torn {
        eprintln!("{}: dropped a torn last line ({bytes} bytes; an interrupted write)", journal.display());
    }
    let current = cells.iter().all(|id| !keys.contains_key(id) || done.contains_key(id));
    if let Ok(text) = std::fs::read_to_string(&results) {
        if let Ok(doc) = serde_json::from_str::<Value>(&text) {
            let ids: Option<Vec<usize>> = doc["rows"]
                .as_array()
                .map(|rows| rows.iter().map(|r| r["cell"].as_u64().map(|c| c as usize)).collect())
                .unwrap_or_default();
            if doc["hash"] == hash && ids.as_deref() == Some(cells) && current {
                return Ok(ShardState::Complete);
            }
        }
    }
    let wanted: BTreeSet<usize> = cells.iter().copied().collect();
    Ok(ShardState::Todo(done.keys().filter(|id| wanted.contains(id)).count()))
}

fn write_plan(path: &Path, plan: &ShardPlan, states: &[ShardState], inputs: &Inputs) -> Result<()> {
    let rows = states.iter().enumerate().map(|(i, state)| PlanRow {
        shard: i,
        cells: plan.cells(i).len(),
        estimated_cost: plan.cost[i],
        state: state_text(state),
    });
    write_atomically(path, inputs, |f| -> Result<()> { Ok(write_csv(f, rows::PLAN_HEADER, rows)?) })
}

fn state_text(state: &ShardState) -> String {
    match state {
        ShardState::Complete => "complete".to_string(),
        ShardState::Todo(0) => "to run".to_string(),
        ShardState::Todo(done) => format!("to run ({done} cells done)"),
    }
}

fn print_plan(study: &str, cells: usize, plan: &ShardPlan, states: &[ShardState]) {
    let n = plan.shards();
    let total: u64 = plan.cost.iter().sum();
    let max = plan.cost.iter().copied().max().unwrap_or(0);
    let complete = states.iter().filter(|s| **s == ShardState::Complete).count();
    eprintln!(
        "study `{study}`: {cells} cells in {n} shards by estimated cost ({total} record-equivalents; \
         largest shard {:.2}x the mean); {complete} complete",
        if total == 0 { 1.0 } else { max as f64 * n as f64 / total as f64 }
    );
    if n <= 16 {
        for (i, state) in states.iter().enumerate() {
            let state = state_text(state);
            eprintln!("  shard {i}: {:>6} cells, cost {:>12}  {state}", plan.cells(i).len(), plan.cost[i]);
        }
    }
}

/// Ascending indices as Slurm's array list: `0-3,5,7-8`.
fn ranges(ids: &[usize]) -> String {
    let mut parts = Vec::new();
    let mut i = 0;
    while i < ids.len() {
        let mut j = i;
        while j + 1 < ids.len() && ids[j + 1] == ids[j] + 1 {
            j += 1;
        }
        parts.push(if j > i { format!("{}-{}", ids[i], ids[j]) } else { ids[i].to_string() });
        i = j + 1;
    }
    parts.join(",")
}

const NO_SBATCH: &str =
    "sbatch not found: Slurm's commands are not on PATH here (run on the cluster's login \
                          node, or submit the scripts written to DIR/slurm by hand)";

fn check_sbatch() -> Result<()> {
    match Command::new("sbatch").arg("--version").output() {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => bail!(NO_SBATCH),
        Err(e) => Err(e).context("cannot run `sbatch --version`"),
        Ok(_) => Ok(()),
    }
}

/// Runs `sbatch --parsable ARGS` and returns the job id it prints.
fn sbatch(args: &[&std::ffi::OsStr]) -> Result<String> {
    let shown = args.iter().map(|a| a.to_string_lossy()).collect::<Vec<_>>().join(" ");
    let o = match Command::new("sbatch").arg("--parsable").args(args).output() {
        Ok(o) => o,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => bail!(NO_SBATCH),
        Err(e) => return Err(e).with_context(|| format!("cannot run `sbatch --parsable {shown}`")),
    };
    let stdout = String::from_utf8_lossy(&o.stdout);
    if !o.status.success() {
        bail!(
            "`sbatch --parsable {shown}` failed ({}): {}",
            o.status,
            String::from_utf8_lossy(&o.stderr).trim()
        );
    }
    // --parsable prints `JOBID` or `JOBID;CLUSTER`
    let id = stdout.lines().next().unwrap_or("").split(';').next().unwrap_or("").trim();
    if id.is_empty() || !id.bytes().all(|b| b.is_ascii_digit()) {
        bail!("`sbatch --parsable {shown}` printed `{}`, expected a job id", stdout.trim());
    }
    Ok(id.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn array_lists_are_ranges() {
        assert_eq!(ranges(&[0, 1, 2, 3]), "0-3");
        assert_eq!(ranges(&[1, 3]), "1,3");
        assert_eq!(ranges(&[0, 2, 3, 4, 7, 9, 10]), "0,2-4,7,9-10");
    }

    #[test]
    fn words_are_quoted_for_the_shell_and_checked_for_sbatch() {
        assert_eq!(sh("/a b/it's"), r"'/a b/it'\''s'");
        assert!(check_directive("--time", "2:00:00").is_ok());
        for bad in ["", "1 2", "a\nb", "x'"] {
            assert!(check_directive("--time", bad).is_err(), "{bad:?}");
        }
        assert_eq!(job_name("tile 16/x"), "banksim-tile_16_x");
        assert_eq!(output_pattern("/o/50%"), "/o/50%%");
    }

    #[test]
    fn scripts_name_absolute_paths_and_the_shard_count() {
        let p = Paths {
            exe: "/bin/banksim".into(),
            study: "/s/t.ron".into(),
            out: "/o".into(),
            cwd: "/w".into(),
        };
        let d = vec!["--cpus-per-task=2".to_string(), "--time=10".to_string()];
        let s = sweep_sbatch("t", 4, &p, &d);
        assert!(s.contains("#SBATCH --array=0-3\n") && s.contains("#SBATCH --time=10\n"), "{s}");
        assert!(s.contains("#SBATCH --output=/o/slurm/shard-%a.out\n#SBATCH --chdir=/w\n"), "{s}");
        assert!(s.contains(
            "exec '/bin/banksim' sweep '/s/t.ron' --shard \"${SLURM_ARRAY_TASK_ID}/4\" --out '/o'/shard-\"${SLURM_ARRAY_TASK_ID}\""
        ), "{s}");
        let m = merge_sbatch("t", 4, &p, &d);
        assert!(m.contains("#SBATCH --kill-on-invalid-dep=yes\n") && !m.contains("cpus-per-task"), "{m}");
        assert!(
            m.contains("$(seq 0 3)")
                && m.contains("merge \"${shards[@]}\" --out \"$out\" --study '/s/t.ron'"),
            "{m}"
        );
    }
}
