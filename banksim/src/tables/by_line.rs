//! The by-line report of `run --by-line` and `explain` ([`pipeline::by_line`]) written
//! out: the kernel source annotated line by line (printed), one CSV row per line (for
//! pandas), and the PNG chart of the lines that conflict.

use crate::args::{with_feature, ByLineArgs};
use anyhow::Result;
use pipeline::by_line::wgsl::SharedArray;
use pipeline::by_line::{self, ByLine, Place, Row, Sources};
use pipeline::output::{write_atomically, write_csv, Inputs};
use sim_core::launch::{Launch, LaunchReport};
use sim_core::Hardware;
use std::collections::BTreeMap;
use std::io::Write;
use traces::{Requests, Trace};

/// The cycle engine's part of a by-line report.
pub struct Engine<'a> {
    /// The engine's run of the requests, with per-request timings.
    pub report: &'a LaunchReport,
    /// The launch whose time the lines' conflicts are priced in
    /// ([`by_line::savings`]).
    pub launch: &'a Launch,
}

/// The report of `requests` (grouped from `trace`; `engine`: their engine run with
/// per-request timings and the launch the lines are priced in): the totals and the
/// engine's table printed, then with `print` the annotated source (`sources`: the text
/// of the files the sites name; `vars`: the workgroup variables where a capture knows
/// them), and the CSV and chart that `args` asks for (never over one of `inputs`).
#[allow(clippy::too_many_arguments)]
pub fn emit(
    hw: &Hardware,
    trace: &Trace,
    requests: &Requests,
    engine: Option<Engine<'_>>,
    args: &ByLineArgs,
    print: bool,
    sources: &Sources,
    vars: Option<&[SharedArray]>,
    inputs: &Inputs,
) -> Result<()> {
    let report = engine.as_ref().map(|e| e.report);
    if args.by_line_png.is_some() {
        with_feature!("charts", "`--by-line-png`", Ok(()))?;
    }
    if trace.is_empty() {
        eprintln!("{}: no workgroup-memory access or barrier to report", trace.source);
    } else if !trace.has_sites() {
        eprintln!(
            "{}: the trace has no sites (no `# site` table): every request is in one row; `banksim capture` writes sites",
            trace.source
        );
    }
    let mut lines =
        by_line::report(hw, trace, requests, report.map(|r| &r.engine), !args.no_advice, sources, vars)?;
    if let Some(e) = &engine {
        by_line::savings(hw, requests, e.launch, &mut lines)?;
    }
    let mut stdout = std::io::stdout().lock();
    let summary = pipeline::simulate::summarize(hw, requests, |_, _, _| {});
    super::print_totals(&mut stdout, &trace.source, trace.len() as u64, hw, &summary)?;
    if let Some(r) = report {
        super::print_engine(&mut stdout, r)?;
    }
    stdout.flush()?;
    if print {
        stdout.write_all(b"\n")?;
        self::print(&mut stdout, &trace.source, hw, &lines, sources)?;
    }
    if let Some(path) = &args.by_line_csv {
        write_atomically(path, inputs, |f| -> Result<()> {
            Ok(write_csv(f, by_line::LINE_HEADER, by_line::csv_rows(&lines, sources))?)
        })?;
    }
    if let Some(path) = &args.by_line_png {
        with_feature!(
            "charts",
            "`--by-line-png`",
            crate::charts::by_line(path, inputs, hw, trace, &lines, sources),
            uses: path
        )?;
    }
    Ok(())
}

/// Columns of the printed statistics (the source follows).
const STATS_WIDTH: usize = 52;

/// Prints `report`: each source file with every line's text and, on lines with
/// requests, their statistics and the advisor's fix; then the sites that name no source
/// line; then the totals.
pub fn print(
    out: &mut dyn Write,
    source: &str,
    hw: &Hardware,
    report: &ByLine,
    sources: &Sources,
) -> std::io::Result<()> {
    let cycles = report.engine.is_some();
    writeln!(
        out,
        "{source} by source line: warp {} on {} ({} banks x {} B)",
        hw.warp, hw.name, hw.banks, hw.bank_bytes
    )?;
    let head =
        format!("{:>8} {:>10} {:>8} {:>9} {:>7}", "requests", "wavefronts", "ideal", "conflicts", "wf/req");
    let head = if cycles { format!("{head} {:>12} {:>7}", "conflict cyc", "stalls") } else { head };
    let head = if report.dispatch.is_some() { format!("{head} {:>7}", "saves") } else { head };
    let width = head.len().max(STATS_WIDTH);
    let mut by_file: BTreeMap<&str, Vec<&Row>> = BTreeMap::new();
    let mut others = Vec::new();
    for row in &report.rows {
        match &row.place {
            Place::Source { file, .. } => by_file.entry(file.as_str()).or_default().push(row),
            _ => others.push(row),
        }
    }
    for (file, rows) in &by_file {
        writeln!(out)?;
        writeln!(out, "{file}")?;
        writeln!(out, "{:>5} | {head:<width$} | source", "line")?;
        let at: BTreeMap<u32, &Row> = rows
            .iter()
            .filter_map(|r| match r.place {
                Place::Source { line, .. } => Some((line, *r)),
                _ => None,
            })
            .collect();
        match sources.get(*file) {
            Some(text) => {
                let lines: Vec<&str> = text.lines().collect();
                let last = at.keys().next_back().copied().unwrap_or(0).max(lines.len() as u32);
                for n in 1..=last {
                    let code = lines.get(n as usize - 1).copied().unwrap_or("");
                    let stats = at.get(&n).map_or(String::new(), |r| stats(r, report));
                    writeln!(out, "{n:>5} | {stats:<width$} | {code}")?;
                    if let Some(r) = at.get(&n) {
                        advice(out, r, width, report)?;
                    }
                }
            }
            None => {
                writeln!(out, "      (source not found: {file}; lines with requests only)")?;
                for (n, r) in &at {
                    writeln!(out, "{n:>5} | {:<width$} |", stats(r, report))?;
                    advice(out, r, width, report)?;
                }
            }
        }
    }
    if !others.is_empty() {
        writeln!(out)?;
        writeln!(out, "{:>5} | {head:<width$} | site", "")?;
        for r in others {
            writeln!(out, "{:>5} | {:<width$} | {}", "", stats(r, report), r.place)?;
            advice(out, r, width, report)?;
        }
    }
    writeln!(out)?;
    let total = Row {
        place: Place::NoSite,
        sites: Default::default(),
        ops: Default::default(),
        tally: report.total,
        advice: None,
        parts: Vec::new(),
        saves: report.dispatch.map(|d| d.all),
    };
    writeln!(out, "{:>5} | {:<width$} |", "total", stats(&total, report))?;
    if let Some(e) = &report.engine {
        writeln!(
            out,
            "cycle engine: {} cycles, {} stall cycles of every cause; `conflict cyc` is a line's bank-conflict stall cycles, `stalls` their share of all stall cycles",
            e.cycles, e.stall_cycles
        )?;
    }
    if let Some(d) = &report.dispatch {
        writeln!(
            out,
            "`saves`: the share of the dispatch's time ({} of {} cycles, its fixed {} included) that removing the line's \
             conflicts saves: the dispatch run again with them at their ideal wavefronts, as `banksim predict` prices \
             conflicts{}",
            crate::tables::count(d.blocks as u64, "block"),
            d.cycles,
            d.overhead,
            if d.unpriced > 0 { format!(" ({} lines or accesses not priced: `-`)", d.unpriced) } else { String::new() }
        )?;
    }
    Ok(())
}

/// A row's statistics, in the columns of the header.
fn stats(r: &Row, report: &ByLine) -> String {
    let t = &r.tally;
    let s = format!(
        "{:>8} {:>10} {:>8} {:>9} {:>7.1}",
        t.requests,
        t.wavefronts,
        t.ideal,
        t.conflicts,
        t.wavefronts_per_request()
    );
    let s = match &report.engine {
        Some(e) => {
            format!("{s} {:>12} {:>7}", t.bank_conflict_cycles, share(t.bank_conflict_cycles, e.stall_cycles))
        }
        None => s,
    };
    match (&report.dispatch, r.saves) {
        (Some(d), Some(c)) => format!("{s} {:>7}", signed_share(c, d.cycles)),
        (Some(_), None) => format!("{s} {:>7}", "-"),
        _ => s,
    }
}

/// `part` of `whole` (a saving, maybe negative) as a percentage with one decimal.
fn signed_share(part: i64, whole: u64) -> String {
    if whole == 0 {
        "-".into()
    } else {
        format!("{:.1}%", 100.0 * part as f64 / whole as f64)
    }
}

/// `part` of `whole` as a percentage with one decimal.
fn share(part: u64, whole: u64) -> String {
    if whole == 0 {
        "-".into()
    } else {
        format!("{:.1}%", 100.0 * part as f64 / whole as f64)
    }
}

/// Under a row: its sites' parts where it has several, and the advisor's fix if it has
/// one.
fn advice(out: &mut dyn Write, r: &Row, width: usize, report: &ByLine) -> std::io::Result<()> {
    if r.parts.len() > 1 {
        for p in &r.parts {
            let part = Row { tally: p.tally, parts: Vec::new(), advice: None, saves: p.saves, ..r.clone() };
            let ops = p.ops.iter().map(|o| o.to_string()).collect::<Vec<_>>().join(" ");
            let at = p.column.map_or(format!("site {}", p.site), |c| format!("column {c}"));
            writeln!(out, "{:>5} | {:<width$} |   ^ {at}: {ops}", "", stats(&part, report))?;
        }
    }
    if let Some(a) = &r.advice {
        writeln!(out, "{:>5} | {:<width$} |   ^ fix: {}", "", "", describe(r))?;
        if !a.wgsl.is_empty() {
            writeln!(out, "{:>5} | {:<width$} |   ^ in WGSL: {}", "", "", a.wgsl.join(", "))?;
        }
        if !a.also.is_empty() {
            writeln!(out, "{:>5} | {:<width$} |   ^ the same as: {}", "", "", a.also.join("; "))?;
        }
    }
    Ok(())
}

/// The advisor's fix for a row, in words; empty where it has none.
pub fn describe(r: &Row) -> String {
    let Some(a) = &r.advice else { return String::new() };
    let s = &a.shape;
    format!(
        "{} on the array of {} rows x {} elements of {} B at byte {} -> {} conflicts on this line (from {}), {} in all, {} bytes more",
        a.layout, s.rows, s.cols, s.elem, s.base, a.line_conflicts, r.tally.conflicts, a.total_conflicts, a.extra_bytes
    )
}
