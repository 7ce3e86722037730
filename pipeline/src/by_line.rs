//! Conflicts and stall cycles by source line: each warp request's outcome (and, with the
//! cycle engine, its bank-conflict stall cycles) added to its site's source line, and
//! the layout advisor's fix for the lines that conflict.
//!
//! A request's site is its records' (captured WGSL: `FILE:LINE:COL`; imported CUDA:
//! `pc 0x…`, see [`traces::site`]). Sites that name a source line are added up per
//! (file, line); other labels stay one row each; requests without a site make one row.
//! Every request lands in exactly one row, so the rows add up to the run's totals
//! (`banksim/tests/by_line.rs` checks it).
//!
//! With the cycle engine, [`savings`] prices each conflicting line as `banksim predict`
//! prices a kernel's conflicts: the dispatch run again with that line's requests at
//! their ideal wavefronts, the difference in its time (fixed overhead included) being
//! what the line's conflicts cost. A fix is spelled in the kernel's WGSL where the text
//! allows ([`wgsl`]), and in other libraries' words (`sim_core::layout::spell`).

pub mod wgsl;

use super::error::Result;
use super::layout;
use sim_core::engine::{EngineOptions, EngineReport};
use sim_core::launch::{Gaps, Launch, LaunchReport};
use sim_core::layout::{ArrayShape, Layout};
use sim_core::{BankModel, Hardware, Op, Outcome};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use traces::site::SourceLocation;
use traces::{Requests, Trace, NO_SITE};

/// Where a row's requests come from.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Place {
    /// A line of a source file.
    Source {
        /// The file, as the site labels name it.
        file: String,
        /// Line, 1-based.
        line: u32,
    },
    /// A site whose label names no source line (e.g. `pc 0x0a30 LDS.U.32`).
    Label(String),
    /// Requests without a site.
    NoSite,
}

impl std::fmt::Display for Place {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Place::Source { file, line } => write!(f, "{file}:{line}"),
            Place::Label(l) => f.write_str(l),
            Place::NoSite => f.write_str("(no site)"),
        }
    }
}

/// Sums over requests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Warp requests (barriers included).
    pub requests: u64,
    /// Wavefronts.
    pub wavefronts: u64,
    /// Wavefronts without conflicts.
    pub ideal: u64,
    /// Extra wavefronts from bank conflicts.
    pub conflicts: u64,
    /// The requests' bank-conflict stall cycles (with the cycle engine).
    pub bank_conflict_cycles: u64,
}

impl Tally {
    fn add(&mut self, o: Outcome, cycles: u64) {
        self.requests += 1;
        self.wavefronts += o.wavefronts as u64;
        self.ideal += o.ideal as u64;
        self.conflicts += o.conflicts() as u64;
        self.bank_conflict_cycles += cycles;
    }

    /// Wavefronts per request.
    pub fn wavefronts_per_request(&self) -> f64 {
        if self.requests == 0 {
            0.0
        } else {
            self.wavefronts as f64 / self.requests as f64
        }
    }
}

/// The advisor's fix for a line's array.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Advice {
    /// The fix in the kernel's WGSL: the changed declaration or accesses, each with its
    /// line ([`wgsl::spell`]); empty where the text gives none.
    pub wgsl: Vec<String>,
    /// The layout in other libraries' words (`sim_core::layout::spell::also`).
    pub also: Vec<String>,
    /// The array as inferred from the line's most conflicted request.
    pub shape: ArrayShape,
    /// The best layout for the line.
    pub layout: Layout,
    /// The line's conflicts with it.
    pub line_conflicts: u64,
    /// The whole trace's conflicts with it.
    pub total_conflicts: u64,
    /// Bytes it adds to the array.
    pub extra_bytes: u32,
}

/// One row: a source line (or a site without one).
#[derive(Clone, Debug)]
pub struct Row {
    /// Where.
    pub place: Place,
    /// Its sites' ids.
    pub sites: BTreeSet<u32>,
    /// Its requests' ops.
    pub ops: BTreeSet<Op>,
    /// Its requests' sums.
    pub tally: Tally,
    /// The advisor's fix, where [`advise`] found one.
    pub advice: Option<Advice>,
    /// Each site's part, in site order: a line of several accesses (a global store of a
    /// shared load's value) shows which one conflicts.
    pub parts: Vec<Part>,
    /// Dispatch cycles that removing the row's conflicts saves ([`savings`]; negative
    /// where the dispatch would take longer); `None`: not priced.
    pub saves: Option<i64>,
}

/// One site's share of a row.
#[derive(Clone, Debug)]
pub struct Part {
    /// The site.
    pub site: u32,
    /// Its column in the line, where its label names one.
    pub column: Option<u32>,
    /// Its requests' ops.
    pub ops: BTreeSet<Op>,
    /// Its requests' sums.
    pub tally: Tally,
    /// Dispatch cycles that removing its conflicts saves (as [`Row::saves`]).
    pub saves: Option<i64>,
}

/// The report: a row per place, in order (source lines by file and line, then other
/// labels, then requests without a site), and the totals.
#[derive(Clone, Debug)]
pub struct ByLine {
    /// The rows.
    pub rows: Vec<Row>,
    /// Sums over every request.
    pub total: Tally,
    /// With the cycle engine: the run's cycles and its stall cycles of every cause.
    pub engine: Option<EngineTotals>,
    /// With [`savings`]: the dispatch the rows' savings are of.
    pub dispatch: Option<Priced>,
}

/// The dispatch that [`savings`] prices the lines' conflicts in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Priced {
    /// Its blocks.
    pub blocks: u32,
    /// Its cycles, the fixed overhead included (`LaunchReport::cycles`).
    pub cycles: u64,
    /// The fixed overhead.
    pub overhead: u64,
    /// The cycles that removing every conflict saves (the engine's `no_conflicts`:
    /// `banksim predict`'s cost of the conflicts).
    pub all: i64,
    /// Rows and parts with conflicts left unpriced (beyond [`MAX_PRICED`]).
    pub unpriced: usize,
}

/// The most rows and parts [`savings`] prices (one engine run each), those with the
/// most conflicts first.
pub const MAX_PRICED: usize = 32;

/// What the cycle engine adds to the report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EngineTotals {
    /// Cycles of the run.
    pub cycles: u64,
    /// Stall cycles of every cause, summed.
    pub stall_cycles: u64,
}

/// The place of site `site` of `trace`.
pub fn place_of(trace: &Trace, site: u32) -> Place {
    if site == NO_SITE {
        return Place::NoSite;
    }
    let label = trace.site_label(site).unwrap_or("");
    match SourceLocation::parse(label) {
        Some(at) => Place::Source { file: at.file.to_string(), line: at.line },
        None => Place::Label(label.to_string()),
    }
}

/// Adds every request of `requests` (grouped from `trace`) to its place; with `report`
/// (a cycle-engine run of exactly these requests with per-request timings: barriers
/// have none), its bank-conflict stall cycles too.
pub fn by_line(
    hw: &Hardware,
    trace: &Trace,
    requests: &Requests,
    report: Option<&EngineReport>,
) -> Result<ByLine> {
    let mut model = BankModel::new(hw);
    let mut per_site: BTreeMap<u32, (Tally, BTreeSet<Op>)> = BTreeMap::new();
    let mut timing = report.map(|r| super::simulate::timings_by_index(&r.requests));
    for (i, r) in requests.iter().enumerate() {
        let o = model.evaluate(&r.warp_request());
        let cycles = timing.as_mut().and_then(|t| t(i)).map_or(0, |t| t.bank_conflict);
        let e = per_site.entry(r.site).or_default();
        e.0.add(o, cycles);
        e.1.insert(r.op);
    }
    let mut rows: BTreeMap<Place, Row> = BTreeMap::new();
    let mut total = Tally::default();
    for (site, (t, ops)) in per_site {
        let place = place_of(trace, site);
        let row = rows.entry(place.clone()).or_insert_with(|| Row {
            place,
            sites: BTreeSet::new(),
            ops: BTreeSet::new(),
            tally: Tally::default(),
            advice: None,
            parts: Vec::new(),
            saves: None,
        });
        let column = trace.site_label(site).and_then(SourceLocation::parse).map(|at| at.column);
        row.parts.push(Part { site, column, ops: ops.clone(), tally: t, saves: None });
        row.sites.insert(site);
        row.ops.extend(ops);
        for (sum, x) in [(&mut row.tally, &t), (&mut total, &t)] {
            sum.requests += x.requests;
            sum.wavefronts += x.wavefronts;
            sum.ideal += x.ideal;
            sum.conflicts += x.conflicts;
            sum.bank_conflict_cycles += x.bank_conflict_cycles;
        }
    }
    for row in rows.values_mut() {
        row.parts.sort_by_key(|p| (p.column, p.site));
    }
    let engine = report.map(|r| {
        let s = &r.total.stalls;
        EngineTotals { cycles: r.cycles, stall_cycles: s.total() }
    });
    Ok(ByLine { rows: rows.into_values().collect(), total, engine, dispatch: None })
}

/// The advisor's search of one array: the current layout and the candidates.
type Searched = (layout::Candidate, Vec<layout::Candidate>);

/// For every row with conflicts, the advisor's best layout for the array its most
/// conflicted request reads ([`layout::infer_shape_where`]): the one that leaves the
/// fewest conflicts on the row (then in all, then the fewest extra bytes), where it
/// removes some. Layouts up to `max_pad` elements of padding are tried. The fix is
/// spelled in the row's source file (of `sources`) where [`wgsl::spell`] can (`vars`:
/// the capture's workgroup variables, where known).
pub fn advise(
    hw: &Hardware,
    trace: &Trace,
    report: &mut ByLine,
    max_pad: u32,
    sources: &Sources,
    vars: Option<&[wgsl::SharedArray]>,
) -> Result<()> {
    // a row's array is searched once per shape (`None`: no access falls inside it)
    let mut searched: BTreeMap<(u32, u32, u32, u32), Option<Searched>> = BTreeMap::new();
    for row in report.rows.iter_mut().filter(|r| r.tally.conflicts > 0) {
        let sites = &row.sites;
        let mut shape = match layout::infer_shape_where(trace, hw, |r| sites.contains(&r.site)) {
            Ok(s) => s,
            Err(_) => continue,
        };
        // the workgroup variable the row's accesses fall in, where known: the array is
        // that variable's bytes, not every byte the trace reaches
        if let Some(v) = vars.and_then(|vs| variable_of(trace, sites, vs)) {
            let row_bytes = shape.cols as u64 * shape.elem as u64;
            shape.base = v.offset;
            shape.rows = u32::try_from((v.bytes as u64).div_ceil(row_bytes).max(1)).unwrap_or(u32::MAX);
        }
        let key = (shape.base, shape.rows, shape.cols, shape.elem);
        // (padding up to what keeps the array in shared memory)
        let pad = max_pad.min(layout::fitting_pad(&shape, hw));
        let found = searched.entry(key).or_insert_with(|| layout::search(hw, trace, &shape, pad, false).ok());
        let Some((base, cands)) = found else { continue };
        let on_row = |c: &layout::Candidate| sites.iter().map(|s| c.sites.get(s).copied().unwrap_or(0)).sum();
        let before: u64 = on_row(base);
        let best = cands.iter().min_by_key(|c| (on_row(c), c.conflicts, c.extra_bytes, c.layout.to_string()));
        if let Some(c) = best.filter(|c| on_row(c) < before) {
            let wgsl = match &row.place {
                Place::Source { file, .. } => sources.get(file).and_then(|src| {
                    wgsl::spell(&c.layout, &shape, src, &sites_in(trace, &shape, file), vars)
                }),
                _ => None,
            };
            row.advice = Some(Advice {
                wgsl: wgsl.unwrap_or_default(),
                also: sim_core::layout::spell::also(&c.layout, &shape),
                shape,
                layout: c.layout,
                line_conflicts: on_row(c),
                total_conflicts: c.conflicts,
                extra_bytes: c.extra_bytes,
            });
        }
    }
    Ok(())
}

/// The variable of `vars` that holds every shared access of `sites`, if one does.
fn variable_of<'v>(
    trace: &Trace,
    sites: &BTreeSet<u32>,
    vars: &'v [wgsl::SharedArray],
) -> Option<&'v wgsl::SharedArray> {
    let (lo, hi) = trace
        .records
        .iter()
        .filter(|r| r.op.is_memory() && !r.op.is_global() && sites.contains(&r.site))
        .fold((u64::MAX, 0u64), |(lo, hi), r| {
            (lo.min(r.addr as u64), hi.max(r.addr as u64 + r.bytes as u64))
        });
    vars.iter().find(|v| v.offset as u64 <= lo && hi <= v.offset as u64 + v.bytes as u64)
}

/// (line, column) of every site in `file` with a shared access inside `shape`, in order.
fn sites_in(trace: &Trace, shape: &ArrayShape, file: &str) -> Vec<(u32, u32)> {
    let ids: BTreeSet<u32> = trace
        .records
        .iter()
        .filter(|r| r.op.is_memory() && r.addr >= shape.base && r.addr - shape.base < shape.bytes())
        .map(|r| r.site)
        .collect();
    let mut at: Vec<(u32, u32)> = ids
        .iter()
        .filter_map(|&s| SourceLocation::parse(trace.site_label(s)?))
        .filter(|l| l.file == file)
        .map(|l| (l.line, l.column))
        .collect();
    at.sort_unstable();
    at.dedup();
    at
}

/// One row of the by-line CSV (`--by-line-csv`): a source line (`file`, `line`, and in
/// `site` its site ids) or a site that names none (its label in `site`).
#[derive(serde::Serialize)]
pub struct LineRow<'a> {
    /// The source file, as the site labels name it (empty for a site without one).
    pub file: &'a str,
    /// Line, 1-based.
    pub line: Option<u32>,
    /// The line's site ids, space-separated (or the label of a site that names no line).
    pub site: String,
    /// Its requests' ops, space-separated.
    pub ops: String,
    /// Warp requests.
    pub requests: u64,
    /// Wavefronts.
    pub wavefronts: u64,
    /// Wavefronts without conflicts.
    pub ideal: u64,
    /// Extra wavefronts from bank conflicts.
    pub conflicts: u64,
    /// Wavefronts per request, three decimals.
    pub wavefronts_per_request: String,
    /// Bank-conflict stall cycles (with the cycle engine).
    pub bank_conflict_cycles: Option<u64>,
    /// Their share of all stall cycles, four decimals (with the cycle engine).
    pub stall_share: Option<String>,
    /// The advisor's layout for the line's array (empty: none).
    pub fix: String,
    /// The line's conflicts with that layout.
    pub fix_line_conflicts: Option<u64>,
    /// The fix in the kernel's WGSL, ` | ` between the changed lines (empty: none).
    pub fix_wgsl: String,
    /// The fix in other libraries' words, `; ` between them.
    pub fix_also: String,
    /// Dispatch cycles that removing the line's conflicts saves ([`savings`]).
    pub saved_cycles: Option<i64>,
    /// Their share of the dispatch's cycles, four decimals.
    pub time_share: Option<String>,
    /// The line's text, trimmed.
    pub source: &'a str,
}

/// The columns of [`LineRow`].
pub const LINE_HEADER: &[&str] = &[
    "file",
    "line",
    "site",
    "ops",
    "requests",
    "wavefronts",
    "ideal",
    "conflicts",
    "wavefronts_per_request",
    "bank_conflict_cycles",
    "stall_share",
    "fix",
    "fix_line_conflicts",
    "fix_wgsl",
    "fix_also",
    "saved_cycles",
    "time_share",
    "source",
];

/// The CSV rows of `report`, one per row (source lines and sites with requests).
pub fn csv_rows<'a>(report: &'a ByLine, sources: &'a Sources) -> impl Iterator<Item = LineRow<'a>> + 'a {
    report.rows.iter().map(move |r| {
        let (file, line, site) = match &r.place {
            Place::Source { file, line } => {
                let ids: Vec<String> = r.sites.iter().map(|s| s.to_string()).collect();
                (file.as_str(), Some(*line), ids.join(" "))
            }
            Place::Label(l) => ("", None, l.clone()),
            Place::NoSite => ("", None, "(no site)".to_string()),
        };
        let source = line
            .and_then(|n| sources.get(file).and_then(|t| t.lines().nth(n as usize - 1)))
            .unwrap_or("")
            .trim();
        let t = &r.tally;
        LineRow {
            file,
            line,
            site,
            ops: r.ops.iter().map(|o| o.to_string()).collect::<Vec<_>>().join(" "),
            requests: t.requests,
            wavefronts: t.wavefronts,
            ideal: t.ideal,
            conflicts: t.conflicts,
            wavefronts_per_request: format!("{:.3}", t.wavefronts_per_request()),
            bank_conflict_cycles: report.engine.map(|_| t.bank_conflict_cycles),
            stall_share: report.engine.map(|e| {
                if e.stall_cycles == 0 {
                    "0.0000".into()
                } else {
                    format!("{:.4}", t.bank_conflict_cycles as f64 / e.stall_cycles as f64)
                }
            }),
            fix: r.advice.as_ref().map_or(String::new(), |a| a.layout.to_string()),
            fix_line_conflicts: r.advice.as_ref().map(|a| a.line_conflicts),
            fix_wgsl: r.advice.as_ref().map_or(String::new(), |a| a.wgsl.join(" | ")),
            fix_also: r.advice.as_ref().map_or(String::new(), |a| a.also.join("; ")),
            saved_cycles: r.saves,
            time_share: report
                .dispatch
                .zip(r.saves)
                .map(|(d, c)| format!("{:.4}", c as f64 / d.cycles.max(1) as f64)),
            source,
        }
    })
}

/// The text of each source file a report names, where it could be read (by the name the
/// site labels give it).
pub type Sources = BTreeMap<String, String>;

/// The text of every source file the trace's sites name that exists: by its name, else
/// relative to `beside` (the trace's folder). A file named by a label that is not a
/// regular file (a FIFO, a device), or is longer than
/// [`SOURCE_BYTES`](sim_core::limits::SOURCE_BYTES), is an error
/// ([`crate::files::read_regular`]); a missing one is left out.
pub fn read_sources(trace: &Trace, beside: Option<&Path>) -> Result<Sources> {
    let mut sources = Sources::new();
    for label in &trace.sites {
        let Some(at) = SourceLocation::parse(label) else { continue };
        if sources.contains_key(at.file) {
            continue;
        }
        let direct = PathBuf::from(at.file);
        let found = std::iter::once(direct.clone())
            .chain(beside.map(|d| d.join(&direct)))
            .find(|p| std::fs::symlink_metadata(p).is_ok());
        if let Some(path) = found {
            let what = format!("the source file of site label `{label}` in {}", trace.source);
            let text = crate::files::read_regular(&path, &what, &sim_core::limits::SOURCE_BYTES)?;
            sources.insert(at.file.to_string(), text);
        }
    }
    Ok(sources)
}

/// The launch of `requests` as `run --cycles` runs them (`footprint` as `run
/// --footprint`): the run of [`run_engine`] and [`savings`].
pub fn launch(gaps: Gaps, opts: &EngineOptions, footprint: Option<u64>) -> Launch {
    Launch { blocks: None, gaps, options: opts.clone(), footprint }
}

/// The cycle engine on `requests` as `launch` runs them, every request's timing kept
/// (for the lines' bank-conflict stall cycles), on the workload's own blocks.
pub fn run_engine(hw: &Hardware, requests: &Requests, launch: &Launch) -> Result<LaunchReport> {
    let options = EngineOptions { per_request: true, ..launch.options.clone() };
    let launch = Launch { blocks: None, options, ..launch.clone() };
    Ok(sim_core::launch::run(hw, requests, &launch)?)
}

/// A workload whose requests of some sites cost their ideal wavefronts: the engine's
/// `no_conflicts` for part of the requests.
struct Without<'a> {
    inner: &'a Requests,
    /// Each request's site and ideal wavefronts.
    each: &'a [(u32, u32)],
    sites: &'a BTreeSet<u32>,
}

impl sim_core::engine::Workload for Without<'_> {
    fn len(&self) -> usize {
        self.inner.len()
    }

    fn request(&self, i: usize) -> sim_core::engine::EngineRequest<'_> {
        let mut r = self.inner.request(i);
        let (site, ideal) = self.each[i];
        if r.op.is_memory() && self.sites.contains(&site) {
            r.cost = Some(Outcome { wavefronts: ideal, ideal });
        }
        r
    }

    fn block(&self, i: usize) -> u32 {
        self.inner.block(i)
    }

    fn extent(&self, warp: u32) -> Option<(u32, u32)> {
        self.inner.extent(warp)
    }

    fn block_starts(&self) -> Option<&[usize]> {
        self.inner.block_starts()
    }
}

/// The dispatch cycles `launch` of `requests` takes with the requests of `sites` at their
/// ideal wavefronts (all sites: the engine's `no_conflicts`), as `predict` runs it.
pub fn cycles_without(
    hw: &Hardware,
    requests: &Requests,
    launch: &Launch,
    sites: &BTreeSet<u32>,
) -> Result<u64> {
    let each = sites_and_ideals(hw, requests);
    let plain =
        Launch { options: EngineOptions { per_request: false, ..launch.options.clone() }, ..launch.clone() };
    Ok(sim_core::launch::run(hw, &Without { inner: requests, each: &each, sites }, &plain)?.cycles())
}

/// Each request's site and ideal wavefronts.
fn sites_and_ideals(hw: &Hardware, requests: &Requests) -> Vec<(u32, u32)> {
    let mut model = BankModel::new(hw);
    requests
        .iter()
        .map(|r| (r.site, if r.op.is_memory() { model.evaluate(&r.warp_request()).ideal } else { 0 }))
        .collect()
}

/// Prices each conflicting row of `lines` (and each part of a row of several) as
/// `predict` prices a kernel's conflicts: `launch` run again with those requests at
/// their ideal wavefronts; the cycles it saves (fixed overhead included in the time).
/// At most [`MAX_PRICED`] runs, the rows and parts with the most conflicts first.
pub fn savings(hw: &Hardware, requests: &Requests, launch: &Launch, lines: &mut ByLine) -> Result<()> {
    let plain =
        Launch { options: EngineOptions { per_request: false, ..launch.options.clone() }, ..launch.clone() };
    let base = sim_core::launch::run(hw, requests, &plain)?;
    // (row, part) keys of what has conflicts, most conflicts first
    let mut todo: Vec<(u64, usize, Option<usize>)> = Vec::new();
    for (i, row) in lines.rows.iter_mut().enumerate() {
        row.saves = Some(0);
        if row.tally.conflicts > 0 {
            todo.push((row.tally.conflicts, i, None));
        }
        let several = row.parts.len() > 1;
        for (j, p) in row.parts.iter_mut().enumerate() {
            p.saves = Some(0);
            if p.tally.conflicts > 0 && several {
                todo.push((p.tally.conflicts, i, Some(j)));
            }
        }
    }
    todo.sort_by_key(|&(n, i, j)| (std::cmp::Reverse(n), i, j));
    let unpriced = todo.len().saturating_sub(MAX_PRICED);
    let each = sites_and_ideals(hw, requests);
    for (k, &(_, i, j)) in todo.iter().enumerate() {
        let row = &mut lines.rows[i];
        let sites = match j {
            Some(j) => BTreeSet::from([row.parts[j].site]),
            None => row.sites.clone(),
        };
        let saves = (k < MAX_PRICED)
            .then(|| {
                sim_core::launch::run(hw, &Without { inner: requests, each: &each, sites: &sites }, &plain)
            })
            .transpose()?
            .map(|r| base.cycles() as i64 - r.cycles() as i64);
        match j {
            Some(j) => row.parts[j].saves = saves,
            None => row.saves = saves,
        }
    }
    let free =
        Launch { options: EngineOptions { no_conflicts: true, ..plain.options.clone() }, ..plain.clone() };
    let all = base.cycles() as i64 - sim_core::launch::run(hw, requests, &free)?.cycles() as i64;
    lines.dispatch = Some(Priced {
        blocks: base.blocks,
        cycles: base.cycles(),
        overhead: base.overhead_cycles,
        all,
        unpriced,
    });
    Ok(())
}

/// The by-line report of `requests` (grouped from `trace`; `report`: their engine run
/// with per-request timings), with the advisor's fix for each conflicting line where
/// `advice` (each line's array re-simulated under every candidate layout of up to 33
/// elements of padding), spelled in `sources` where it can be (`vars`: the capture's
/// workgroup variables, where known).
pub fn report(
    hw: &Hardware,
    trace: &Trace,
    requests: &Requests,
    report: Option<&EngineReport>,
    advice: bool,
    sources: &Sources,
    vars: Option<&[wgsl::SharedArray]>,
) -> Result<ByLine> {
    let mut lines = by_line(hw, trace, requests, report)?;
    if advice {
        advise(hw, trace, &mut lines, 33, sources, vars)?;
    }
    Ok(lines)
}
