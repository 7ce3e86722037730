//! `banksim run`: simulate a trace file and print wavefronts and conflicts by op; with
//! options, the cycle engine, per-request and per-SM CSV and a run folder for `report`.

mod sink;

use crate::args::{hardware, with_threads, EngineArgs, HardwareArgs, MemoryArgs, RunByLineArgs};
use crate::progress::{self, Bars};
use crate::tables;
use anyhow::{bail, Context, Result};
use clap::Args;
use pipeline::output::rows::{self, SmRow, TimedRequestRow};
use pipeline::output::{write_atomically, write_csv, AtomicFile, Inputs};
use pipeline::stream::{self, Reading};
use pipeline::{by_line, simulate, window};
use sim_core::engine::{self, Costed, EngineOptions, EngineReport, RequestTiming, Workload};
use sim_core::launch::{Gaps, Launch, LaunchReport};
use sim_core::Hardware;
use sink::RequestSink;
use std::path::{Path, PathBuf};
use traces::Requests;

/// Arguments of `banksim run`.
#[derive(Args)]
pub struct RunArgs {
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
    #[command(flatten)]
    memory: MemoryArgs,
    /// Read a binary trace with positional reads, not mapped into memory. Mapping is
    /// faster on one core (no copy out of the page cache; on many threads it measured
    /// about even), but a file that another process truncates while banksim decodes it
    /// can end banksim with SIGBUS instead of an error: use this for a trace that may
    /// still be written.
    #[arg(long)]
    no_mmap: bool,
    #[command(flatten)]
    by_line: RunByLineArgs,
    /// The trace: text CSV (`block,thread,step,op,addr,bytes[,gap,dep[,wait]]`) or
    /// binary (`banksim convert`), told apart by its first bytes.
    ///
    /// Any trace streams, memory bounded whatever its size: a binary trace or a text
    /// trace in block order as it is read, another text trace sorted by block (see
    /// --memory); --cycles holds a window of blocks where its requests would not fit in
    /// --memory (and every request with --per-request, --out, --grid or
    /// --cycles-per-op).
    trace: PathBuf,
}

/// Runs `banksim run`.
pub fn run(args: &RunArgs) -> Result<()> {
    let inputs = Inputs::new();
    let hw = hardware(&args.hw, &inputs)?;
    if args.by_line.wanted() {
        return run_by_line(args, hw, &inputs);
    }
    let e = &args.engine;
    // the trace is opened once (`-`: standard input) and its format told from its first bytes
    inputs.declare(&args.trace);
    let input = stream::open(&args.trace)?;
    let bars = Bars::new();
    let how = Reading {
        threads_per_block: e.threads_per_block,
        map: !args.no_mmap,
        sort_memory: args.memory.bytes(),
        progress: &bars,
    };
    if !e.cycles {
        // the bank model alone streams, whatever the trace's size and order
        let (source, records, summary) = if args.per_request.is_none() && args.out.is_none() {
            let t = with_threads(e.threads, || stream::totals(input, &hw, &how))??;
            (t.source, t.records, t.summary)
        } else {
            // (a fresh sink if the reader starts over: a text trace found out of order)
            let start = || RequestSink::create(args.per_request.as_deref(), args.out.as_deref(), &inputs);
            let (sink, source, records) = with_threads(e.threads, || {
                stream::for_each_evaluated(input, &hw, &how, start, |sink, part| sink.take(part))
            })??;
            let (summary, _) = sink.finish(&source, &hw)?;
            (source, records, summary)
        };
        let mut out = std::io::stdout().lock();
        tables::print_totals(&mut out, &source, records, &hw, &summary)?;
        return Ok(());
    }
    // the plain cycle engine on a file whose requests would not fit in --memory holds a
    // window of blocks at a time; the per-request outputs and the stretched workloads
    // need every request at once
    let gaps = e.gaps(&hw)?;
    let plain = args.per_request.is_none() && args.out.is_none() && e.grid.is_none() && gaps == Gaps::Cycles;
    let binary = input.format() == traces::TraceFormat::Binary;
    if plain && input.file_len().is_some_and(|len| held_bytes(len, binary) >= args.memory.bytes() as u64) {
        return run_windowed(args, hw, input, &how, &inputs);
    }
    // a binary trace is split into requests chunk by chunk, a text trace's records are
    // grouped; where no output needs the requests' lanes, they are held as the engine
    // needs them, each costed as it is loaded
    if args.per_request.is_none() && args.out.is_none() {
        let loaded = with_threads(e.threads, || stream::load::<Costed>(input, &hw, &how))??;
        let report = launch(args, &hw, &loaded.requests)?;
        // (costed requests come with their totals: none for a trace of no requests)
        let summary = loaded.summary.unwrap_or_default();
        return print_cycles(args, &hw, &loaded.source, loaded.records, &summary, &report, &inputs);
    }
    let loaded = with_threads(e.threads, || stream::load::<Requests>(input, &hw, &how))??;
    let (source, records, requests) = (loaded.source, loaded.records, loaded.requests);
    let loaded_summary = loaded.summary;
    // (gaps in IR operations change what a request waits, not which requests run)
    if e.grid.is_some() && (args.per_request.is_some() || args.out.is_some()) {
        bail!("--grid runs a workload other than the trace's requests (its blocks replicated to the grid): it does not combine with --per-request or --out");
    }
    let report = launch(args, &hw, &requests)?;
    let timings = Some(report.engine.requests.as_slice());
    let summary = match &args.per_request {
        Some(path) => write_atomically(path, &inputs, |f| write_requests(f, &hw, &requests, timings))?,
        None => match loaded_summary {
            Some(summary) => summary,
            None => simulate::summarize(&hw, &requests, |_, _, _| {}),
        },
    };
    if let Some(dir) = &args.out {
        write_run_folder(dir, &source, &hw, &requests, timings, Some(&report.engine), &inputs)?;
    }
    print_cycles(args, &hw, &source, records, &summary, &report, &inputs)
}

/// The cycle engine's launch of `work` as `run --cycles` asks for it (after the check of
/// its gaps), with a spinner.
fn launch<W: Workload + ?Sized>(args: &RunArgs, hw: &Hardware, work: &W) -> Result<LaunchReport> {
    let e = &args.engine;
    let gaps = e.gaps(hw)?;
    check_gap_cycles(work, gaps.cycles_per_op())?;
    if e.grid == Some(0) {
        bail!("--grid 0: expected at least one block");
    }
    let launch = Launch { blocks: e.grid, gaps, options: engine_options(args), footprint: e.footprint };
    let _bar = progress::spinner(&format!("cycle engine: {} warp requests", work.len()));
    let report = with_threads(e.threads, || sim_core::launch::run(hw, work, &launch))?;
    Ok(match e.grid {
        Some(g) => report.with_context(|| format!("--grid {g}"))?,
        None => report?,
    })
}

/// Prints the totals and the engine's report of a `run --cycles`, and writes --per-sm.
fn print_cycles(
    args: &RunArgs,
    hw: &Hardware,
    source: &str,
    records: u64,
    summary: &sim_core::stats::Summary,
    report: &LaunchReport,
    inputs: &Inputs,
) -> Result<()> {
    let mut out = std::io::stdout().lock();
    tables::print_totals(&mut out, source, records, hw, summary)?;
    tables::print_engine(&mut out, report)?;
    if let Some(path) = &args.engine.per_sm {
        write_atomically(path, inputs, |f| write_per_sm(f, &report.engine))?;
    }
    Ok(())
}

/// `banksim run --by-line`: the whole trace read and grouped, the cycle engine with
/// per-request timings where `--cycles`, then the report ([`by_line`]).
fn run_by_line(args: &RunArgs, hw: Hardware, inputs: &Inputs) -> Result<()> {
    let e = &args.engine;
    if args.per_request.is_some() || args.out.is_some() || e.grid.is_some() {
        bail!("--by-line reports the trace's own requests: it does not combine with --per-request, --out or --grid");
    }
    inputs.declare(&args.trace);
    let trace = traces::read_any(&args.trace)?;
    pipeline::check::check_records(&trace, &hw, e.threads_per_block)?;
    let requests = Requests::group(&trace, hw.warp)?;
    let launch = if e.cycles {
        let gaps = e.gaps(&hw)?;
        check_gap_cycles(&requests, gaps.cycles_per_op())?;
        Some(by_line::launch(gaps, &engine_options(args), e.footprint))
    } else {
        None
    };
    let report = launch
        .as_ref()
        .map(|l| with_threads(e.threads, || by_line::run_engine(&hw, &requests, l)))
        .transpose()?
        .transpose()?;
    let sources = by_line::read_sources(&trace, args.trace.parent())?;
    let print = args.by_line.by_line;
    let engine = report
        .as_ref()
        .zip(launch.as_ref())
        .map(|(report, launch)| tables::by_line::Engine { report, launch });
    // (savings run the engine again: on the same pool)
    with_threads(e.threads, || {
        tables::by_line::emit(
            &hw,
            &trace,
            &requests,
            engine,
            &args.by_line.outputs,
            print,
            &sources,
            None,
            inputs,
        )
    })?
}

/// `run --cycles` on a file with the engine holding a window of blocks at a time
/// ([`window`]): the bank-model totals and the checks in a
/// streamed pass, the blocks' layout in another, then the engine reading the file again.
/// A text trace is written to a temporary binary trace (in block order) in the first
/// pass.
fn run_windowed(
    args: &RunArgs,
    hw: Hardware,
    input: traces::Input,
    how: &Reading,
    inputs: &Inputs,
) -> Result<()> {
    let e = &args.engine;
    let source = input.name().to_string();
    let dir = pipeline::files::TempFolder::new("banksim-run-")?;
    // the totals and the checks (a text trace's naming its lines), in a streamed pass
    let (t, path) = with_threads(e.threads, || stream::totals_to_binary_file(input, &hw, how, dir.path()))??;
    let (layout, longest, traffic) = window::scan(&path, hw.warp)?;
    // the bandwidth of the dispatch's lines, as `sim_core::launch::run` gives it
    let mut hw = hw;
    let memory = hw.timing.as_mut().and_then(|t| traffic.apply(t, e.footprint));
    if let Some((i, block, gap)) = longest.filter(|&(_, _, gap)| gap_too_long(gap, 1.0)) {
        return Err(gap_error(i, block, gap, 1.0));
    }
    let opts = engine_options(args);
    let mut work = window::FileWindow::open(&path, &hw, layout.clone())?;
    let report = {
        let _bar =
            progress::spinner(&format!("cycle engine: {} warp requests", engine::Workload::len(&work)));
        with_threads(e.threads, || engine::run_window(&hw, &mut work, &layout, &opts))??
    };
    let mut out = std::io::stdout().lock();
    tables::print_totals(&mut out, &source, t.records, &hw, &t.summary)?;
    let launch = LaunchReport { memory, ..launch_report(&hw, report, &layout) };
    tables::print_engine(&mut out, &launch)?;
    if let Some(path) = &e.per_sm {
        write_atomically(path, inputs, |f| write_per_sm(f, &launch.engine))?;
    }
    Ok(())
}

/// About the memory the requests of a trace file of `len` bytes take when held costed
/// (`sim_core::engine::Costed`, about 36 bytes a warp request, with room to grow: 113 MB
/// for the 49 MB binary 4096-block mix, 35 MB for a 186 MB text trace; a binary trace
/// stores a request in about 24 bytes, a text trace in about 800).
fn held_bytes(len: u64, binary: bool) -> u64 {
    if binary {
        len.saturating_mul(3)
    } else {
        len / 5
    }
}

/// The engine's options from `run`'s arguments.
fn engine_options(args: &RunArgs) -> EngineOptions {
    let e = &args.engine;
    EngineOptions {
        dep_policy: e.dep.into(),
        threads_per_block: e.threads_per_block,
        smem_per_block: e.smem_per_block,
        per_request: args.per_request.is_some() || args.out.is_some(),
        no_conflicts: false,
        bandwidth_sms: None,
        full: e.full,
        memory: sim_core::limits::MemoryBound::mib(args.memory.memory as u64),
    }
}

/// The windowed engine's report as a launch's (every SM simulated).
fn launch_report(hw: &Hardware, engine: EngineReport, layout: &engine::Layout) -> LaunchReport {
    let t = hw.timing.as_ref();
    LaunchReport {
        engine,
        blocks: layout.blocks.len() as u32,
        one_sm: false,
        overhead_cycles: t.map_or(0, |t| t.dispatch_overhead_cycles as u64),
        clock_mhz: t.map_or(0.0, |t| t.clock_mhz),
        memory: None,
    }
}

/// One CSV row per request (plus its engine timing when `timings`, sorted by request
/// index, is given); the bank-model totals.
fn write_requests(
    f: &mut AtomicFile,
    hw: &Hardware,
    requests: &Requests,
    timings: Option<&[RequestTiming]>,
) -> Result<sim_core::stats::Summary> {
    let mut w = csv::WriterBuilder::new().has_headers(false).from_writer(f);
    let mut failed = None;
    let mut timing = timings.map(simulate::timings_by_index);
    w.write_record(if timings.is_some() { rows::TIMED_REQUEST_HEADER } else { rows::REQUEST_HEADER })?;
    let summary = simulate::summarize(hw, requests, |i, r, o| {
        if failed.is_some() {
            return;
        }
        let request = sink::request_row(r, o);
        let written = match timing.as_mut() {
            None => w.serialize(request),
            Some(at) => {
                let t = at(i);
                w.serialize(TimedRequestRow {
                    request,
                    sm: t.map(|t| t.sm),
                    issue: t.map(|t| t.issue),
                    pipe_start: t.map(|t| t.pipe_start),
                    done: t.map(|t| t.done),
                })
            }
        };
        if let Err(e) = written {
            failed = Some(e);
        }
    });
    if let Some(e) = failed {
        return Err(e.into());
    }
    w.flush()?;
    Ok(summary)
}

fn write_per_sm(f: &mut AtomicFile, r: &EngineReport) -> Result<()> {
    let rows = r.sms.iter().enumerate().map(|(sm, s)| SmRow::new(sm, s));
    Ok(write_csv(f, &SmRow::header(), rows)?)
}

/// The run folder `banksim report` reads, with the engine's timings.
fn write_run_folder(
    dir: &Path,
    source: &str,
    hw: &Hardware,
    requests: &Requests,
    timings: Option<&[RequestTiming]>,
    report: Option<&EngineReport>,
    inputs: &Inputs,
) -> Result<()> {
    // a folder banksim made (or an empty one), held while the run folder is written
    let _held = pipeline::study::SweepFolder::open(dir)?;
    write_atomically(&dir.join("requests.csv"), inputs, |f| {
        write_requests(f, hw, requests, timings).map(|_| ())
    })?;
    let worst = simulate::worst_request(hw, requests).map(|i| requests.get(i));
    sink::write_folder_rest(dir, source, hw, worst, report.map(|r| r.cycles), inputs)
}

/// That every request's gap (and wait), in cycles at `cycles_per_op`, fits the engine's
/// 32-bit gaps: a larger one is an error naming the limit, never a saturated count.
fn check_gap_cycles<W: Workload + ?Sized>(requests: &W, cycles_per_op: f64) -> Result<()> {
    let ops = |i: usize| {
        let r = requests.request(i);
        r.gap.max(r.wait.unwrap_or(0))
    };
    // (the longest gap first: only if it is too long are the requests searched in order)
    if !gap_too_long((0..requests.len()).map(ops).max().unwrap_or(0), cycles_per_op) {
        return Ok(());
    }
    match (0..requests.len()).find(|&i| gap_too_long(ops(i), cycles_per_op)) {
        Some(i) => Err(gap_error(i, requests.request(i).block, requests.request(i).gap, cycles_per_op)),
        None => Ok(()),
    }
}

/// Whether a gap of `ops` operations at `cycles_per_op` is more cycles than a gap may
/// take. (A warp's gaps are differences of its rounded running total of cycles, so one
/// is at most the ceiling of its own cycles: see `sim_core::replicate`.)
fn gap_too_long(ops: u32, cycles_per_op: f64) -> bool {
    (ops as f64 * cycles_per_op).ceil() > u32::MAX as f64
}

/// The error of request `i` of `block`, whose gap of `ops` operations is too long.
fn gap_error(i: usize, block: u32, ops: u32, cycles_per_op: f64) -> anyhow::Error {
    anyhow::anyhow!(
        "request {i} (block {block}): a gap of {ops} operations at --cycles-per-op {cycles_per_op} is above the limit of {} cycles a gap may take",
        u32::MAX
    )
}
