//! `banksim presets`: the built-in hardware presets as a table, or one as RON.

use anyhow::{Context, Result};
use clap::Args;
use std::io::Write;

/// Arguments of `banksim presets`.
#[derive(Args)]
pub struct PresetsArgs {
    /// Print this preset's RON source (a starting point for your own config).
    #[arg(long, value_name = "NAME")]
    show: Option<String>,
}

/// Runs `banksim presets`.
pub fn run(args: &PresetsArgs) -> Result<()> {
    let show = args.show.as_deref();
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
        "{:<8}{:>6}{:>6}{:>6}{:>6}{:>6}  {:<22}{:<18}{:<11}{:>9}",
        "preset",
        "banks",
        "word",
        "warp",
        "xbar",
        "ports",
        "lanes/phase 1..16B",
        "loads",
        "pair-merge",
        "smem/SM"
    )?;
    for name in configs::preset_names() {
        let hw = configs::preset(name)?;
        let p = hw.crossbar.lane_table(hw.bank_bytes);
        writeln!(
            out,
            "{:<8}{:>6}{:>6}{:>6}{:>6}{:>6}  {:<22}{:<18}{:<11}{:>9}",
            name,
            hw.banks,
            hw.bank_bytes,
            hw.warp,
            hw.crossbar.width,
            hw.crossbar.ports,
            format!(
                "{}/{}/{}/{}/{}{}",
                p.b1,
                p.b2,
                p.b4,
                p.b8,
                p.b16,
                if hw.crossbar.groups.is_empty() { "" } else { " +groups" }
            ),
            format!("{:?}", hw.crossbar.broadcast),
            if hw.crossbar.load_pair_merge.is_some() { "yes" } else { "no" },
            hw.smem_per_sm
        )?;
    }
    Ok(())
}
