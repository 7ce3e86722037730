//! Conflicts and stall cycles by source line: each warp request's outcome (and, with the
//! cycle engine, its bank-conflict stall cycles) added to its site's source line, and
//! the layout advisor's fix for the lines that conflict.
//!
//! A request's site is its records' (captured WGSL: `FILE:LINE:COL`; imported CUDA:
//! `pc 0x…`, see [`traces::site`]). Sites that name a source line are added up per
//! (file, line); other labels stay one row each; requests without a site make one row.
//! Every request lands in exactly one row, so the rows add up to the run's totals
//! (`banksim/tests/by_line.rs` checks it).

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
}

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
        });
        let column = trace.site_label(site).and_then(SourceLocation::parse).map(|at| at.column);
        row.parts.push(Part { site, column, ops: ops.clone(), tally: t });
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
    Ok(ByLine { rows: rows.into_values().collect(), total, engine })
}

/// The advisor's search of one array: the current layout and the candidates.
type Searched = (layout::Candidate, Vec<layout::Candidate>);

/// For every row with conflicts, the advisor's best layout for the array its most
/// conflicted request reads ([`layout::infer_shape_where`]): the one that leaves the
/// fewest conflicts on the row (then in all, then the fewest extra bytes), where it
/// removes some. Layouts up to `max_pad` elements of padding are tried.
pub fn advise(hw: &Hardware, trace: &Trace, report: &mut ByLine, max_pad: u32) -> Result<()> {
    // a row's array is searched once per shape (`None`: no access falls inside it)
    let mut searched: BTreeMap<(u32, u32, u32, u32), Option<Searched>> = BTreeMap::new();
    for row in report.rows.iter_mut().filter(|r| r.tally.conflicts > 0) {
        let sites = &row.sites;
        let shape = match layout::infer_shape_where(trace, hw, |r| sites.contains(&r.site)) {
            Ok(s) => s,
            Err(_) => continue,
        };
        let key = (shape.base, shape.rows, shape.cols, shape.elem);
        // (padding up to what keeps the array in shared memory)
        let pad = max_pad.min(layout::fitting_pad(&shape, hw));
        let found = searched.entry(key).or_insert_with(|| layout::search(hw, trace, &shape, pad, false).ok());
        let Some((base, cands)) = found else { continue };
        let on_row = |c: &layout::Candidate| sites.iter().map(|s| c.sites.get(s).copied().unwrap_or(0)).sum();
        let before: u64 = on_row(base);
        let best = cands.iter().min_by_key(|c| (on_row(c), c.conflicts, c.extra_bytes, c.layout.to_string()));
        if let Some(c) = best.filter(|c| on_row(c) < before) {
            row.advice = Some(Advice {
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

/// The cycle engine on `requests` as `run --cycles` runs them (the launch timing model,
/// every request's timing kept, for the lines' bank-conflict stall cycles); `footprint`
/// as `run --footprint`.
pub fn run_engine(
    hw: &Hardware,
    requests: &Requests,
    gaps: Gaps,
    opts: &EngineOptions,
    footprint: Option<u64>,
) -> Result<LaunchReport> {
    let options = EngineOptions { per_request: true, ..opts.clone() };
    let launch = Launch { blocks: None, gaps, options, footprint };
    Ok(sim_core::launch::run(hw, requests, &launch)?)
}

/// The by-line report of `requests` (grouped from `trace`; `report`: their engine run
/// with per-request timings), with the advisor's fix for each conflicting line where
/// `advice` (each line's array re-simulated under every candidate layout of up to 33
/// elements of padding).
pub fn report(
    hw: &Hardware,
    trace: &Trace,
    requests: &Requests,
    report: Option<&EngineReport>,
    advice: bool,
) -> Result<ByLine> {
    let mut lines = by_line(hw, trace, requests, report)?;
    if advice {
        advise(hw, trace, &mut lines, 33)?;
    }
    Ok(lines)
}
