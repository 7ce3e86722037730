//! `banksim demo`: built-in traces (a 32x32 tile transpose, unpadded and padded), no files.

use crate::args::{hardware, HardwareArgs};
use crate::tables;
use anyhow::Result;
use pipeline::output::Inputs;
use pipeline::simulate;
use std::io::Write;

/// Runs `banksim demo`.
pub fn run(args: &HardwareArgs) -> Result<()> {
    let hw = hardware(args, &Inputs::new())?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "banksim demo: a 32x32 float tile transposed through shared memory on `{}`", hw.name)?;
    writeln!(
        out,
        "(each thread stores sh[ty][tx], barrier, loads sh[tx][ty]; rows are 32 + pad floats apart)\n"
    )?;
    for pad in [0, 1] {
        let trace = traces::builtin::transpose(32, pad, 4);
        let (_, summary) = simulate::summarize_trace(&hw, &trace)?;
        tables::print_totals(&mut out, &trace.source, trace.len() as u64, &hw, &summary)?;
        writeln!(out)?;
    }
    writeln!(out, "Unpadded, each column read hits one bank 32 times (32 wavefronts per warp);")?;
    writeln!(out, "one float of padding per row spreads a column over all banks (1 wavefront).")?;
    writeln!(out, "Next: `banksim presets`, `banksim run --config h100 TRACE.csv --per-request out.csv`.")?;
    Ok(())
}
