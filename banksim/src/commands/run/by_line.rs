//! `banksim run --by-line` and the report `banksim explain` prints: glue over
//! [`crate::pipeline::by_line`] (the sums and the advice) and [`crate::output::by_line`]
//! (the annotated source, the CSV, the chart).

use crate::output::by_line::{self as out, Sources};
use crate::output::{write_atomically, write_csv};
use crate::pipeline::by_line;
use crate::pipeline::simulate;
use anyhow::Result;
use clap::Args;
use sim_core::engine::EngineOptions;
use sim_core::launch::{Gaps, Launch, LaunchReport};
use sim_core::Hardware;
use std::path::{Path, PathBuf};
use traces::{Requests, Trace};

/// `banksim run --by-line`.
#[derive(Args, Clone, Default)]
pub struct RunByLineArgs {
    /// Print the trace's kernel source annotated per line: requests, wavefronts, ideal,
    /// conflicts and wavefronts per request of the accesses on each line (with --cycles,
    /// their bank-conflict stall cycles and share of all stall cycles), and the layout
    /// advisor's fix for a conflicting line's array. Needs a trace with sites (`banksim
    /// capture` writes them; `import` keeps PCs). See docs/by-line.md.
    #[arg(long)]
    pub by_line: bool,
    #[command(flatten)]
    pub outputs: ByLineArgs,
}

impl RunByLineArgs {
    /// Whether any by-line output is asked for.
    pub fn wanted(&self) -> bool {
        self.by_line || self.outputs.by_line_csv.is_some() || self.outputs.by_line_png.is_some()
    }
}

/// The by-line report's files and options, shared by `run` and `explain`.
#[derive(Args, Clone, Default)]
pub struct ByLineArgs {
    /// Write the by-line report as CSV, one row per source line (or site) with requests.
    #[arg(long, value_name = "OUT.csv")]
    pub by_line_csv: Option<PathBuf>,
    /// Draw the by-line report's conflicts per line as a PNG bar chart (`charts` feature).
    #[arg(long, value_name = "OUT.png")]
    pub by_line_png: Option<PathBuf>,
    /// Leave out the advisor's fixes (each conflicting line's array is otherwise
    /// re-simulated under every candidate layout).
    #[arg(long)]
    pub no_advice: bool,
}

/// The cycle engine on `requests` as `run --cycles` runs them (the launch timing model,
/// every request's timing kept); `footprint` as `run --footprint`.
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

/// The report of `requests` (grouped from `trace`; `report`: their engine run with
/// per-request timings), printed and written as `args` asks. `sources` holds the text
/// of the files the sites name; `print`: print the annotated source too.
pub fn report_by_line(
    hw: &Hardware,
    trace: &Trace,
    requests: &Requests,
    report: Option<&LaunchReport>,
    args: &ByLineArgs,
    print: bool,
    sources: &Sources,
) -> Result<()> {
    #[cfg(not(feature = "charts"))]
    if args.by_line_png.is_some() {
        return Err(super::super::args::needs_feature("`--by-line-png`", "charts"));
    }
    if !trace.has_sites() {
        eprintln!(
            "{}: the trace has no sites (no `# site` table): every request is in one row; `banksim capture` writes sites",
            trace.source
        );
    }
    let mut lines = by_line::by_line(hw, trace, requests, report.map(|r| &r.engine))?;
    if !args.no_advice {
        by_line::advise(hw, trace, &mut lines, 33)?;
    }
    let mut stdout = std::io::stdout().lock();
    let summary = simulate::summarize(hw, requests, |_, _, _| {});
    crate::output::tables::print_totals(
        &mut stdout,
        &trace.source,
        trace.len() as u64,
        requests.len() as u64,
        hw,
        &summary,
    )?;
    if let Some(r) = report {
        crate::output::tables::print_engine(&mut stdout, r)?;
    }
    std::io::Write::flush(&mut stdout)?;
    if print {
        std::io::Write::write_all(&mut stdout, b"\n")?;
        out::print(&mut stdout, &trace.source, hw, &lines, sources)?;
    }
    if let Some(path) = &args.by_line_csv {
        write_atomically(path, |f| -> Result<()> {
            Ok(write_csv(f, out::LINE_HEADER, out::csv_rows(&lines, sources))?)
        })?;
    }
    #[cfg(feature = "charts")]
    if let Some(path) = &args.by_line_png {
        draw(path, hw, trace, &lines, sources)?;
    }
    Ok(())
}

/// The text of every source file the trace's sites name that can be read: by its name,
/// else relative to `beside` (the trace's folder).
pub fn read_sources(trace: &Trace, beside: Option<&Path>) -> Sources {
    let mut sources = Sources::new();
    for label in &trace.sites {
        let Some(at) = traces::site::SourceLocation::parse(label) else { continue };
        if sources.contains_key(at.file) {
            continue;
        }
        let direct = PathBuf::from(at.file);
        let text = std::fs::read_to_string(&direct)
            .ok()
            .or_else(|| beside.and_then(|d| std::fs::read_to_string(d.join(&direct)).ok()));
        if let Some(text) = text {
            sources.insert(at.file.to_string(), text);
        }
    }
    sources
}

/// The chart: one bar per line (or site) with conflicts, its conflicts.
#[cfg(feature = "charts")]
fn draw(path: &Path, hw: &Hardware, trace: &Trace, lines: &by_line::ByLine, sources: &Sources) -> Result<()> {
    let bars: Vec<(String, f64)> = out::csv_rows(lines, sources)
        .zip(&lines.rows)
        .filter(|(_, r)| r.tally.wavefronts > 0)
        .map(|(row, r)| {
            let name = match row.line {
                Some(n) => format!("line {n}: {}", row.source),
                None => r.place.to_string(),
            };
            (name, r.tally.conflicts as f64)
        })
        .collect();
    if bars.is_empty() {
        anyhow::bail!("{}: no line has shared-memory accesses to chart", path.display());
    }
    let labels = reports::Labels {
        title: format!("{}: bank conflicts by source line", trace.source),
        subtitle: format!("on {} · warp {} · {} banks x {} B", hw.name, hw.warp, hw.banks, hw.bank_bytes),
        x: "source line (its code)".into(),
        y: "conflicts (extra wavefronts, whole trace)".into(),
        legend: String::new(),
    };
    let mean = lines.total.conflicts as f64 / bars.len() as f64;
    crate::output::write_via_path(path, |p| {
        reports::bars(p, &labels, &bars, mean, "mean over the lines").map_err(anyhow::Error::from)
    })?;
    Ok(())
}
