//! Arguments several subcommands share (the hardware, the cycle engine's options, the
//! memory bound, trace formats, the by-line report's outputs; a GPU kernel in
//! [`kernel`]), and the helpers that turn them into what the libraries take.

#[cfg(feature = "gpu")]
pub mod kernel;

use anyhow::{bail, Context, Result};
use clap::Args;
use pipeline::output::Inputs;
use sim_core::engine::DepPolicy;
use sim_core::Hardware;
use std::path::PathBuf;

/// The hardware: a preset or RON file, with overrides.
#[derive(Args)]
pub struct HardwareArgs {
    /// Preset name (see `banksim presets`) or path to a RON config file.
    #[arg(long, short, default_value = configs::DEFAULT_PRESET, value_name = "PRESET|FILE")]
    pub config: String,
    /// Override the warp size (lanes per warp), e.g. 16, 32, 64.
    #[arg(long, value_name = "LANES")]
    pub warp: Option<u32>,
    /// Override the number of banks.
    #[arg(long, value_name = "N")]
    pub banks: Option<u32>,
    /// Override the bank word width in bytes.
    #[arg(long, value_name = "BYTES")]
    pub bank_bytes: Option<u32>,
    /// Override the number of SMs (CUs) of the cycle engine.
    #[arg(long, value_name = "N")]
    pub sms: Option<u32>,
}

/// The cycle engine's options of `banksim run`.
#[derive(Args)]
pub struct EngineArgs {
    /// Also run the cycle engine: total cycles, per-SM cycles, pipe utilisation, stalls.
    #[arg(long)]
    pub cycles: bool,
    /// Worker threads for the engine (default: all cores; with one per core each is pinned
    /// to its core). Results do not depend on it.
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// What a request without a `dep` value waits for.
    #[arg(long, value_enum, default_value = "previous-load")]
    pub dep: DepArg,
    /// Threads per block (default: the trace's largest thread index + 1).
    #[arg(long, value_name = "N")]
    pub threads_per_block: Option<u32>,
    /// Shared-memory bytes per block for occupancy (default: the highest byte the trace touches).
    #[arg(long, value_name = "BYTES")]
    pub smem_per_block: Option<u32>,
    /// Write per-SM cycles, pipe utilisation and stalls as CSV.
    #[arg(long, value_name = "OUT.csv", requires = "cycles")]
    pub per_sm: Option<std::path::PathBuf>,
    /// Simulate a dispatch of N blocks: block b does what the trace's block b mod B does
    /// (B blocks in the trace). For a capture of a few workgroups of a kernel whose
    /// workgroups all make the same shared-memory accesses.
    #[arg(long, value_name = "N", requires = "cycles")]
    pub grid: Option<u32>,
    /// Bytes of global memory the dispatch can touch (the buffers its kernel binds): the
    /// lines read again within that many bytes come from the L2 cache where it holds
    /// them, at the preset's `timing.l2_bytes_per_cycle`, not DRAM's. Default: the
    /// distinct 128-byte lines of the trace's global accesses (exact for a trace of
    /// every block; `banksim predict` passes the buffers of the kernel's dispatch).
    #[arg(long, value_name = "BYTES", requires = "cycles")]
    pub footprint: Option<u64>,
    /// What the trace's `gap` counts: `cycles` (hand-written and generated traces) or
    /// `ops`, the IR operations of a captured trace, costed by the preset's calibration
    /// (its `timing.ops`: what `banksim predict` uses) unless --cycles-per-op says
    /// otherwise.
    #[arg(long, value_enum, default_value = "cycles", requires = "cycles")]
    pub gaps: GapsArg,
    /// Cycles per IR operation of `gap` (implies `--gaps ops`): e.g. a family's value
    /// from `banksim calibrate`. Default: the preset's `timing.ops.cycles_per_op`.
    #[arg(long, value_name = "CYCLES", requires = "cycles")]
    pub cycles_per_op: Option<f64>,
    /// Most scheduler cycles each operation of `gap` holds (issue slots, whatever its
    /// latency, --cycles-per-op). Default: the preset's `timing.ops.issue_per_op`
    /// (2.0 on the H100); with gaps in cycles, the preset's `gap_issue_fraction`.
    #[arg(long, value_name = "CYCLES", requires = "cycles")]
    pub issue_per_op: Option<f64>,
    /// Simulate every block of the dispatch. By default, where every block is the same to
    /// the engine, one SM with its share of the blocks stands for all (exact: SMs share
    /// only the dispatcher; see `sim_core::launch`); this runs the whole, to check it.
    #[arg(long, requires = "cycles")]
    pub full: bool,
    /// Share of each operation's cycles that holds its scheduler, up to --issue-per-op
    /// (0 < S <= 1). Default: the preset's `timing.ops.issue_share` (0.25 on the H100).
    #[arg(long, value_name = "S", requires = "cycles")]
    pub issue_share: Option<f64>,
}

/// What a trace's `gap` counts (`--gaps`).
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum GapsArg {
    /// Cycles.
    Cycles,
    /// IR operations (captured traces).
    Ops,
}

impl EngineArgs {
    /// What the trace's gaps count, with the costs of an operation: the flags, else
    /// `hw`'s calibration.
    pub fn gaps(&self, hw: &sim_core::Hardware) -> anyhow::Result<sim_core::launch::Gaps> {
        use sim_core::launch::Gaps;
        let check = |flag: &str, v: f64| {
            if !(v.is_finite() && v >= 0.0) {
                Err(anyhow::anyhow!("{flag} {v}: expected a finite number >= 0"))
            } else if v > MAX_CYCLES_PER_OP {
                Err(anyhow::anyhow!(
                    "{flag} {v}: above the limit of {MAX_CYCLES_PER_OP} cycles per operation"
                ))
            } else {
                Ok(v)
            }
        };
        let preset = hw.timing.as_ref().and_then(|t| t.ops.as_ref());
        let issue_share = match (self.issue_share, preset) {
            (Some(s), _) if !(s > 0.0 && s <= 1.0) => {
                anyhow::bail!("--issue-share {s}: expected a share above 0 and at most 1")
            }
            (Some(s), _) => s,
            (None, Some(o)) => o.issue_share,
            (None, None) => 1.0,
        };
        if self.gaps == GapsArg::Cycles && self.cycles_per_op.is_none() {
            // (gaps in cycles: the preset's share is of IR operations' cycles, not these)
            return Ok(match (self.issue_per_op, self.issue_share) {
                (None, None) => Gaps::Cycles,
                (ipo, share) => Gaps::Ops {
                    cycles_per_op: 1.0,
                    issue_per_op: check("--issue-per-op", ipo.unwrap_or(1.0))?,
                    issue_share: share.map_or(1.0, |_| issue_share),
                },
            });
        }
        let cycles_per_op = match (self.cycles_per_op, preset) {
            (Some(c), _) => check("--cycles-per-op", c)?,
            (None, Some(o)) => o.cycles_per_op,
            (None, None) => anyhow::bail!(
                "--gaps ops: preset `{}` has no calibration of IR operations (`timing.ops`); give --cycles-per-op",
                hw.name
            ),
        };
        let issue_per_op = match (self.issue_per_op, preset) {
            (Some(i), _) => check("--issue-per-op", i)?,
            (None, Some(o)) => o.issue_per_op,
            // (no calibration: the whole gap holds the scheduler, as with cycles)
            (None, None) => cycles_per_op,
        };
        Ok(Gaps::Ops { cycles_per_op, issue_per_op, issue_share })
    }
}

/// The most cycles per IR operation `--cycles-per-op` takes.
pub const MAX_CYCLES_PER_OP: f64 = 1e6;

/// The memory bound of the modes that could otherwise hold a whole trace.
#[derive(Args)]
pub struct MemoryArgs {
    /// About how much memory to hold trace data in, in MiB. A text trace whose blocks
    /// are not in order (block ids go down somewhere) is sorted by block with this much:
    /// past it, sorted runs of records go to a temporary folder (under `TMPDIR`, about
    /// 32 bytes a record) and are merged. `run --cycles` holds every warp request where
    /// they fit in this (an estimate from the file's size), else a window of blocks,
    /// reading the file again (slower on many cores). 0: as little as it can.
    #[arg(long, value_name = "MiB", default_value_t = 1024, value_parser = clap::value_parser!(u32).range(0..=1 << 20))]
    pub memory: u32,
}

impl MemoryArgs {
    /// The bound in bytes.
    pub fn bytes(&self) -> usize {
        (self.memory as usize) << 20
    }
}

/// What a request without a `dep` value waits for.
#[derive(Clone, Copy, clap::ValueEnum)]
pub enum DepArg {
    /// Wait for the warp's previous load to complete.
    PreviousLoad,
    /// Only wait for program order.
    Independent,
}

impl From<DepArg> for DepPolicy {
    fn from(d: DepArg) -> DepPolicy {
        match d {
            DepArg::PreviousLoad => DepPolicy::PreviousLoad,
            DepArg::Independent => DepPolicy::Independent,
        }
    }
}

/// A trace file format (`--to`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum FormatArg {
    /// CSV with a header (`block,thread,step,op,addr,bytes[,gap,dep[,wait]]`).
    Text,
    /// banksim's compact binary format (docs/trace-format.md).
    Binary,
}

impl From<FormatArg> for traces::TraceFormat {
    fn from(f: FormatArg) -> traces::TraceFormat {
        match f {
            FormatArg::Text => traces::TraceFormat::Text,
            FormatArg::Binary => traces::TraceFormat::Binary,
        }
    }
}

/// The format to write to `path`: `--to`, else the one its extension names, else text.
pub fn format_for(to: Option<FormatArg>, path: Option<&std::path::Path>) -> traces::TraceFormat {
    traces::TraceFormat::choose(to.map(Into::into), path)
}

/// The hardware `args` name: the preset or file (declared one of `inputs`), with the
/// overrides applied.
pub fn hardware(args: &HardwareArgs, inputs: &Inputs) -> Result<Hardware> {
    inputs.declare(std::path::Path::new(&args.config));
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

/// The checks of a command line that clap does not make, the same for every command
/// (made before the command reads or writes anything):
///
/// - **Outputs.** An argument named `out` or `output`, or whose value name starts with
///   `OUT` (`OUT.csv`, `OUT.json`, ...), is an output of the command; no two outputs may
///   name one file, however spelled ([`pipeline::output::check_distinct`]).
/// - **Keyed values.** An argument whose value name holds `=` (`NAME=VALUE`,
///   `G.B=SPEC`) may not give one key twice (`gen strided stride=2 stride=4`,
///   `--override N=1 --override N=2`): which one was meant is not known.
pub fn check_command_line(cmd: &clap::Command, m: &clap::ArgMatches) -> Result<()> {
    let Some((name, sub)) = m.subcommand() else { return Ok(()) };
    let Some(def) = cmd.find_subcommand(name) else { return Ok(()) };
    let mut outputs: Vec<(String, PathBuf)> = Vec::new();
    for arg in def.get_arguments() {
        let id = arg.get_id().as_str();
        let Ok(Some(values)) = sub.try_get_raw(id) else { continue };
        let value_name = arg.get_value_names().and_then(|v| v.first()).map_or("", |v| v.as_str());
        let what = match arg.get_long() {
            Some(long) => format!("--{long}"),
            None => id.to_string(),
        };
        if id == "out" || id == "output" || value_name.starts_with("OUT") {
            outputs.extend(values.clone().map(|v| (what.clone(), PathBuf::from(v))));
        }
        if value_name.contains('=') {
            let mut seen = std::collections::BTreeSet::new();
            for v in values {
                let v = v.to_string_lossy();
                let key = v.split_once('=').map_or(&*v, |(k, _)| k).trim().to_string();
                if !seen.insert(key.clone()) {
                    bail!(
                        "{what}: `{key}` is given twice; give each {} once",
                        value_name.split('=').next().unwrap_or("key")
                    );
                }
            }
        }
    }
    pipeline::output::check_distinct(outputs.iter().map(|(w, p)| (w.as_str(), p.as_path())))?;
    Ok(())
}

/// The build of banksim that computes a cell, for its key in the journal: the version and
/// the fingerprint of the running executable (results of another build are computed
/// again, not taken for this one's).
pub fn build_id() -> String {
    let exe = std::env::current_exe().ok().and_then(|p| pipeline::study::expanded::file_fingerprint(&p).ok());
    format!("banksim {} {}", env!("CARGO_PKG_VERSION"), exe.unwrap_or_default())
}

/// `--threads` is capped at this many threads per available core.
pub const MAX_THREADS_PER_CORE: usize = 4;

/// Runs `f` on a rayon pool of `threads` workers (default: all cores, then pinned one to
/// a core: see `sim_core::thread_pool`).
pub fn with_threads<T: Send>(threads: Option<usize>, f: impl FnOnce() -> T + Send) -> Result<T> {
    if threads == Some(0) {
        bail!("--threads must be at least 1");
    }
    // more threads than cores only adds switching: capped at MAX_THREADS_PER_CORE per core
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let cap = cores.saturating_mul(MAX_THREADS_PER_CORE);
    let threads = match threads {
        Some(n) if n > cap => {
            // said once, however many pools a command starts
            static SAID: std::sync::Once = std::sync::Once::new();
            SAID.call_once(|| {
                eprintln!(
                    "--threads {n}: capped at {cap} ({MAX_THREADS_PER_CORE} x the {cores} available cores)"
                )
            });
            Some(cap)
        }
        t => t,
    };
    Ok(sim_core::thread_pool(threads).context("cannot start worker threads")?.install(f))
}

/// The error of a command (or option) that this build of banksim was compiled without:
/// `what` is e.g. "`banksim capture`", `feature` the Cargo feature it needs. (Called
/// only in a build without some feature.)
#[allow(dead_code)]
pub fn needs_feature(what: &str, feature: &str) -> anyhow::Error {
    anyhow::anyhow!("{what} needs the `{feature}` feature: cargo install --path banksim --features {feature}")
}

/// `$body` (an `anyhow::Result`) where this build has the Cargo feature `$feature`, else
/// the error that says `$what` needs it; the body is not compiled then, so it may name
/// what only the feature brings (`crate::charts`, `validate`), and the variables it
/// alone uses are listed after it (`uses: a, b`).
macro_rules! with_feature {
    ($feature:literal, $what:expr, $body:expr $(, uses: $($used:ident),*)?) => {{
        #[cfg(feature = $feature)]
        let done: anyhow::Result<_> = $body;
        #[cfg(not(feature = $feature))]
        let done: anyhow::Result<_> = {
            $($(let _ = &$used;)*)?
            Err($crate::args::needs_feature($what, $feature))
        };
        done
    }};
}
pub(crate) use with_feature;

/// Arguments of a command that this build was compiled without: taken as they come, so
/// that running it says which feature it needs.
#[derive(Args)]
pub struct Unavailable {
    /// (This command was not compiled in.)
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, hide = true)]
    pub args: Vec<std::ffi::OsString>,
}

/// `banksim run --by-line`.
#[derive(Args, Clone, Default)]
pub struct RunByLineArgs {
    /// Print the trace's kernel source annotated per line: requests, wavefronts, ideal,
    /// conflicts and wavefronts per request of the accesses on each line (with --cycles,
    /// their bank-conflict stall cycles and share of all stall cycles), and the layout
    /// advisor's fix for a conflicting line's array. Needs a trace with sites (`banksim
    /// capture` writes them; `import` keeps PCs). See docs/by-line.md.
    #[arg(long)]
    pub by_line: bool,
    #[command(flatten)]
    pub outputs: ByLineArgs,
}

impl RunByLineArgs {
    /// Whether any by-line output is asked for.
    pub fn wanted(&self) -> bool {
        self.by_line || self.outputs.by_line_csv.is_some() || self.outputs.by_line_png.is_some()
    }
}

/// The by-line report's files and options, shared by `run` and `explain`.
#[derive(Args, Clone, Default)]
pub struct ByLineArgs {
    /// Write the by-line report as CSV, one row per source line (or site) with requests.
    #[arg(long, value_name = "OUT.csv")]
    pub by_line_csv: Option<PathBuf>,
    /// Draw the by-line report's conflicts per line as a PNG bar chart (`charts` feature).
    #[arg(long, value_name = "OUT.png")]
    pub by_line_png: Option<PathBuf>,
    /// Leave out the advisor's fixes (each conflicting line's array is otherwise
    /// re-simulated under every candidate layout).
    #[arg(long)]
    pub no_advice: bool,
}
