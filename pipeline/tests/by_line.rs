//! The by-line report: its rows add up to the run's totals (bank model and cycle engine),
//! and its lines are priced as the engine's `no_conflicts` prices the whole run.

use pipeline::{by_line, simulate};
use proptest::prelude::*;
use sim_core::Op;
use traces::{Record, Requests, Trace, NO_SITE};

/// A trace of one or two blocks whose threads run `steps` accesses at random addresses,
/// step `s` at site `sites[s]` (some without a site), with a barrier in the middle.
fn trace(blocks: u32, threads: u32, sites: &[u32], addrs: &[u32]) -> Trace {
    let mut t = Trace::new("random");
    t.sites = (0..4).map(|i| format!("k.wgsl:{}:{}", 10 + i / 2, 5 + i)).collect();
    let mut k = 0;
    for block in 0..blocks {
        for thread in 0..threads {
            for (step, &site) in sites.iter().enumerate() {
                let op = match step % 3 {
                    0 => Op::Store,
                    1 => Op::Load,
                    _ => Op::Barrier,
                };
                let addr = if op == Op::Barrier { 0 } else { addrs[k % addrs.len()] * 4 };
                k += 1;
                t.push(Record {
                    block,
                    thread,
                    step: step as u32,
                    op,
                    addr,
                    bytes: if op == Op::Barrier { 0 } else { 4 },
                    gap: 3,
                    dep: None,
                    wait: None,
                    site: if op == Op::Barrier { NO_SITE } else { site },
                });
            }
        }
    }
    t
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Every request is in one row: the rows' sums are the run's, and with the engine
    /// their bank-conflict stall cycles are the run's bank-conflict stall.
    #[test]
    fn rows_add_up_to_the_runs_totals(
        blocks in 1u32..3,
        threads in 1u32..80,
        sites in prop::collection::vec(prop_oneof![Just(NO_SITE), 0u32..4], 1..7),
        addrs in prop::collection::vec(0u32..256, 1..64),
    ) {
        let hw = configs::load("h100").unwrap();
        let t = trace(blocks, threads, &sites, &addrs);
        let requests = Requests::group(&t, hw.warp).unwrap();
        let opts = sim_core::engine::EngineOptions { per_request: true, ..Default::default() };
        let report = sim_core::engine::run(&hw, &requests, &opts).unwrap();
        let lines = by_line::by_line(&hw, &t, &requests, Some(&report)).unwrap();
        let summary = simulate::summarize(&hw, &requests, |_, _, _| {});
        let (mut wavefronts, mut ideal, mut conflicts) = (0, 0, 0);
        for op in Op::ALL {
            let s = summary.op(op);
            wavefronts += s.wavefronts;
            ideal += s.ideal;
            conflicts += s.conflicts;
        }
        let rows = lines.rows.iter().fold(by_line::Tally::default(), |mut a, r| {
            a.requests += r.tally.requests;
            a.wavefronts += r.tally.wavefronts;
            a.ideal += r.tally.ideal;
            a.conflicts += r.tally.conflicts;
            a.bank_conflict_cycles += r.tally.bank_conflict_cycles;
            a
        });
        prop_assert_eq!(rows, lines.total);
        prop_assert_eq!(rows.requests, requests.len() as u64);
        prop_assert_eq!((rows.wavefronts, rows.ideal, rows.conflicts), (wavefronts, ideal, conflicts));
        prop_assert_eq!(rows.bank_conflict_cycles, report.total.stalls.bank_conflict);
        // each row's parts add up to it
        for r in &lines.rows {
            let parts: u64 = r.parts.iter().map(|p| p.tally.wavefronts).sum();
            prop_assert_eq!(parts, r.tally.wavefronts);
        }
    }

    /// Removing the conflicts of every site is the engine's `no_conflicts` run (what
    /// `predict` prices), of none the run itself; and a line's saving is that of its
    /// sites removed.
    #[test]
    fn pricing_every_site_is_the_engines_no_conflicts_run(
        blocks in 1u32..3,
        threads in 1u32..80,
        sites in prop::collection::vec(0u32..4, 1..7),
        addrs in prop::collection::vec(0u32..256, 1..64),
    ) {
        let hw = configs::load("h100").unwrap();
        let t = trace(blocks, threads, &sites, &addrs);
        let requests = Requests::group(&t, hw.warp).unwrap();
        let launch = by_line::launch(sim_core::launch::Gaps::Cycles, &Default::default(), None);
        let run = |no_conflicts: bool| {
            let options = sim_core::engine::EngineOptions { no_conflicts, ..Default::default() };
            let l = sim_core::launch::Launch { options, ..launch.clone() };
            sim_core::launch::run(&hw, &requests, &l).unwrap().cycles()
        };
        let all: std::collections::BTreeSet<u32> = (0..4).collect();
        prop_assert_eq!(by_line::cycles_without(&hw, &requests, &launch, &all).unwrap(), run(true));
        prop_assert_eq!(by_line::cycles_without(&hw, &requests, &launch, &Default::default()).unwrap(), run(false));
        let report = by_line::run_engine(&hw, &requests, &launch).unwrap();
        let mut lines = by_line::by_line(&hw, &t, &requests, Some(&report.engine)).unwrap();
        by_line::savings(&hw, &requests, &launch, &mut lines).unwrap();
        let d = lines.dispatch.unwrap();
        prop_assert_eq!(d.all, run(false) as i64 - run(true) as i64);
        for r in lines.rows.iter().filter(|r| r.tally.conflicts > 0) {
            let without = by_line::cycles_without(&hw, &requests, &launch, &r.sites).unwrap();
            prop_assert_eq!(r.saves, Some(d.cycles as i64 - without as i64));
        }
    }
}
