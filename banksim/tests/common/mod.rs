//! Helpers shared by the integration tests.
#![allow(dead_code)] // each test target uses a part

/// Whether a Vulkan adapter is there for a test that runs kernels on a GPU. Without one
/// the test is skipped (this prints why and the test passes), unless
/// `BANKSIM_REQUIRE_GPU=1`, which makes a missing adapter a failure.
#[cfg(feature = "gpu")]
pub fn gpu_or_skip(test: &str) -> bool {
    match validate::gpu::Gpu::open(None) {
        Ok(_) => true,
        Err(e) if std::env::var("BANKSIM_REQUIRE_GPU").is_ok_and(|v| v == "1") => {
            panic!("{test}: BANKSIM_REQUIRE_GPU=1 but there is no Vulkan adapter: {e}")
        }
        Err(e) => {
            eprintln!(
                "skipped: {test}: no Vulkan adapter ({e}); set BANKSIM_REQUIRE_GPU=1 to make this a failure"
            );
            false
        }
    }
}

/// Temporary files (`*.tmp`, `*.tmp.*`) anywhere under `dir`: an output left half-made.
pub fn stray_temporaries(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                todo.push(p);
            } else if p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.contains(".tmp")) {
                out.push(p);
            }
        }
    }
    out
}

/// One command of a catalog of bad inputs and abuses, run in a fresh folder by
/// [`check_cases`].
pub struct Case {
    pub what: &'static str,
    /// Files to create in the case's folder: (name, contents); `{dir}` is replaced in
    /// contents that are text.
    pub files: &'static [(&'static str, &'static [u8])],
    /// Arguments; `{dir}` is replaced by the case's folder.
    pub args: &'static [&'static str],
    /// Expected exit code.
    pub code: i32,
    /// Substrings the message must contain; `{dir}` is replaced too.
    pub needles: &'static [&'static str],
    /// Substrings neither output may contain (a wrapped or clamped result).
    pub absent: &'static [&'static str],
}

/// `s` with `{dir}` replaced by `dir`.
pub fn fill(s: &str, dir: &std::path::Path) -> String {
    s.replace("{dir}", dir.to_str().unwrap())
}

/// [`fill`] of contents that are text; other bytes as they are.
pub fn fill_bytes(b: &[u8], dir: &std::path::Path) -> Vec<u8> {
    match std::str::from_utf8(b) {
        Ok(s) => fill(s, dir).into_bytes(),
        Err(_) => b.to_vec(),
    }
}

/// Runs every case in a fresh folder under a temporary one named `prefix...`, through
/// `run` (the case's folder and its arguments), and asserts for each: no panic or failed
/// allocation, the exit code, every needle in the message and no absent text, the OS
/// error said once, every input intact and no temporary file left behind.
pub fn check_cases(
    prefix: &str,
    cases: &[&Case],
    run: impl Fn(&std::path::Path, &[String]) -> std::process::Output,
) {
    let root = tempfile::Builder::new().prefix(prefix).tempdir().unwrap();
    let mut failures = Vec::new();
    for (i, case) in cases.iter().enumerate() {
        let dir = root.path().join(format!("case{i}"));
        std::fs::create_dir_all(&dir).unwrap();
        for (name, body) in case.files {
            let path = dir.join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, fill_bytes(body, &dir)).unwrap();
        }
        let args: Vec<String> = case.args.iter().map(|a| fill(a, &dir)).collect();
        let o = run(&dir, &args);
        let (out, err) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
        if err.contains("panicked") || err.contains("memory allocation") {
            failures.push(format!("{}: failed for memory or panicked: {err}", case.what));
            continue;
        }
        if o.status.code() != Some(case.code) {
            failures.push(format!("{}: exit {:?}, expected {}: {err}", case.what, o.status, case.code));
        }
        for n in case.needles {
            let n = fill(n, &dir);
            if !err.contains(&n) {
                failures.push(format!("{}: message lacks `{n}`: {err}", case.what));
            }
        }
        for a in case.absent {
            if out.contains(a) || err.contains(a) {
                failures.push(format!("{}: output has `{a}`: {out}{err}", case.what));
            }
        }
        if err.matches("No such file or directory").count() > 1 {
            failures.push(format!("{}: the OS error is repeated: {err}", case.what));
        }
        for (name, body) in case.files {
            if std::fs::read(dir.join(name)).ok() != Some(fill_bytes(body, &dir)) {
                failures.push(format!("{}: input {name} was changed", case.what));
            }
        }
        let stray = stray_temporaries(&dir);
        if !stray.is_empty() {
            failures.push(format!("{}: left {stray:?}", case.what));
        }
    }
    assert!(failures.is_empty(), "{} problems:\n{}", failures.len(), failures.join("\n"));
}
