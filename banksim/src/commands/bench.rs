//! `banksim bench`: simulation speed (warp requests per second) of the bank model and of
//! the cycle engine at several thread counts.

use super::args::with_threads;
use anyhow::Result;
use clap::Args;
use sim_core::engine::{self, EngineOptions, Workload};
use sim_core::BankModel;
use std::io::Write;

#[derive(Args)]
/// Arguments of `banksim bench`.
pub struct BenchArgs {
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

/// Runs `banksim bench`.
pub fn run(args: &BenchArgs) -> Result<()> {
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
