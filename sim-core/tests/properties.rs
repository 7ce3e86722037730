//! Properties of the bank model that hold for every request and configuration.

use proptest::prelude::*;
use sim_core::{
    presets_for_tests::h100_like, BankMapping, BankModel, Hardware, Op, PhaseLanes, SameWord, WarpRequest,
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
            hw.broadcast = broadcast;
            if !merge {
                hw.load_pair_merge = None;
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
            let phases = hw.warp.div_ceil(hw.phase_lanes.lanes(bytes).min(hw.warp));
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
        hw.load_pair_merge = None;
        let (lanes, addrs) = lanes_addrs(hw.warp, bytes, &elems);
        let phase = hw.phase_lanes.lanes(bytes).min(hw.warp);
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
            h.broadcast = rule;
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

#[test]
fn phase_table_uniform_helper() {
    assert_eq!(PhaseLanes::uniform(16).lanes(8), 16);
}
