//! `banksim measure`: time an uninstrumented WGSL kernel on a GPU with timestamp
//! queries. Glue only: the work is in `validate::measure` (the `gpu` feature).

use crate::args::kernel::KernelArgs;
use anyhow::Result;
use clap::Args;
use pipeline::output::{append, check_append, write_atomically, Inputs};
use std::io::Write;
use std::path::PathBuf;
use validate::measure::{MeasureOptions, Measurement};

/// Arguments of `banksim measure`.
#[derive(Args)]
pub struct MeasureArgs {
    #[command(flatten)]
    kernel: KernelArgs,
    /// The variant's name in the CSV and JSON (default: the kernel's file name).
    #[arg(long, value_name = "TEXT")]
    label: Option<String>,
    /// Timed repetitions (one dispatch each).
    #[arg(long, value_name = "N", default_value_t = 20)]
    reps: u32,
    /// Untimed repetitions first.
    #[arg(long, value_name = "N", default_value_t = 3)]
    warmup: u32,
    /// Do not let wgpu zero workgroup memory before the kernel (it does by default, and
    /// the stride-sweep ground truth was measured that way).
    #[arg(long)]
    no_zero_init: bool,
    /// Write the measurement (every time, statistics, adapter, driver, limits) as JSON.
    #[arg(long, value_name = "OUT.json")]
    json: Option<PathBuf>,
    /// Append one row to this CSV (the header is written when the file is new).
    #[arg(long, value_name = "OUT.csv")]
    csv: Option<PathBuf>,
}

/// Runs `banksim measure`.
pub fn run(args: &MeasureArgs) -> Result<()> {
    if args.reps == 0 {
        anyhow::bail!("--reps must be at least 1");
    }
    let inputs = Inputs::new();
    let (src, kopts) = args.kernel.load(&inputs)?;
    // every output checked before the GPU runs (the two against each other in main)
    if let Some(p) = &args.json {
        inputs.check_target(p)?;
    }
    if let Some(p) = &args.csv {
        check_append(p, &inputs, Measurement::CSV_HEADER)?;
    }
    let file = args.kernel.kernel.display().to_string();
    let bar = crate::progress::spinner("opening the GPU");
    let gpu = args.kernel.open_gpu()?;
    bar.say(format!("measuring {file}: {} warm-up and {} timed runs", args.warmup, args.reps));
    let label = args.label.clone().unwrap_or_else(|| file.clone());
    let opts = MeasureOptions {
        label,
        kernel: kopts,
        warmup: args.warmup,
        reps: args.reps,
        zero_init_workgroup: !args.no_zero_init,
    };
    let m = validate::measure::measure(&gpu, &src, &file, &opts)?;
    drop(bar);
    if let Some(p) = &args.json {
        write_atomically(p, &inputs, |w| -> Result<()> { Ok(serde_json::to_writer_pretty(w, &m)?) })?;
    }
    if let Some(p) = &args.csv {
        append(p, &inputs, Measurement::CSV_HEADER, &format!("{}\n", m.csv_row()))?;
    }
    let s = &m.stats;
    let mut out = std::io::stdout().lock();
    writeln!(out, "adapter: {} (driver {} {})", m.adapter.name, m.adapter.driver, m.adapter.driver_info)?;
    if m.adapter.device_type == "Cpu" {
        // lavapipe and other software Vulkan: times of the CPU, which say nothing of a GPU's
        eprintln!(
            "warning: `{}` is a CPU (software Vulkan): these are the CPU's times, not a GPU's; \
             time kernels on a GPU, or predict a GPU's time with `banksim predict`",
            m.adapter.name
        );
    }
    writeln!(
    out,
    "{file} dispatch {:?}: median {:.3} us, min {:.3}, max {:.3}, q1 {:.3}, q3 {:.3} (spread {:.1}% of the median), {} reps after {} warm-up, timer {}",
    m.dispatch,
    s.median / 1e3,
    s.min / 1e3,
    s.max / 1e3,
    s.q1 / 1e3,
    s.q3 / 1e3,
    100.0 * s.rel_iqr,
    m.times_ns.len(),
    m.warmup,
    m.timer
)?;
    Ok(())
}
