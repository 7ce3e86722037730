//! `banksim capture`: run a WGSL compute kernel with wgpu, instrumented to record every
//! workgroup-memory access, and write the trace. Glue only: the work is in `validate`
//! (the `gpu` feature).

use anyhow::{Context, Result};
use clap::Args;
use crate::args::kernel::{KernelArgs, print_warnings};
use crate::args::{FormatArg, format_for};
use crate::progress;
use pipeline::output::{Inputs, write_atomically, write_trace};
use std::io::Write;
use std::path::{Path, PathBuf};
use validate::capture::CaptureOptions;
use validate::instrument::SiteKind;

/// Arguments of `banksim capture`.
#[derive(Args)]
pub struct CaptureArgs {
    #[command(flatten)]
    kernel: KernelArgs,
    /// Where to write the trace (CSV, `block,thread,step,op,addr,bytes`; `.bsim`: binary).
    #[arg(short, long, value_name = "OUT.csv", required_unless_present = "instrument_only")]
    out: Option<PathBuf>,
    /// Output format (default: from the output's extension: `.bsim`, `.bin` binary,
    /// else text).
    #[arg(long, value_enum)]
    to: Option<FormatArg>,
    /// Also write the instrumented WGSL that runs.
    #[arg(long, value_name = "FILE.wgsl")]
    emit_wgsl: Option<PathBuf>,
    /// Only instrument (no GPU): list the access sites and the workgroup layout.
    #[arg(long)]
    instrument_only: bool,
    /// Records the first run makes room for (a kernel that makes more is run again with
    /// exactly enough room, or past 4 Mi records once per window of its workgroups;
    /// nothing is dropped).
    #[arg(long, value_name = "N", default_value_t = 1 << 20)]
    capacity: u64,
}

/// Runs `banksim capture`.
pub fn run(args: &CaptureArgs) -> Result<()> {
    let inputs = Inputs::new();
    let (src, kopts) = args.kernel.load(&inputs)?;
    let file = args.kernel.kernel.display().to_string();
    let mut out = std::io::stdout().lock();
    if args.instrument_only {
        let (inst, wgsl, _) = validate::capture::prepare(&src, &file, &kopts)?;
        if let Some(p) = &args.emit_wgsl {
            write_text(p, &wgsl, &inputs)?;
        }
        writeln!(
            out,
            "{file}: workgroup size {:?}, {} bytes of workgroup memory",
            inst.workgroup_size, inst.shared_bytes
        )?;
        for v in &inst.shared {
            writeln!(out, "  {:>6}  {} ({} bytes)", v.offset, v.name, v.size)?;
        }
        // the buffers as a capture would bind them: --bind checked (files read, sizes)
        let d = kopts.dispatch;
        let invocations = d.iter().chain(&inst.workgroup_size).fold(1u64, |a, &v| a.saturating_mul(v as u64));
        let contents = validate::bind::contents(&inst.resources, &kopts.binds, invocations)?;
        for (r, (_, what)) in inst.resources.iter().zip(&contents) {
            let kind = if r.handle.is_some() { "resource" } else { "buffer" };
            writeln!(out, "  {kind} {}.{} `{}`: {what}", r.group, r.binding, r.name)?;
        }
        writeln!(out, "{} sites:", inst.sites.len())?;
        for (i, s) in inst.sites.iter().enumerate() {
            let kind = match &s.kind {
                SiteKind::Access { op, leaves, .. } if leaves.len() == 1 => {
                    format!("{op} {} B", leaves[0].1)
                }
                SiteKind::Access { op, leaves, .. } => format!("{op} x{} pieces", leaves.len()),
                SiteKind::Barrier => "bar".into(),
                SiteKind::Loop => "loop".into(),
            };
            writeln!(out, "  {i:>4}  {kind:<16} {}", s.what)?;
        }
        return Ok(());
    }
    let bar = progress::spinner("opening the GPU");
    let gpu = args.kernel.open_gpu()?;
    let mut opts = CaptureOptions::new(kopts);
    opts.initial_records = args.capacity;
    bar.say(format!("capturing {file}"));
    let c = validate::capture::capture(&gpu, &src, &file, &opts)?;
    if let Some(p) = &args.emit_wgsl {
        write_text(p, &c.wgsl, &inputs)?;
    }
    let path = args.out.as_ref().context("--out is required")?;
    bar.say(format!("writing {} records to {}", c.trace.len(), path.display()));
    write_trace(&c.trace, format_for(args.to, Some(path)), path, &inputs)?;
    drop(bar);
    print_warnings(&file, &c);
    writeln!(out, "adapter: {}", c.adapter)?;
    writeln!(
        out,
        "{file}: workgroup size {:?}, dispatch {:?}, {} bytes of workgroup memory:",
        c.workgroup_size, args.kernel.dispatch, c.shared_bytes
    )?;
    for v in &c.shared {
        writeln!(out, "  byte {:>6}: {} ({} bytes)", v.offset, v.name, v.size)?;
    }
    for (r, what) in &c.buffers {
        let kind = if r.handle.is_some() { "resource" } else { "buffer" };
        writeln!(out, "  {kind} {}.{} `{}`: {what}", r.group, r.binding, r.name)?;
    }
    writeln!(
        out,
        "{} trace records from {} raw records ({} sites, {} run{}) written to {}",
        c.trace.len(),
        c.records,
        c.sites.len(),
        c.runs,
        if c.runs == 1 { "" } else { "s" },
        path.display()
    )?;
    writeln!(out, "next: banksim run {}", path.display())?;
    Ok(())
}

/// Writes a text file (the instrumented WGSL) through [`write_atomically`].
fn write_text(p: &Path, text: &str, inputs: &Inputs) -> Result<()> {
    write_atomically(p, inputs, |f| {
        f.write_all(text.as_bytes()).with_context(|| format!("{}: cannot write", p.display()))
    })
}
