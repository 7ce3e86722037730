//! Properties of the bank model that hold for every request and configuration.

use proptest::prelude::*;
use sim_core::{
    presets_for_tests::h100_like, BankMapping, BankModel, Hardware, LaneGroups, Op, PhaseLanes, SameWord,
    WarpRequest,
};

/// A hardware description drawn from the space users sweep.
fn hardware() -> impl Strategy<Value = Hardware> {
    (
        prop::sample::select(vec![16u32, 32, 64]),
        prop::sample::select(vec![4u32, 8]),
        prop::sample::select(vec![16u32, 32, 64]),
        prop::sample::select(vec![SameWord::Multicast, SameWord::OneBroadcastWord, SameWord::Serialize]),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(banks, bank_bytes, warp, broadcast, merge, xor)| {
            let mut hw = h100_like();
            hw.banks = banks;
            hw.bank_bytes = bank_bytes;
            hw.warp = warp;
            hw.crossbar.broadcast = broadcast;
            if !merge {
                hw.crossbar.load_pair_merge = None;
            }
            if xor {
                hw.mapping = BankMapping::Xor { shift: banks.trailing_zeros(), mask: banks - 1 };
            }
            hw
        })
}

/// A request: width, op, and for each of 64 lanes an optional element index.
fn request() -> impl Strategy<Value = (u8, Op, Vec<Option<u32>>)> {
    (
        prop::sample::select(vec![1u8, 2, 4, 8, 16]),
        prop::sample::select(vec![Op::Load, Op::Store, Op::Atomic, Op::Reduction]),
        prop::collection::vec(prop::option::weighted(0.8, 0u32..96), 64),
    )
}

fn lanes_addrs(warp: u32, bytes: u8, elems: &[Option<u32>]) -> (Vec<u16>, Vec<u32>) {
    elems[..warp as usize]
        .iter()
        .enumerate()
        .filter_map(|(t, e)| e.map(|e| (t as u16, e * bytes as u32)))
        .unzip()
}

fn words_per_lane(hw: &Hardware, bytes: u8) -> u32 {
    (bytes as u32).div_ceil(hw.bank_bytes)
}

proptest! {
    #[test]
    fn wavefronts_between_ideal_and_lane_word_accesses(hw in hardware(), (bytes, op, elems) in request()) {
        hw.validate().unwrap();
        let (lanes, addrs) = lanes_addrs(hw.warp, bytes, &elems);
        let o = BankModel::new(&hw).evaluate(&WarpRequest { op, bytes, lanes: &lanes, addrs: &addrs });
        prop_assert!(o.wavefronts >= o.ideal);
        prop_assert!(o.wavefronts <= lanes.len() as u32 * words_per_lane(&hw, bytes));
        if lanes.is_empty() {
            prop_assert_eq!(o.wavefronts, 0);
        } else {
            prop_assert!(o.ideal >= 1);
        }
        if hw.mapping == BankMapping::Linear && words_per_lane(&hw, bytes) <= hw.banks {
            // a lane's words sit in distinct banks, so a phase costs at most its lanes
            let phases = hw.warp.div_ceil(hw.phase_lanes(bytes));
            prop_assert!(o.wavefronts <= lanes.len() as u32 * phases);
            prop_assert!(o.wavefronts <= lanes.len() as u32);
        }
    }

    #[test]
    fn full_warp_needs_at_least_its_bytes_over_wavefront_bytes(hw in hardware(), bytes in prop::sample::select(vec![4u8, 8, 16]), base in 0u32..64) {
        // distinct consecutive elements: wavefronts >= ideal >= warp bytes / (phase bytes)
        let elems: Vec<Option<u32>> = (0..64).map(|t| Some(base + t)).collect();
        let (lanes, addrs) = lanes_addrs(hw.warp, bytes, &elems);
        let o = BankModel::new(&hw).evaluate(&WarpRequest { op: Op::Store, bytes, lanes: &lanes, addrs: &addrs });
        prop_assert!(o.wavefronts >= o.ideal);
        prop_assert!(o.wavefronts as u64 * hw.wavefront_bytes() as u64 >= hw.warp as u64 * bytes as u64);
    }

    #[test]
    fn permuting_lanes_within_a_phase_changes_nothing(hw in hardware(), (bytes, op, elems) in request(), seed in any::<u64>()) {
        // The pair merge of wide loads (H100) depends on lane positions by design, so the
        // property is checked on hardware without it.
        let mut hw = hw;
        hw.crossbar.load_pair_merge = None;
        let (lanes, addrs) = lanes_addrs(hw.warp, bytes, &elems);
        let phase = hw.phase_lanes(bytes);
        // rotate the active lanes' addresses within each phase by a seed-chosen amount
        let mut permuted = addrs.clone();
        let mut i = 0;
        while i < lanes.len() {
            let p = lanes[i] as u32 / phase;
            let mut j = i;
            while j < lanes.len() && lanes[j] as u32 / phase == p { j += 1; }
            let k = (seed % (j - i) as u64) as usize;
            permuted[i..j].rotate_left(k);
            i = j;
        }
        let mut model = BankModel::new(&hw);
        let a = model.evaluate(&WarpRequest { op, bytes, lanes: &lanes, addrs: &addrs });
        let b = model.evaluate(&WarpRequest { op, bytes, lanes: &lanes, addrs: &permuted });
        prop_assert_eq!(a, b);
    }

    #[test]
    fn multicast_never_adds_wavefronts(hw in hardware(), (bytes, _op, elems) in request()) {
        let (lanes, addrs) = lanes_addrs(hw.warp, bytes, &elems);
        let req = WarpRequest { op: Op::Load, bytes, lanes: &lanes, addrs: &addrs };
        let cost = |rule| {
            let mut h = hw.clone();
            h.crossbar.broadcast = rule;
            BankModel::new(&h).evaluate(&req).wavefronts
        };
        let (multi, one, none) = (cost(SameWord::Multicast), cost(SameWord::OneBroadcastWord), cost(SameWord::Serialize));
        prop_assert!(multi <= one, "multicast {} > one broadcast word {}", multi, one);
        prop_assert!(one <= none, "one broadcast word {} > no broadcast {}", one, none);
    }

    #[test]
    fn picture_agrees_with_the_count(hw in hardware(), (bytes, op, elems) in request()) {
        let (lanes, addrs) = lanes_addrs(hw.warp, bytes, &elems);
        let req = WarpRequest { op, bytes, lanes: &lanes, addrs: &addrs };
        let mut model = BankModel::new(&hw);
        let (o, cells) = model.picture(&req);
        prop_assert_eq!(o, model.evaluate(&req));
        let used = cells.iter().map(|c| c.wavefront + 1).max().unwrap_or(0);
        prop_assert!(used <= o.wavefronts);
        // no bank serves two different words in one wavefront
        for pair in cells.windows(2) {
            if pair[0].wavefront == pair[1].wavefront && pair[0].bank == pair[1].bank && hw.same_word(op) != SameWord::Serialize {
                prop_assert_eq!(pair[0].word, pair[1].word);
            }
        }
        prop_assert_eq!(cells.len() as u32, lanes.len() as u32 * words_per_lane(&hw, bytes).max(1));
    }
}

/// A permutation of `0..warp` drawn from `seed` (Fisher-Yates on a linear congruential
/// sequence).
fn permutation(warp: u32, seed: u64) -> Vec<u16> {
    let mut p: Vec<u16> = (0..warp as u16).collect();
    let mut x = seed | 1;
    for i in (1..p.len()).rev() {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        p.swap(i, (x >> 33) as usize % (i + 1));
    }
    p
}

proptest! {
    #[test]
    fn explicit_groups_of_relabelled_lanes_cost_what_the_compact_phases_cost(
        hw in hardware(), (bytes, op, elems) in request(), seed in any::<u64>()
    ) {
        // Groups {perm[l] : l in compact phase k}, and the request with lane perm[l] at
        // lane l's address: each group then holds exactly the addresses of one compact
        // phase, so the costs agree (the same-word rules do not look at lane numbers).
        let mut hw = hw;
        hw.crossbar.load_pair_merge = None; // (explicit groups exclude the merge)
        let phase = hw.phase_lanes(bytes);
        let perm = permutation(hw.warp, seed);
        let groups = (0..hw.warp / phase)
            .map(|k| (k * phase..(k + 1) * phase).map(|l| perm[l as usize]).collect())
            .collect();
        let mut grouped = hw.clone();
        grouped.crossbar.groups = vec![LaneGroups { ops: vec![op], bytes, groups }];
        prop_assert!(grouped.validate().is_ok(), "{:?}", grouped.validate());
        let (lanes, addrs) = lanes_addrs(hw.warp, bytes, &elems);
        let mut moved: Vec<(u16, u32)> = lanes.iter().zip(&addrs).map(|(&l, &a)| (perm[l as usize], a)).collect();
        moved.sort_unstable();
        let (lanes2, addrs2): (Vec<u16>, Vec<u32>) = moved.into_iter().unzip();
        let want = BankModel::new(&hw).evaluate(&WarpRequest { op, bytes, lanes: &lanes, addrs: &addrs });
        let req = WarpRequest { op, bytes, lanes: &lanes2, addrs: &addrs2 };
        let mut model = BankModel::new(&grouped);
        prop_assert_eq!(model.evaluate(&req), want);
        let (pictured, cells) = model.picture(&req);
        prop_assert_eq!(pictured, want);
        prop_assert_eq!(cells.len() as u32, lanes.len() as u32 * words_per_lane(&hw, bytes).max(1));
        // other ops and widths keep the compact phases
        let other = if op == Op::Load { Op::Store } else { Op::Load };
        let req = WarpRequest { op: other, bytes, lanes: &lanes, addrs: &addrs };
        prop_assert_eq!(model.evaluate(&req), BankModel::new(&hw).evaluate(&req));
    }

    #[test]
    fn a_phase_on_banks_of_p_ports_costs_its_one_port_cost_over_p_rounded_up(
        hw in hardware(), (bytes, op, elems) in request(), ports in 1u32..=8
    ) {
        // Each phase costs ceil(w / p) where w is its cost with one port; the phases are
        // costed here one by one as requests of their own.
        let mut hw = hw;
        hw.crossbar.load_pair_merge = None;
        if hw.crossbar.broadcast == SameWord::OneBroadcastWord {
            hw.crossbar.broadcast = SameWord::Multicast;
        }
        let (lanes, addrs) = lanes_addrs(hw.warp, bytes, &elems);
        let phase = hw.phase_lanes(bytes) as u16;
        let mut one = BankModel::new(&hw);
        let mut want = (0, 0);
        for k in 0..(hw.warp as u16).div_ceil(phase) {
            let (l, a): (Vec<u16>, Vec<u32>) =
                lanes.iter().zip(&addrs).filter(|(&l, _)| l / phase == k).map(|(&l, &a)| (l, a)).unzip();
            let o = one.evaluate(&WarpRequest { op, bytes, lanes: &l, addrs: &a });
            want.0 += o.wavefronts.div_ceil(ports);
            want.1 += o.ideal;
        }
        hw.crossbar.ports = ports;
        let req = WarpRequest { op, bytes, lanes: &lanes, addrs: &addrs };
        let mut model = BankModel::new(&hw);
        let got = model.evaluate(&req);
        prop_assert_eq!((got.wavefronts, got.ideal), want);
        let (pictured, cells) = model.picture(&req);
        prop_assert_eq!(pictured, got);
        // no bank serves more than `ports` different words in one wavefront
        if hw.same_word(op) == SameWord::Multicast {
            let mut seen: Vec<(u32, u32, u32)> = cells.iter().map(|c| (c.wavefront, c.bank, c.word)).collect();
            seen.sort_unstable();
            seen.dedup();
            for w in seen.windows(ports as usize + 1) {
                prop_assert!(!(w[0].0 == w[ports as usize].0 && w[0].1 == w[ports as usize].1), "{:?}", w);
            }
        }
    }
}

#[test]
fn one_port_per_bank_and_the_width_s_phases_are_the_old_phase_table() {
    // The H100's crossbar of 128 bytes: 32 lanes up to 4 bytes, 16 of 8, 8 of 16
    // (CUDA C Programming Guide, CC 9.0; fixtures/h100/).
    let hw = h100_like();
    assert_eq!(hw.crossbar.ports, 1);
    assert_eq!([1, 2, 4, 8, 16].map(|b| hw.phase_lanes(b)), [32, 32, 32, 16, 8]);
}

#[test]
fn phase_table_uniform_helper() {
    assert_eq!(PhaseLanes::uniform(16).lanes(8), 16);
}
