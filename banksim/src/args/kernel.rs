//! A WGSL kernel to run on a GPU (the `gpu` feature): the arguments of `capture`,
//! `measure`, `explain` and `predict`, and the parsers of `--dispatch` and `--override`.

use anyhow::{Context, Result};
use clap::Args;
use pipeline::output::Inputs;
use std::path::PathBuf;
use validate::bind::Bind;
use validate::capture::KernelOptions;

/// What to run: shared by `capture`, `measure`, `explain` and `predict`.
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
    /// Seconds one dispatch may run on the GPU before it is given up on with an error (a
    /// loop that never ends, on an adapter that does not stop it).
    #[arg(long, value_name = "SECONDS", default_value_t = sim_core::limits::GPU_SECONDS.max,
          value_parser = clap::value_parser!(u64).range(1..=sim_core::limits::GPU_SECONDS.max * 60))]
    pub time_limit: u64,
}

impl KernelArgs {
    /// The GPU (`--adapter`), with `--time-limit` on each dispatch.
    pub fn open_gpu(&self) -> Result<validate::gpu::Gpu> {
        let mut gpu = validate::gpu::Gpu::open(self.adapter.as_deref())?;
        gpu.time_limit = std::time::Duration::from_secs(self.time_limit);
        Ok(gpu)
    }

    /// The kernel source (declared one of `inputs`) and the library's options.
    pub fn load(&self, inputs: &Inputs) -> Result<(String, KernelOptions)> {
        inputs.declare(&self.kernel);
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

/// Prints a capture's warnings on standard error, each with the kernel's file.
pub fn print_warnings(file: &str, capture: &validate::capture::Capture) {
    for w in &capture.warnings {
        eprintln!("warning: {file}: {w}");
    }
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
