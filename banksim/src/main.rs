//! `banksim`: the command-line tool. Glue only: parse arguments, call the crates, print.

use anyhow::{bail, Context, Result};
use clap::{Args, Parser, Subcommand};
use sim_core::engine::{self, DepPolicy, EngineOptions, EngineReport, RequestTiming, Workload};
use sim_core::{stats::Summary, BankModel, Hardware, Op};
use std::io::Write;
use std::path::{Path, PathBuf};
use traces::{Requests, Trace};

/// Trace-driven simulator of GPU shared-memory banks.
///
/// Replays per-thread shared-memory traces on a configurable bank model (banks, bank
/// width, warp size, phases, broadcast rules, mapping) and reports wavefronts and bank
/// conflicts per request. The h100 preset reproduces Nsight Compute's counts on a real
/// H100.
#[derive(Parser)]
#[command(name = "banksim", version, propagate_version = true)]
#[command(after_help = "Start with `banksim demo`, then `banksim run --config h100 TRACE.csv`.\n\
Trace format: CSV with the header `block,thread,step,op,addr,bytes[,gap,dep]` (see README).")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Simulate a trace file and print wavefronts and conflicts by op.
    Run(RunArgs),
    /// List the built-in hardware presets (or print one as RON with --show).
    Presets {
        /// Print this preset's RON source (a starting point for your own config).
        #[arg(long, value_name = "NAME")]
        show: Option<String>,
    },
    /// Run built-in traces (a 32x32 tile transpose, unpadded and padded) with no files.
    Demo(HardwareArgs),
    /// Predict the wgpu stride sweep (shared/groundtruth/h100/wgpu_stridebench.rs) with the
    /// cycle engine: cycles per stride and the ratio to stride 1.
    Stridebench(StridebenchArgs),
    /// Measure simulation speed (warp requests per second) at several thread counts.
    Bench(BenchArgs),
    /// Convert a CUDA trace (Accel-Sim kernel-N.traceg[.xz], NVBit mem_trace output) to a banksim trace.
    Import(cmd_import::ImportArgs),
    /// Generate a synthetic trace (strided, tile, reduction, scan, aos, gemm, random).
    Gen(sweep::GenArgs),
    /// Run a study: presets x hardware fields x workloads, in parallel, resumable.
    Sweep(sweep::SweepArgs),
    /// Join the results of sweep shards.
    Merge(sweep::MergeArgs),
    /// Draw PNG charts and an index page from a sweep or run output folder.
    Report(report::ReportArgs),
    /// Find the padding, XOR swizzle or AoS->SoA change that removes bank conflicts.
    Advise(advise::AdviseArgs),
    /// Convert a trace between the text (CSV) and binary formats (by OUT's extension, or --to).
    Convert(cmd_convert::ConvertArgs),
    /// Capture the shared-memory trace of a WGSL compute kernel run with wgpu (instrumented with naga).
    Capture(cmd_capture::CaptureArgs),
    /// Time an uninstrumented WGSL compute kernel on a GPU (timestamp queries, warm-up, N repetitions).
    Measure(cmd_measure::MeasureArgs),
    /// Fit the timing model to measured kernel runs; predicted vs measured speedups (CSV, RON, PNG).
    Calibrate(cmd_calibrate::CalibrateArgs),
}

#[derive(Args)]
struct EngineArgs {
    /// Also run the cycle engine: total cycles, per-SM cycles, pipe utilisation, stalls.
    #[arg(long)]
    cycles: bool,
    /// Worker threads for the engine (default: all cores; with one per core each is pinned
    /// to its core). Results do not depend on it.
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    /// What a request without a `dep` value waits for.
    #[arg(long, value_enum, default_value = "previous-load")]
    dep: DepArg,
    /// Threads per block (default: the trace's largest thread index + 1).
    #[arg(long, value_name = "N")]
    threads_per_block: Option<u32>,
    /// Shared-memory bytes per block for occupancy (default: the highest byte the trace touches).
    #[arg(long, value_name = "BYTES")]
    smem_per_block: Option<u32>,
    /// Write per-SM cycles, pipe utilisation and stalls as CSV.
    #[arg(long, value_name = "OUT.csv")]
    per_sm: Option<PathBuf>,
    /// Simulate a dispatch of N blocks: block b does what the trace's block b mod B does
    /// (B blocks in the trace). For a capture of a few workgroups of a kernel whose
    /// workgroups all make the same shared-memory accesses.
    #[arg(long, value_name = "N", requires = "cycles")]
    grid: Option<u32>,
    /// Issue cycles per unit of the trace's `gap`: 1 when gaps are cycles; for captured
    /// traces (gaps in IR operations) the calibrated value, e.g. from `banksim calibrate`.
    #[arg(long, value_name = "CYCLES", default_value_t = 1.0, requires = "cycles")]
    cycles_per_op: f64,
    /// Scheduler cycles each operation of `gap` holds (issue slots, whatever its latency
    /// `--cycles-per-op`): the calibration's `issue_per_op` (1.0 on the H100). Default:
    /// the preset's `gap_issue_fraction` (the whole gap).
    #[arg(long, value_name = "CYCLES", requires = "cycles")]
    issue_per_op: Option<f64>,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum DepArg {
    /// Wait for the warp's previous load to complete.
    PreviousLoad,
    /// Only wait for program order.
    Independent,
}

#[derive(Args)]
struct StridebenchArgs {
    #[command(flatten)]
    hw: HardwareArgs,
    /// Workgroups (the measured sweep used 4224 = 132 x 32).
    #[arg(long, default_value_t = 4224)]
    blocks: u32,
    /// Chase steps per invocation (the measured sweep used 4096).
    #[arg(long, default_value_t = 4096)]
    iters: u32,
    /// Cycles of other (non-shared-memory) work per chase step, issued on the warp's scheduler.
    #[arg(long, default_value_t = 0)]
    gap: u32,
    /// Strides to run, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "1,0,2,3,4,5,8,16,17,32,33,64")]
    strides: Vec<u32>,
    /// Worker threads (default: all cores; with one per core each is pinned to its core).
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
}

#[derive(Args)]
struct BenchArgs {
    /// Thread counts to measure, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "1,2")]
    threads: Vec<usize>,
    /// Workgroups of the stride-sweep workload used for the engine.
    #[arg(long, default_value_t = 1056)]
    blocks: u32,
    /// Chase steps per invocation of that workload.
    #[arg(long, default_value_t = 1024)]
    iters: u32,
}

#[derive(Args)]
pub(crate) struct HardwareArgs {
    /// Preset name (see `banksim presets`) or path to a RON config file.
    #[arg(long, short, default_value = configs::DEFAULT_PRESET, value_name = "PRESET|FILE")]
    config: String,
    /// Override the warp size (lanes per warp), e.g. 16, 32, 64.
    #[arg(long, value_name = "LANES")]
    warp: Option<u32>,
    /// Override the number of banks.
    #[arg(long, value_name = "N")]
    banks: Option<u32>,
    /// Override the bank word width in bytes.
    #[arg(long, value_name = "BYTES")]
    bank_bytes: Option<u32>,
    /// Override the number of SMs (CUs) of the cycle engine.
    #[arg(long, value_name = "N")]
    sms: Option<u32>,
}

#[derive(Args)]
struct RunArgs {
    #[command(flatten)]
    hw: HardwareArgs,
    /// Write one CSV row per warp request (block,warp,step,op,bytes,active,wavefronts,ideal,conflicts).
    #[arg(long, value_name = "OUT.csv")]
    per_request: Option<PathBuf>,
    /// Write a run folder for `banksim report`: requests.csv (per request, with cycles
    /// when --cycles), picture.csv (the worst request's bank x lane cells), summary.json.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    #[command(flatten)]
    engine: EngineArgs,
    /// Read a binary trace with positional reads, not mapped into memory. Mapping is
    /// faster on one core (no copy out of the page cache; on many threads it measured
    /// about even), but a file that another process truncates while banksim decodes it
    /// can end banksim with SIGBUS instead of an error: use this for a trace that may
    /// still be written.
    #[arg(long)]
    no_mmap: bool,
    /// The trace: text CSV (`block,thread,step,op,addr,bytes[,gap,dep[,wait]]`) or
    /// binary (`banksim convert`), told apart by its first bytes.
    ///
    /// Without --cycles, --per-request or --out, a binary trace, or a text trace whose
    /// block ids never go down, is streamed: memory stays bounded whatever its size.
    trace: PathBuf,
}

mod advise;
mod cmd_calibrate;
mod cmd_capture;
mod cmd_convert;
mod cmd_import;
mod cmd_measure;
mod report;
mod slurm;
mod stream;
mod sweep;

fn main() {
    if let Err(e) = real_main() {
        // `banksim ... | head` closing the pipe early is not an error.
        if e.chain().any(|c| {
            c.downcast_ref::<std::io::Error>().is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
        }) {
            return;
        }
        eprintln!("error: {e:#}");
        std::process::exit(1);
    }
}

fn real_main() -> Result<()> {
    match Cli::parse().command {
        Command::Run(args) => run(&args),
        Command::Presets { show } => presets(show.as_deref()),
        Command::Demo(hw) => demo(&hw),
        Command::Stridebench(args) => stridebench(&args),
        Command::Bench(args) => bench(&args),
        Command::Import(args) => cmd_import::run(&args),
        Command::Gen(args) => sweep::gen(&args),
        Command::Sweep(args) => sweep::sweep(&args),
        Command::Merge(args) => sweep::merge(&args),
        Command::Report(args) => report::report(&args),
        Command::Advise(args) => advise::advise(&args),
        Command::Convert(args) => cmd_convert::convert(&args),
        Command::Capture(args) => cmd_capture::run(&args),
        Command::Measure(args) => cmd_measure::run(&args),
        Command::Calibrate(args) => cmd_calibrate::run(&args),
    }
}

pub(crate) fn hardware(args: &HardwareArgs) -> Result<Hardware> {
    let hw = configs::load(&args.config)?;
    let timing = match (args.sms, &hw.timing) {
        (Some(sms), Some(t)) => Some(Some(sim_core::Timing { sms, ..t.clone() })),
        (Some(_), None) => bail!("--sms: preset `{}` has no timing parameters", hw.name),
        (None, _) => None,
    };
    let overrides = configs::Overrides {
        warp: args.warp,
        banks: args.banks,
        bank_bytes: args.bank_bytes,
        timing,
        ..Default::default()
    };
    Ok(configs::apply_overrides(&hw, &overrides, "command-line overrides")?)
}

fn run(args: &RunArgs) -> Result<()> {
    let hw = hardware(&args.hw)?;
    let e = &args.engine;
    // a binary trace that only needs the bank model streams: memory stays bounded
    let only_totals = !e.cycles && args.per_request.is_none() && args.out.is_none();
    let binary = traces::binary::is_binary(&args.trace).unwrap_or(false);
    if only_totals && binary {
        let t = with_threads(e.threads, || {
            stream::run_binary(&args.trace, &hw, e.threads_per_block, !args.no_mmap)
        })??;
        let mut out = std::io::stdout().lock();
        print_totals(&mut out, &t.source, t.records, t.requests, &hw, &t.summary)?;
        return Ok(());
    }
    // so does a text trace whose blocks come in order (else it is read whole)
    if only_totals && !binary {
        let streamed = with_threads(e.threads, || stream::run_text(&args.trace, &hw, e.threads_per_block))?;
        if let Some(t) = streamed? {
            let mut out = std::io::stdout().lock();
            print_totals(&mut out, &t.source, t.records, t.requests, &hw, &t.summary)?;
            return Ok(());
        }
    }
    // the cycle engine and the per-request outputs need every request at once: a binary
    // trace is split into them chunk by chunk, a text trace's records are grouped
    let (source, records, requests) = if binary {
        let l = with_threads(e.threads, || {
            stream::load_binary(&args.trace, &hw, e.threads_per_block, !args.no_mmap)
        })??;
        (l.source, l.records, l.requests)
    } else {
        let trace = traces::read_any(&args.trace)?;
        check_records(&trace, &hw, e.threads_per_block)?;
        let requests = Requests::group(&trace, hw.warp)?;
        (trace.source.clone(), trace.len() as u64, requests)
    };
    let stretched = e.grid.is_some() || e.cycles_per_op != 1.0;
    if stretched && (args.per_request.is_some() || args.out.is_some()) {
        bail!("--grid and --cycles-per-op give cycles for a workload other than the trace's requests: they do not combine with --per-request or --out");
    }
    if !(e.cycles_per_op.is_finite() && e.cycles_per_op >= 0.0) {
        bail!("--cycles-per-op {}: expected a finite number >= 0", e.cycles_per_op);
    }
    if e.grid == Some(0) {
        bail!("--grid 0: expected at least one block");
    }
    let mut hw = hw;
    if let Some(ipo) = e.issue_per_op {
        if !(ipo.is_finite() && ipo >= 0.0) {
            bail!("--issue-per-op {ipo}: expected a finite number >= 0");
        }
        if let Some(t) = hw.timing.as_mut() {
            t.gap_issue_fraction = sim_core::gap_issue_fraction(ipo, e.cycles_per_op);
        }
    }
    let report = if e.cycles {
        let opts = EngineOptions {
            dep_policy: match e.dep {
                DepArg::PreviousLoad => DepPolicy::PreviousLoad,
                DepArg::Independent => DepPolicy::Independent,
            },
            threads_per_block: e.threads_per_block,
            smem_per_block: e.smem_per_block,
            per_request: args.per_request.is_some() || args.out.is_some(),
        };
        let work = sim_core::replicate::Replicated::new(&requests, e.grid, e.cycles_per_op);
        Some(with_threads(e.threads, || engine::run(&hw, &work, &opts))??)
    } else {
        None
    };
    let timings = report.as_ref().map(|r| r.requests.as_slice());
    let summary = match &args.per_request {
        Some(path) => {
            let mut out = AtomicFile::create(path)?;
            let s = simulate(&hw, &requests, Some(&mut out.writer), timings)?;
            out.commit()?;
            s
        }
        None => simulate(&hw, &requests, None, None)?,
    };
    if let Some(dir) = &args.out {
        write_run_folder(dir, &source, &hw, &requests, timings, report.as_ref())?;
    }
    let mut out = std::io::stdout().lock();
    print_totals(&mut out, &source, records, requests.len() as u64, &hw, &summary)?;
    if let Some(report) = &report {
        print_engine(&mut out, report)?;
        if let Some(path) = &e.per_sm {
            let mut f = AtomicFile::create(path)?;
            write_per_sm(&mut f.writer, report)?;
            f.commit()?;
        }
    }
    Ok(())
}

/// The run folder `banksim report` reads.
fn write_run_folder(
    dir: &Path,
    source: &str,
    hw: &Hardware,
    requests: &Requests,
    timings: Option<&[RequestTiming]>,
    report: Option<&EngineReport>,
) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("{}: cannot create", dir.display()))?;
    let mut f = AtomicFile::create(&dir.join("requests.csv"))?;
    simulate(hw, requests, Some(&mut f.writer), timings)?;
    f.commit()?;
    // the picture of the first request with the most wavefronts
    let mut model = BankModel::new(hw);
    let worst = requests
        .iter()
        .enumerate()
        .max_by_key(|(i, r)| (model.evaluate(&r.warp_request()).wavefronts, std::cmp::Reverse(*i)))
        .map(|(i, _)| i);
    let mut what = String::new();
    if let Some(i) = worst {
        let r = requests.get(i);
        let (o, cells) = model.picture(&r.warp_request());
        what = format!(
            "block {} warp {} step {} ({} {}-byte, {} wavefronts)",
            r.block, r.warp, r.step, r.op, r.bytes, o.wavefronts
        );
        let mut f = AtomicFile::create(&dir.join("picture.csv"))?;
        writeln!(f.writer, "wavefront,bank,lane,word")?;
        for c in cells {
            writeln!(f.writer, "{},{},{},{}", c.wavefront, c.bank, c.lane, c.word)?;
        }
        f.commit()?;
    }
    let summary = serde_json::json!({
        "trace": source,
        "hardware": hw.name,
        "banks": hw.banks,
        "warp": hw.warp,
        "pipe_cycles_per_wavefront": hw.timing.as_ref().map(|t| t.pipe_cycles_per_wavefront),
        "cycles": report.map(|r| r.cycles),
        "picture": what,
    });
    let mut f = AtomicFile::create(&dir.join("summary.json"))?;
    serde_json::to_writer_pretty(&mut f.writer, &summary)?;
    f.commit()
}

/// Runs `f` on a rayon pool of `threads` workers (default: all cores, then pinned one to
/// a core: see `sim_core::thread_pool`).
pub(crate) fn with_threads<T: Send>(threads: Option<usize>, f: impl FnOnce() -> T + Send) -> Result<T> {
    if threads == Some(0) {
        bail!("--threads must be at least 1");
    }
    Ok(sim_core::thread_pool(threads).context("cannot start worker threads")?.install(f))
}

fn print_engine(out: &mut dyn Write, r: &EngineReport) -> std::io::Result<()> {
    let sms = r.sms.len();
    let active: Vec<&engine::SmStats> = r.sms.iter().filter(|s| s.blocks > 0).collect();
    let mut cycles: Vec<u64> = active.iter().map(|s| s.cycles).collect();
    cycles.sort_unstable();
    let util: Vec<f64> = active.iter().map(|s| s.pipe_utilisation()).collect();
    let mean_util = util.iter().sum::<f64>() / util.len().max(1) as f64;
    writeln!(out, "\ncycle engine: {} cycles", r.cycles)?;
    writeln!(
        out,
        "  occupancy: {} blocks/SM resident ({} warps/block, {} B shared memory/block); {} of {sms} SMs used",
        r.blocks_per_sm,
        r.warps_per_block,
        r.smem_per_block,
        active.len()
    )?;
    if let (Some(min), Some(max)) = (cycles.first(), cycles.last()) {
        writeln!(out, "  cycles per SM: min {min}, median {}, max {max}", cycles[cycles.len() / 2])?;
    }
    let max_util = util.iter().cloned().fold(0.0, f64::max);
    writeln!(out, "  shared-memory pipe utilisation: mean {mean_util:.3}, max {max_util:.3}")?;
    let s = &r.total.stalls;
    writeln!(
        out,
        "  stall cycles (summed over requests): issue {}, latency {}, pipe queue {}, bank conflict {}, barrier {}",
        s.issue, s.latency, s.pipe_queue, s.bank_conflict, s.barrier
    )
}

fn write_per_sm(w: &mut dyn Write, r: &EngineReport) -> std::io::Result<()> {
    writeln!(w, "sm,blocks,requests,wavefronts,cycles,pipe_busy,pipe_utilisation,stall_issue,stall_latency,stall_pipe_queue,stall_bank_conflict,stall_barrier")?;
    for (i, s) in r.sms.iter().enumerate() {
        let st = &s.stalls;
        writeln!(
            w,
            "{i},{},{},{},{},{},{:.6},{},{},{},{},{}",
            s.blocks,
            s.requests,
            s.wavefronts,
            s.cycles,
            s.pipe_busy,
            s.pipe_utilisation(),
            st.issue,
            st.latency,
            st.pipe_queue,
            st.bank_conflict,
            st.barrier
        )?;
    }
    Ok(())
}

/// Every access must lie inside the preset's shared memory.
/// Every access must lie inside the preset's shared memory, be naturally aligned (the
/// hardware faults on a misaligned access), and come from a thread inside the block.
pub(crate) fn check_records(trace: &Trace, hw: &Hardware, threads_per_block: Option<u32>) -> Result<()> {
    for (r, &line) in trace.records.iter().zip(&trace.lines) {
        let at = || match line {
            0 => trace.source.clone(),
            l => format!("{}:{l}", trace.source),
        };
        if let Some(problem) = thread_problem(r.thread, threads_per_block) {
            bail!("{}: {problem}", at());
        }
        if let Some(problem) = access_problem(hw, r.op, r.addr, r.bytes) {
            bail!("{}: {problem}", at());
        }
    }
    Ok(())
}

/// Why `thread` cannot be in a block of `threads_per_block` threads, if it cannot.
pub(crate) fn thread_problem(thread: u32, threads_per_block: Option<u32>) -> Option<String> {
    let n = threads_per_block?;
    (thread >= n).then(|| format!("thread {thread} is beyond the block size --threads-per-block {n}"))
}

/// Why an access cannot run on `hw`, if it cannot: beyond shared memory, or misaligned.
pub(crate) fn access_problem(hw: &Hardware, op: Op, addr: u32, bytes: u8) -> Option<String> {
    if !op.is_memory() {
        return None;
    }
    if addr as u64 + bytes as u64 > hw.smem_per_sm as u64 {
        return Some(format!(
            "address {addr:#x} + {bytes} bytes is beyond the {} bytes of shared memory of `{}`",
            hw.smem_per_sm, hw.name
        ));
    }
    (!addr.is_multiple_of(bytes as u32)).then(|| {
        format!(
            "misaligned {bytes}-byte {op} at address {addr:#x}: shared-memory accesses must be aligned to their width \
             (the GPU raises a misaligned-address fault)"
        )
    })
}

/// Bank-model totals; with `rows`, one CSV row per request (plus its engine timing
/// when `timings`, sorted by request index, is given).
fn simulate(
    hw: &Hardware,
    requests: &Requests,
    mut rows: Option<&mut dyn Write>,
    timings: Option<&[RequestTiming]>,
) -> Result<Summary> {
    let mut model = BankModel::new(hw);
    let mut summary = Summary::default();
    if let Some(w) = rows.as_deref_mut() {
        write!(w, "block,warp,step,op,bytes,active,wavefronts,ideal,conflicts")?;
        writeln!(w, "{}", if timings.is_some() { ",sm,issue,pipe_start,done" } else { "" })?;
    }
    let mut timing = timings.unwrap_or(&[]).iter().peekable();
    for (i, r) in requests.iter().enumerate() {
        let o = model.evaluate(&r.warp_request());
        summary.add(r.op, r.lanes.len(), o);
        if let Some(w) = rows.as_deref_mut() {
            write!(
                w,
                "{},{},{},{},{},{},{},{},{}",
                r.block,
                r.warp,
                r.step,
                r.op,
                r.bytes,
                r.lanes.len(),
                o.wavefronts,
                o.ideal,
                o.conflicts()
            )?;
            if timings.is_some() {
                match timing.next_if(|t| t.index as usize == i) {
                    Some(t) => write!(w, ",{},{},{},{}", t.sm, t.issue, t.pipe_start, t.done)?,
                    None => write!(w, ",,,,")?,
                }
            }
            writeln!(w)?;
        }
    }
    Ok(summary)
}

fn print_summary(
    out: &mut dyn Write,
    trace: &Trace,
    requests: &Requests,
    hw: &Hardware,
    s: &Summary,
) -> std::io::Result<()> {
    print_totals(out, &trace.source, trace.len() as u64, requests.len() as u64, hw, s)
}

fn print_totals(
    out: &mut dyn Write,
    source: &str,
    records: u64,
    requests: u64,
    hw: &Hardware,
    s: &Summary,
) -> std::io::Result<()> {
    writeln!(
        out,
        "{}: {} records, {} warp requests, warp {} on {} ({} banks x {} B)",
        source, records, requests, hw.warp, hw.name, hw.banks, hw.bank_bytes
    )?;
    writeln!(
        out,
        "{:<6}{:>10} {:>9} {:>11} {:>9} {:>10} {:>8}",
        "op", "requests", "lanes", "wavefronts", "ideal", "conflicts", "ratio"
    )?;
    let mut row = |name: &str, t: &sim_core::stats::OpTotals| {
        let ratio = if t.ideal == 0 { 0.0 } else { t.wavefronts as f64 / t.ideal as f64 };
        writeln!(
            out,
            // a space between columns even when a count outgrows its width
            "{:<6}{:>10} {:>9} {:>11} {:>9} {:>10} {:>8.2}",
            name, t.requests, t.lanes, t.wavefronts, t.ideal, t.conflicts, ratio
        )
    };
    for op in Op::ALL.into_iter().filter(|op| op.is_memory()) {
        let t = s.op(op);
        if t.requests > 0 {
            row(op.name(), t)?;
        }
    }
    row("total", &s.memory_total())?;
    let bars = s.op(Op::Barrier).requests;
    if bars > 0 {
        writeln!(out, "({bars} warp barriers)")?;
    }
    for op in [Op::GlobalLoad, Op::GlobalStore] {
        let t = s.op(op);
        if t.requests > 0 {
            writeln!(
                out,
                "({} global {}s: {} lanes, {} 128-byte lines through the pipe)",
                t.requests,
                if op == Op::GlobalLoad { "load" } else { "store" },
                t.lanes,
                t.wavefronts
            )?;
        }
    }
    Ok(())
}

fn presets(show: Option<&str>) -> Result<()> {
    let mut out = std::io::stdout().lock();
    if let Some(name) = show {
        let src = configs::preset_source(name).with_context(|| {
            format!("unknown preset `{name}`: known presets are {}", configs::preset_names().join(", "))
        })?;
        write!(out, "{src}")?;
        return Ok(());
    }
    writeln!(
        out,
        "{:<8}{:>6}{:>6}{:>6}  {:<20}{:<18}{:<11}{:>9}",
        "preset", "banks", "word", "warp", "lanes/phase 1..16B", "loads", "pair-merge", "smem/SM"
    )?;
    for name in configs::preset_names() {
        let hw = configs::preset(name)?;
        let p = hw.phase_lanes;
        writeln!(
            out,
            "{:<8}{:>6}{:>6}{:>6}  {:<20}{:<18}{:<11}{:>9}",
            name,
            hw.banks,
            hw.bank_bytes,
            hw.warp,
            format!("{}/{}/{}/{}/{}", p.b1, p.b2, p.b4, p.b8, p.b16),
            format!("{:?}", hw.broadcast),
            if hw.load_pair_merge.is_some() { "yes" } else { "no" },
            hw.smem_per_sm
        )?;
    }
    Ok(())
}

fn demo(args: &HardwareArgs) -> Result<()> {
    let hw = hardware(args)?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "banksim demo: a 32x32 float tile transposed through shared memory on `{}`", hw.name)?;
    writeln!(
        out,
        "(each thread stores sh[ty][tx], barrier, loads sh[tx][ty]; rows are 32 + pad floats apart)\n"
    )?;
    for pad in [0, 1] {
        let trace = traces::gen::transpose(32, pad, 4);
        let requests = Requests::group(&trace, hw.warp)?;
        let summary = simulate(&hw, &requests, None, None)?;
        print_summary(&mut out, &trace, &requests, &hw, &summary)?;
        writeln!(out)?;
    }
    writeln!(out, "Unpadded, each column read hits one bank 32 times (32 wavefronts per warp);")?;
    writeln!(out, "one float of padding per row spreads a column over all banks (1 wavefront).")?;
    writeln!(out, "Next: `banksim presets`, `banksim run --config h100 TRACE.csv --per-request out.csv`.")?;
    Ok(())
}

fn stridebench(args: &StridebenchArgs) -> Result<()> {
    let hw = hardware(&args.hw)?;
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "stride sweep on `{}`: {} workgroups of 256, {} dependent loads each, gap {} cycles per step",
        hw.name, args.blocks, args.iters, args.gap
    )?;
    writeln!(out, "{:>6}{:>14}{:>8}{:>10}{:>10}", "stride", "cycles", "ratio", "blocks/SM", "pipe util")?;
    let mut base = None;
    for &stride in &args.strides {
        let work = traces::gen::StrideBench::new(args.blocks, 256, args.iters, stride, args.gap);
        let r = with_threads(args.threads, || engine::run(&hw, &work, &EngineOptions::default()))??;
        let base = *base.get_or_insert(r.cycles);
        let util = r.total.pipe_busy as f64
            / (r.cycles as f64 * r.sms.iter().filter(|s| s.blocks > 0).count() as f64);
        writeln!(
            out,
            "{stride:>6}{:>14}{:>8.2}{:>10}{:>10.3}",
            r.cycles,
            r.cycles as f64 / base as f64,
            r.blocks_per_sm,
            util
        )?;
    }
    Ok(())
}

fn bench(args: &BenchArgs) -> Result<()> {
    let hw = configs::preset("h100")?;
    let mut out = std::io::stdout().lock();
    let work = traces::gen::StrideBench::new(args.blocks, 256, args.iters, 1, 0);
    let n = work.len() as f64;
    writeln!(
        out,
        "workload: stride sweep, {} workgroups x 8 warps x {} steps = {} warp requests",
        args.blocks,
        args.iters + 33,
        work.len()
    )?;
    // bank model alone, one core: every request of the workload through BankModel::evaluate
    let mut model = BankModel::new(&hw);
    let t = std::time::Instant::now();
    let mut wavefronts = 0u64;
    for i in 0..work.len() {
        let r = work.request(i);
        wavefronts += model
            .evaluate(&sim_core::WarpRequest { op: r.op, bytes: r.bytes, lanes: r.lanes, addrs: r.addrs })
            .wavefronts as u64;
    }
    let secs = t.elapsed().as_secs_f64();
    writeln!(out, "bank model, 1 thread: {:.2} M warp-requests/s ({wavefronts} wavefronts)", n / secs / 1e6)?;
    let mut first = None;
    for &threads in &args.threads {
        let t = std::time::Instant::now();
        let r = with_threads(Some(threads), || engine::run(&hw, &work, &EngineOptions::default()))??;
        let secs = t.elapsed().as_secs_f64();
        let rate = n / secs / 1e6;
        let base = *first.get_or_insert((threads, rate));
        writeln!(
            out,
            "cycle engine, {threads} threads: {rate:.2} M warp-requests/s ({} cycles, {secs:.2} s, parallel efficiency {:.2} vs {} thread(s))",
            r.cycles,
            rate / (base.1 * threads as f64 / base.0 as f64),
            base.0
        )?;
    }
    Ok(())
}

/// A file written under a temporary name and renamed into place on success, so an
/// interrupted run never leaves a truncated result.
pub(crate) struct AtomicFile {
    path: PathBuf,
    tmp: PathBuf,
    pub(crate) writer: std::io::BufWriter<std::fs::File>,
}

impl AtomicFile {
    pub(crate) fn create(path: &Path) -> Result<AtomicFile> {
        let mut tmp = path.as_os_str().to_owned();
        tmp.push(".tmp");
        let tmp = PathBuf::from(tmp);
        let file =
            std::fs::File::create(&tmp).with_context(|| format!("{}: cannot create", tmp.display()))?;
        Ok(AtomicFile { path: path.into(), tmp, writer: std::io::BufWriter::new(file) })
    }

    pub(crate) fn commit(mut self) -> Result<()> {
        self.writer.flush().with_context(|| format!("{}: cannot write", self.tmp.display()))?;
        std::fs::rename(&self.tmp, &self.path)
            .with_context(|| format!("{}: cannot write", self.path.display()))?;
        Ok(())
    }
}
