//! The benchmark runner: prints warp-requests per second for the standard mix (see
//! `common/mod.rs`) on the h100 preset, side by side with the time to merely read and
//! decode the same binary trace, and streams huge files in bounded memory.
//!
//! ```sh
//! cargo bench -p banksim-pipeline --bench runner                          # the table (about a minute)
//! cargo bench -p banksim-pipeline --bench runner -- --blocks 512          # smaller
//! cargo bench -p banksim-pipeline --bench runner -- --generate /tmp/big.bsim --gib 10
//! cargo bench -p banksim-pipeline --bench runner -- --generate /tmp/mix.bsim --blocks 64
//! cargo bench -p banksim-pipeline --bench runner -- --stream /tmp/big.bsim --threads 2
//! cargo bench -p banksim-pipeline --bench runner -- --only scaling --threads 16 --reps 11
//! ```
//! `--generate` writes the mix to a file of at least the given size (or of `--blocks`
//! blocks), block by block;
//! `--stream` simulates a binary trace chunk by chunk (decode and bank model in parallel
//! over chunks, their totals added up) and prints the peak resident memory. Not a test:
//! nothing here fails on a slow machine. Figures are the best of `--reps` runs (the
//! parallel rows run each thread count in turns with one thread, see `best_each`); with
//! `RUNNER_EACH=1` in the environment every run's time is printed too (to see the spread
//! on a noisy machine).

mod common;

use clap::Parser;
use common::{
    decoded_chunks, model_expanded, model_only, read_decode, simulate_file, Class, STEPS, THREADS, WARP,
};
use sim_core::engine::{self, EngineOptions};
use sim_core::Hardware;
use std::path::{Path, PathBuf};
use std::time::Instant;
use traces::binary;

/// Benchmark runner: warp-requests per second for the standard mix on the h100 preset.
#[derive(Parser)]
#[command(name = "runner")]
struct Args {
    /// Blocks of the mix (with `--generate`: exactly this many blocks).
    #[arg(long, value_name = "N")]
    blocks: Option<u32>,
    /// Runs per figure (the best is printed).
    #[arg(long, value_name = "N", default_value_t = 5)]
    reps: usize,
    /// Thread counts, comma-separated.
    #[arg(long, value_name = "1,2", value_delimiter = ',', default_value = "1,2")]
    threads: Vec<usize>,
    /// Write the mix to this binary trace instead of running the table.
    #[arg(long, value_name = "OUT.bsim")]
    generate: Option<PathBuf>,
    /// With `--generate` and no `--blocks`: the least size of the file, in GiB.
    #[arg(long, value_name = "SIZE", default_value_t = 1.0)]
    gib: f64,
    /// Simulate this binary trace chunk by chunk and print the peak resident memory.
    #[arg(long, value_name = "IN.bsim")]
    stream: Option<PathBuf>,
    /// Run the table on this binary trace instead of a generated mix.
    #[arg(long, value_name = "MIX.bsim")]
    file: Option<PathBuf>,
    /// Only this part of the table (for profiling): decode, file (decode and pipeline),
    /// pipeline (read + decode + bank model alone), model, classes, parallel, engine; or,
    /// not part of the table, `ceiling` (independent copies side by side) or `scaling`
    /// (each parallel job against copies of its serial run, in turns).
    #[arg(long, value_name = "PART")]
    only: Option<String>,
    /// One class of the mix only (default: all four).
    #[arg(long, value_name = "CLASS", value_parser = parse_class)]
    class: Option<Class>,
    /// Passed by `cargo bench`; ignored.
    #[arg(long, hide = true)]
    bench: bool,
}

impl Args {
    /// Blocks of the mix for the table.
    fn blocks(&self) -> u32 {
        self.blocks.unwrap_or(2048)
    }

    /// The classes of the mix.
    fn classes(&self) -> Vec<Class> {
        self.class.map_or(Class::ALL.to_vec(), |c| vec![c])
    }
}

fn parse_class(s: &str) -> Result<Class, String> {
    Class::ALL
        .into_iter()
        .find(|c| c.name() == s)
        .ok_or_else(|| "expected strided-4B, random-4B, gemm-16B or masked-4B".to_string())
}

fn usage(problem: &str) -> ! {
    eprintln!("runner: {problem}");
    std::process::exit(2)
}

fn main() {
    let args = Args::parse();
    let hw = configs::preset("h100").expect("the h100 preset");
    if let Some(path) = &args.generate {
        generate(path, args.gib, args.blocks, &args.classes());
    } else if let Some(path) = &args.stream {
        let threads = args.threads.iter().copied().max().unwrap_or(1);
        let t = Instant::now();
        let (s, requests) = pool(threads).install(|| simulate_file(path, &hw)).unwrap_or_else(|e| fail(&e));
        let secs = t.elapsed().as_secs_f64();
        let bytes = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
        println!(
            "{}: {:.2} GiB, {requests} warp requests, {} wavefronts, {threads} thread(s): {secs:.1} s, {:.1} M warp-requests/s, {:.2} GB/s; peak RSS {}",
            path.display(),
            bytes as f64 / (1u64 << 30) as f64,
            s.memory_total().wavefronts,
            requests as f64 / secs / 1e6,
            bytes as f64 / secs / 1e9,
            peak_rss()
        );
    } else {
        table(&args, &hw);
    }
}

fn fail(e: &dyn std::fmt::Display) -> ! {
    eprintln!("runner: {e}");
    std::process::exit(1)
}

/// A pool as the command-line tool builds it (pinned when it has a thread per CPU).
fn pool(threads: usize) -> rayon::ThreadPool {
    sim_core::thread_pool(Some(threads)).expect("worker threads")
}

/// One single-threaded pool on each of the first `n` cores, its thread pinned there.
fn pinned_pools(n: usize) -> Vec<rayon::ThreadPool> {
    let ids = core_affinity::get_core_ids().unwrap_or_default();
    if ids.len() < n {
        usage(&format!("{n} threads, but this process may run on {} cores", ids.len()));
    }
    ids.into_iter()
        .take(n)
        .map(|id| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(1)
                .start_handler(move |_| {
                    // (a core that cannot be pinned to is a failed measurement, not a slow one)
                    assert!(core_affinity::set_for_current(id), "cannot pin a thread to core {}", id.id);
                })
                .build()
                .expect("worker threads")
        })
        .collect()
}

/// Peak resident set size of this process (`VmHWM`), as the kernel reports it.
fn peak_rss() -> String {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("VmHWM:")).map(|l| l[6..].trim().to_string()))
        .unwrap_or_else(|| "unknown".into())
}

/// The machine's CPU time so far, in clock ticks over all CPUs, from `/proc/stat`: busy
/// (user, nice, system) and stolen (a virtual CPU that had work but that the host ran
/// something else on). `None` where there is no such file.
fn cpu_ticks() -> Option<[u64; 2]> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let f: Vec<u64> = stat.lines().next()?.split_whitespace().skip(1).map_while(|v| v.parse().ok()).collect();
    Some([f.get(..3)?.iter().sum(), *f.get(7)?])
}

/// Steal as a share of busy time between two [`cpu_ticks`] readings, for a report line.
fn steal_share(before: Option<[u64; 2]>, after: Option<[u64; 2]>) -> String {
    match (before, after) {
        (Some([b0, s0]), Some([b1, s1])) if b1 > b0 => {
            format!("; steal {:.1}% of busy CPU time", 100.0 * (s1 - s0) as f64 / (b1 - b0) as f64)
        }
        _ => String::new(),
    }
}

/// Writes `blocks` blocks of the mix (of `classes`) to `path`, or blocks until it holds at
/// least `gib` GiB.
fn generate(path: &Path, gib: f64, blocks: Option<u32>, classes: &[Class]) {
    struct Count<W>(W, u64);
    impl<W: std::io::Write> std::io::Write for Count<W> {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            let n = self.0.write(b)?;
            self.1 += n as u64;
            Ok(n)
        }
        fn flush(&mut self) -> std::io::Result<()> {
            self.0.flush()
        }
    }
    let target = (gib * (1u64 << 30) as f64) as u64;
    let file = std::fs::File::create(path).unwrap_or_else(|e| usage(&format!("{}: {e}", path.display())));
    let out = Count(std::io::BufWriter::with_capacity(1 << 20, file), 0);
    let mut w = binary::Writer::new(out, &path.display().to_string(), false).expect("header");
    let t = Instant::now();
    let mut block = 0;
    // the writer buffers one chunk; the count lags by at most that
    if let Some(n) = blocks {
        common::write_blocks(&mut w, 0..n, classes).expect("write");
        block = n;
    }
    while blocks.is_none() && w_bytes(&w) < target {
        common::write_blocks(&mut w, block..block + 64, classes).expect("write");
        block += 64;
    }
    let out = w.finish().expect("finish");
    println!(
        "{}: {block} blocks, {:.2} GiB in {:.1} s; peak RSS {}",
        path.display(),
        out.1 as f64 / (1u64 << 30) as f64,
        t.elapsed().as_secs_f64(),
        peak_rss()
    );

    fn w_bytes<W: std::io::Write>(w: &binary::Writer<Count<W>>) -> u64 {
        w.output().1
    }
}

/// The best of `reps` runs of each of `threads` (1 first, whatever the list says) on
/// pools of that size, in turns: run `k` of every thread count before run `k + 1` of any,
/// so that a spell when the machine is slow or fast falls on all of them alike, and the
/// parallel efficiency compares times taken side by side.
fn best_each<T: Send>(
    reps: usize,
    threads: &[usize],
    mut f: impl FnMut() -> T + Send,
) -> Vec<(usize, f64, T)> {
    let counts = with_one_first(threads);
    let pools: Vec<rayon::ThreadPool> = counts.iter().map(|&t| pool(t)).collect();
    let mut out: Vec<(usize, f64, Option<T>)> = counts.iter().map(|&t| (t, f64::INFINITY, None)).collect();
    for _ in 0..reps.max(1) {
        for (o, p) in out.iter_mut().zip(&pools) {
            let (dt, r) = best(1, || p.install(&mut f));
            o.1 = o.1.min(dt);
            o.2 = Some(r);
        }
    }
    out.into_iter().map(|(t, dt, r)| (t, dt, r.expect("one run"))).collect()
}

/// The thread counts of `threads` with 1 first (added if missing): the others are set
/// against it.
fn with_one_first(threads: &[usize]) -> Vec<usize> {
    std::iter::once(1).chain(threads.iter().copied().filter(|&t| t != 1)).collect()
}

/// Best time of `reps` runs of `f`.
fn best<T>(reps: usize, mut f: impl FnMut() -> T) -> (f64, T) {
    let mut best = f64::INFINITY;
    let mut out = None;
    for _ in 0..reps.max(1) {
        let t = Instant::now();
        let r = std::hint::black_box(f());
        let dt = t.elapsed().as_secs_f64();
        if std::env::var_os("RUNNER_EACH").is_some() {
            eprintln!("  rep {:.1} ms", dt * 1e3);
        }
        best = best.min(dt);
        out = Some(r);
    }
    (best, out.expect("one run"))
}

fn write_mix(path: &Path, blocks: u32, classes: &[Class]) {
    std::fs::write(path, common::mix_bytes(blocks, classes))
        .unwrap_or_else(|e| usage(&format!("{}: {e}", path.display())));
}

fn table(args: &Args, hw: &Hardware) {
    let want = |part: &str| args.only.as_deref().is_none_or(|o| o == part);
    let dir = std::env::temp_dir();
    let path =
        args.file.clone().unwrap_or_else(|| dir.join(format!("banksim-mix-{}.bsim", std::process::id())));
    let generated = args.file.is_none();
    if generated {
        write_mix(&path, args.blocks(), &args.classes());
    }
    let size = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
    // (each pool is built once, outside the timed runs: starting threads is not the work)
    let one = pool(1);
    let (_, (n, _)) = best(1, || one.install(|| read_decode(&path, false)).unwrap_or_else(|e| fail(&e)));
    let n = n as f64;
    let what = if generated {
        format!("standard mix: {} blocks x {THREADS} threads x {STEPS} steps", args.blocks())
    } else {
        path.display().to_string()
    };
    println!(
        "{what}: {n} warp requests (warp {WARP}, h100), binary trace {:.1} MiB ({:.1} B/request), best of {} runs",
        size as f64 / (1 << 20) as f64,
        size as f64 / n,
        args.reps
    );
    let rate = |secs: f64| n / secs / 1e6;
    let line = |what: &str, secs: f64, note: String| {
        println!("{what:<52}{:>8.1} M warp-requests/s{note}", rate(secs))
    };
    // 1. the limit: read and decode only
    let mut t_decode = f64::NAN;
    if want("decode") || want("file") {
        t_decode =
            best(args.reps, || one.install(|| read_decode(&path, false)).unwrap_or_else(|e| fail(&e))).0;
        line("read + decode only (page cache, 1 thread)", t_decode, String::new());
        let t_split =
            best(args.reps, || one.install(|| read_decode(&path, true)).unwrap_or_else(|e| fail(&e))).0;
        line("read + decode, every lane written out (1 thread)", t_split, String::new());
    }
    // 2. the whole pipeline on one core
    let serial = || one.install(|| simulate_file(&path, hw)).unwrap_or_else(|e| fail(&e));
    // (the serial summary is what the model-alone and parallel runs are checked against;
    // the engine and ceiling parts do not need it)
    let (t_file, s1) = if want("file") || want("pipeline") || want("parallel") {
        let (t, (s, _)) = best(args.reps, serial);
        (t, Some(s))
    } else {
        (f64::NAN, want("model").then(|| serial().0))
    };
    let s1 = || s1.as_ref().expect("the serial summary");
    if want("file") || want("pipeline") {
        let ratio = if t_decode.is_nan() {
            String::new()
        } else {
            format!("   ({:.2}x the read + decode time)", t_file / t_decode)
        };
        line("read + decode + bank model (1 thread)", t_file, ratio);
    }
    // 3. the bank model alone
    if want("model") {
        let (mut chunks, _) = decoded_chunks(&path).unwrap_or_else(|e| fail(&e));
        let (t_model, w) = best(args.reps, || model_only(&chunks, hw));
        line("bank model alone (decoded requests, 1 thread)", t_model, String::new());
        assert_eq!(w, s1().memory_total().wavefronts, "the two paths disagree");
        chunks.iter_mut().for_each(|c| c.split(WARP).expect("decoded"));
        let (t_exp, w) = best(args.reps, || model_expanded(&chunks, hw));
        line("  every lane written out, no memo", t_exp, String::new());
        assert_eq!(w, s1().memory_total().wavefronts, "the two paths disagree");
    }
    if want("classes") {
        for class in Class::ALL {
            let p = dir.join(format!("banksim-mix-{}-{}.bsim", class.name(), std::process::id()));
            write_mix(&p, args.blocks() / 4, &[class]);
            let (mut chunks, k) = decoded_chunks(&p).unwrap_or_else(|e| fail(&e));
            let (t, _) = best(args.reps, || model_only(&chunks, hw));
            chunks.iter_mut().for_each(|c| c.split(WARP).expect("decoded"));
            let (te, _) = best(args.reps, || model_expanded(&chunks, hw));
            let (td, _) =
                best(args.reps, || one.install(|| read_decode(&p, false)).unwrap_or_else(|e| fail(&e)));
            let k = k as f64;
            println!(
                "{:<52}{:>8.1} M warp-requests/s   (no memo {:.1} M/s; read + decode {:.1} M/s, {:.1} B/request)",
                format!("  bank model alone, {} only", class.name()),
                k / t / 1e6,
                k / te / 1e6,
                k / td / 1e6,
                std::fs::metadata(&p).map(|m| m.len()).unwrap_or(0) as f64 / k
            );
            let _ = std::fs::remove_file(&p);
        }
    }
    // 4. parallel over chunks (each thread count in turn with one thread: see `best_each`)
    if want("parallel") && args.threads.iter().any(|&t| t > 1) {
        let runs =
            best_each(args.reps, &args.threads, || simulate_file(&path, hw).unwrap_or_else(|e| fail(&e)));
        let alone = runs[0].1;
        for (threads, t, (s, _)) in &runs[1..] {
            assert_eq!(s, s1(), "parallel and serial summaries differ");
            line(
                &format!("read + decode + bank model ({threads} threads)"),
                *t,
                format!(
                    "   (parallel efficiency {:.2}; 1 thread in turn with it: {:.1} M/s)",
                    alone / (t * *threads as f64),
                    rate(alone)
                ),
            );
        }
    }
    // 5. the cycle engine (whole trace in memory, grouped as `banksim run` does)
    if want("engine") {
        let requests = engine_requests(&path, hw);
        let runs =
            best_each(args.reps, &args.threads, || engine::run(hw, &requests, &EngineOptions::default()));
        let base = runs[0].1;
        for (threads, t, r) in runs {
            let cycles = r.map(|r| r.cycles).unwrap_or(0);
            let eff = if threads > 1 {
                format!(", parallel efficiency {:.2}", base / (t * threads as f64))
            } else {
                String::new()
            };
            line(
                &format!("cycle engine ({threads} thread{})", if threads > 1 { "s" } else { "" }),
                t,
                format!("   ({cycles} cycles{eff})"),
            );
        }
    }
    // 6. the machine's own ceiling: T independent single-threaded copies side by side
    if args.only.as_deref() == Some("ceiling") {
        ceiling(args, hw, &path, n);
    }
    // 7. the parallel jobs against that ceiling, in turns
    if args.only.as_deref() == Some("scaling") {
        scaling(args, hw, &path, n);
    }
    if generated {
        let _ = std::fs::remove_file(&path);
    }
}

/// The parallel efficiency the machine itself allows: `T` copies of one single-threaded
/// job (no shared state but the read-only input) run at once on `T` threads, against
/// one copy alone. Frequency that drops as more cores run, shared caches and memory
/// bandwidth all show here; synchronisation and load imbalance, which copies do not
/// have, do not. For the read + decode + bank model path (each copy reads the whole
/// file) and the cycle engine (each copy a serial run of the whole mix).
fn ceiling(args: &Args, hw: &Hardware, path: &Path, n: f64) {
    let requests = engine_requests(path, hw);
    for (what, job) in jobs(hw, path, &requests) {
        // (one copy first, whatever `--threads` says: the others are set against it)
        let mut alone = f64::NAN;
        for threads in with_one_first(&args.threads) {
            let (t, ()) = best(args.reps.min(3), || {
                std::thread::scope(|s| {
                    for _ in 0..threads {
                        s.spawn(|| pool(1).install(&job));
                    }
                })
            });
            if threads == 1 {
                alone = t;
            }
            println!(
                "{:<52}{:>8.1} M warp-requests/s   ({threads} copies: {:.1} M/s each, efficiency {:.2})",
                format!("ceiling, {what}"),
                n * threads as f64 / t / 1e6,
                n / t / 1e6,
                alone / t
            );
        }
    }
}

/// The jobs that `ceiling` and `scaling` set against copies of themselves, on the
/// current rayon pool: the file path and the cycle engine, each returning the
/// wavefronts (so that runs can be checked to agree).
type Job<'a> = Box<dyn Fn() -> u64 + Sync + 'a>;
fn jobs<'a>(
    hw: &'a Hardware,
    path: &'a Path,
    requests: &'a traces::Requests,
) -> [(&'static str, Job<'a>); 2] {
    [
        (
            "read + decode + bank model",
            Box::new(move || {
                simulate_file(path, hw).map(|(s, _)| s.memory_total().wavefronts).unwrap_or_else(|e| fail(&e))
            }),
        ),
        (
            "cycle engine",
            Box::new(move || {
                engine::run(hw, requests, &EngineOptions::default()).expect("the mix runs").total.wavefronts
            }),
        ),
    ]
}

/// Each parallel job on `T` threads set against `T` independent copies of its serial
/// run at once, and both against one copy alone: a round times the three once each,
/// one after the other, and `--reps` rounds (after one to warm up) are printed with
/// their medians. On a machine whose cores slow each other down (a shared host: clock,
/// caches, memory, neighbours) the parallel efficiency against one thread cannot
/// exceed what the copies reach, and `parallel / copies` is the part of the loss that
/// is the job's own (synchronisation, load imbalance, serial steps). The medians' line
/// ends with the share of busy CPU time the host stole from this virtual machine over
/// the rounds (`/proc/stat`): a parallel step waits for its slowest thread, and a thread
/// whose virtual CPU the host has taken away is slowest.
///
/// A round also runs the serial job alone on each of the first `T` cores in turn, pinned
/// there. On a virtual machine the cores are not alike (at one moment they can differ
/// by nearly 2x), so one unpinned thread's speed depends on the core it lands on. The sum of the `T` cores' own rates is what `T` threads
/// could reach with nothing lost; `efficiency against the cores` is the parallel rate
/// over that sum.
fn scaling(args: &Args, hw: &Hardware, path: &Path, n: f64) {
    let requests = engine_requests(path, hw);
    let jobs = jobs(hw, path, &requests);
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    for threads in args.threads.iter().copied().filter(|&t| t > 1) {
        // (pools built once: starting threads is not the work)
        let ones: Vec<rayon::ThreadPool> = (0..threads).map(|_| pool(1)).collect();
        let cores = pinned_pools(threads);
        let many = pool(threads);
        for (what, job) in &jobs {
            let job = &**job;
            let expect = ones[0].install(job);
            // per round: seconds alone, on `threads` threads, and for `threads` copies;
            // the sum of the cores' rates alone (M/s), and the slowest and fastest core
            let mut rounds: Vec<[f64; 3]> = Vec::new();
            let mut sums: Vec<[f64; 3]> = Vec::new();
            let mut ticks = None;
            // (the first repetition is not printed: it runs on a pool fault in the memory
            // that later runs reuse)
            for round in 0..=args.reps.max(1) {
                // (`best` of one run: its time, timed as every other part times)
                let alone = best(1, || assert_eq!(ones[0].install(job), expect)).0;
                let parallel = best(1, || assert_eq!(many.install(job), expect, "thread counts disagree")).0;
                let copies = best(1, || {
                    std::thread::scope(|s| {
                        for one in &ones {
                            s.spawn(move || assert_eq!(one.install(job), expect));
                        }
                    })
                })
                .0;
                let each: Vec<f64> = cores
                    .iter()
                    .map(|core| n / best(1, || assert_eq!(core.install(job), expect)).0 / 1e6)
                    .collect();
                let sum = [
                    each.iter().sum::<f64>(),
                    each.iter().copied().fold(f64::INFINITY, f64::min),
                    each.iter().copied().fold(0.0, f64::max),
                ];
                if round == 0 {
                    ticks = cpu_ticks();
                    continue;
                }
                println!(
                    "scaling, {what}, round {round}: 1 thread {:.1} M/s; {threads} threads {:.1} M/s (efficiency {:.2}); {threads} copies {:.1} M/s ({:.2}); cores alone {:.1}-{:.1} M/s, sum {:.1} (efficiency against the cores {:.2})",
                    n / alone / 1e6,
                    n / parallel / 1e6,
                    alone / (parallel * threads as f64),
                    n * threads as f64 / copies / 1e6,
                    alone / copies,
                    sum[1],
                    sum[2],
                    sum[0],
                    n / parallel / 1e6 / sum[0],
                );
                rounds.push([alone, parallel, copies]);
                sums.push(sum);
            }
            // medians of each column: a single-threaded run is at the mercy of the core
            // it lands on, and the best of several is the luckiest moment
            let [alone, parallel, copies] = [0, 1, 2].map(|k| median(rounds.iter().map(|r| r[k]).collect()));
            let against_cores =
                median(rounds.iter().zip(&sums).map(|(r, s)| n / r[1] / 1e6 / s[0]).collect());
            println!(
                "scaling, {what}, {threads} threads, medians of {} rounds: 1 thread {:.1} M/s, {threads} threads {:.1} M/s, {threads} copies {:.1} M/s, cores alone sum {:.1} M/s; efficiency {:.2}; copies {:.2}; parallel / copies {:.2}; efficiency against the cores {against_cores:.2}{}",
                rounds.len(),
                n / alone / 1e6,
                n / parallel / 1e6,
                n * threads as f64 / copies / 1e6,
                median(sums.iter().map(|s| s[0]).collect()),
                alone / (parallel * threads as f64),
                alone / copies,
                copies / (parallel * threads as f64),
                steal_share(ticks, cpu_ticks()),
            );
        }
    }
}

/// The whole trace in memory as warp requests, as `banksim run --cycles` takes them
/// ([`pipeline::stream::load`], here on one thread).
fn engine_requests(path: &Path, hw: &Hardware) -> traces::Requests {
    pool(1)
        .install(|| {
            let how = pipeline::stream::Reading::new(0);
            pipeline::stream::load::<traces::Requests>(pipeline::stream::open(path)?, hw, &how)
        })
        .unwrap_or_else(|e| fail(&e))
        .requests
}
