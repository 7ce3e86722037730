//! The cycle engine honours every edge of a block's dependence DAG (ARCHITECTURE.md,
//! "A resident block is a dependence DAG"), built here with petgraph straight from the
//! workload, and its pipe keeps to its timing rules.
//!
//! The engine keeps the DAG in compact form (warp cursors, barrier counters); this test
//! is the specification it must meet: on random blocks with barriers (warps with fewer
//! barriers than others included), waits, dependences and every kind of request, no
//! request issues before its program-order predecessor's issue slot plus its own gap,
//! before its last load's data allows, or before every warp has arrived at the barrier
//! it follows.

use petgraph::algo::toposort;
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::Direction;
use proptest::prelude::*;
use sim_core::engine::{self, DepPolicy, EngineOptions, EngineReport, RequestTiming};
use sim_core::{BankModel, Op, WarpRequest};
use std::collections::HashMap;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Node {
    /// A memory request (workload index).
    Request(usize),
    /// A warp's arrival at a barrier (workload index).
    Arrive(usize),
    /// The release of a block's k-th barrier.
    Join,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Edge {
    /// Program order: one issue slot after the predecessor issues.
    Order,
    /// The predecessor's loaded value.
    Data,
    /// Into a barrier's join (an arrival), or out of it (the release).
    Barrier,
}

/// The dependence DAG of every block of `work`.
fn dag(work: &traces::Requests, policy: DepPolicy) -> DiGraph<Node, Edge> {
    let mut g = DiGraph::new();
    let mut i = 0;
    while i < work.len() {
        let block = work.get(i).block;
        let mut joins: Vec<NodeIndex> = Vec::new();
        while i < work.len() && work.get(i).block == block {
            let warp = work.get(i).warp;
            let (mut prev, mut last_load, mut barriers): (Option<NodeIndex>, Option<NodeIndex>, usize) =
                (None, None, 0);
            while i < work.len() && work.get(i).block == block && work.get(i).warp == warp {
                let r = work.get(i);
                let n = g.add_node(if r.op == Op::Barrier { Node::Arrive(i) } else { Node::Request(i) });
                if let Some(p) = prev {
                    g.add_edge(p, n, if g[p] == Node::Join { Edge::Barrier } else { Edge::Order });
                }
                let dep = r.dep.unwrap_or(policy == DepPolicy::PreviousLoad);
                if let (true, Some(l)) = (r.wait.is_some() || (dep && r.op != Op::Barrier), last_load) {
                    g.add_edge(l, n, Edge::Data);
                }
                prev = Some(n);
                match r.op {
                    Op::Load | Op::Atomic | Op::GlobalLoad => last_load = Some(n),
                    Op::Barrier => {
                        if joins.len() == barriers {
                            joins.push(g.add_node(Node::Join));
                        }
                        g.add_edge(n, joins[barriers], Edge::Barrier);
                        prev = Some(joins[barriers]);
                        barriers += 1;
                    }
                    _ => {}
                }
                i += 1;
            }
        }
    }
    g
}

/// Random blocks: 1 to 4 warps of up to 12 steps, some warps with fewer barriers.
fn workload(seed: u64) -> traces::Requests {
    blocks_of(seed, 12)
}

/// As [`workload`], with up to `most` blocks.
fn blocks_of(seed: u64, most: u32) -> traces::Requests {
    let mut s = seed;
    let mut next = |n: u32| {
        s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((s >> 33) % n as u64) as u32
    };
    let ops = [Op::Load, Op::Store, Op::Atomic, Op::Reduction, Op::Barrier, Op::GlobalLoad, Op::GlobalStore];
    let mut reqs = traces::Requests::new(32);
    let (blocks, warps) = (1 + next(most), 1 + next(4));
    for block in 0..blocks {
        for warp in 0..warps {
            for step in 0..next(13) {
                let op = ops[next(ops.len() as u32) as usize];
                let lanes: Vec<u16> =
                    if op == Op::Barrier { Vec::new() } else { (0..32).filter(|_| next(5) != 0).collect() };
                let (stride, base) = (1 + next(33), next(512));
                let addrs: Vec<u32> = lanes.iter().map(|&l| (base + l as u32 * stride) % 2048 * 4).collect();
                let gap = if next(2) == 0 { 0 } else { next(40) };
                let dep = [None, Some(true), Some(false)][next(3) as usize];
                // (a point within the gap, as traces check)
                let wait = (next(3) == 0).then(|| next(gap + 1));
                let bytes = if op == Op::Barrier { 0 } else { 4 };
                reqs.push(block, warp, step, op, bytes, gap, dep, wait, &lanes, &addrs);
            }
        }
    }
    reqs
}

/// Checks `report` against the DAG of `work` and the pipe's rules.
fn check(work: &traces::Requests, policy: DepPolicy, hw: &sim_core::Hardware, report: &EngineReport) {
    let t = hw.timing.as_ref().unwrap();
    let timing: HashMap<usize, RequestTiming> =
        report.requests.iter().map(|r| (r.index as usize, *r)).collect();
    let memory = (0..work.len()).filter(|&i| work.get(i).op != Op::Barrier).count();
    assert_eq!(timing.len(), memory, "one timing per request (barriers have none)");
    assert_eq!(report.total.requests as usize, memory);

    // the pipe: W wavefronts hold it W x pipe_cycles_per_wavefront, in issue order
    let mut model = BankModel::new(hw);
    let mut by_sm: HashMap<u32, Vec<RequestTiming>> = HashMap::new();
    // a global load may wait the L1 only where its block loaded each of its lines before,
    // and must where the block has loaded no more lines than its share of the L1 holds
    let capacity = (t.l1_bytes / 128 / report.blocks_per_sm.max(1)) as usize;
    let mut l1: HashMap<usize, (bool, bool)> = HashMap::new(); // (may hit, must hit)
    let mut loaded: HashMap<u32, std::collections::HashSet<u32>> = HashMap::new();
    for i in 0..work.len() {
        let q = work.get(i);
        if q.op != Op::GlobalLoad || t.l1_latency == 0 {
            continue;
        }
        let lines: std::collections::HashSet<u32> = q.addrs.iter().map(|a| a / 128).collect();
        let block = loaded.entry(q.block).or_default();
        let before = !lines.is_empty() && lines.is_subset(block);
        block.extend(&lines);
        l1.insert(i, (before, before && block.len() <= capacity));
    }
    for (&i, r) in &timing {
        let q = work.get(i);
        let w = model.evaluate(&WarpRequest { op: q.op, bytes: q.bytes, lanes: q.lanes, addrs: q.addrs });
        assert_eq!(r.wavefronts, w.wavefronts, "request {i}: the bank model's wavefronts");
        assert!(r.pipe_start >= r.issue, "request {i} enters the pipe before it issues: {r:?}");
        let busy = r.wavefronts as u64 * t.pipe_cycles_per_wavefront as u64;
        let done = match q.op {
            Op::GlobalLoad => {
                let out = r.pipe_start + busy;
                let (may, must) = l1.get(&i).copied().unwrap_or((false, false));
                // (past the L1's share, a load that may hit is checked against either)
                let hit = must || (may && r.done == out + t.l1_latency as u64);
                out + if hit { t.l1_latency } else { t.global_latency } as u64
            }
            Op::Load | Op::Atomic => {
                let extra = if q.op == Op::Atomic { t.atomic_extra_latency as u64 } else { 0 };
                r.pipe_start
                    + t.latency_base as u64
                    + extra
                    + t.latency_per_wavefront as u64 * r.wavefronts as u64
            }
            _ => r.pipe_start + busy,
        };
        assert_eq!(r.done, done, "request {i} ({:?}): completion", q.op);
        assert!(report.cycles >= r.done, "the run ends before request {i} completes");
        by_sm.entry(r.sm).or_default().push(*r);
    }
    for rs in by_sm.values_mut() {
        rs.sort_by_key(|r| (r.pipe_start, r.issue));
        for w in rs.windows(2) {
            let busy = w[0].wavefronts as u64 * t.pipe_cycles_per_wavefront as u64;
            assert!(w[1].pipe_start >= w[0].pipe_start + busy, "pipe overlap: {:?} then {:?}", w[0], w[1]);
        }
    }

    // every edge: a lower bound on the issue of its target, through arrivals and joins
    // (whose cycles are not reported) by their own lower bounds
    let g = dag(work, policy);
    let order = toposort(&g, None).expect("a DAG");
    let mut issue: HashMap<NodeIndex, u64> = HashMap::new();
    for n in order {
        let (gap, wait) = match g[n] {
            Node::Request(i) | Node::Arrive(i) => {
                (work.get(i).gap as u64, work.get(i).wait.map(|w| w as u64))
            }
            Node::Join => (0, None),
        };
        let (mut ready, mut data) = (0u64, 0u64);
        for e in g.edges_directed(n, Direction::Incoming) {
            let p = petgraph::visit::EdgeRef::source(&e);
            match (*e.weight(), g[p]) {
                (Edge::Data, Node::Request(i)) => data = data.max(timing[&i].done),
                (Edge::Order, _) => ready = ready.max(issue[&p] + t.issue_cycles as u64),
                // an arrival into its join; a join's release into the warp's next step
                (Edge::Barrier, _) => ready = ready.max(issue[&p]),
                (Edge::Data, other) => panic!("data edge from {other:?}"),
            }
        }
        let bound = match wait {
            // the work before the first use runs under the load's latency
            Some(w) => (ready + gap).max(data + gap - w.min(gap)),
            None => ready.max(data) + gap,
        };
        let at = match g[n] {
            Node::Request(i) => {
                let r = timing[&i];
                assert!(
                    r.issue >= bound,
                    "request {i} ({:?}) issued at {} before its dependences allow ({bound}): {:?}",
                    work.get(i),
                    r.issue,
                    g.edges_directed(n, Direction::Incoming).map(|e| *e.weight()).collect::<Vec<_>>()
                );
                r.issue
            }
            Node::Arrive(_) | Node::Join => bound,
        };
        issue.insert(n, at);
    }
}

/// The h100 preset on `sms` SMs, without its DRAM bandwidth limit (global requests'
/// completion is then the pipe's and the latency's alone: tests/launch.rs checks the
/// bandwidth).
fn h100(sms: u32) -> sim_core::Hardware {
    let mut hw = configs::preset("h100").unwrap();
    hw.timing.as_mut().unwrap().sms = sms;
    hw.timing.as_mut().unwrap().dram_bytes_per_cycle = 0.0;
    hw
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn requests_issue_only_once_their_dependences_are_met(
        seed in any::<u64>(),
        sms in 1u32..4,
        independent in any::<bool>(),
        threads in 1usize..3,
    ) {
        let work = workload(seed);
        let policy = if independent { DepPolicy::Independent } else { DepPolicy::PreviousLoad };
        let hw = h100(sms);
        let opts = EngineOptions { dep_policy: policy, per_request: true, ..EngineOptions::default() };
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        let report = pool.install(|| engine::run(&hw, &work, &opts)).unwrap();
        check(&work, policy, &hw, &report);
    }

    /// Blocks of uneven lengths on few SMs: the dispatcher's speculation goes wrong and
    /// is rolled back, SMs are shared unevenly between threads (or threads outnumber
    /// SMs), and the result is still the serial run's, request by request.
    #[test]
    fn parallel_runs_give_the_serial_result(seed in any::<u64>(), sms in 2u32..6, threads in 2usize..8) {
        let work = blocks_of(seed, 80);
        let hw = h100(sms);
        let opts = EngineOptions { per_request: true, ..EngineOptions::default() };
        let on = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            pool.install(|| engine::run(&hw, &work, &opts)).unwrap()
        };
        prop_assert_eq!(on(threads), on(1));
    }
}

#[test]
fn the_check_catches_a_request_issued_too_early() {
    // the checker itself: a chain of dependent loads, one reported a cycle early
    let lanes: Vec<u16> = (0..32).collect();
    let addrs: Vec<u32> = (0..32).map(|l| l * 4).collect();
    let mut work = traces::Requests::new(32);
    for step in 0..3 {
        work.push(0, 0, step, Op::Load, 4, 5, Some(true), None, &lanes, &addrs);
    }
    let hw = h100(1);
    let opts = EngineOptions { per_request: true, ..EngineOptions::default() };
    let report = engine::run(&hw, &work, &opts).unwrap();
    check(&work, DepPolicy::PreviousLoad, &hw, &report);
    // the second load issues exactly when the first's data is back plus its gap
    assert_eq!(report.requests[1].issue, report.requests[0].done + 5);
    let mut early = report.clone();
    early.requests[1].issue -= 1;
    early.requests[1].pipe_start -= 1;
    early.requests[1].done -= 1;
    let caught = std::panic::catch_unwind(|| check(&work, DepPolicy::PreviousLoad, &hw, &early));
    assert!(caught.is_err(), "a load issued a cycle before its data is back passes the check");
}
