//! The layout search behind `banksim advise`: padding, XOR swizzles and AoS -> SoA
//! candidates for a shared array, each re-simulated on the whole transformed trace
//! (loads and stores, and the cycle engine when asked), so the advice is never a guess.

use super::error::{Error, Result};
use rayon::prelude::*;
use sim_core::engine::{self, EngineOptions};
use sim_core::layout::{spell, ArrayShape, Layout, TmaSwizzle};
use sim_core::{BankModel, Hardware, Op};
use std::collections::BTreeMap;
use std::path::Path;
use traces::{Requests, Trace};

/// One evaluated layout.
pub struct Candidate {
    /// The layout.
    pub layout: Layout,
    /// Wavefronts of the shared-memory requests.
    pub wavefronts: u64,
    /// Wavefronts without conflicts.
    pub ideal: u64,
    /// Extra wavefronts from bank conflicts.
    pub conflicts: u64,
    /// Bytes the layout adds to the array.
    pub extra_bytes: u32,
    /// Shared memory a block holds: the array as laid out (padding included), or the
    /// highest byte the trace touches where that is beyond it.
    pub smem_per_block: u32,
    /// Resident blocks per SM (with the engine).
    pub blocks_per_sm: Option<u32>,
    /// Cycles of the whole trace (with the engine).
    pub cycles: Option<u64>,
    /// Conflicts per hot group (step, op, bytes).
    pub groups: BTreeMap<(u32, Op, u8), u64>,
    /// Conflicts per site (see [`traces::site`]; `NO_SITE` for requests without one).
    pub sites: BTreeMap<u32, u64>,
}

/// Every valid layout of `shape` for accesses of `width` bytes, identity first, each
/// evaluated (with the cycle engine when `cycles`); the identity, then the others best
/// first (fewest conflicts, then fewest extra bytes, then fewest cycles).
pub fn search(
    hw: &Hardware,
    trace: &Trace,
    shape: &ArrayShape,
    max_pad: u32,
    cycles: bool,
) -> Result<(Candidate, Vec<Candidate>)> {
    check_pad(shape, hw, max_pad)?;
    let s = search_among(hw, trace, shape, &candidates(shape, max_pad), cycles)?;
    Ok((s.base, s.candidates))
}

/// That `shape` is an array the search can lay out on `hw` ([`check_shape`]) and that
/// padding it by up to `max_pad` elements a row keeps it in shared memory: known before
/// any candidate is made.
pub fn check_pad(shape: &ArrayShape, hw: &Hardware, max_pad: u32) -> Result<()> {
    check_shape(shape, hw)?;
    let fits = fitting_pad(shape, hw);
    if max_pad > fits {
        let end =
            shape.base as u64 + shape.rows as u64 * (shape.cols as u64 + max_pad as u64) * shape.elem as u64;
        return Err(Error::Input(format!(
            "--max-pad {max_pad}: the array padded by {max_pad} elements a row ends at byte {end}, beyond the {} bytes \
             of shared memory of `{}`: at most {fits} elements of padding fit",
            hw.smem_per_sm, hw.name
        )));
    }
    Ok(())
}

/// A search of given layouts: the array as it is, the valid layouts evaluated (best
/// first), and those that cannot lay it out, with why.
pub struct Searched {
    /// The array as it is.
    pub base: Candidate,
    /// The valid layouts, best first (fewest conflicts, extra bytes, cycles).
    pub candidates: Vec<Candidate>,
    /// The layouts refused, each with why.
    pub refused: Vec<(Layout, String)>,
}

/// The layouts [`search`] tries: padding up to `max_pad` elements, the XOR swizzles
/// (bits 1..=5, base 0..=4, shift bits..=8, on element offsets), the TMA modes that are
/// none of those swizzles on `shape`'s elements, and the transpose.
pub fn candidates(shape: &ArrayShape, max_pad: u32) -> Vec<Layout> {
    let mut layouts: Vec<Layout> = (1..=max_pad).map(|elems| Layout::Pad { elems }).collect();
    for bits in 1..=5 {
        for base in 0..=4 {
            for shift in bits..=8 {
                layouts.push(Layout::Swizzle { bits, base, shift });
            }
        }
    }
    for m in &TmaSwizzle::ALL[1..] {
        let searched = spell::on_elements(&Layout::Tma(*m), shape)
            .is_some_and(|(b, e, s)| (1..=5).contains(&b) && e <= 4 && (b..=8).contains(&s));
        if !searched {
            layouts.push(Layout::Tma(*m));
        }
    }
    layouts.push(Layout::Transpose);
    layouts
}

/// The TMA modes as layouts (`advise --layouts tma`), `SWIZZLE_NONE` (the array as it
/// is) left out.
pub fn tma_layouts() -> Vec<Layout> {
    TmaSwizzle::ALL[1..].iter().map(|m| Layout::Tma(*m)).collect()
}

/// Evaluates each of `layouts` that can lay out `shape` for the trace's accesses (see
/// [`Searched`]); the array as it is always.
pub fn search_among(
    hw: &Hardware,
    trace: &Trace,
    shape: &ArrayShape,
    layouts: &[Layout],
    cycles: bool,
) -> Result<Searched> {
    check_shape(shape, hw)?;
    let width = trace
        .records
        .iter()
        .filter(|r| r.op.is_memory() && r.addr >= shape.base && r.addr - shape.base < shape.bytes())
        .map(|r| r.bytes as u32)
        .max()
        .ok_or_else(|| Error::Input("no access of the trace falls inside the array; check --shape".into()))?;
    let fits = fitting_pad(shape, hw);
    let mut valid = vec![Layout::Identity];
    let mut refused = Vec::new();
    for l in layouts.iter().filter(|l| **l != Layout::Identity) {
        match why_not(l, shape, width, fits) {
            Some(why) => refused.push((*l, why)),
            None if !valid.contains(l) => valid.push(*l),
            None => {}
        }
    }
    let mut cands: Vec<Candidate> =
        valid.par_iter().map(|l| evaluate(hw, trace, shape, *l, cycles)).collect::<Result<_>>()?;
    let base = cands.remove(0);
    cands.sort_by(|a, b| {
        (a.conflicts, a.extra_bytes, a.cycles, a.layout.to_string()).cmp(&(
            b.conflicts,
            b.extra_bytes,
            b.cycles,
            b.layout.to_string(),
        ))
    });
    Ok(Searched { base, candidates: cands, refused })
}

/// Why `layout` cannot lay out `shape` for accesses of `width` bytes (`fits`: the most
/// padding shared memory holds); `None` where it can.
fn why_not(layout: &Layout, shape: &ArrayShape, width: u32, fits: u32) -> Option<String> {
    if layout.valid_for(shape, width) {
        return match *layout {
            Layout::Pad { elems } if elems > fits => Some(format!(
                "the padded array is beyond shared memory (at most {fits} elements of padding fit)"
            )),
            _ => None,
        };
    }
    let row = shape.cols * shape.elem;
    Some(match *layout {
        Layout::Tma(m) if m.span().is_some_and(|s| row > s) => format!(
            "rows of {row} bytes are wider than its {}-byte span (a TMA box's inner dimension fits the span: load \
             the tile as boxes of {} elements a row)",
            m.span().unwrap_or(0),
            m.span().unwrap_or(0) / shape.elem
        ),
        Layout::Tma(m) if m.unit() < width.max(shape.elem) => {
            format!("it moves {}-byte pieces: a {}-byte access would be split", m.unit(), width.max(shape.elem))
        }
        Layout::Tma(m) => format!(
            "the array ({} bytes from byte {}) is not whole periods of its {}-byte pattern",
            shape.bytes(),
            shape.base,
            m.period()
        ),
        _ => format!("it does not keep {width}-byte accesses whole within the array"),
    })
}

/// Swizzles the search tries (bits 1..=5, base 0..=4, shift bits..=8).
const SWIZZLES: u64 = 5 * (8 + 7 + 6 + 5 + 4);

/// The most elements of padding a row of `shape` may take with the padded array still
/// inside `hw`'s shared memory (0 where the array itself does not fit).
pub fn fitting_pad(shape: &ArrayShape, hw: &Hardware) -> u32 {
    let end = shape.base as u64 + shape.rows as u64 * shape.cols as u64 * shape.elem as u64;
    let per_pad = (shape.rows as u64 * shape.elem as u64).max(1);
    u32::try_from((hw.smem_per_sm as u64).saturating_sub(end) / per_pad).unwrap_or(u32::MAX)
}

/// That a search up to `max_pad` elements of padding on a trace of `records` records
/// (every candidate layout re-simulates all of them) stays within
/// [`LAYOUT_WORK`](sim_core::limits::LAYOUT_WORK).
pub fn check_work(max_pad: u32, records: usize) -> Result<()> {
    // (the identity, the transpose, and at most every TMA mode but `SWIZZLE_NONE`)
    let candidates = max_pad as u64 + SWIZZLES + 2 + (TmaSwizzle::ALL.len() as u64 - 1);
    sim_core::limits::LAYOUT_WORK.check(
        || format!("--max-pad {max_pad}: {candidates} candidate layouts of {records} records"),
        candidates.saturating_mul(records as u64),
    )?;
    Ok(())
}

/// That `shape` is an array the search can lay out on `hw`: inside its shared memory,
/// with at least two rows (padding is per row, and a transposition swaps rows and
/// columns: one row has no layout to change).
pub fn check_shape(shape: &ArrayShape, hw: &Hardware) -> Result<()> {
    let ArrayShape { base, rows, cols, elem } = *shape;
    let at = || format!("the array {rows}x{cols}x{elem}@{base}");
    if rows < 2 || cols == 0 || !sim_core::is_valid_width(elem.min(255) as u8) {
        return Err(Error::Input(format!(
            "{}: expected at least 2 rows of at least 1 element of 1, 2, 4, 8 or 16 bytes (one row has no row \
             pitch to pad and nothing to transpose)",
            at()
        )));
    }
    let end = base as u64 + rows as u64 * cols as u64 * elem as u64;
    if end > hw.smem_per_sm as u64 {
        return Err(Error::Input(format!(
            "{}: ends at byte {end}, beyond the {} bytes of shared memory of `{}`",
            at(),
            hw.smem_per_sm,
            hw.name
        )));
    }
    Ok(())
}

/// The baseline's most conflicted request group (step, op, width).
pub fn hot_group(base: &Candidate) -> Option<(u32, Op, u8)> {
    base.groups.iter().max_by_key(|(k, n)| (**n, std::cmp::Reverse(**k))).map(|(k, _)| *k)
}

/// One layout re-simulated on the whole transformed trace.
pub fn evaluate(
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
    let mut sites = BTreeMap::new();
    // the whole array is allocated, whatever part of it the trace touches: a swizzle
    // keeps its size, padding adds `extra_bytes`
    let mut smem = shape.base.saturating_add(shape.bytes()).saturating_add(layout.extra_bytes(shape));
    // shared-memory requests only: global accesses (captures have them) are no layout's
    // concern, though the engine below runs them
    for r in requests.iter().filter(|r| r.op.is_memory()) {
        let o = model.evaluate(&r.warp_request());
        wavefronts += o.wavefronts as u64;
        ideal += o.ideal as u64;
        conflicts += o.conflicts() as u64;
        *groups.entry((r.step, r.op, r.bytes)).or_insert(0) += o.conflicts() as u64;
        *sites.entry(r.site).or_insert(0) += o.conflicts() as u64;
        for &a in r.addrs {
            smem = smem.max(a + r.bytes as u32);
        }
    }
    let (mut blocks_per_sm, mut cyc) = (None, None);
    if cycles {
        let rep =
            engine::run(hw, &requests, &EngineOptions { smem_per_block: Some(smem), ..Default::default() })
                .map_err(|e| Error::Input(e.to_string()))?;
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
        sites,
    })
}

/// A trace file, or `KIND[:NAME=VALUE,...]` for a generator (with the array shape the
/// generator implies). A file read is declared one of `inputs`.
pub fn load_input(input: &str, inputs: &crate::output::Inputs) -> Result<(Trace, Option<ArrayShape>)> {
    if input == "-" || Path::new(input).is_file() {
        inputs.declare(Path::new(input));
        return Ok((traces::read_any(Path::new(input))?, None));
    }
    let (kind, rest) = input.split_once(':').unwrap_or((input, ""));
    let mut params = BTreeMap::new();
    for kv in rest.split(',').filter(|s| !s.is_empty()) {
        let (k, v) =
            kv.split_once('=').ok_or_else(|| Error::Input(format!("`{kv}`: expected NAME=VALUE")))?;
        let v = v.parse::<i64>().map_err(|e| Error::Input(format!("`{kv}`: not an integer: {e}")))?;
        params.insert(k.to_string(), v);
    }
    if traces::generators::params_of(kind).is_none() && !input.contains(':') {
        return Err(Error::Input(format!(
            "`{input}`: no such trace file, and not a generator (KIND[:NAME=VALUE,...]; see `banksim gen --list`)"
        )));
    }
    let trace = traces::generators::generate(kind, &params)?;
    let p = |name: &str| -> u32 {
        let def = traces::generators::params_of(kind)
            .and_then(|ps| ps.iter().find(|p| p.0 == name))
            .map_or(0, |p| p.1);
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
        // (both tiles of `major=2` as one array: a layout of it lays out each alike)
        "ldmatrix" => Some(ArrayShape {
            base: 0,
            rows: p("rows") * if p("major") == 2 { 2 } else { 1 },
            cols: p("cols"),
            elem: p("width"),
        }),
        _ => None,
    };
    Ok((trace, shape))
}

/// `ROWSxCOLSxBYTES[@BASE]`, e.g. `32x33x4`.
pub fn parse_shape(s: &str) -> Result<ArrayShape> {
    let bad = || Error::Input(format!("--shape `{s}`: expected ROWSxCOLSxBYTES[@BASE], e.g. 32x33x4"));
    let (dims, base) = match s.split_once('@') {
        Some((d, b)) => (d, b.parse::<u32>().map_err(|_| bad())?),
        None => (s, 0),
    };
    let v: Vec<u32> =
        dims.split('x').map(|x| x.parse::<u32>()).collect::<Result<_, _>>().map_err(|_| bad())?;
    match v[..] {
        [rows, cols, elem] if rows > 0 && cols > 0 && elem <= 16 && sim_core::is_valid_width(elem as u8) => {
            Ok(ArrayShape { base, rows, cols, elem })
        }
        _ => Err(bad()),
    }
}

/// Rows of `stride` elements, `stride` being the most common address step between
/// neighbouring lanes of the most conflicted request (else one row of banks).
pub fn infer_shape(trace: &Trace, hw: &Hardware) -> Result<ArrayShape> {
    infer_shape_where(trace, hw, |_| true)
}

/// [`infer_shape`] from the most conflicted of the requests that `which` accepts (those
/// of one source line, say).
pub fn infer_shape_where(
    trace: &Trace,
    hw: &Hardware,
    which: impl Fn(&traces::RequestRef<'_>) -> bool,
) -> Result<ArrayShape> {
    let requests = Requests::group(trace, hw.warp)?;
    let mut model = BankModel::new(hw);
    let worst = requests
        .iter()
        .filter(|r| r.op.is_memory() && which(r))
        .max_by_key(|r| model.evaluate(&r.warp_request()).conflicts())
        .ok_or_else(|| Error::Input("the trace has no memory access".into()))?;
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
    let end = trace
        .records
        .iter()
        .filter(|r| r.op.is_memory())
        .map(|r| r.addr as u64 + r.bytes as u64)
        .max()
        .unwrap_or(0);
    let rows = end.div_ceil(cols as u64 * elem as u64).max(1);
    Ok(ArrayShape { base: 0, rows: u32::try_from(rows).unwrap_or(u32::MAX), cols, elem })
}
