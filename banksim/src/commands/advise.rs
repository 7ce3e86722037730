//! `banksim advise`: find the padding, XOR swizzle or AoS -> SoA change that removes bank
//! conflicts (the search is [`crate::pipeline::layout`]); prints the ranking, and writes
//! it as CSV and a PNG bar chart.

use crate::args::{hardware, with_feature, HardwareArgs};
use anyhow::{Context, Result};
use clap::Args;
use pipeline::layout::{self, Candidate};
use pipeline::output::rows::{self, CandidateRow};
use pipeline::output::{write_atomically, write_csv, Inputs};
use sim_core::layout::{spell, ArrayShape, Layout};
use sim_core::{Hardware, Op};
use std::io::Write;
use std::path::PathBuf;
use traces::Trace;

#[derive(Args)]
/// Arguments of `banksim advise`.
pub struct AdviseArgs {
    #[command(flatten)]
    hw: HardwareArgs,
    /// A trace file, or a generator as KIND[:NAME=VALUE,...], e.g. `tile:rows=32,cols=32`.
    input: String,
    /// The array: ROWSxCOLSxBYTES[@BASE] (elements per row = current pitch, bytes per
    /// element, first byte). Default: from the generator, else inferred from the
    /// most conflicted request's lane stride.
    #[arg(long, value_name = "RxCxB[@BASE]")]
    shape: Option<String>,
    /// Candidates to list.
    #[arg(long, default_value_t = 10)]
    top: usize,
    /// Largest row padding to try, in elements.
    #[arg(long, default_value_t = 33)]
    max_pad: u32,
    /// The layouts to try: `all` (padding up to --max-pad, the XOR swizzles, the TMA
    /// modes, the transpose), `tma` (the TMA swizzle modes), or layouts separated by `;`
    /// (`pad 1;Swizzle<3,3,3>;SWIZZLE_128B`).
    #[arg(long, value_name = "all|tma|L;L...", default_value = "all")]
    layouts: String,
    /// Skip the cycle engine (no cycles or occupancy columns).
    #[arg(long)]
    no_cycles: bool,
    /// Write every candidate as CSV.
    #[arg(long, value_name = "OUT.csv")]
    csv: Option<PathBuf>,
    /// Draw the candidates' wavefronts as a PNG bar chart.
    #[arg(long, value_name = "OUT.png")]
    png: Option<PathBuf>,
}

/// Runs `banksim advise`.
pub fn run(args: &AdviseArgs) -> Result<()> {
    if args.png.is_some() {
        with_feature!("charts", "`banksim advise --png`", Ok(()))?;
    }
    let inputs = Inputs::new();
    let hw = hardware(&args.hw, &inputs)?;
    let (trace, gen_shape) = layout::load_input(&args.input, &inputs)?;
    // the checks `run` makes, on a file and a generator's trace alike
    pipeline::check::check_records(&trace, &hw, None)?;
    let shape = match &args.shape {
        Some(s) => layout::parse_shape(s)?,
        None => match gen_shape {
            Some(s) => s,
            None => layout::infer_shape(&trace, &hw)?,
        },
    };
    let cycles = !args.no_cycles && hw.timing.is_some();
    if let Some(s) = &args.shape {
        layout::check_shape(&shape, &hw).with_context(|| format!("--shape {s}"))?;
    }
    let named = match args.layouts.as_str() {
        "all" => None,
        "tma" => Some(layout::tma_layouts()),
        list => Some(
            list.split(';')
                .map(|l| l.parse::<Layout>())
                .collect::<Result<Vec<_>, _>>()
                .with_context(|| format!("--layouts {list}"))?,
        ),
    };
    let (base, cands, refused) = match &named {
        None => {
            // (a padding beyond shared memory is said before the work it would take)
            layout::check_pad(&shape, &hw, args.max_pad)?;
            layout::check_work(args.max_pad, trace.len())?;
            let (base, cands) = layout::search(&hw, &trace, &shape, args.max_pad, cycles)?;
            (base, cands, Vec::new())
        }
        Some(list) => {
            let s = layout::search_among(&hw, &trace, &shape, list, cycles)?;
            (s.base, s.candidates, s.refused)
        }
    };
    let hot = layout::hot_group(&base);
    let hot_of = |c: &Candidate| hot.map_or(0, |k| c.groups.get(&k).copied().unwrap_or(0));
    print_table(&hw, &trace, &shape, &base, &cands, args.top, hot)?;
    for (l, why) in &refused {
        println!("not tried: {l}: {why}");
    }
    let best_pad = cands
        .iter()
        .filter(|c| matches!(c.layout, Layout::Pad { .. }))
        .min_by_key(|c| (hot_of(c), c.conflicts, c.extra_bytes));
    if let (Some(p), Some((step, op, bytes))) = (best_pad, hot) {
        println!(
            "best padding for the hot group (step {step} {op} {bytes} B): {} -> {} conflicts there, {} in all",
            p.layout,
            hot_of(p),
            p.conflicts
        );
    }
    if let Some(path) = &args.csv {
        let rows = std::iter::once(&base).chain(&cands).enumerate().map(|(rank, c)| CandidateRow {
            rank,
            layout: c.layout.to_string(),
            base: shape.base,
            rows: shape.rows,
            cols: shape.cols,
            elem: shape.elem,
            wavefronts: c.wavefronts,
            ideal: c.ideal,
            conflicts: c.conflicts,
            hot_conflicts: hot_of(c),
            extra_bytes: c.extra_bytes,
            smem_per_block: c.smem_per_block,
            blocks_per_sm: c.blocks_per_sm,
            cycles: c.cycles,
            same_as: spell::also(&c.layout, &shape).join("; "),
        });
        write_atomically(path, &inputs, |f| -> Result<()> {
            Ok(write_csv(f, rows::CANDIDATE_HEADER, rows)?)
        })?;
    }
    if let Some(path) = &args.png {
        with_feature!(
            "charts",
            "`banksim advise --png`",
            crate::charts::advice(path, &inputs, &hw, &trace, &shape, &base, &cands, args.top),
            uses: path
        )?;
    }
    Ok(())
}

fn print_table(
    hw: &Hardware,
    trace: &Trace,
    shape: &ArrayShape,
    base: &Candidate,
    cands: &[Candidate],
    top: usize,
    hot: Option<(u32, Op, u8)>,
) -> Result<()> {
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "{} on {}: array of {} rows x {} elements of {} B at byte {} ({} candidate layouts re-simulated)",
        trace.source,
        hw.name,
        shape.rows,
        shape.cols,
        shape.elem,
        shape.base,
        cands.len() + 1
    )?;
    let shown: Vec<&Candidate> = std::iter::once(base).chain(cands.iter().take(top)).collect();
    let lw = shown.iter().map(|c| c.layout.to_string().len() + 2).max().unwrap_or(0).max(22);
    let line = format!(
        "{:>4}  {:<lw$}{:>11}{:>9}{:>10}{:>6}{:>8}{:>11}{:>10}{:>10}  {}",
        "rank",
        "layout",
        "wavefronts",
        "ideal",
        "conflicts",
        "hot",
        "+bytes",
        "smem/blk",
        "blocks/SM",
        "cycles",
        "same as"
    );
    writeln!(out, "{}", line.trim_end())?;
    let opt = |v: Option<u64>| v.map_or("-".to_string(), |v| v.to_string());
    for (rank, c) in shown.into_iter().enumerate() {
        let line = format!(
            "{:>4}  {:<lw$}{:>11}{:>9}{:>10}{:>6}{:>8}{:>11}{:>10}{:>10}  {}",
            rank,
            c.layout.to_string(),
            c.wavefronts,
            c.ideal,
            c.conflicts,
            hot.map_or(0, |k| c.groups.get(&k).copied().unwrap_or(0)),
            c.extra_bytes,
            c.smem_per_block,
            opt(c.blocks_per_sm.map(u64::from)),
            opt(c.cycles),
            spell::also(&c.layout, shape).join("; ")
        );
        writeln!(out, "{}", line.trim_end())?;
    }
    if let Some(best) = cands.first() {
        writeln!(out, "\nhot request groups (step, op, width): conflicts as is -> with {}", best.layout)?;
        let mut hot: Vec<_> = base.groups.iter().filter(|g| *g.1 > 0).collect();
        hot.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        for ((step, op, bytes), n) in hot.into_iter().take(5) {
            let after = best.groups.get(&(*step, *op, *bytes)).copied().unwrap_or(0);
            writeln!(out, "  step {step:>4} {op:<4} {bytes:>2} B: {n:>8} -> {after}")?;
        }
        if trace.has_sites() {
            writeln!(out, "by site: conflicts as is -> with {}", best.layout)?;
            for (site, n) in &base.sites {
                let label = trace.site_label(*site).unwrap_or("(no site)");
                writeln!(out, "  {label}: {n} -> {}", best.sites.get(site).copied().unwrap_or(0))?;
            }
        }
        if best.blocks_per_sm < base.blocks_per_sm {
            writeln!(
                out,
                "note: {} adds {} bytes per block and lowers occupancy from {} to {} blocks per SM",
                best.layout,
                best.extra_bytes,
                opt(base.blocks_per_sm.map(u64::from)),
                opt(best.blocks_per_sm.map(u64::from))
            )?;
        }
    }
    Ok(())
}
