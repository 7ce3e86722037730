//! The metrics of one sweep cell: bank-model totals and, for studies with cycles, the
//! cycle engine's.

use anyhow::Result;
use serde_json::{json, Value};
use sim_core::engine::{self, EngineOptions};
use sim_core::{BankModel, Hardware, Op};
use std::collections::BTreeMap;
use traces::{Requests, Trace};

/// The metrics of one cell.
/// The trace is checked against the cell's hardware first, as `banksim run` checks it
/// ([`crate::pipeline::check::check_records`]).
pub fn measure(hw: &Hardware, trace: &Trace, cycles: bool) -> Result<BTreeMap<&'static str, Value>> {
    crate::pipeline::check::check_records(trace, hw, None)?;
    let requests = Requests::group(trace, hw.warp)?;
    let mut model = BankModel::new(hw);
    let mut s = sim_core::stats::Summary::default();
    for r in requests.iter() {
        s.add(r.op, r.lanes.len(), model.evaluate(&r.warp_request()));
    }
    let t = s.memory_total();
    let per = |w: u64, n: u64| if n == 0 { Value::Null } else { json!(w as f64 / n as f64) };
    let (ld, st) = (s.op(Op::Load), s.op(Op::Store));
    let mut m = BTreeMap::from([
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
    ]);
    if cycles {
        let r = engine::run(hw, &requests, &EngineOptions::default()).map_err(|e| anyhow::anyhow!("{e}"))?;
        m.insert("cycles", json!(r.cycles));
        m.insert("blocks_per_sm", json!(r.blocks_per_sm));
    }
    Ok(m)
}
