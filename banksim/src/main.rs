//! `banksim`: the command-line tool, commands only. Parses arguments, calls the
//! subcommand's `run` ([`commands`]), prints errors and sets the exit code; removes
//! half-written outputs on SIGINT and SIGTERM. The work is in the library tier
//! (`pipeline`, `validate`, `reports`, `configs`, `traces`, `sim_core`); what is here
//! is arguments ([`args`]), progress bars ([`progress`]), printed tables ([`tables`]) and
//! the glue of each command.

mod args;
#[cfg(feature = "charts")]
mod charts;
mod commands;
mod progress;
mod tables;

use args::HardwareArgs;
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

/// Trace-driven simulator of GPU shared-memory banks.
///
/// Replays per-thread shared-memory traces on a configurable bank model (banks, bank
/// width, warp size, the crossbar's phases, broadcast rules and bank ports, mapping) and
/// reports wavefronts and bank conflicts per request. The h100 preset reproduces Nsight Compute's counts on a real
/// H100.
#[derive(Parser)]
#[command(name = "banksim", version, propagate_version = true)]
#[command(after_help = "Start with `banksim demo`; then `banksim run TRACE.csv` for a trace, or\n\
`banksim predict KERNEL.wgsl --dispatch X,Y,Z` (and `banksim explain`) for a WGSL kernel.\n\
Trace format: CSV with the header `block,thread,step,op,addr,bytes[,gap,dep,wait]`, or binary (docs/trace-format.md).")]
struct Cli {
    /// Draw no progress bars (they are drawn on standard error only when it is a
    /// terminal, and cleared when the work ends).
    #[arg(long, short, global = true)]
    quiet: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Simulate a trace file and print wavefronts and conflicts by op.
    Run(commands::run::RunArgs),
    /// List the built-in hardware presets (or print one as RON with --show).
    Presets(commands::presets::PresetsArgs),
    /// Run built-in traces (a 32x32 tile transpose, unpadded and padded) with no files.
    Demo(HardwareArgs),
    /// Predict the wgpu stride sweep (validate/probe/wgpu_stridebench.rs) with the
    /// cycle engine: cycles per stride and the ratio to stride 1.
    Stridebench(commands::stridebench::StridebenchArgs),
    /// Measure simulation speed (warp requests per second) at several thread counts.
    Bench(commands::bench::BenchArgs),
    /// Convert a CUDA trace (Accel-Sim kernel-N.traceg[.xz], NVBit mem_trace output) to a banksim trace.
    Import(commands::import::ImportArgs),
    /// Generate a synthetic trace (strided, tile, reduction, scan, aos, gemm, random).
    Gen(commands::gen::GenArgs),
    /// Run a study: presets x hardware fields x workloads, in parallel, resumable.
    Sweep(commands::sweep::SweepArgs),
    /// Join the results of sweep shards.
    Merge(commands::merge::MergeArgs),
    /// Draw PNG charts and an index page from a sweep or run output folder.
    Report(commands::report::ReportArgs),
    /// Find the padding, XOR swizzle or AoS->SoA change that removes bank conflicts.
    Advise(commands::advise::AdviseArgs),
    /// Convert a trace between the text (CSV) and binary formats (by OUT's extension, or --to).
    Convert(commands::convert::ConvertArgs),
    /// Capture the shared-memory trace of a WGSL compute kernel run with wgpu (instrumented with naga).
    Capture(commands::capture::CaptureArgs),
    /// Capture a WGSL kernel in memory and print its source annotated per line: conflicts (and stall cycles) by line, with the advisor's fix.
    Explain(commands::explain::ExplainArgs),
    /// Time an uninstrumented WGSL compute kernel on a GPU (timestamp queries, warm-up, N repetitions).
    Measure(commands::measure::MeasureArgs),
    /// Fit the timing model to measured kernel runs; predicted vs measured speedups (CSV, RON, PNG).
    Calibrate(commands::calibrate::CalibrateArgs),
    /// Predict a WGSL kernel's time on the preset's GPU (captured on any adapter), with a breakdown.
    Predict(commands::predict::PredictArgs),
    /// What a GPU's driver compiles a WGSL kernel to: its statistics (registers, instructions, ...), through Vulkan.
    ShaderStats(commands::shader_stats::ShaderStatsArgs),
    /// Find a GPU's shared-memory banks by timing microbenchmarks, and write them as a preset.
    Probe(commands::probe::ProbeArgs),
}

fn main() {
    // an interrupted command leaves no temporary file behind
    install_signal_handler();
    // (`gen`'s parameters are keyed values, checked as such by `args::check_command_line`)
    let cmd = Cli::command().mut_subcommand("gen", |c| c.mut_arg("params", |a| a.value_name("NAME=VALUE")));
    let matches = cmd.clone().get_matches();
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    progress::set_quiet(cli.quiet);
    let command = cli.command;
    if matches!(
        command,
        Command::Capture(_)
            | Command::Explain(_)
            | Command::Measure(_)
            | Command::Calibrate(_)
            | Command::Predict(_)
            | Command::ShaderStats(_)
            | Command::Probe(_)
    ) {
        quiet_gpu_loader();
    }
    let done = args::check_command_line(&cmd, &matches).and_then(|()| dispatch(command));
    // an interrupted command ends with the signal's code: its work may fail first, for
    // the temporary files and folders removed under it
    if INTERRUPTED.load(std::sync::atomic::Ordering::SeqCst) {
        loop {
            std::thread::park();
        }
    }
    if let Err(e) = done {
        // `banksim ... | head` closing the pipe early is not an error.
        if e.chain().any(|c| {
            c.downcast_ref::<std::io::Error>().is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
        }) {
            return;
        }
        eprintln!("error: {}", message(&e));
        std::process::exit(1);
    }
}

fn dispatch(command: Command) -> anyhow::Result<()> {
    match command {
        Command::Run(args) => commands::run::run(&args),
        Command::Presets(args) => commands::presets::run(&args),
        Command::Demo(hw) => commands::demo::run(&hw),
        Command::Stridebench(args) => commands::stridebench::run(&args),
        Command::Bench(args) => commands::bench::run(&args),
        Command::Import(args) => commands::import::run(&args),
        Command::Gen(args) => commands::gen::run(&args),
        Command::Sweep(args) => commands::sweep::run(&args),
        Command::Merge(args) => commands::merge::run(&args),
        Command::Report(args) => commands::report::run(&args),
        Command::Advise(args) => commands::advise::run(&args),
        Command::Convert(args) => commands::convert::run(&args),
        Command::Capture(args) => commands::capture::run(&args),
        Command::Explain(args) => commands::explain::run(&args),
        Command::Measure(args) => commands::measure::run(&args),
        Command::Calibrate(args) => commands::calibrate::run(&args),
        Command::Predict(args) => commands::predict::run(&args),
        Command::ShaderStats(args) => commands::shader_stats::run(&args),
        Command::Probe(args) => commands::probe::run(&args),
    }
}

/// Set when a signal's cleanup has begun: the command's own end then waits for the exit
/// with the signal's code.
static INTERRUPTED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// On SIGINT or SIGTERM, removes the temporary files of the outputs being written and the
/// temporary folders in use (`pipeline::output::cleanup`) and exits with 128 + the
/// signal (130, 143), as a shell reports a process killed by it.
fn install_signal_handler() {
    #[cfg(unix)]
    {
        use signal_hook::consts::{SIGINT, SIGTERM};
        let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM]) else { return };
        std::thread::spawn(move || {
            if let Some(sig) = signals.forever().next() {
                INTERRUPTED.store(true, std::sync::atomic::Ordering::SeqCst);
                pipeline::output::cleanup::remove_all();
                std::process::exit(128 + sig);
            }
        });
    }
}

/// The Vulkan loader's window-system probes print `error: XDG_RUNTIME_DIR is invalid or
/// not set` on a machine with no user logged in (a server, CI), though nothing is wrong for a
/// compute kernel: without a valid one, point it at a private folder of our own
/// (still single-threaded here, before any GPU code runs).
fn quiet_gpu_loader() {
    let valid = std::env::var_os("XDG_RUNTIME_DIR").is_some_and(|d| std::path::Path::new(&d).is_dir());
    if valid {
        return;
    }
    let dir = std::env::temp_dir().join("banksim-xdg-runtime");
    #[cfg(unix)]
    let made = {
        use std::os::unix::fs::DirBuilderExt;
        std::fs::DirBuilder::new().mode(0o700).create(&dir).is_ok() || dir.is_dir()
    };
    #[cfg(not(unix))]
    let made = std::fs::create_dir_all(&dir).is_ok();
    if made {
        std::env::set_var("XDG_RUNTIME_DIR", &dir);
    }
}

/// The error and its causes, `: `-separated, each said once: a cause whose text is
/// already in the message (an error that shows its OS error and also gives it as its
/// source) is not repeated.
fn message(e: &anyhow::Error) -> String {
    let mut msg = String::new();
    for cause in e.chain() {
        let text = cause.to_string();
        if msg.contains(&text) {
            continue;
        }
        if !msg.is_empty() {
            msg.push_str(": ");
        }
        msg.push_str(&text);
    }
    msg
}
