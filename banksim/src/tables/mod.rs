//! The text tables the tool prints: a run's totals by op and the cycle engine's summary
//! (here), the by-line report's annotated source ([`by_line`]).

pub mod by_line;

use sim_core::engine::{self, Stall};
use sim_core::launch::LaunchReport;
use sim_core::{stats::Summary, Hardware, Op};
use std::io::Write;

/// `n` and `word`, with an `s` where `n` is not 1 ("1 lane", "2 lanes").
pub fn count(n: impl Into<u64>, word: &str) -> String {
    let n = n.into();
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}

/// The header line and the totals by op (shared-memory ops with requests, then their
/// total; then barriers and global accesses, if any). The header counts records, not
/// requests, so that every count of requests is the table's.
pub fn print_totals(
    out: &mut dyn Write,
    source: &str,
    records: u64,
    hw: &Hardware,
    s: &Summary,
) -> std::io::Result<()> {
    writeln!(
        out,
        "{}: {}, warp {} on {} ({} banks x {} B)",
        source,
        count(records, "record"),
        hw.warp,
        hw.name,
        hw.banks,
        hw.bank_bytes
    )?;
    // the op column as wide as its longest name (`ldgsts.cg`) and a space
    let w = Op::ALL
        .into_iter()
        .filter(|op| op.is_memory() && s.op(*op).requests > 0)
        .map(|op| op.name().len() + 1)
        .max()
        .unwrap_or(0)
        .max(6);
    writeln!(
        out,
        "{:<w$}{:>10} {:>9} {:>11} {:>9} {:>10} {:>8}",
        "op", "requests", "lanes", "wavefronts", "ideal", "conflicts", "ratio"
    )?;
    let mut row = |name: &str, t: &sim_core::stats::OpTotals| {
        let ratio = if t.ideal == 0 { 0.0 } else { t.wavefronts as f64 / t.ideal as f64 };
        writeln!(
            out,
            // a space between columns even when a count outgrows its width
            "{:<w$}{:>10} {:>9} {:>11} {:>9} {:>10} {:>8.2}",
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
        writeln!(out, "({})", count(bars, "warp barrier"))?;
    }
    for op in [Op::GlobalLoad, Op::GlobalStore] {
        let t = s.op(op);
        if t.requests > 0 {
            writeln!(
                out,
                "({}: {}, {} through the pipe)",
                count(t.requests, if op == Op::GlobalLoad { "global load" } else { "global store" }),
                count(t.lanes, "lane"),
                count(t.wavefronts, "128-byte line")
            )?;
        }
    }
    Ok(())
}

/// The cycle engine's totals: cycles, occupancy, cycles per SM, pipe utilisation, stalls.
pub fn print_engine(out: &mut dyn Write, launch: &LaunchReport) -> std::io::Result<()> {
    let r = &launch.engine;
    let sms = r.sms.len();
    let active: Vec<&engine::SmStats> = r.sms.iter().filter(|s| s.blocks > 0).collect();
    let mut cycles: Vec<u64> = active.iter().map(|s| s.cycles).collect();
    cycles.sort_unstable();
    let util: Vec<f64> = active.iter().map(|s| s.pipe_utilisation()).collect();
    // (a fold from 0.0: the sum of no floats is -0.0)
    let mean_util = util.iter().fold(0.0, |a, b| a + b) / util.len().max(1) as f64;
    writeln!(out, "\ncycle engine: {} cycles", r.cycles)?;
    if launch.overhead_cycles > 0 || launch.clock_mhz > 0.0 {
        write!(out, "  dispatch: {} cycles with its fixed {}", launch.cycles(), launch.overhead_cycles)?;
        match launch.micros() {
            Some(us) => writeln!(out, ", {us:.2} us at {} MHz", launch.clock_mhz)?,
            None => writeln!(out)?,
        }
    }
    if launch.one_sm {
        writeln!(
            out,
            "  one SM simulated with its share of the grid's {}: every block is the same to the engine (exact; --full runs them all)",
            count(launch.blocks, "block")
        )?;
    }
    writeln!(
        out,
        "  occupancy: {}/SM resident ({}/block, {} B shared memory/block); {} of {sms} SMs used",
        count(r.blocks_per_sm, "block"),
        count(r.warps_per_block, "warp"),
        r.smem_per_block,
        active.len()
    )?;
    if let (Some(min), Some(max)) = (cycles.first(), cycles.last()) {
        writeln!(out, "  cycles per SM: min {min}, median {}, max {max}", cycles[cycles.len() / 2])?;
    }
    let max_util = util.iter().cloned().fold(0.0, f64::max);
    writeln!(out, "  shared-memory pipe utilisation: mean {mean_util:.3}, max {max_util:.3}")?;
    // (global-memory stalls only where the trace has global accesses)
    let stalls: Vec<String> = r
        .total
        .stalls
        .iter()
        .filter(|&(c, n)| c != Stall::Global || n > 0)
        .map(|(c, n)| format!("{} {n}", c.name()))
        .collect();
    writeln!(out, "  stall cycles (summed over requests): {}", stalls.join(", "))?;
    if let Some(m) = &launch.memory {
        writeln!(out, "  {}", memory_line(m))?;
    }
    Ok(())
}

/// What a dispatch's global lines moved and where from (`run --cycles`, `predict`).
pub fn memory_line(m: &sim_core::memory::MemoryShare) -> String {
    let mb = |b: u64| b as f64 / 1e6;
    format!(
        "global memory: {:.1} MB moved (in {:.1} MB of lines) over {:.1} MB of buffers: {:.1} MB from DRAM, {:.1} MB from the L2 ({:.0} B/cycle of lines; a load that misses the L1 waits {} cycles)",
        mb(m.bytes),
        mb(m.line_bytes),
        mb(m.footprint),
        mb(m.dram_bytes),
        mb(m.bytes - m.dram_bytes),
        m.bytes_per_cycle,
        m.latency
    )
}
