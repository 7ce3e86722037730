//! The metrics of one sweep cell: bank-model totals and, for studies with cycles, the
//! cycle engine's.

use crate::error::Result;
use serde_json::{json, Value};
use sim_core::engine::{self, EngineOptions};
use sim_core::{Hardware, Op};
use std::collections::BTreeMap;
use std::path::Path;
use traces::{Requests, Trace};

/// The metrics of one cell.
/// The trace is checked against the cell's hardware first, as `banksim run` checks it
/// ([`crate::check::check_records`]).
pub fn measure(hw: &Hardware, trace: &Trace, cycles: bool) -> Result<BTreeMap<&'static str, Value>> {
    crate::check::check_records(trace, hw, None)?;
    let requests = Requests::group(trace, hw.warp)?;
    let summary = crate::simulate::summarize(hw, &requests, |_, _, _| {});
    with_cycles(of_summary(&summary), hw, cycles.then_some(&requests))
}

/// [`measure`] of the trace file at `path` (either format), read as `banksim run` reads
/// it, not held whole: the bank model streams it (a text trace out of block order is
/// sorted with bounded memory); the cycle engine holds its warp requests, not its records.
/// The file is read again for every cell.
pub fn measure_file(hw: &Hardware, path: &Path, cycles: bool) -> Result<BTreeMap<&'static str, Value>> {
    use crate::stream;
    /// Memory of the sort of a text trace out of block order.
    const SORT_MEMORY: usize = 256 << 20;
    crate::files::require_regular(path, "a study's `file:` workload")?;
    let input = stream::open(path)?;
    let how = stream::Reading::new(SORT_MEMORY);
    if !cycles {
        return Ok(of_summary(&stream::totals(input, hw, &how)?.summary));
    }
    // (held as the engine needs them, with their totals: `sim_core::engine::Costed`)
    let loaded = stream::load::<engine::Costed>(input, hw, &how)?;
    with_cycles(of_summary(&loaded.summary.unwrap_or_default()), hw, Some(&loaded.requests))
}

/// The bank-model metrics of totals `s`.
fn of_summary(s: &sim_core::stats::Summary) -> BTreeMap<&'static str, Value> {
    let t = s.memory_total();
    let per = |w: u64, n: u64| if n == 0 { Value::Null } else { json!(w as f64 / n as f64) };
    let (ld, st) = (s.op(Op::Load), s.op(Op::Store));
    BTreeMap::from([
        ("requests", json!(t.requests)),
        ("lanes", json!(t.lanes)),
        ("wavefronts", json!(t.wavefronts)),
        ("ideal", json!(t.ideal)),
        ("conflicts", json!(t.conflicts)),
        ("per_request", per(t.wavefronts, t.requests)),
        ("degree", per(t.wavefronts, t.ideal)),
        ("ld_degree", per(ld.wavefronts, ld.ideal)),
        ("ld_wavefronts", json!(ld.wavefronts)),
        ("ld_per_request", per(ld.wavefronts, ld.requests)),
        ("st_wavefronts", json!(st.wavefronts)),
        ("st_per_request", per(st.wavefronts, st.requests)),
    ])
}

/// `m` with the cycle engine's metrics of `requests`, where given.
fn with_cycles<W: engine::Workload + ?Sized>(
    mut m: BTreeMap<&'static str, Value>,
    hw: &Hardware,
    requests: Option<&W>,
) -> Result<BTreeMap<&'static str, Value>> {
    if let Some(requests) = requests {
        let r = engine::run(hw, requests, &EngineOptions::default())?;
        m.insert("cycles", json!(r.cycles));
        m.insert("blocks_per_sm", json!(r.blocks_per_sm));
    }
    Ok(m)
}
