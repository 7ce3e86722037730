//! `banksim advise`: search layouts of a shared array (padding, XOR swizzles, AoS ↔
//! SoA) that remove bank conflicts; every candidate is re-simulated on the whole
//! transformed trace, loads and stores, so the advice is never a guess.

use anyhow::{bail, Context, Result};
use clap::Args;
use rayon::prelude::*;
use sim_core::engine::{self, EngineOptions};
use sim_core::layout::{ArrayShape, Layout};
use sim_core::{BankModel, Hardware, Op};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use traces::{Requests, Trace};

use crate::{AtomicFile, HardwareArgs};

#[derive(Args)]
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

/// One evaluated layout.
struct Candidate {
    layout: Layout,
    wavefronts: u64,
    ideal: u64,
    conflicts: u64,
    extra_bytes: u32,
    smem_per_block: u32,
    blocks_per_sm: Option<u32>,
    cycles: Option<u64>,
    /// Conflicts per hot group (step, op, bytes).
    groups: BTreeMap<(u32, Op, u8), u64>,
}

pub fn advise(args: &AdviseArgs) -> Result<()> {
    let hw = crate::hardware(&args.hw)?;
    let (trace, gen_shape) = load_input(&args.input)?;
    let shape = match &args.shape {
        Some(s) => parse_shape(s)?,
        None => match gen_shape {
            Some(s) => s,
            None => infer_shape(&trace, &hw)?,
        },
    };
    let width = trace
        .records
        .iter()
        .filter(|r| r.op.is_memory() && r.addr >= shape.base && r.addr - shape.base < shape.bytes())
        .map(|r| r.bytes as u32)
        .max()
        .context("no access of the trace falls inside the array; check --shape")?;
    let mut layouts = vec![Layout::Identity];
    layouts.extend((1..=args.max_pad).map(|elems| Layout::Pad { elems }));
    for bits in 1..=5 {
        for base in 0..=4 {
            for shift in bits..=8 {
                layouts.push(Layout::Swizzle { bits, base, shift });
            }
        }
    }
    layouts.push(Layout::Transpose);
    layouts.retain(|l| l.valid_for(&shape, width));
    let cycles = !args.no_cycles && hw.timing.is_some();
    let mut cands: Vec<Candidate> =
        layouts.par_iter().map(|l| evaluate(&hw, &trace, &shape, *l, cycles)).collect::<Result<_>>()?;
    let base = cands.remove(0);
    // the baseline's most conflicted request group (step, op, width)
    let hot = base.groups.iter().max_by_key(|(k, n)| (**n, std::cmp::Reverse(**k))).map(|(k, _)| *k);
    let hot_of = |c: &Candidate| hot.map_or(0, |k| c.groups.get(&k).copied().unwrap_or(0));
    cands.sort_by(|a, b| {
        (a.conflicts, a.extra_bytes, a.cycles, a.layout.to_string()).cmp(&(
            b.conflicts,
            b.extra_bytes,
            b.cycles,
            b.layout.to_string(),
        ))
    });
    print_table(&hw, &trace, &shape, &base, &cands, args.top, hot)?;
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
        let mut f = AtomicFile::create(path)?;
        {
            let mut w = csv::Writer::from_writer(&mut f.writer);
            w.write_record([
                "rank",
                "layout",
                "base",
                "rows",
                "cols",
                "elem",
                "wavefronts",
                "ideal",
                "conflicts",
                "hot_conflicts",
                "extra_bytes",
                "smem_per_block",
                "blocks_per_sm",
                "cycles",
            ])?;
            for (rank, c) in std::iter::once(&base).chain(&cands).enumerate() {
                let opt = |v: Option<u64>| v.map_or(String::new(), |v| v.to_string());
                w.write_record([
                    rank.to_string(),
                    c.layout.to_string(),
                    shape.base.to_string(),
                    shape.rows.to_string(),
                    shape.cols.to_string(),
                    shape.elem.to_string(),
                    c.wavefronts.to_string(),
                    c.ideal.to_string(),
                    c.conflicts.to_string(),
                    hot_of(c).to_string(),
                    c.extra_bytes.to_string(),
                    c.smem_per_block.to_string(),
                    opt(c.blocks_per_sm.map(u64::from)),
                    opt(c.cycles),
                ])?;
            }
            w.flush()?;
        }
        f.commit()?;
    }
    if let Some(path) = &args.png {
        let bars: Vec<(String, f64)> = std::iter::once(&base)
            .chain(cands.iter().take(args.top.max(1)))
            .map(|c| (c.layout.to_string(), c.wavefronts as f64))
            .collect();
        let title = format!("{}: wavefronts per layout on {}", trace.source, hw.name);
        reports::bars(path, &title, "wavefronts", &bars, base.wavefronts as f64)?;
    }
    Ok(())
}

fn evaluate(
    hw: &Hardware,
    trace: &Trace,
    shape: &ArrayShape,
    layout: Layout,
    cycles: bool,
) -> Result<Candidate> {
    let mut t = trace.clone();
    for r in t.records.iter_mut().filter(|r| r.op.is_memory()) {
        r.addr = layout.map(shape, r.addr);
    }
    let requests = Requests::group(&t, hw.warp)?;
    let mut model = BankModel::new(hw);
    let (mut wavefronts, mut ideal, mut conflicts) = (0, 0, 0);
    let mut groups = BTreeMap::new();
    let mut smem = 0u32;
    // shared-memory requests only: global accesses (captures have them) are no layout's
    // concern, though the engine below runs them
    for r in requests.iter().filter(|r| r.op.is_memory()) {
        let o = model.evaluate(&r.warp_request());
        wavefronts += o.wavefronts as u64;
        ideal += o.ideal as u64;
        conflicts += o.conflicts() as u64;
        *groups.entry((r.step, r.op, r.bytes)).or_insert(0) += o.conflicts() as u64;
        for &a in r.addrs {
            smem = smem.max(a + r.bytes as u32);
        }
    }
    let (mut blocks_per_sm, mut cyc) = (None, None);
    if cycles {
        let rep =
            engine::run(hw, &requests, &EngineOptions { smem_per_block: Some(smem), ..Default::default() })
                .map_err(|e| anyhow::anyhow!("{e}"))?;
        blocks_per_sm = Some(rep.blocks_per_sm);
        cyc = Some(rep.cycles);
    }
    Ok(Candidate {
        layout,
        wavefronts,
        ideal,
        conflicts,
        extra_bytes: layout.extra_bytes(shape),
        smem_per_block: smem,
        blocks_per_sm,
        cycles: cyc,
        groups,
    })
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
    writeln!(
        out,
        "{:>4}  {:<22}{:>11}{:>9}{:>10}{:>6}{:>8}{:>11}{:>10}{:>10}",
        "rank",
        "layout",
        "wavefronts",
        "ideal",
        "conflicts",
        "hot",
        "+bytes",
        "smem/blk",
        "blocks/SM",
        "cycles"
    )?;
    let opt = |v: Option<u64>| v.map_or("-".to_string(), |v| v.to_string());
    for (rank, c) in std::iter::once(base).chain(cands.iter().take(top)).enumerate() {
        writeln!(
            out,
            "{:>4}  {:<22}{:>11}{:>9}{:>10}{:>6}{:>8}{:>11}{:>10}{:>10}",
            rank,
            c.layout.to_string(),
            c.wavefronts,
            c.ideal,
            c.conflicts,
            hot.map_or(0, |k| c.groups.get(&k).copied().unwrap_or(0)),
            c.extra_bytes,
            c.smem_per_block,
            opt(c.blocks_per_sm.map(u64::from)),
            opt(c.cycles)
        )?;
    }
    if let Some(best) = cands.first() {
        writeln!(out, "\nhot request groups (step, op, width): conflicts as is -> with {}", best.layout)?;
        let mut hot: Vec<_> = base.groups.iter().filter(|g| *g.1 > 0).collect();
        hot.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        for ((step, op, bytes), n) in hot.into_iter().take(5) {
            let after = best.groups.get(&(*step, *op, *bytes)).copied().unwrap_or(0);
            writeln!(out, "  step {step:>4} {op:<4} {bytes:>2} B: {n:>8} -> {after}")?;
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

/// A trace file, or `KIND[:NAME=VALUE,...]` for a generator (with the array shape the
/// generator implies).
fn load_input(input: &str) -> Result<(Trace, Option<ArrayShape>)> {
    if Path::new(input).is_file() {
        return Ok((traces::text::read(Path::new(input))?, None));
    }
    let (kind, rest) = input.split_once(':').unwrap_or((input, ""));
    let mut params = BTreeMap::new();
    for kv in rest.split(',').filter(|s| !s.is_empty()) {
        let (k, v) = kv.split_once('=').with_context(|| format!("`{kv}`: expected NAME=VALUE"))?;
        params.insert(k.to_string(), v.parse::<i64>().with_context(|| format!("`{kv}`: not an integer"))?);
    }
    if traces::spec::params_of(kind).is_none() && !input.contains(':') {
        bail!("`{input}`: no such trace file, and not a generator (KIND[:NAME=VALUE,...]; see `banksim gen --list`)");
    }
    let trace = traces::spec::generate(kind, &params)?;
    let p = |name: &str| -> u32 {
        let def =
            traces::spec::params_of(kind).and_then(|ps| ps.iter().find(|p| p.0 == name)).map_or(0, |p| p.1);
        params.get(name).copied().unwrap_or(def) as u32
    };
    let shape = match kind {
        "tile" => Some(ArrayShape { base: 0, rows: p("rows"), cols: p("cols") + p("pad"), elem: p("width") }),
        "gemm" => Some(ArrayShape { base: 0, rows: p("m"), cols: p("k") + p("skew"), elem: 4 }),
        "scan" if p("padded") == 0 => {
            Some(ArrayShape { base: 0, rows: p("n").div_ceil(32), cols: 32, elem: 4 })
        }
        "reduction" => Some(ArrayShape { base: 0, rows: p("tile").div_ceil(32), cols: 32, elem: 4 }),
        "aos" if p("soa") == 0 => Some(ArrayShape { base: 0, rows: p("threads"), cols: p("k"), elem: 4 }),
        _ => None,
    };
    Ok((trace, shape))
}

fn parse_shape(s: &str) -> Result<ArrayShape> {
    let bad = || anyhow::anyhow!("--shape `{s}`: expected ROWSxCOLSxBYTES[@BASE], e.g. 32x33x4");
    let (dims, base) = match s.split_once('@') {
        Some((d, b)) => (d, b.parse::<u32>().map_err(|_| bad())?),
        None => (s, 0),
    };
    let v: Vec<u32> =
        dims.split('x').map(|x| x.parse::<u32>()).collect::<Result<_, _>>().map_err(|_| bad())?;
    match v[..] {
        [rows, cols, elem] if rows > 0 && cols > 0 && sim_core::is_valid_width(elem as u8) => {
            Ok(ArrayShape { base, rows, cols, elem })
        }
        _ => Err(bad()),
    }
}

/// Rows of `stride` elements, `stride` being the most common address step between
/// neighbouring lanes of the most conflicted request (else one row of banks).
fn infer_shape(trace: &Trace, hw: &Hardware) -> Result<ArrayShape> {
    let requests = Requests::group(trace, hw.warp)?;
    let mut model = BankModel::new(hw);
    let worst = requests
        .iter()
        .filter(|r| r.op.is_memory())
        .max_by_key(|r| model.evaluate(&r.warp_request()).conflicts())
        .context("the trace has no memory access")?;
    let elem = worst.bytes as u32;
    let mut steps: BTreeMap<u32, u32> = BTreeMap::new();
    for w in worst.addrs.windows(2) {
        if w[1] > w[0] {
            *steps.entry((w[1] - w[0]) / elem).or_default() += 1;
        }
    }
    let row_of_banks = (hw.banks * hw.bank_bytes / elem).max(1);
    let cols = steps
        .iter()
        .max_by_key(|(s, n)| (**n, **s))
        .map(|(s, _)| *s)
        .filter(|&s| s > 1)
        .unwrap_or(row_of_banks);
    let end =
        trace.records.iter().filter(|r| r.op.is_memory()).map(|r| r.addr + r.bytes as u32).max().unwrap_or(0);
    Ok(ArrayShape { base: 0, rows: end.div_ceil(cols * elem).max(1), cols, elem })
}
