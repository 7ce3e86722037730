//! `banksim`: the command-line tool. Glue only: parse arguments, call the crates, print.

use anyhow::{bail, Context, Result};
use clap::{Args, Parser, Subcommand};
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
}

#[derive(Args)]
struct HardwareArgs {
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
}

#[derive(Args)]
struct RunArgs {
    #[command(flatten)]
    hw: HardwareArgs,
    /// Write one CSV row per warp request (block,warp,step,op,bytes,active,wavefronts,ideal,conflicts).
    #[arg(long, value_name = "OUT.csv")]
    per_request: Option<PathBuf>,
    /// The trace: text CSV (`block,thread,step,op,addr,bytes[,gap,dep]`).
    trace: PathBuf,
}

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
    }
}

fn hardware(args: &HardwareArgs) -> Result<Hardware> {
    let hw = configs::load(&args.config)?;
    let overrides = configs::Overrides {
        warp: args.warp,
        banks: args.banks,
        bank_bytes: args.bank_bytes,
        ..Default::default()
    };
    Ok(configs::apply_overrides(&hw, &overrides, "command-line overrides")?)
}

fn run(args: &RunArgs) -> Result<()> {
    let hw = hardware(&args.hw)?;
    let trace = traces::text::read(&args.trace)?;
    let requests = Requests::group(&trace, hw.warp)?;
    check_bounds(&requests, &hw, &args.trace)?;
    let summary = match &args.per_request {
        Some(path) => {
            let mut out = AtomicFile::create(path)?;
            let s = simulate(&hw, &requests, Some(&mut out.writer))?;
            out.commit()?;
            s
        }
        None => simulate(&hw, &requests, None)?,
    };
    print_summary(&mut std::io::stdout().lock(), &trace, &requests, &hw, &summary)?;
    Ok(())
}

/// Every access must lie inside the preset's shared memory.
fn check_bounds(requests: &Requests, hw: &Hardware, file: &Path) -> Result<()> {
    for r in requests.iter() {
        for &a in r.addrs {
            if a as u64 + r.bytes as u64 > hw.smem_per_sm as u64 {
                bail!(
                    "{}:{}: block {} warp {} step {}: address {a:#x} + {} bytes is beyond the {} bytes of shared memory of `{}`",
                    file.display(), r.line, r.block, r.warp, r.step, r.bytes, hw.smem_per_sm, hw.name
                );
            }
        }
    }
    Ok(())
}

fn simulate(hw: &Hardware, requests: &Requests, mut rows: Option<&mut dyn Write>) -> Result<Summary> {
    let mut model = BankModel::new(hw);
    let mut summary = Summary::default();
    if let Some(w) = rows.as_deref_mut() {
        writeln!(w, "block,warp,step,op,bytes,active,wavefronts,ideal,conflicts")?;
    }
    for r in requests.iter() {
        let o = model.evaluate(&r.warp_request());
        summary.add(r.op, r.lanes.len(), o);
        if let Some(w) = rows.as_deref_mut() {
            writeln!(
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
    writeln!(
        out,
        "{}: {} records, {} warp requests, warp {} on {} ({} banks x {} B)",
        trace.source,
        trace.len(),
        requests.len(),
        hw.warp,
        hw.name,
        hw.banks,
        hw.bank_bytes
    )?;
    writeln!(
        out,
        "{:<6}{:>10}{:>10}{:>12}{:>10}{:>11}{:>9}",
        "op", "requests", "lanes", "wavefronts", "ideal", "conflicts", "ratio"
    )?;
    let mut row = |name: &str, t: &sim_core::stats::OpTotals| {
        let ratio = if t.ideal == 0 { 0.0 } else { t.wavefronts as f64 / t.ideal as f64 };
        writeln!(
            out,
            "{:<6}{:>10}{:>10}{:>12}{:>10}{:>11}{:>9.2}",
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
        let summary = simulate(&hw, &requests, None)?;
        print_summary(&mut out, &trace, &requests, &hw, &summary)?;
        writeln!(out)?;
    }
    writeln!(out, "Unpadded, each column read hits one bank 32 times (32 wavefronts per warp);")?;
    writeln!(out, "one float of padding per row spreads a column over all banks (1 wavefront).")?;
    writeln!(out, "Next: `banksim presets`, `banksim run --config h100 TRACE.csv --per-request out.csv`.")?;
    Ok(())
}

/// A file written under a temporary name and renamed into place on success, so an
/// interrupted run never leaves a truncated result.
struct AtomicFile {
    path: PathBuf,
    tmp: PathBuf,
    writer: std::io::BufWriter<std::fs::File>,
}

impl AtomicFile {
    fn create(path: &Path) -> Result<AtomicFile> {
        let mut tmp = path.as_os_str().to_owned();
        tmp.push(".tmp");
        let tmp = PathBuf::from(tmp);
        let file =
            std::fs::File::create(&tmp).with_context(|| format!("{}: cannot create", tmp.display()))?;
        Ok(AtomicFile { path: path.into(), tmp, writer: std::io::BufWriter::new(file) })
    }

    fn commit(mut self) -> Result<()> {
        self.writer.flush().with_context(|| format!("{}: cannot write", self.tmp.display()))?;
        std::fs::rename(&self.tmp, &self.path)
            .with_context(|| format!("{}: cannot write", self.path.display()))?;
        Ok(())
    }
}
