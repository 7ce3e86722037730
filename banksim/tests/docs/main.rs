//! Docs that are tests: every shown output of README.md and docs/*.md, and every ready
//! study of `studies/`, is what the built `banksim` gives now.
//!
//! `cargo test -p banksim --test docs` checks; `SNAPSHOTS=overwrite cargo test -p banksim
//! --test docs` writes what the binary gives now back into the pages (each shown output)
//! and into `studies/` (each study's `results.csv`, `results.json` and `report/`).
//!
//! **Pages.** A ` ```console ` block is run (see `markdown.rs` for the markup): each
//! `$ COMMAND` in a shell (`bash`, with the built `banksim` first on `PATH`), in a fresh
//! folder per page that links the repository's `validate/`, `studies/`, `configs/` and
//! `fixtures/`, blocks in page order (a block marked `file=NAME` is written there first).
//! Standard output and standard error together must match the shown output, where `...`
//! on a line of its own stands for any lines, `[..]` for any text within a line and
//! `[ADAPTER]` for the Vulkan adapter's description; a command must fail exactly where its
//! shown output has a line starting with `error:`. Trailing spaces are not compared. A
//! block marked `gpu` follows the GPU tests' rule: without a Vulkan adapter it is skipped
//! with the reason printed, unless `BANKSIM_REQUIRE_GPU=1`, which makes that a failure.
//!
//! **Studies.** Each `studies/NAME.ron` is swept and reported in a fresh folder as
//! `banksim sweep studies/NAME.ron -o studies/NAME` and `banksim report studies/NAME -o
//! studies/NAME/report` would do it, and every file compared byte for byte with the
//! committed one.
#![cfg(all(feature = "gpu", feature = "charts"))]

mod markdown;
mod matching;

use markdown::Block;
use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The environment variable and value that write outputs back instead of comparing
/// (snapbox's convention).
const OVERWRITE: (&str, &str) = ("SNAPSHOTS", "overwrite");

/// The longest a shown command may take.
const COMMAND_LIMIT: Duration = Duration::from_secs(300);

/// The repository's folders a page's commands may name.
const LINKED: [&str; 4] = ["validate", "studies", "configs", "fixtures"];

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn overwriting() -> bool {
    std::env::var(OVERWRITE.0).is_ok_and(|v| v == OVERWRITE.1)
}

/// README.md and docs/*.md, in that order.
fn pages(root: &Path) -> Vec<PathBuf> {
    let mut docs: Vec<PathBuf> = fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    docs.sort();
    let mut out = vec![root.join("README.md")];
    out.extend(docs);
    out
}

/// Prints to the real standard error (the harness captures `eprintln!`), so the list of
/// what was checked shows in a plain `cargo test`.
fn say(text: &str) {
    let _ = writeln!(std::io::stderr(), "{text}");
}

/// `command` run by bash in `dir` with the built `banksim` first on `PATH`: what it printed
/// (standard output and standard error as they came) and whether it succeeded.
fn shell(command: &str, dir: &Path) -> (String, Option<i32>) {
    let bin = Path::new(env!("CARGO_BIN_EXE_banksim")).parent().unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let (mut reader, writer) = std::io::pipe().unwrap();
    let mut child = Command::new("bash")
        .args(["-o", "pipefail", "-c", command])
        .current_dir(dir)
        .env("PATH", path)
        .env("NO_COLOR", "1")
        .env_remove(OVERWRITE.0)
        .stdin(Stdio::null())
        .stdout(writer.try_clone().unwrap())
        .stderr(writer)
        .spawn()
        .unwrap();
    let collect = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = reader.read_to_end(&mut bytes);
        bytes
    });
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status.code();
        }
        if start.elapsed() > COMMAND_LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let mut text = String::from_utf8_lossy(&collect.join().unwrap()).into_owned();
    if status.is_none() {
        text.push_str(&format!("(stopped after {} s)\n", COMMAND_LIMIT.as_secs()));
    }
    (text, status)
}

/// Each line without its trailing spaces, each ending with a newline.
fn trimmed(text: &str) -> String {
    text.lines().map(|l| format!("{}\n", l.trim_end())).collect()
}

/// A fresh folder for one page's commands, with the repository's folders linked in.
fn page_folder(root: &Path) -> tempfile::TempDir {
    let dir = tempfile::Builder::new().prefix("banksim-docs-").tempdir().unwrap();
    for name in LINKED {
        std::os::unix::fs::symlink(root.join(name), dir.path().join(name)).unwrap();
    }
    dir
}

/// A unified diff of `expected` (named `old`) against `actual` (named `new`), plain text.
fn diff(expected: &snapbox::Data, actual: &snapbox::Data, old: &str, new: &str) -> String {
    let mut out = String::new();
    let names: (&dyn std::fmt::Display, &dyn std::fmt::Display) = (&old, &new);
    snapbox::report::write_diff(
        &mut out,
        expected,
        actual,
        Some(names.0),
        Some(names.1),
        snapbox::report::Palette::plain(),
    )
    .unwrap();
    out
}

/// What the checks of one run came to.
#[derive(Default)]
struct Tally {
    checked: Vec<String>,
    failures: Vec<String>,
}

/// Runs every `console` block of the page at `page`, comparing (or writing back) its
/// outputs.
fn check_page(root: &Path, page: &Path, tally: &mut Tally) {
    let name = page.strip_prefix(root).unwrap().display().to_string();
    let text = fs::read_to_string(page).unwrap();
    let blocks = markdown::blocks(&text);
    if !blocks.iter().any(|b| matches!(b, Block::Transcript(_))) {
        return;
    }
    let folder = page_folder(root);
    let mut redactions = snapbox::Redactions::new();
    redactions.insert("[CWD]", folder.path().to_path_buf()).unwrap();
    let (mut ran, mut not_run, mut skipped) = (0, Vec::new(), 0);
    let mut rewrites = Vec::new();
    for block in blocks {
        let transcript = match block {
            Block::File { name, text, .. } => {
                fs::write(folder.path().join(name), text).unwrap();
                continue;
            }
            Block::Transcript(s) => s,
        };
        if let Some(reason) = &transcript.not_run {
            not_run.push(format!("{name}:{} ({reason})", transcript.line));
            continue;
        }
        if transcript.gpu {
            let Some(gpu) =
                validate::gpu::open_for_tests(&format!("{name}:{} (a gpu block)", transcript.line))
            else {
                skipped += 1;
                continue;
            };
            let _ = redactions.insert("[ADAPTER]", validate::gpu::describe(&gpu.info));
        }
        for step in &transcript.steps {
            ran += 1;
            let (printed, status) = shell(&step.command, folder.path());
            let expected = trimmed(&step.expected);
            let compared = matching::compare(&expected, &trimmed(&redactions.redact(&printed)));
            let shown = compared.shaped;
            let same = compared.matches;
            // a command fails exactly where its output shows an error
            let should_fail = |out: &str| out.lines().any(|l| l.starts_with("error:"));
            let status_ok = match status {
                Some(0) => !should_fail(&shown),
                Some(_) => should_fail(&shown),
                None => false,
            };
            let place = format!("{name}:{} `$ {}`", step.line, step.command.lines().next().unwrap_or(""));
            if same && status_ok {
                continue;
            }
            if overwriting() && status.is_some() {
                rewrites.push((step.output.clone(), shown.clone()));
                if status_ok {
                    continue;
                }
            }
            let status = status.map_or("stopped".to_string(), |c| format!("exit status {c}"));
            let why = if status_ok {
                String::new()
            } else {
                format!(
                    "\n  {status}: a command must fail exactly where its shown output has a line starting with `error:`"
                )
            };
            let (expected, shown) = (snapbox::Data::text(expected), snapbox::Data::text(shown));
            tally
                .failures
                .push(format!("{place}:{why}\n{}", diff(&expected, &shown, "shown", "printed now")));
        }
    }
    if !rewrites.is_empty() {
        fs::write(page, markdown::rewrite(&text, rewrites)).unwrap();
    }
    let mut line = format!("{name}: {ran} commands run");
    if skipped > 0 {
        line.push_str(&format!(", {skipped} gpu blocks skipped (no Vulkan adapter)"));
    }
    for n in &not_run {
        line.push_str(&format!("; not run: {n}"));
    }
    tally.checked.push(line);
}

/// Ends the test: the list of what was checked, then every failure at once.
fn finish(what: &str, tally: Tally) {
    say(&format!("{what} checked:"));
    for c in &tally.checked {
        say(&format!("  {c}"));
    }
    assert!(
        tally.failures.is_empty(),
        "{} differ from what banksim gives now (`{}={} cargo test -p banksim --test docs` writes it back):\n\n{}",
        what,
        OVERWRITE.0,
        OVERWRITE.1,
        tally.failures.join("\n")
    );
}

#[test]
fn every_shown_output_is_what_banksim_prints() {
    let root = repo();
    let mut tally = Tally::default();
    for page in pages(&root) {
        check_page(&root, &page, &mut tally);
    }
    finish("shown outputs", tally);
}

/// The files under `dir`, as paths relative to it, sorted; `skip` names left out.
fn files_under(dir: &Path, skip: &[&str]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            let rel = p.strip_prefix(dir).unwrap().to_path_buf();
            if skip.iter().any(|s| rel == Path::new(s)) {
                continue;
            }
            if e.file_type().unwrap().is_dir() {
                todo.push(p);
            } else {
                out.push(rel);
            }
        }
    }
    out.sort();
    out
}

/// Sweeps and reports `studies/NAME.ron` in a fresh folder, and compares every file with
/// the committed one (or writes it back).
fn check_study(root: &Path, study: &Path, tally: &mut Tally) {
    let name = study.file_stem().unwrap().to_str().unwrap().to_string();
    let work = tempfile::Builder::new().prefix("banksim-study-").tempdir().unwrap();
    fs::create_dir(work.path().join("studies")).unwrap();
    let out = format!("studies/{name}");
    for command in [
        format!("banksim sweep -q '{}' -o {out}", study.display()),
        format!("banksim report -q {out} -o {out}/report"),
    ] {
        let (text, status) = shell(&command, work.path());
        if status != Some(0) {
            tally.failures.push(format!("{out}: `{command}` failed:\n{text}"));
            return;
        }
    }
    // what the sweep keeps for itself (its marker and journal) is not a result
    let skip = [".banksim-sweep", "cells.jsonl"];
    let (made, committed) = (work.path().join(&out), root.join(&out));
    let made_files = files_under(&made, &skip);
    let committed_files = files_under(&committed, &skip);
    let mut differ = Vec::new();
    for f in &made_files {
        let new = fs::read(made.join(f)).unwrap();
        let old = fs::read(committed.join(f)).ok();
        if old.as_ref() == Some(&new) {
            continue;
        }
        if overwriting() {
            fs::create_dir_all(committed.join(f).parent().unwrap()).unwrap();
            fs::write(committed.join(f), &new).unwrap();
            continue;
        }
        let shown = match (&old, f.extension().and_then(|x| x.to_str())) {
            (None, _) => "not committed".to_string(),
            (Some(old), Some("csv" | "json" | "md" | "html")) => diff(
                &snapbox::Data::text(String::from_utf8_lossy(old).into_owned()),
                &snapbox::Data::text(String::from_utf8_lossy(&new).into_owned()),
                "committed",
                "swept now",
            ),
            (Some(_), _) => "the bytes differ".to_string(),
        };
        differ.push(format!("{out}/{}: {shown}", f.display()));
    }
    for f in committed_files.iter().filter(|f| !made_files.contains(f)) {
        if overwriting() {
            fs::remove_file(committed.join(f)).unwrap();
        } else {
            differ.push(format!("{out}/{}: committed, but the report no longer makes it", f.display()));
        }
    }
    tally.checked.push(format!("studies/{name}.ron: {} files compared", made_files.len()));
    tally.failures.extend(differ);
}

#[test]
fn every_ready_study_reproduces_its_committed_results() {
    let root = repo();
    let mut studies: Vec<PathBuf> = fs::read_dir(root.join("studies"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "ron"))
        .collect();
    studies.sort();
    assert!(!studies.is_empty(), "no studies/*.ron");
    let mut tally = Tally::default();
    for study in &studies {
        check_study(&root, study, &mut tally);
    }
    finish("ready studies", tally);
}
