//! `banksim bench`: simulation speed (warp requests per second) of the bank model and of
//! the cycle engine at several thread counts, and of whole `banksim run` processes (a
//! text trace, with `--per-request`; a binary trace, with `--cycles` and `--cycles
//! --per-request`) of the same workload.

use crate::args::with_threads;
use anyhow::{Context, Result};
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
    /// Workgroups of the binary trace timed through whole `banksim run` processes (0:
    /// none).
    #[arg(long, default_value_t = 264)]
    run_blocks: u32,
}

/// Runs `banksim bench`.
pub fn run(args: &BenchArgs) -> Result<()> {
    let hw = configs::preset("h100")?;
    pipeline::stridebench::check_size(args.blocks, args.iters)?;
    if args.run_blocks > 0 {
        pipeline::stridebench::check_size(args.run_blocks, args.iters).context("--run-blocks")?;
    }
    let mut out = std::io::stdout().lock();
    let work = traces::builtin::StrideBench::new(args.blocks, 256, args.iters, 1, 0);
    let n = work.len() as f64;
    writeln!(
        out,
        "workload: stride sweep, {} workgroups x 8 warps x {} steps = {} warp requests",
        args.blocks,
        args.iters as u64 + 33,
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
    if args.run_blocks > 0 {
        whole_runs(&mut out, args)?;
    }
    Ok(())
}

/// Times whole `banksim run` processes (start, reading and checking the trace, the
/// simulation, the output, exit) on the stride-sweep workload of `args.run_blocks`
/// workgroups written as a binary trace to a temporary file: the figures a user sees,
/// beside the inner loops' above. Each figure is the best of 3 runs.
fn whole_runs(out: &mut impl Write, args: &BenchArgs) -> Result<()> {
    let work = traces::builtin::StrideBench::new(args.run_blocks, 256, args.iters, 1, 0);
    let dir = pipeline::files::TempFolder::new("banksim-bench-")?;
    let trace = dir.path().join("sweep.bsim");
    let mut w =
        traces::binary::Writer::new(std::io::BufWriter::new(std::fs::File::create(&trace)?), "sweep", true)?;
    // and the first eighth of the workgroups as a text trace (32 records, about 750
    // bytes, a warp request: the whole would be gigabytes)
    let text_blocks = (args.run_blocks / 8).max(1);
    let mut text_requests = 0usize;
    let text = dir.path().join("sweep.csv");
    let mut t = std::io::BufWriter::new(std::fs::File::create(&text)?);
    traces::text::write_header(8, &mut t)?;
    // block by block; the barrier (no lanes in the workload) as one record per thread
    let mut block = traces::Trace::new("sweep");
    for i in 0..work.len() {
        let r = work.request(i);
        let step = (i % (work.len() / args.run_blocks as usize / 8)) as u32;
        let lanes: Vec<(u16, u32)> = match r.op {
            sim_core::Op::Barrier => (0..32).map(|l| (l, 0)).collect(),
            _ => r.lanes.iter().copied().zip(r.addrs.iter().copied()).collect(),
        };
        for (lane, addr) in lanes {
            let bytes = if r.op == sim_core::Op::Barrier { 0 } else { r.bytes };
            block.push(traces::Record {
                block: r.block,
                thread: r.warp * 32 + lane as u32,
                step,
                op: r.op,
                addr,
                bytes,
                gap: r.gap,
                dep: r.dep,
                wait: None,
                site: traces::NO_SITE,
            });
        }
        if i + 1 == work.len() || work.request(i + 1).block != r.block {
            w.push_trace(&block)?;
            if r.block < text_blocks {
                traces::text::write_records(&block.records, 8, &mut t)?;
                text_requests = i + 1;
            }
            block = traces::Trace::new("sweep");
        }
    }
    w.finish()?.into_inner().map_err(|e| e.into_error())?.sync_all()?;
    t.into_inner().map_err(|e| e.into_error())?.sync_all()?;
    writeln!(
        out,
        "whole `banksim run` processes: T.bsim of {} workgroups ({} warp requests, {} MB), T.csv of the first {text_blocks} ({text_requests} warp requests, {} MB):",
        args.run_blocks,
        work.len(),
        std::fs::metadata(&trace)?.len() / 1_000_000,
        std::fs::metadata(&text)?.len() / 1_000_000,
    )?;
    let exe = std::env::current_exe()?;
    let csv = dir.path().join("requests.csv");
    let per_request = || vec!["--per-request".as_ref(), csv.as_os_str()];
    let cycles = || vec!["--cycles".as_ref()];
    let (m, t) = (work.len() as f64, text_requests as f64);
    let paths: [(&str, &std::path::Path, f64, Vec<&std::ffi::OsStr>); 5] = [
        ("run T.csv", &text, t, vec![]),
        ("run T.csv --per-request", &text, t, per_request()),
        ("run T.bsim", &trace, m, vec![]),
        ("run T.bsim --cycles", &trace, m, cycles()),
        ("run T.bsim --cycles --per-request", &trace, m, [cycles(), per_request()].concat()),
    ];
    for (what, trace, n, extra) in &paths {
        for &threads in &args.threads {
            let mut best = f64::INFINITY;
            for _ in 0..3 {
                let t = std::time::Instant::now();
                let status = std::process::Command::new(&exe)
                    .arg("run")
                    .args(extra)
                    .arg("--threads")
                    .arg(threads.to_string())
                    .arg(trace)
                    .stdout(std::process::Stdio::null())
                    .status()?;
                if !status.success() {
                    anyhow::bail!("`banksim {what}` on the benchmark's trace failed ({status})");
                }
                best = best.min(t.elapsed().as_secs_f64());
            }
            writeln!(
                out,
                "{what:>34}, {threads} threads: {:.2} M warp-requests/s ({best:.2} s)",
                n / best / 1e6
            )?;
        }
    }
    Ok(())
}
