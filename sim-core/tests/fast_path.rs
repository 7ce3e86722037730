//! The bank model's fast path (`BankModel::evaluate`) gives exactly the results of the
//! general path (`evaluate_general`, and the sorted walk of `picture`) on random
//! hardware and random request sequences through one model (so stale scratch state
//! from an earlier request would show).

use proptest::prelude::*;
use sim_core::{BankModel, Hardware, LaneAddrs, MaskedRequest, Op, WarpRequest};

mod common;

use common::{affine_request, grouped_hardware, hardware, lanes_addrs, pow2_hardware, request};

/// The ways to evaluate a request on one hardware: the fast path (every SIMD kernel the
/// CPU has: AVX-512, AVX2; the AVX-512 kernel's conflict detection where the CPU's is
/// fast), the fast path with AVX-512 but without conflict detection, the fast path
/// without the AVX-512 kernel, the fast path without SIMD, and the general path.
struct Paths {
    fast: BankModel,
    rotations: BankModel,
    avx2: BankModel,
    scalar: BankModel,
    general: BankModel,
}

impl Paths {
    fn new(hw: &Hardware) -> Paths {
        Paths {
            fast: BankModel::new(hw),
            rotations: BankModel::new(hw).without_conflict_detection(),
            avx2: BankModel::new(hw).without_avx512(),
            scalar: BankModel::new(hw).without_simd(),
            general: BankModel::new(hw),
        }
    }

    /// The request's outcome, failing (naming the request) unless all paths agree.
    fn agree(&mut self, req: &WarpRequest) -> Result<sim_core::Outcome, TestCaseError> {
        let g = self.general.evaluate_general(req);
        prop_assert_eq!(self.fast.evaluate(req), g, "fast vs general: {:?}", req);
        prop_assert_eq!(
            self.rotations.evaluate(req),
            g,
            "fast without conflict detection vs general: {:?}",
            req
        );
        prop_assert_eq!(self.avx2.evaluate(req), g, "fast without AVX-512 vs general: {:?}", req);
        prop_assert_eq!(self.scalar.evaluate(req), g, "fast without SIMD vs general: {:?}", req);
        Ok(g)
    }
}

/// Every request of `reqs` on `hw`: the fast path's outcome equals the general path's,
/// and its picture's.
fn fast_equals_general_on_all(
    hw: &Hardware,
    reqs: &[(u8, Op, Vec<Option<u32>>)],
) -> Result<(), TestCaseError> {
    hw.validate().map_err(|v| TestCaseError::fail(format!("{v:?}")))?;
    let mut paths = Paths::new(hw);
    for (bytes, op, elems) in reqs {
        let (lanes, addrs) = lanes_addrs(hw.warp, elems);
        let req = WarpRequest { op: *op, bytes: *bytes, lanes: &lanes, addrs: &addrs };
        let o = paths.agree(&req)?;
        let (p, _) = paths.general.picture(&req);
        prop_assert_eq!(o, p, "fast vs picture");
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn fast_path_equals_general_path(hw in hardware(), reqs in prop::collection::vec(request(), 1..8)) {
        fast_equals_general_on_all(&hw, &reqs)?;
    }
}

/// Requests the kernels special-case, with every lane of the warp drawn from one shape:
/// few distinct elements (repeats, shared words, crowded groups), random elements of a
/// small range, strides (progressions), lane pairs or quads on one element (the pair
/// merge, repeats of the previous lane), tile rows; mostly aligned, at times one lane
/// off by a byte; dense, sparse or contiguous runs of lanes.
fn aligned_request() -> impl Strategy<Value = (u8, Op, Vec<Option<u32>>)> {
    let op = prop::sample::select(vec![
        Op::Load,
        Op::Load,
        Op::Store,
        Op::Atomic,
        Op::Reduction,
        Op::MatrixLoad,
        Op::MatrixStore,
        Op::AsyncCopy,
        Op::AsyncCopyBypass,
    ]);
    let width = prop::sample::select(vec![1u8, 2, 4, 8, 16]);
    (width, op, 0u8..7, 0u8..4, any::<u64>(), prop::collection::vec(any::<u32>(), 64)).prop_map(
        |(bytes, op, shape, lanes, seed, raw)| {
            let b = bytes as u32;
            let stride = (seed % 70) as u32;
            let base = (seed >> 8) as u32 % 1024;
            let (lo, len) = ((seed >> 20) as usize % 64, 1 + (seed >> 28) as usize % 64);
            let odd = (seed >> 40) as usize % 256;
            let addrs = raw
                .iter()
                .enumerate()
                .map(|(lane, &r)| {
                    let active = match lanes {
                        0 => true,
                        1 => r >> 31 == 1,
                        2 => (lo..lo + len).contains(&lane),
                        _ => r >> 28 == 0,
                    };
                    let l = lane as u32;
                    let elem = match shape {
                        0 => r % 8,
                        1 => r % 200,
                        2 => base + l * stride,
                        3 => base + l / 2 * stride,
                        4 => base + l / 4,
                        5 => (l / 8) * (32 + stride % 5) + l % 8,
                        _ => (r % 4096) * 33,
                    };
                    let addr = elem * b + (lane == odd && b > 1) as u32;
                    active.then_some(addr)
                })
                .collect();
            (bytes, op, addrs)
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4096, ..ProptestConfig::default() })]

    #[test]
    fn simd_and_scalar_fast_paths_equal_general_path(
        hw in pow2_hardware(),
        reqs in prop::collection::vec(aligned_request(), 1..8),
    ) {
        hw.validate().map_err(|v| TestCaseError::fail(format!("{v:?}")))?;
        let mut paths = Paths::new(&hw);
        for (bytes, op, elems) in &reqs {
            let (lanes, addrs) = lanes_addrs(hw.warp, elems);
            paths.agree(&WarpRequest { op: *op, bytes: *bytes, lanes: &lanes, addrs: &addrs })?;
        }
    }
}

/// Full warps of H100-like 8- and 16-byte accesses (phases of 8 or 16 lanes, the pair
/// merge): each lane on its own group of banks, but at times on a neighbour's group, or on
/// its partner lane's element, so that phases are conflict-free or just miss it.
fn full_warp_request() -> impl Strategy<Value = (u8, Op, Vec<u32>)> {
    let op = prop::sample::select(vec![Op::Load, Op::Store, Op::Atomic, Op::Reduction]);
    let width = prop::sample::select(vec![8u8, 16]);
    (width, op, any::<u64>(), prop::collection::vec(any::<u32>(), 32)).prop_map(|(bytes, op, seed, raw)| {
        let b = bytes as u32;
        let groups = 128 / b; // groups of banks one phase's lanes cover
        let base = (seed % 64) as u32 * groups;
        let paired = seed >> 8 & 1 == 1;
        let addrs = raw
            .iter()
            .enumerate()
            .map(|(lane, &r)| {
                let l = if paired { lane as u32 / 2 } else { lane as u32 };
                let slip = (r % 32 == 0) as u32; // one group over
                let row = if r >> 8 & 3 == 0 { (r >> 10) % 4 } else { 0 }; // another element, same group
                let elem = base + row * groups + (l + slip) % groups;
                elem * b + if r >> 16 & 127 == 0 { b / 2 } else { 0 } // now and then unaligned
            })
            .collect();
        (bytes, op, addrs)
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2048, ..ProptestConfig::default() })]

    #[test]
    fn full_warps_of_wide_accesses_equal_general_path(reqs in prop::collection::vec(full_warp_request(), 1..8)) {
        let mut paths = Paths::new(&sim_core::presets_for_tests::h100_like());
        let lanes: Vec<u16> = (0..32).collect();
        for (bytes, op, addrs) in &reqs {
            paths.agree(&WarpRequest { op: *op, bytes: *bytes, lanes: &lanes, addrs })?;
        }
    }
}

/// The shapes the fast path special-cases, on the h100 rules, with known answers.
#[test]
fn fast_path_known_answers() {
    let hw = sim_core::presets_for_tests::h100_like();
    // (with the CPU's kernels, and without the AVX-512 kernel's conflict detection)
    for m in [BankModel::new(&hw), BankModel::new(&hw).without_conflict_detection()] {
        known_answers(m);
    }
}

fn known_answers(mut m: BankModel) {
    let lanes: Vec<u16> = (0..32).collect();
    let eval = |m: &mut BankModel, op, bytes, addrs: &[u32]| {
        m.evaluate(&WarpRequest { op, bytes, lanes: &lanes, addrs }).wavefronts
    };
    let stride = |s: u32, b: u32| (0..32).map(|t| t * s * b).collect::<Vec<u32>>();
    // 4-byte strides: 32 / gcd-style degrees
    assert_eq!(eval(&mut m, Op::Load, 4, &stride(1, 4)), 1);
    assert_eq!(eval(&mut m, Op::Load, 4, &stride(2, 4)), 2);
    assert_eq!(eval(&mut m, Op::Load, 4, &stride(32, 4)), 32);
    assert_eq!(eval(&mut m, Op::Load, 4, &stride(33, 4)), 1);
    // all lanes on one word: multicast for loads, serialized for returning atomics
    assert_eq!(eval(&mut m, Op::Load, 4, &[64; 32]), 1);
    assert_eq!(eval(&mut m, Op::Atomic, 4, &[64; 32]), 32);
    // 16-byte consecutive: 4 phases of 8 lanes; all on one vector: 2 (paired load), 4 (store)
    assert_eq!(eval(&mut m, Op::Load, 16, &stride(1, 16)), 4);
    assert_eq!(eval(&mut m, Op::Load, 16, &[256; 32]), 2);
    assert_eq!(eval(&mut m, Op::Store, 16, &[256; 32]), 4);
    // unaligned 4-byte accesses straddle two words: lane t at 4t + 2 touches banks t, t+1
    assert_eq!(eval(&mut m, Op::Load, 4, &(0..32).map(|t| 4 * t + 2).collect::<Vec<_>>()), 2);
    // the same request again after a conflicted one: no scratch state left behind
    assert_eq!(eval(&mut m, Op::Load, 4, &stride(1, 4)), 1);
    // Bank 0 gets 9 lanes but 8 distinct words: lane 8 repeats lane 0's word (not its
    // neighbour's), and the busiest bank's lanes hold the repeat 8 apart; lanes 9 to 31
    // take one bank each. Then one word missing from the busiest bank, and one more lane.
    let mut crowded: Vec<u32> = (0..32).map(|t| if t < 8 { t * 128 } else { 4 * t }).collect();
    crowded[8] = 0;
    assert_eq!(eval(&mut m, Op::Load, 4, &crowded), 8);
    assert_eq!(eval(&mut m, Op::Atomic, 4, &crowded), 9);
    crowded[8] = 8 * 128;
    assert_eq!(eval(&mut m, Op::Load, 4, &crowded), 9);
    crowded[9] = 9 * 128;
    assert_eq!(eval(&mut m, Op::Load, 4, &crowded), 10);
    // Repeats across the halves of the warp: lanes 0 to 15 on 16 words of bank 0, lane
    // 20 repeating lane 10's word and lane 29 lane 13's (each quarter of the upper half
    // against the second quarter of the lower one), lane 24 lane 0's (against the first);
    // the other lanes one bank each.
    let mut halves: Vec<u32> = (0..32).map(|t| if t < 16 { t * 128 } else { 4 * t }).collect();
    (halves[20], halves[29], halves[24]) = (10 * 128, 13 * 128, 0);
    assert_eq!(eval(&mut m, Op::Load, 4, &halves), 16);
    assert_eq!(eval(&mut m, Op::Atomic, 4, &halves), 19);
    halves[29] = 16 * 128;
    assert_eq!(eval(&mut m, Op::Load, 4, &halves), 17);
    // and within the upper half: lane 31 repeating lane 29's new word
    halves[31] = 16 * 128;
    assert_eq!(eval(&mut m, Op::Load, 4, &halves), 17);
    assert_eq!(eval(&mut m, Op::Atomic, 4, &halves), 20);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2048, ..ProptestConfig::default() })]

    /// `evaluate_masked` (with its memo of affine requests) gives the general path's
    /// outcome for every request, the same shape moved around included.
    #[test]
    fn masked_and_affine_requests_equal_general_path(
        hw in hardware(),
        reqs in prop::collection::vec(affine_request(), 1..12),
    ) {
        hw.validate().map_err(|v| TestCaseError::fail(format!("{v:?}")))?;
        // the usual memo, and one of a single entry: every request then meets the key of
        // the one before, which differs from it in one field at a time (below)
        let mut models = [BankModel::new(&hw), BankModel::new(&hw).with_memo_entries(1)];
        let mut general = BankModel::new(&hw);
        let in_warp = if hw.warp == 64 { u64::MAX } else { (1 << hw.warp) - 1 };
        for &(bytes, op, mask, stride, first, ref moves) in &reqs {
            let b = bytes as i64;
            let other_op = if op == Op::Store { Op::Load } else { Op::Store };
            let other_width = if bytes == 4 { 8 } else { 4 };
            let variants = [
                (bytes, op, mask, stride),
                (bytes, op, mask, stride + b),
                (bytes, op, mask, -stride),
                (bytes, op, mask & (mask - 1), stride),
                (bytes, op, mask << 1, stride),
                (bytes, other_op, mask, stride),
                (other_width, op, mask, stride),
            ];
            for (bytes, op, mask, stride) in variants {
                let mask = mask & in_warp;
                if mask == 0 {
                    continue;
                }
                let lanes: Vec<u16> = (0..64).filter(|l| mask >> l & 1 == 1).collect();
                let ats = [first, first + bytes as u32].into_iter().chain(moves.iter().map(|m| first + m));
                for at in ats {
                    let addrs: Vec<u32> =
                        lanes.iter().map(|&l| (at as i64 + stride * (l - lanes[0]) as i64) as u32).collect();
                    let req = WarpRequest { op, bytes, lanes: &lanes, addrs: &addrs };
                    let want = general.evaluate_general(&req);
                    for m in &mut models {
                        let affine = LaneAddrs::Affine { first: at, stride };
                        let got = m.evaluate_masked(&MaskedRequest { op, bytes, mask, addrs: affine });
                        prop_assert_eq!(got, want, "affine {:?}", req);
                        let listed = LaneAddrs::Listed(&addrs);
                        let got = m.evaluate_masked(&MaskedRequest { op, bytes, mask, addrs: listed });
                        prop_assert_eq!(got, want, "listed {:?}", req);
                    }
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1024, ..ProptestConfig::default() })]

    /// Explicit lane groups (the fast path gathers the lanes into group order where the
    /// groups fit 64 positions): random groups on random hardware.
    #[test]
    fn lane_groups_fast_path_equals_general_path(
        hw in grouped_hardware(),
        reqs in prop::collection::vec(prop_oneof![request(), aligned_request()], 1..8),
    ) {
        fast_equals_general_on_all(&hw, &reqs)?;
    }

    /// The `cdna3` preset's 16-byte loads (its documented lane groups: lanes 0-3 with
    /// 20-23, ...), stores and matrix loads, and its wave32 override: random requests,
    /// each through `evaluate`, `evaluate_masked` and the general path.
    #[test]
    fn cdna3_16_byte_accesses_equal_general_path(
        wave32 in any::<bool>(),
        reqs in prop::collection::vec((prop_oneof![request(), aligned_request()], 0u8..3), 1..8),
    ) {
        let mut hw = configs::preset("cdna3").expect("cdna3 preset");
        if wave32 {
            hw.warp = 32;
        }
        let mut paths = Paths::new(&hw);
        let mut masked = BankModel::new(&hw);
        for ((_, _, elems), op) in &reqs {
            let op = [Op::Load, Op::Store, Op::MatrixLoad][*op as usize];
            let (lanes, addrs) = lanes_addrs(hw.warp, elems);
            let req = WarpRequest { op, bytes: 16, lanes: &lanes, addrs: &addrs };
            let o = paths.agree(&req)?;
            if let Some(mask) = lanes.iter().map(|&l| 1u64 << l).reduce(|a, b| a | b) {
                let got = masked.evaluate_masked(&MaskedRequest { op, bytes: 16, mask, addrs: LaneAddrs::Listed(&addrs) });
                prop_assert_eq!(got, o, "masked {:?}", req);
            }
        }
    }
}

/// `cdna3`'s 16-byte loads by its lane groups, with known answers.
#[test]
fn cdna3_lane_groups_known_answers() {
    let hw = configs::preset("cdna3").expect("cdna3 preset");
    let mut m = BankModel::new(&hw);
    let lanes: Vec<u16> = (0..64).collect();
    let mut eval = |op, addrs: &[u32]| m.evaluate(&WarpRequest { op, bytes: 16, lanes: &lanes, addrs });
    // rows of 8 lanes x 16 bytes, 128 bytes apart: each group takes two half rows of its
    // own banks (lanes 0-3 banks 0-15, lanes 20-23 banks 16-31): 8 conflict-free groups
    let rows: Vec<u32> = (0..64).map(|l| l / 8 * 128 + l % 8 * 16).collect();
    assert_eq!(eval(Op::Load, &rows), sim_core::Outcome { wavefronts: 8, ideal: 8 });
    // lanes 16-23 on a new row, their halves swapped (lanes 16-19 on banks 16-31, 20-23 on
    // banks 0-15): stores (phases of 8 consecutive lanes) stay conflict-free; loads put
    // lanes 0-3 and 20-23 (other words of banks 0-15) in one group, and so lanes 4-7 with
    // 16-19: two groups of 2 wavefronts each
    let moved: Vec<u32> =
        (0..64).map(|l| if l / 8 == 2 { 1024 + (l + 4) % 8 * 16 } else { rows[l as usize] }).collect();
    assert_eq!(eval(Op::Store, &moved), sim_core::Outcome { wavefronts: 8, ideal: 8 });
    assert_eq!(eval(Op::Load, &moved), sim_core::Outcome { wavefronts: 10, ideal: 8 });
}

/// Full warps of 64 lanes of 8- and 16-byte accesses, each phase of consecutive lanes (and
/// each of `cdna3`'s b128 load groups) conflict-free, then at times one lane (in either
/// half of the warp) moved to another element of its group of banks, to the next group,
/// or onto its partner lane's element.
fn full_warp64_request() -> impl Strategy<Value = (u8, Op, Vec<u32>)> {
    let op = prop::sample::select(vec![Op::Load, Op::Store, Op::Atomic, Op::MatrixLoad]);
    let width = prop::sample::select(vec![8u8, 16]);
    (width, op, any::<u64>(), 0usize..64, 0u8..4).prop_map(|(bytes, op, seed, lane, kind)| {
        let b = bytes as u32;
        let groups = 128 / b; // groups of banks one phase's lanes cover
        let base = (seed % 64) as u32 * groups;
        let paired = seed >> 8 & 1 == 1;
        let mut addrs: Vec<u32> = (0..64)
            .map(|l| {
                let l = if paired { l / 2 } else { l };
                (base + l / groups * groups * 3 + l % groups) * b
            })
            .collect();
        match kind {
            0 => {}
            1 => addrs[lane] += 5 * groups * b,
            2 => addrs[lane] = addrs[lane ^ 1],
            _ => addrs[lane] += b,
        }
        (bytes, op, addrs)
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1024, ..ProptestConfig::default() })]

    /// Full 64-lane warps in phases of 8 or 16 lanes (the kernel that checks a whole warp
    /// for conflict-free phases, half by half), on `cdna3` and on the h100 rules at wave64.
    #[test]
    fn full_wave64_warps_equal_general_path(reqs in prop::collection::vec(full_warp64_request(), 1..8)) {
        let mut h100_64 = sim_core::presets_for_tests::h100_like();
        h100_64.warp = 64;
        let lanes: Vec<u16> = (0..64).collect();
        for hw in [configs::preset("cdna3").expect("cdna3 preset"), h100_64] {
            let mut paths = Paths::new(&hw);
            for (bytes, op, addrs) in &reqs {
                paths.agree(&WarpRequest { op: *op, bytes: *bytes, lanes: &lanes, addrs })?;
            }
        }
    }
}
