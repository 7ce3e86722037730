//! Nothing silently wrong, part 2 (issue 58), one section per class: a size an argument
//! sets is refused over its limit before anything is allocated (docs/guide.md,
//! "Limits"); arithmetic does not wrap, and every documented maximum is accepted end to
//! end; a path that comes from data is a regular file; an interrupted command leaves no
//! temporary folder. Each case a hostile tester found is one here.

mod common;

use common::Case;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// Virtual memory a case may map (KiB): the refused sizes are many times more, so a
/// size allocated before it is checked fails the case instead of the machine.
const MEMORY_KIB: u64 = 6 << 20;
/// Seconds a case may run: a refusal comes before the work.
const SECONDS: u64 = 60;

/// One block of two warps, one load each (two warp requests a block).
const T: &[u8] = b"block,thread,step,op,addr,bytes\n0,0,0,ld,0,4\n0,32,0,ld,4,4\n";

/// `banksim args` in `dir`, under [`MEMORY_KIB`] and [`SECONDS`]; its output and time.
fn banksim_capped(dir: &Path, args: &[String]) -> (Output, Duration) {
    let script = format!("ulimit -v {MEMORY_KIB} && exec timeout {SECONDS} \"$0\" \"$@\"");
    let start = Instant::now();
    let o = Command::new("sh")
        .args(["-c", &script, env!("CARGO_BIN_EXE_banksim")])
        .args(args)
        .current_dir(dir)
        .env("CI", "1")
        .output()
        .unwrap();
    (o, start.elapsed())
}

/// Runs every case with [`banksim_capped`] ([`common::check_cases`]).
fn check(cases: &[Case]) {
    let cases: Vec<&Case> = cases.iter().collect();
    common::check_cases("banksim-limits-", &cases, |dir, args| banksim_capped(dir, args).0);
}

/// A trace of one block of 64 threads making 64 dependent loads each, with 10 IR
/// operations of other work before each: 128 warp requests a block.
fn t64() -> Vec<u8> {
    let mut s = String::from("block,thread,step,op,addr,bytes,gap,dep\n");
    for t in 0..64 {
        for k in 0..64 {
            s += &format!("0,{t},{k},ld,{},4,10,1\n", (t % 32) * 4);
        }
    }
    s.into_bytes()
}

fn t64_file() -> &'static [u8] {
    static T64: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    T64.get_or_init(t64)
}

const STUDY: &[u8] =
    b"(name: \"s\", presets: [\"h100\"], workloads: [(gen: \"strided\", params: {\"stride\": [1, 2]})])";

// ---- sizes with no limit

#[test]
fn sizes_over_their_limits_are_refused_before_they_are_allocated() {
    let t64: &'static [u8] = t64_file();
    let files_t: &'static [(&str, &[u8])] = &[("t.csv", T)];
    let files_t64: &'static [(&str, &[u8])] = Box::leak(Box::new([("t64.csv", t64)]));
    let cases = [
        Case {
            what: "run --cycles --grid 2^32-1",
            files: files_t,
            args: &["run", "--cycles", "--grid", "4294967295", "t.csv"],
            code: 1,
            needles: &["--grid 4294967295", "warp requests to simulate", "(SIMULATED_REQUESTS"],
            absent: &[],
        },
        Case {
            what: "run --cycles --grid 10^8 --full: every block simulated",
            files: files_t,
            args: &["run", "--cycles", "--grid", "100000000", "--full", "t.csv"],
            code: 1,
            needles: &["--grid 100000000", "about 200000000 warp requests", "(SIMULATED_REQUESTS"],
            absent: &[],
        },
        Case {
            what: "run --cycles --grid 10^7 --full --memory 100: the blocks' tables over --memory",
            files: files_t,
            args: &["run", "--cycles", "--grid", "10000000", "--full", "--memory", "100", "t.csv"],
            code: 1,
            needles: &[
                "--grid 10000000",
                "about 240000000 bytes of memory",
                "above the limit of 104857600 (--memory 100;",
            ],
            absent: &[],
        },
        Case {
            what: "advise --max-pad 2^32-1",
            files: &[],
            args: &["advise", "tile:rows=32,cols=32", "--max-pad", "4294967295"],
            code: 1,
            needles: &[
                "--max-pad 4294967295",
                "beyond the 233472 bytes of shared memory of `h100`",
                "at most 1792 elements of padding fit",
            ],
            absent: &["rank"],
        },
        Case {
            what: "advise --max-pad 10^8",
            files: &[],
            args: &["advise", "tile:rows=32,cols=32", "--max-pad", "100000000"],
            code: 1,
            needles: &["--max-pad 100000000", "at most 1792 elements of padding fit"],
            absent: &["rank"],
        },
        Case {
            what: "advise: padding that fits, candidates x records over LAYOUT_WORK",
            files: &[],
            args: &["advise", "random:threads=4096,steps=64", "--shape", "2x32x4", "--max-pad", "2000"],
            code: 1,
            needles: &["--max-pad 2000: 2158 candidate layouts of 262144 records", "(LAYOUT_WORK"],
            absent: &[],
        },
        Case {
            what: "advise --shape 1x1x4",
            files: files_t,
            args: &["advise", "t.csv", "--shape", "1x1x4"],
            code: 1,
            needles: &["--shape 1x1x4", "at least 2 rows"],
            absent: &["rank"],
        },
        Case {
            what: "advise --shape 100000x100000x16",
            files: files_t,
            args: &["advise", "t.csv", "--shape", "100000x100000x16"],
            code: 1,
            needles: &["--shape 100000x100000x16", "ends at byte 160000000000", "233472 bytes"],
            absent: &["rank"],
        },
        Case {
            what: "stridebench --blocks 2^32-1",
            files: &[],
            args: &["stridebench", "--blocks", "4294967295"],
            code: 1,
            needles: &["--blocks 4294967295", "(SIMULATED_REQUESTS"],
            absent: &[],
        },
        Case {
            what: "bench --blocks 2^32-1",
            files: &[],
            args: &["bench", "--blocks", "4294967295", "--run-blocks", "0"],
            code: 1,
            needles: &["--blocks 4294967295", "(SIMULATED_REQUESTS"],
            absent: &[],
        },
        Case {
            what: "sweep --shard 0/2^64-1",
            files: &[("s.ron", STUDY)],
            args: &["sweep", "s.ron", "-o", "out", "--shard", "0/18446744073709551615"],
            code: 1,
            needles: &["--shard 0/18446744073709551615", "above the limit of 65536 (SHARDS"],
            absent: &[],
        },
        Case {
            what: "predict a trace --dispatch 65535,65535",
            files: files_t64,
            args: &["predict", "t64.csv", "--dispatch", "65535,65535"],
            code: 1,
            needles: &["--dispatch 65535,65535,1", "(SIMULATED_REQUESTS"],
            absent: &["predicted:"],
        },
        Case {
            what: "predict a trace --dispatch 65535,1024",
            files: files_t64,
            args: &["predict", "t64.csv", "--dispatch", "65535,1024"],
            code: 1,
            needles: &["--dispatch 65535,1024,1", "about 130148480 warp requests", "(SIMULATED_REQUESTS"],
            absent: &["predicted:"],
        },
    ];
    check(&cases);
}

// ---- arithmetic that cannot wrap

#[test]
fn arithmetic_that_would_wrap_or_clamp_is_an_error() {
    let t64: &'static [u8] = t64_file();
    let files_t64: &'static [(&str, &[u8])] = Box::leak(Box::new([("t64.csv", t64)]));
    let cases = [
        Case {
            what: "stridebench --iters 2^32-1 (wrapped to 256 cycles)",
            files: &[],
            args: &["stridebench", "--iters", "4294967295", "--strides", "1"],
            code: 1,
            needles: &["--iters 4294967295", "about 1099511635968 warp requests"],
            absent: &[],
        },
        Case {
            what: "stridebench --blocks 0 (NaN)",
            files: &[],
            args: &["stridebench", "--blocks", "0"],
            code: 1,
            needles: &["--blocks 0: expected at least one workgroup"],
            absent: &["NaN"],
        },
        Case {
            what: "gen strided past 2^32 (addresses wrapped)",
            files: &[],
            args: &["gen", "strided", "stride=1048576", "threads=4096", "width=16"],
            code: 1,
            needles: &["thread 256's address 4294967296 + 16 bytes is beyond 2^32 - 1"],
            absent: &[],
        },
        Case {
            what: "predict --reference-us 1e-9 (clamped to 0 cycles per operation)",
            files: files_t64,
            args: &[
                "predict",
                "t64.csv",
                "--dispatch",
                "64",
                "--reference",
                "t64.csv",
                "--reference-us",
                "1e-9",
            ],
            code: 1,
            needles: &["--reference-us 1e-9", "shorter than the engine's", "no cost of an IR operation"],
            absent: &["predicted:"],
        },
        Case {
            what: "predict --reference-us 1e308 (a 309-digit time)",
            files: files_t64,
            args: &[
                "predict",
                "t64.csv",
                "--dispatch",
                "64",
                "--reference",
                "t64.csv",
                "--reference-us",
                "1e308",
            ],
            code: 1,
            needles: &["--reference-us 1e308", "more cycles than can be counted"],
            absent: &["predicted:", "0000000000000000"],
        },
        Case {
            what: "predict --reference-us 1e6: more than 10^6 cycles per operation",
            files: files_t64,
            args: &[
                "predict",
                "t64.csv",
                "--dispatch",
                "64",
                "--reference",
                "t64.csv",
                "--reference-us",
                "1000000",
            ],
            code: 1,
            needles: &["--reference-us 1000000", "needs more than 1000000 cycles per IR operation"],
            absent: &["predicted:"],
        },
    ];
    check(&cases);
}

/// Every documented maximum is accepted end to end: a `gap` and a `wait` of 2^32 - 1
/// convert to binary and back unchanged (it was refused as corrupt), run, and run with
/// the cycle engine (it was refused with a message that contradicted itself).
#[test]
fn the_largest_gap_and_wait_convert_and_run() {
    let tmp = tempfile::Builder::new().prefix("banksim-limits-max-").tempdir().unwrap();
    let dir = tmp.path();
    let text = "block,thread,step,op,addr,bytes,gap,dep,wait\n0,0,0,ld,0,4,4294967295,1,4294967295\n\
                4294967295,4294967295,4294967295,st,4294967288,4,4294967295,0,\n";
    std::fs::write(dir.join("w.csv"), text).unwrap();
    let run = |args: &[&str]| {
        let (o, _) = banksim_capped(dir, &args.iter().map(|a| a.to_string()).collect::<Vec<_>>());
        assert!(o.status.success(), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    run(&["convert", "w.csv", "w.bsim"]);
    run(&["convert", "w.bsim", "back.csv"]);
    assert_eq!(std::fs::read_to_string(dir.join("back.csv")).unwrap(), text);
    let binary = run(&["convert", "w.bsim", "-"]);
    assert_eq!(binary, text);
    // (shared addresses within the preset's memory for the engine; the largest gap)
    let gaps = "block,thread,step,op,addr,bytes,gap,dep,wait\n0,0,0,ld,0,4,4294967295,1,4294967295\n";
    std::fs::write(dir.join("g.csv"), gaps).unwrap();
    let cycles = run(&["run", "--cycles", "g.csv"]);
    let total: u64 = cycles
        .lines()
        .find_map(|l| l.trim().strip_prefix("cycle engine: "))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no engine cycles in {cycles}"));
    assert!(total >= u32::MAX as u64, "{total} cycles for a gap of 2^32 - 1: {cycles}");
}

// ---- inputs that are not regular files

#[test]
fn a_site_label_naming_a_device_is_refused() {
    let cases = [Case {
        what: "a site label naming /dev/zero, read with --by-line",
        files: &[("z.csv", b"# site 0 /dev/zero:1:1\nblock,thread,step,op,addr,bytes,gap,dep,wait,site\n0,0,0,ld,0,4,0,,,0\n")],
        args: &["run", "--by-line", "z.csv"],
        code: 1,
        needles: &["/dev/zero: the source file of site label `/dev/zero:1:1` in z.csv is a character device"],
        absent: &[],
    }];
    check(&cases);
}

/// A FIFO named by a site label, or as a study's `file:` workload, is refused at once
/// (it blocked the reader forever); a source file past SOURCE_BYTES is refused too.
#[cfg(unix)]
#[test]
fn fifos_and_long_files_from_data_are_refused() {
    let tmp = tempfile::Builder::new().prefix("banksim-limits-fifo-").tempdir().unwrap();
    let dir = tmp.path();
    assert!(Command::new("mkfifo").arg(dir.join("ff")).status().unwrap().success());
    let trace = |label: &str| {
        format!(
            "# site 0 {label}:1:1\nblock,thread,step,op,addr,bytes,gap,dep,wait,site\n0,0,0,ld,0,4,0,,,0\n"
        )
    };
    std::fs::write(dir.join("s.csv"), trace(dir.join("ff").to_str().unwrap())).unwrap();
    std::fs::write(dir.join("big.wgsl"), vec![b'/'; (16 << 20) + 1]).unwrap();
    std::fs::write(dir.join("b.csv"), trace(dir.join("big.wgsl").to_str().unwrap())).unwrap();
    std::fs::write(dir.join("s.ron"), "(name: \"s\", presets: [\"h100\"], workloads: [(file: \"ff\")])")
        .unwrap();
    for (args, needles) in [
        (vec!["run", "--by-line", "s.csv"], vec!["in s.csv is a FIFO (named pipe), not a regular file"]),
        (vec!["run", "--by-line", "b.csv"], vec!["big.wgsl: the source file of site label", "(SOURCE_BYTES"]),
        (vec!["sweep", "s.ron", "-o", "out"], vec!["ff: a study's `file:` workload is a FIFO"]),
    ] {
        let (o, took) = banksim_capped(dir, &args.iter().map(|a| a.to_string()).collect::<Vec<_>>());
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{args:?} after {took:?}: {err}");
        for n in needles {
            assert!(err.contains(n), "{args:?}: {err}");
        }
        assert!(took < Duration::from_secs(SECONDS / 2), "{args:?} took {took:?}");
    }
}

// ---- temporary files left behind on signals

/// A text trace of `blocks` blocks of 64 threads, in descending block order: read by
/// block, it is sorted (with `--memory 1`, runs go to the temporary folder).
fn out_of_order(path: &Path, blocks: u32) {
    use std::io::Write;
    let mut w = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    writeln!(w, "block,thread,step,op,addr,bytes").unwrap();
    for b in (0..blocks).rev() {
        for t in 0..64 {
            writeln!(w, "{b},{t},0,ld,{},4", t * 4).unwrap();
        }
    }
}

/// Runs `args` in `dir` with `TMPDIR` a fresh folder; once a folder whose name starts
/// with `prefix` is in it, sends `signal`; the folder must then be empty, and the exit
/// 128 + the signal.
#[cfg(unix)]
fn interrupted_leaves_nothing(dir: &Path, args: &[&str], prefix: &str, signal: (&str, i32)) {
    let tmpdir: PathBuf = dir.join(format!("tmp-{prefix}{}", signal.0));
    std::fs::create_dir_all(&tmpdir).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_banksim"))
        .args(args)
        .current_dir(dir)
        .env("TMPDIR", &tmpdir)
        .env("CI", "1")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    let seen = loop {
        let made = std::fs::read_dir(&tmpdir)
            .unwrap()
            .flatten()
            .any(|e| e.file_name().to_string_lossy().starts_with(prefix));
        if made || started.elapsed() > Duration::from_secs(60) {
            break made;
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    assert!(seen, "{args:?}: no {prefix}* folder in TMPDIR");
    let _ = Command::new("kill").args([&format!("-{}", signal.0), &child.id().to_string()]).status();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(128 + signal.1), "{args:?}: {status:?}");
    let left: Vec<_> = std::fs::read_dir(&tmpdir).unwrap().flatten().map(|e| e.path()).collect();
    assert!(left.is_empty(), "{args:?} left {left:?}");
    assert!(common::stray_temporaries(dir).is_empty(), "{:?}", common::stray_temporaries(dir));
}

#[cfg(unix)]
#[test]
fn signals_remove_the_sort_and_run_folders() {
    let tmp = tempfile::Builder::new().prefix("banksim-limits-signal-").tempdir().unwrap();
    let dir = tmp.path();
    out_of_order(&dir.join("big.csv"), 60_000);
    interrupted_leaves_nothing(dir, &["run", "--memory", "1", "big.csv"], "banksim-sort-", ("TERM", 15));
    interrupted_leaves_nothing(
        dir,
        &["convert", "--memory", "1", "big.csv", "big.bsim"],
        "banksim-sort-",
        ("INT", 2),
    );
    interrupted_leaves_nothing(
        dir,
        &["run", "--cycles", "--memory", "0", "big.csv"],
        "banksim-run-",
        ("TERM", 15),
    );
}

// ---- the limits table

/// docs/guide.md's limits table lists every limit of `sim_core::limits` with its value.
#[test]
fn the_guide_lists_every_limit_with_its_value() {
    let guide = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/guide.md")).unwrap();
    for l in sim_core::limits::ALL {
        let row = guide
            .lines()
            .find(|line| line.trim_start().starts_with(&format!("| `{}` |", l.name)))
            .unwrap_or_else(|| panic!("docs/guide.md has no row for `{}`", l.name));
        let value = row.split('|').nth(2).unwrap_or_default().trim();
        assert!(
            value.split(|c: char| !c.is_ascii_digit()).any(|n| n == l.max.to_string()),
            "docs/guide.md gives `{}` as `{value}`, the code {}",
            l.name,
            l.max
        );
    }
}

// ---- GPU kernels: loops the adapter stops, dispatches that do not end, buffers

#[cfg(all(feature = "gpu", feature = "charts"))]
mod gpu {
    use super::*;

    const LOOP: &[u8] = b"@group(0) @binding(0) var<storage, read_write> out: array<u32>;
var<workgroup> s: array<u32, 64>;

@compute @workgroup_size(1)
fn main(@builtin(local_invocation_index) t: u32) {
    var acc = 0u;
    for (var i = 0u; i < 200000u; i++) {
        acc += s[(i * 7u) % 64u];
    }
    out[t] = acc;
}
";

    const FOREVER: &[u8] = b"@group(0) @binding(0) var<storage, read_write> out: array<u32>;
var<workgroup> s: array<u32, 64>;

@compute @workgroup_size(1)
fn main(@builtin(local_invocation_index) t: u32) {
    var acc = 0u;
    var i = 0u;
    loop {
        acc += s[i % 64u];
        i += 1u;
        if (acc == 12345678u && i == 0u) { break; }
    }
    out[t] = acc;
}
";

    /// 16.7 M invocations of 60000 steps each: far longer than a second on any adapter.
    const LONG: &[u8] = b"@group(0) @binding(0) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    var acc = g.x;
    for (var i = 0u; i < 60000u; i++) {
        acc = acc * 1664525u + 1013904223u;
    }
    out[g.x] = acc;
}
";

    /// Two workgroup-memory records per invocation.
    const MANY: &[u8] = b"var<workgroup> s: array<u32, 256>;

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) t: u32) {
    s[t] = t;
    s[255u - t] = t;
}
";

    /// An unbound runtime-sized buffer of 128-byte elements.
    const WIDE: &[u8] = b"struct Wide { v: array<vec4<f32>, 8> }
@group(0) @binding(0) var<storage, read_write> out: array<Wide>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    out[g.x].v[0] = vec4<f32>(1.0);
}
";

    const TRANSPOSE: &[u8] = include_bytes!("../../validate/kernels/transpose32.wgsl");

    #[test]
    fn kernels_that_loop_too_long_or_ask_too_much_are_refused() {
        if !common::gpu_or_skip("kernels_that_loop_too_long_or_ask_too_much_are_refused") {
            return;
        }
        let cases = [
            Case {
                what: "a loop of 200000 iterations (the adapter stops it at 65535)",
                files: &[("loop.wgsl", LOOP)],
                args: &["capture", "loop.wgsl", "--dispatch", "1", "-o", "l.csv"],
                code: 1,
                needles: &["the loop at loop.wgsl:7:5 (in `main`) ended without taking one of its exits"],
                absent: &["trace records"],
            },
            Case {
                what: "a loop that never ends",
                files: &[("forever.wgsl", FOREVER)],
                args: &["capture", "forever.wgsl", "--dispatch", "1", "-o", "f.csv"],
                code: 1,
                needles: &["the loop at forever.wgsl:8:5 (in `main`) ended without taking one of its exits"],
                absent: &["trace records"],
            },
            Case {
                what: "a dispatch past --time-limit",
                files: &[("long.wgsl", LONG)],
                args: &["capture", "long.wgsl", "--dispatch", "65535", "--time-limit", "1", "-o", "n.csv"],
                code: 1,
                needles: &["the dispatch ran longer than 1 s", "(--time-limit; GPU_SECONDS"],
                absent: &[],
            },
            Case {
                what: "capture --dispatch 65535,65535",
                files: &[("k.wgsl", TRANSPOSE)],
                args: &["capture", "k.wgsl", "--dispatch", "65535,65535", "-o", "t.csv"],
                code: 1,
                needles: &[
                    "--dispatch 65535,65535,1 of workgroups of 1024 invocations",
                    "(CAPTURE_INVOCATIONS",
                ],
                absent: &[],
            },
            Case {
                what: "predict --dispatch 65535,65535 of a kernel",
                files: &[("k.wgsl", TRANSPOSE)],
                args: &["predict", "k.wgsl", "--dispatch", "65535,65535"],
                code: 1,
                needles: &["--dispatch 65535,65535,1", "(SIMULATED_REQUESTS"],
                absent: &["predicted:"],
            },
            Case {
                what: "--bind 0.1=zeros:2^32-1",
                files: &[("k.wgsl", TRANSPOSE)],
                args: &[
                    "capture",
                    "k.wgsl",
                    "--dispatch",
                    "1",
                    "--bind",
                    "0.1=zeros:4294967295",
                    "-o",
                    "t.csv",
                ],
                code: 2,
                needles: &["--bind 0.1=zeros:4294967295: about 17179869180 bytes", "(BUFFER_BYTES"],
                absent: &[],
            },
            Case {
                what: "--bind 0.1=iota:2^30",
                files: &[("k.wgsl", TRANSPOSE)],
                args: &[
                    "capture",
                    "k.wgsl",
                    "--dispatch",
                    "1",
                    "--bind",
                    "0.1=iota:1073741824",
                    "-o",
                    "t.csv",
                ],
                code: 2,
                needles: &["--bind 0.1=iota:1073741824", "(BUFFER_BYTES"],
                absent: &[],
            },
            Case {
                what: "an unbound buffer of one 128-byte element per invocation",
                files: &[("w.wgsl", WIDE)],
                args: &["capture", "w.wgsl", "--dispatch", "65535", "-o", "t.csv"],
                code: 1,
                needles: &["buffer 0.0 `out` (unbound: one element per invocation", "(BUFFER_BYTES"],
                absent: &[],
            },
            Case {
                what: "measure --reps 2^32-1 (warm-up + repetitions wrapped)",
                files: &[("k.wgsl", TRANSPOSE)],
                args: &["measure", "k.wgsl", "--dispatch", "1", "--reps", "4294967295"],
                code: 1,
                needles: &["--reps 4294967295: about 4294967298 runs", "(MEASURE_RUNS"],
                absent: &[],
            },
            Case {
                what: "more records than CAPTURE_RECORDS",
                files: &[("m.wgsl", MANY)],
                args: &["capture", "m.wgsl", "--dispatch", "65535", "-o", "t.csv"],
                code: 1,
                needles: &["(its records): about 33553920 records", "(CAPTURE_RECORDS"],
                absent: &[],
            },
        ];
        check(&cases);
    }

    /// `calibrate` on traces with no other work (every gap 0) says it cannot calibrate,
    /// instead of reporting 1048576 cycles per operation.
    #[test]
    fn calibrate_on_traces_without_other_work_says_so() {
        let traces: &'static [(&str, &[u8])] = &[
            ("suite.csv", b"label,family,role,blocks,scale\nk_a,k,fit,132,1\nk_b,k,fit,132,1\n"),
            ("measure.csv", b"label,median_us\nk_a,10\nk_b,12\n"),
            (
                "traces/k_a.csv",
                b"block,thread,step,op,addr,bytes,gap,dep\n0,0,0,ld,0,4,0,1\n0,1,0,ld,4,4,0,1\n",
            ),
            (
                "traces/k_b.csv",
                b"block,thread,step,op,addr,bytes,gap,dep\n0,0,0,ld,0,4,0,1\n0,1,0,ld,128,4,0,1\n",
            ),
        ];
        check(&[Case {
            what: "calibrate with no gaps",
            files: traces,
            args: &[
                "calibrate",
                "--suite",
                "suite.csv",
                "--measured",
                "measure.csv",
                "--traces",
                "traces",
                "--out",
                "out",
            ],
            code: 1,
            needles: &["`k_a`: its trace has no other work (every gap is 0)"],
            absent: &["1048576"],
        }]);
    }
}
