//! The launch timing model (`sim_core::launch`): the one-SM shortcut is taken only where
//! exact and then gives the whole dispatch's report; the occupancy rule; DRAM bandwidth.

use proptest::prelude::*;
use sim_core::engine::{self, EngineOptions};
use sim_core::launch::{self, Gaps, Launch};
use sim_core::replicate::Replicated;
use sim_core::{Occupancy, Op};

fn h100() -> sim_core::Hardware {
    let mut hw = configs::load("h100").unwrap();
    hw.timing.as_mut().unwrap().sms = 4;
    hw
}

/// One block of `warps` warps of random requests (shared and global), repeated
/// `copies` times; with `vary`, the last copy's first shared load reads another address
/// pattern (a different cost).
fn blocks(seed: u64, warps: u32, copies: u32, vary: bool) -> traces::Requests {
    let mut s = seed;
    let mut next = |n: u32| {
        s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((s >> 33) % n as u64) as u32
    };
    let ops = [Op::Load, Op::Store, Op::Barrier, Op::GlobalLoad, Op::GlobalStore, Op::Atomic];
    let mut steps = Vec::new();
    for warp in 0..warps {
        for step in 0..1 + next(10) {
            let op = ops[next(ops.len() as u32) as usize];
            let lanes: Vec<u16> = if op == Op::Barrier { Vec::new() } else { (0..32).collect() };
            let stride = 1 + next(33);
            let gap = next(30);
            steps.push((warp, step, op, lanes, stride, gap));
        }
    }
    let mut reqs = traces::Requests::new(32);
    for block in 0..copies {
        let mut varied = false;
        for (warp, step, op, lanes, stride, gap) in &steps {
            let mut stride = *stride;
            if vary && block == copies - 1 && *op == Op::Load && !varied {
                // one more or one fewer way of conflict
                stride = if stride == 32 { 1 } else { 32 };
                varied = true;
            }
            let addrs: Vec<u32> = lanes.iter().map(|&l| l as u32 * stride * 4 % 16384).collect();
            let bytes = if *op == Op::Barrier { 0 } else { 4 };
            reqs.push(block, *warp, *step, *op, bytes, *gap, None, None, lanes, &addrs);
        }
    }
    reqs
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Where every block is the same, one SM with its share stands for all (two, where
    /// the blocks do not divide evenly over the SMs): the launch's report is the one of
    /// simulating every SM.
    #[test]
    fn one_sm_is_every_sm(seed in any::<u64>(), warps in 1u32..5, dispatch in 1u32..25, template in 1u32..4,
                          bandwidth in prop_oneof![Just(0.0), 4.0f64..200.0], cpo in 0.5f64..6.0) {
        let mut hw = h100();
        hw.timing.as_mut().unwrap().dram_bytes_per_cycle = bandwidth;
        let work = blocks(seed, warps, template, false);
        let gaps = Gaps::Ops { cycles_per_op: cpo, issue_per_op: 1.0, issue_share: 1.0 };
        let l = launch::run(&hw, &work, &Launch { blocks: Some(dispatch), gaps, options: EngineOptions::default(), footprint: None }).unwrap();
        prop_assert!(l.one_sm);
        let mut full_hw = hw.clone();
        full_hw.timing.as_mut().unwrap().gap_issue_fraction = sim_core::gap_issue_fraction(1.0, 1.0, cpo);
        // (the bandwidth the launch gave the dispatch's lines, L2 re-reads included)
        full_hw.timing.as_mut().unwrap().dram_bytes_per_cycle = l.memory.map_or(bandwidth, |m| m.bytes_per_cycle);
        // (and the latency of its loads, from where their bytes come)
        let latency = full_hw.timing.as_ref().unwrap().global_latency;
        full_hw.timing.as_mut().unwrap().global_latency = l.memory.map_or(latency, |m| m.latency);
        let full = engine::run(&full_hw, &Replicated::new(&work, Some(dispatch), cpo), &EngineOptions::default()).unwrap();
        prop_assert_eq!(l.engine.cycles, full.cycles);
        prop_assert_eq!(&l.engine.total, &full.total);
        prop_assert_eq!(&l.engine.sms, &full.sms);
        prop_assert_eq!(l.engine.blocks_per_sm, full.blocks_per_sm);
    }

    /// Requests held costed ([`engine::Costed`]: their outcomes, no lanes but for global
    /// ones), built in two parts appended anywhere, launch exactly as the requests do:
    /// the same report, the same shortcut, the same global traffic.
    #[test]
    fn costed_requests_launch_as_the_requests_do(seed in any::<u64>(), warps in 1u32..4, copies in 1u32..4,
                                                 vary in any::<bool>(), split in 0.0f64..1.0, dispatch in 1u32..13) {
        use sim_core::engine::Workload;
        let mut hw = h100();
        hw.timing.as_mut().unwrap().dram_bytes_per_cycle = 50.0;
        let work = blocks(seed, warps, copies, vary);
        let mut model = sim_core::BankModel::new(&hw);
        let at = (work.len() as f64 * split) as usize;
        let (mut costed, mut rest) = (engine::Costed::new(32), engine::Costed::new(32));
        for i in 0..work.len() {
            let part = if i < at { &mut costed } else { &mut rest };
            part.push(&work.request(i), &mut model);
        }
        costed.append(&rest);
        prop_assert_eq!(costed.len(), work.len());
        prop_assert_eq!(costed.block_starts(), work.block_starts());
        prop_assert_eq!(costed.extent(32), work.extent(32));
        for blocks in [None, Some(dispatch)] {
            let gaps = Gaps::Ops { cycles_per_op: 1.5, issue_per_op: 1.0, issue_share: 0.25 };
            let launch = Launch { blocks, gaps, options: EngineOptions::default(), footprint: None };
            let (a, b) = (launch::run(&hw, &work, &launch).unwrap(), launch::run(&hw, &costed, &launch).unwrap());
            prop_assert_eq!(a.one_sm, b.one_sm);
            prop_assert_eq!(a.engine.cycles, b.engine.cycles);
            prop_assert_eq!(&a.engine.total, &b.engine.total);
            prop_assert_eq!(&a.engine.sms, &b.engine.sms);
            prop_assert_eq!(format!("{:?}", a.memory), format!("{:?}", b.memory));
        }
    }

    /// A block that costs differently, and a short dispatch is simulated whole; so is
    /// any dispatch with `full`.
    #[test]
    fn blocks_that_differ_run_every_sm(seed in any::<u64>(), warps in 1u32..4) {
        let hw = h100();
        let launch_of = |blocks, full| Launch { blocks: Some(blocks), gaps: Gaps::Cycles, options: EngineOptions { full, ..Default::default() }, footprint: None };
        let varied = blocks(seed, warps, 2, true);
        let has_load = (0..varied.len()).any(|i| varied.get(i).op == Op::Load);
        let l = launch::run(&hw, &varied, &launch_of(8, false)).unwrap();
        prop_assert_eq!(l.one_sm, !has_load);
        let mut whole_hw = hw.clone();
        if let Some(m) = l.memory {
            let t = whole_hw.timing.as_mut().unwrap();
            (t.dram_bytes_per_cycle, t.global_latency) = (m.bytes_per_cycle, m.latency);
        }
        let full = engine::run(&whole_hw, &Replicated::new(&varied, Some(8), 1.0), &EngineOptions::default()).unwrap();
        prop_assert_eq!(l.engine.cycles, full.cycles);
        let same = blocks(seed, warps, 2, false);
        prop_assert!(!launch::run(&hw, &same, &launch_of(6, true)).unwrap().one_sm);
    }
}

#[test]
fn the_h100_holds_the_workgroups_that_fit_in_48_kib() {
    let hw = configs::load("h100").unwrap();
    let rule = &hw.timing.as_ref().unwrap().occupancy;
    assert!(matches!(rule, Occupancy::SmallestCarveout { .. }));
    // validate/results/h100/occupancy.csv: 32 KiB, one per SM
    assert_eq!(rule.blocks_by_smem(32 * 1024, hw.smem_per_sm), Some(1));
    // occupancy3.csv: the 64x64 transpose's 16 KiB tile three per SM, 16.25 KiB two
    assert_eq!(rule.blocks_by_smem(16 * 1024, hw.smem_per_sm), Some(3));
    assert_eq!(rule.blocks_by_smem(16 * 1024 + 256, hw.smem_per_sm), Some(2));
    // occupancy2.csv: the 5 KiB GEMM workgroup several (9; its threads allow 8)
    assert_eq!(rule.blocks_by_smem(5 * 1024, hw.smem_per_sm), Some(9));
    // above 48 KiB (CUDA traces): the smallest carveout that holds one
    assert_eq!(rule.blocks_by_smem(100 * 1024, hw.smem_per_sm), Some(1));
    assert_eq!(rule.blocks_by_smem(60 * 1024, hw.smem_per_sm), Some(1));
    assert_eq!(rule.blocks_by_smem(hw.smem_per_sm + 1, hw.smem_per_sm), None);
    assert_eq!(Occupancy::Limits.blocks_by_smem(32 * 1024, 228 * 1024), Some(7));
}

/// A dispatch of global loads and stores is bound by the SMs' share of DRAM bandwidth:
/// at least the bytes of the sectors it moves / bandwidth cycles (a lane's 4 bytes in a
/// line of its own move one 32-byte sector), and no limit without one.
#[test]
fn dram_bandwidth_bounds_global_traffic() {
    let mut hw = h100();
    let t = hw.timing.as_mut().unwrap();
    // (DRAM alone: the warps of a block read the same lines, which the L2 would serve)
    (t.dram_bytes_per_cycle, t.l2_bytes_per_cycle, t.l2_bytes) = (0.0, 0.0, 0);
    let mut reqs = traces::Requests::new(32);
    let lanes: Vec<u16> = (0..32).collect();
    for block in 0..8u32 {
        for warp in 0..4 {
            for step in 0..16 {
                let op = if step % 2 == 0 { Op::GlobalLoad } else { Op::GlobalStore };
                // 32 lanes 128 bytes apart: 32 lines a request
                let addrs: Vec<u32> =
                    lanes.iter().map(|&l| (block * 64 + step) * 4096 + l as u32 * 128).collect();
                reqs.push(block, warp, step, op, 4, 0, Some(false), None, &lanes, &addrs);
            }
        }
    }
    let lines = 8 * 4 * 16 * 32u64;
    let run = |hw: &sim_core::Hardware| {
        let l =
            Launch { blocks: None, gaps: Gaps::Cycles, options: EngineOptions::default(), footprint: None };
        launch::run(hw, &reqs, &l).unwrap().engine
    };
    let free = run(&hw);
    assert_eq!(free.total.stalls.global, 0);
    for bw in [64.0, 256.0] {
        hw.timing.as_mut().unwrap().dram_bytes_per_cycle = bw;
        let r = run(&hw);
        let bound = (lines * 32) as f64 / bw;
        assert!(r.cycles as f64 >= bound, "{bw} B/cycle: {} cycles, below the bound {bound}", r.cycles);
        assert!(r.cycles > free.cycles && r.total.stalls.global > 0);
        // and near it: the traffic is all there is
        assert!((r.cycles as f64) < bound * 1.25 + free.cycles as f64, "{bw}: {} vs {bound}", r.cycles);
    }
}

/// Blocks that read the same lines again get them from the L2 where the footprint fits:
/// faster than DRAM alone, no faster than the L2's bandwidth, and DRAM's again when the
/// footprint (the buffers) is far larger than the L2.
#[test]
fn re_reads_of_a_footprint_the_l2_holds_come_at_its_bandwidth() {
    let mut hw = h100();
    let t = hw.timing.as_mut().unwrap();
    (t.dram_bytes_per_cycle, t.l2_bytes_per_cycle, t.l2_bytes) = (64.0, 256.0, 1 << 20);
    let mut reqs = traces::Requests::new(32);
    let lanes: Vec<u16> = (0..32).collect();
    // 16 blocks, each reading the same 8 KiB in whole lines (16 bytes a lane): 16 reads
    // of every line
    for block in 0..16u32 {
        for warp in 0..4 {
            for step in 0..4u32 {
                let addrs: Vec<u32> =
                    lanes.iter().map(|&l| ((warp * 4 + step) * 32 + l as u32) * 16).collect();
                reqs.push(block, warp, step, Op::GlobalLoad, 16, 0, Some(false), None, &lanes, &addrs);
            }
        }
    }
    let bytes = 16 * 4 * 4 * 32 * 16u64;
    let run = |hw: &sim_core::Hardware, footprint| {
        let l = Launch { blocks: None, gaps: Gaps::Cycles, options: EngineOptions::default(), footprint };
        launch::run(hw, &reqs, &l).unwrap()
    };
    let l2 = run(&hw, None);
    let m = l2.memory.expect("global traffic");
    assert_eq!((m.bytes, m.line_bytes, m.footprint, m.dram_bytes), (bytes, bytes, bytes / 16, bytes / 16));
    assert_eq!(m.bytes_per_cycle, 256.0);
    let mut no_l2 = hw.clone();
    let t = no_l2.timing.as_mut().unwrap();
    (t.l2_bytes_per_cycle, t.l2_bytes) = (0.0, 0);
    let dram = run(&no_l2, None);
    assert_eq!(dram.memory.unwrap().bytes_per_cycle, 64.0);
    assert!(l2.engine.cycles < dram.engine.cycles, "{} vs {}", l2.engine.cycles, dram.engine.cycles);
    assert!(l2.engine.cycles as f64 >= bytes as f64 / 256.0);
    // buffers of 1 GiB: a line is seldom still held, nearly every re-read is DRAM's
    let big = run(&hw, Some(1 << 30));
    assert!(big.memory.unwrap().bytes_per_cycle < 64.0 * 1.01);
    assert!(big.engine.cycles as f64 > 0.99 * dram.engine.cycles as f64);
}
