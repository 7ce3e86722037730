//! `banksim shader-stats`: what a GPU's driver compiles a WGSL kernel to, in the driver's
//! own statistics (registers, instructions, shared memory, ...). Glue only: the work is
//! in `validate::compiled` (the `gpu` feature).

use anyhow::Result;
use clap::Args;
use crate::args::kernel::parse_override;
use std::path::PathBuf;

/// Arguments of `banksim shader-stats`.
///
/// The kernel is translated to SPIR-V as wgpu does for Vulkan (overrides set, bounds
/// checks, loop bounding, zeroed workgroup memory) and compiled by the driver of the
/// chosen device, which reports on the code it made through
/// VK_KHR_pipeline_executable_properties. Which statistics exist is up to the driver.
/// Examples:
///
///   banksim shader-stats validate/kernels/transpose32.wgsl
///
///   banksim shader-stats validate/kernels/unseen/transpose64.wgsl --override PAD=1 \
///       --label transpose64_pad1 --csv stats.csv
#[derive(Args)]
pub struct ShaderStatsArgs {
    /// The WGSL compute shader (unmodified).
    kernel: PathBuf,
    /// Compute entry point (default: the only one).
    #[arg(long, value_name = "NAME")]
    entry: Option<String>,
    /// Set a pipeline-overridable constant: NAME=VALUE (a number, true or false). Repeatable.
    #[arg(long = "override", value_name = "NAME=VALUE", value_parser = parse_override)]
    overrides: Vec<(String, f64)>,
    /// Use the first Vulkan device whose name contains this text (default: the best one).
    #[arg(long, value_name = "NAME")]
    adapter: Option<String>,
    /// Also write the driver's internal representations (assembly, IR), where it gives
    /// any, one file per executable and representation, into this folder.
    #[arg(long, value_name = "DIR")]
    ir: Option<PathBuf>,
    /// The kernel's name in the CSV (default: the file name).
    #[arg(long, value_name = "TEXT")]
    label: Option<String>,
    /// Append one row per statistic to this CSV: label,adapter,executable,statistic,value
    /// (the header is written when the file is new).
    #[arg(long, value_name = "OUT.csv")]
    csv: Option<PathBuf>,
}

/// The header of `--csv`.
pub const CSV_HEADER: &str = "label,adapter,executable,statistic,value";

/// Runs `banksim shader-stats`.
pub fn run(args: &ShaderStatsArgs) -> Result<()> {
    use pipeline::output::{append, write_atomically, Inputs};
    use std::io::Write;
    let inputs = Inputs::new();
    inputs.declare(&args.kernel);
    let kernel = validate::kernel::load_file(&args.kernel, args.entry.as_deref(), &args.overrides)?;
    let compiled = validate::compiled::compile(&kernel, args.adapter.as_deref(), args.ir.is_some())?;
    let label = args.label.clone().unwrap_or_else(|| args.kernel.display().to_string());
    let mut out = std::io::stdout().lock();
    writeln!(out, "{label} on {}", compiled.adapter)?;
    let mut rows = csv::WriterBuilder::new().has_headers(false).from_writer(Vec::new());
    for e in &compiled.executables {
        writeln!(out, "{}: {} (subgroup size {})", e.name, e.description, e.subgroup_size)?;
        let width = e.statistics.iter().map(|s| s.name.len()).max().unwrap_or(0);
        for s in &e.statistics {
            writeln!(out, "  {:<width$}  {:>10}  {}", s.name, s.value.to_string(), s.description)?;
            rows.write_record([&label, &compiled.adapter, &e.name, &s.name, &s.value.to_string()])?;
        }
    }
    if let Some(dir) = &args.ir {
        std::fs::create_dir_all(dir)?;
        let mut written = 0;
        for (i, e) in compiled.executables.iter().enumerate() {
            for (name, text) in &e.representations {
                let file: String = name
                    .chars()
                    .map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '_' })
                    .collect();
                let path = dir.join(format!("{i}_{file}.txt"));
                write_atomically(&path, &inputs, |f| -> Result<()> { Ok(f.write_all(text.as_bytes())?) })?;
                written += 1;
            }
        }
        writeln!(out, "wrote {written} internal representations into {}", dir.display())?;
    }
    if let Some(p) = &args.csv {
        let rows = String::from_utf8(rows.into_inner()?)?;
        append(p, &inputs, CSV_HEADER, &rows)?;
    }
    Ok(())
}
