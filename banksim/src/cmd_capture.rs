//! `banksim capture`: run a WGSL compute kernel with wgpu, instrumented to record every
//! workgroup-memory access, and write the trace. Glue only: the work is in `validate`.

use anyhow::{Context, Result};
use clap::Args;
use std::io::Write;
use std::path::{Path, PathBuf};
use validate::bind::Bind;
use validate::capture::{CaptureOptions, KernelOptions};
use validate::instrument::SiteKind;

/// What to run: shared by `capture` and `measure`.
#[derive(Args, Clone)]
pub struct KernelArgs {
    /// The WGSL compute shader (unmodified).
    pub kernel: PathBuf,
    /// Workgroups to dispatch: X[,Y[,Z]].
    #[arg(long, value_name = "X,Y,Z", value_parser = parse_dispatch)]
    pub dispatch: [u32; 3],
    /// Compute entry point (default: the only one).
    #[arg(long, value_name = "NAME")]
    pub entry: Option<String>,
    /// Set a pipeline-overridable constant: NAME=VALUE (a number, true or false). Repeatable.
    #[arg(long = "override", value_name = "NAME=VALUE", value_parser = parse_override)]
    pub overrides: Vec<(String, f64)>,
    /// Contents of a storage or uniform buffer: GROUP.BINDING=SPEC with SPEC zeros:N,
    /// iota:N (N 4-byte words), u32:A,B,..., i32:..., f32:..., or file:PATH. Unbound
    /// buffers are zero-filled, runtime-sized arrays with one element per invocation.
    #[arg(long, value_name = "G.B=SPEC")]
    pub bind: Vec<Bind>,
    /// Use the first adapter whose name contains this text (default: the best one;
    /// WGPU_BACKEND chooses the API, Vulkan by default).
    #[arg(long, value_name = "NAME")]
    pub adapter: Option<String>,
}

impl KernelArgs {
    /// The kernel source and the library's options.
    pub fn load(&self) -> Result<(String, KernelOptions)> {
        let src = std::fs::read_to_string(&self.kernel)
            .with_context(|| format!("{}: cannot read", self.kernel.display()))?;
        let opts = KernelOptions {
            entry: self.entry.clone(),
            overrides: self.overrides.clone(),
            dispatch: self.dispatch,
            binds: self.bind.clone(),
        };
        Ok((src, opts))
    }
}

/// Arguments of `banksim capture`.
#[derive(Args)]
pub struct CaptureArgs {
    #[command(flatten)]
    kernel: KernelArgs,
    /// Where to write the trace (CSV, `block,thread,step,op,addr,bytes`).
    #[arg(short, long, value_name = "OUT.csv", required_unless_present = "instrument_only")]
    out: Option<PathBuf>,
    /// Also write the instrumented WGSL that runs.
    #[arg(long, value_name = "FILE.wgsl")]
    emit_wgsl: Option<PathBuf>,
    /// Only instrument (no GPU): list the access sites and the workgroup layout.
    #[arg(long)]
    instrument_only: bool,
    /// Records the first run makes room for (a run that makes more is repeated with
    /// exactly enough room; nothing is dropped).
    #[arg(long, value_name = "N", default_value_t = 1 << 20)]
    capacity: u64,
}

/// `X`, `X,Y` or `X,Y,Z`.
pub fn parse_dispatch(s: &str) -> Result<[u32; 3], String> {
    let parts: Vec<&str> = s.split(',').collect();
    if parts.is_empty() || parts.len() > 3 {
        return Err(format!("expected X,Y,Z workgroup counts, found `{s}`"));
    }
    let mut d = [1u32; 3];
    for (i, p) in parts.iter().enumerate() {
        d[i] = p.trim().parse().map_err(|_| format!("`{p}` is not a workgroup count"))?;
        if d[i] == 0 {
            return Err("workgroup counts must be at least 1".into());
        }
    }
    Ok(d)
}

/// `NAME=VALUE` with VALUE a number, `true` or `false`.
pub fn parse_override(s: &str) -> Result<(String, f64), String> {
    let (k, v) = s.split_once('=').ok_or_else(|| format!("expected NAME=VALUE, found `{s}`"))?;
    let v = match v.trim() {
        "true" => 1.0,
        "false" => 0.0,
        n => n.parse().map_err(|_| format!("`{n}` is not a number, true or false"))?,
    };
    Ok((k.trim().to_string(), v))
}

/// Runs `banksim capture`.
pub fn run(args: &CaptureArgs) -> Result<()> {
    let (src, kopts) = args.kernel.load()?;
    let file = args.kernel.kernel.display().to_string();
    let mut out = std::io::stdout().lock();
    if args.instrument_only {
        let (inst, wgsl, _) = validate::capture::prepare(&src, &file, &kopts)?;
        if let Some(p) = &args.emit_wgsl {
            std::fs::write(p, &wgsl).with_context(|| format!("{}: cannot write", p.display()))?;
        }
        writeln!(
            out,
            "{file}: workgroup size {:?}, {} bytes of workgroup memory",
            inst.workgroup_size, inst.shared_bytes
        )?;
        for v in &inst.shared {
            writeln!(out, "  {:>6}  {} ({} bytes)", v.offset, v.name, v.size)?;
        }
        writeln!(out, "{} sites:", inst.sites.len())?;
        for (i, s) in inst.sites.iter().enumerate() {
            let kind = match &s.kind {
                SiteKind::Access { op, leaves, .. } if leaves.len() == 1 => format!("{op} {} B", leaves[0].1),
                SiteKind::Access { op, leaves, .. } => format!("{op} x{} pieces", leaves.len()),
                SiteKind::Barrier => "bar".into(),
                SiteKind::Loop => "loop".into(),
            };
            writeln!(out, "  {i:>4}  {kind:<16} {}", s.what)?;
        }
        return Ok(());
    }
    let gpu = validate::gpu::Gpu::open(args.kernel.adapter.as_deref())?;
    let mut opts = CaptureOptions::new(kopts);
    opts.initial_records = args.capacity;
    let c = validate::capture::capture(&gpu, &src, &file, &opts)?;
    if let Some(p) = &args.emit_wgsl {
        std::fs::write(p, &c.wgsl).with_context(|| format!("{}: cannot write", p.display()))?;
    }
    let path = args.out.as_ref().context("--out is required")?;
    write_atomically(path, |w| traces::text::write(&c.trace, w))?;
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

/// Writes `path` through a temporary file renamed into place, so a failed write leaves
/// no partial file.
pub fn write_atomically(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<()> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(format!(".{}.tmp", std::process::id()));
    let tmp = PathBuf::from(tmp);
    let result = (|| -> Result<()> {
        let file =
            std::fs::File::create(&tmp).with_context(|| format!("{}: cannot create", tmp.display()))?;
        let mut w = std::io::BufWriter::new(file);
        write(&mut w).with_context(|| format!("{}: cannot write", tmp.display()))?;
        w.flush().with_context(|| format!("{}: cannot write", tmp.display()))?;
        drop(w);
        std::fs::rename(&tmp, path).with_context(|| format!("{}: cannot write", path.display()))
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}
