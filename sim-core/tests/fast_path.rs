//! The bank model's fast path (`BankModel::evaluate`) gives exactly the results of the
//! general path (`evaluate_general`, and the sorted walk of `picture`) on random
//! hardware and random request sequences through one model (so stale scratch state
//! from an earlier request would show).

use proptest::prelude::*;
use sim_core::{
    BankMapping, BankModel, Hardware, LaneAddrs, MaskedRequest, Op, PairMerge, PhaseLanes, SameWord,
    SliceOutcome, WarpRequest,
};

fn pow2_upto_64() -> impl Strategy<Value = u32> {
    (0u32..=6).prop_map(|k| 1 << k)
}

fn rule() -> impl Strategy<Value = SameWord> {
    prop::sample::select(vec![SameWord::Multicast, SameWord::Serialize, SameWord::OneBroadcastWord])
}

/// Hardware from the whole valid space, not only the presets: bank counts that are not
/// powers of two or above 64 (general path), every bank width, warp and phase table,
/// XOR swizzles with any shift and mask, pair merges of any widths and masks.
fn hardware() -> impl Strategy<Value = Hardware> {
    let banks = prop::sample::select(vec![1u32, 2, 3, 4, 5, 8, 12, 16, 24, 32, 48, 64, 96, 128]);
    let bank_bytes = prop::sample::select(vec![1u32, 2, 4, 8, 16]);
    let lanes = (pow2_upto_64(), pow2_upto_64(), pow2_upto_64(), pow2_upto_64(), pow2_upto_64());
    (banks, bank_bytes, pow2_upto_64(), lanes, (rule(), rule(), rule(), rule()), any::<u64>(), 0u32..32)
        .prop_map(|(banks, bank_bytes, warp, (b1, b2, b4, b8, b16), rules, bits, shift)| {
            let load_pair_merge = (warp > 1 && bits & 1 == 1).then(|| PairMerge {
                widths: [1u8, 2, 4, 8, 16].into_iter().filter(|w| bits >> (8 + w) & 1 == 1).collect(),
                masks: {
                    let mut m: Vec<u32> = [1u32, 2, 4, 16].into_iter().filter(|&m| m < warp).collect();
                    m.truncate(1 + (bits >> 40) as usize % 3);
                    m
                },
            });
            let mapping = if bits & 2 == 2 {
                BankMapping::Xor { shift, mask: (bits >> 16) as u32 % banks }
            } else {
                BankMapping::Linear
            };
            Hardware {
                name: "random".into(),
                banks,
                bank_bytes,
                warp,
                phase_lanes: PhaseLanes { b1, b2, b4, b8, b16 },
                broadcast: rules.0,
                write_collision: rules.1,
                atomic: rules.2,
                reduction: rules.3,
                load_pair_merge,
                mapping,
                smem_per_sm: 1 << 20,
                timing: None,
            }
        })
}

/// One request: width, op, and per lane of a 64-lane warp an optional address. The
/// addresses come from one of several shapes: few distinct elements (sharing and
/// conflicts), strides, unaligned bytes, and addresses near the top of the range.
fn request() -> impl Strategy<Value = (u8, Op, Vec<Option<u32>>)> {
    let op = prop::sample::select(vec![Op::Load, Op::Store, Op::Atomic, Op::Reduction, Op::Barrier]);
    let width = prop::sample::select(vec![1u8, 2, 4, 8, 16]);
    (width, op, 0u8..5, 0.0f64..1.0, any::<u64>(), prop::collection::vec(any::<u32>(), 64)).prop_map(
        |(bytes, op, shape, density, seed, raw)| {
            let stride = (seed % 67) as u32;
            let base = (seed >> 8) as u32 % 4096;
            let addrs = raw
                .iter()
                .enumerate()
                .map(|(lane, &r)| {
                    let active = (r >> 24) as f64 / 256.0 < density.max(0.05);
                    let b = bytes as u32;
                    let addr = match shape {
                        0 => (r % 40) * b,                        // few elements, aligned
                        1 => base * b + lane as u32 * stride * b, // strided, aligned
                        2 => base + lane as u32 * stride,         // strided bytes, unaligned
                        3 => r % 100_000,                         // random, mostly unaligned
                        _ => u32::MAX - 64 - (r % 256),           // top of the range
                    };
                    active.then_some(addr)
                })
                .collect();
            (bytes, op, addrs)
        },
    )
}

fn lanes_addrs(warp: u32, elems: &[Option<u32>]) -> (Vec<u16>, Vec<u32>) {
    elems[..warp as usize].iter().enumerate().filter_map(|(t, a)| a.map(|a| (t as u16, a))).unzip()
}

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

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn fast_path_equals_general_path(hw in hardware(), reqs in prop::collection::vec(request(), 1..8)) {
        hw.validate().map_err(|v| TestCaseError::fail(format!("{v:?}")))?;
        let mut paths = Paths::new(&hw);
        for (bytes, op, elems) in &reqs {
            let (lanes, addrs) = lanes_addrs(hw.warp, elems);
            let req = WarpRequest { op: *op, bytes: *bytes, lanes: &lanes, addrs: &addrs };
            let o = paths.agree(&req)?;
            let (p, _) = paths.general.picture(&req);
            prop_assert_eq!(o, p, "fast vs picture");
        }
    }
}

/// Hardware of the SIMD kernels' domain: a linear mapping on a power-of-two bank count
/// up to 64, any bank width, warp, phase table and pair merge.
fn pow2_hardware() -> impl Strategy<Value = Hardware> {
    (0u32..=6, hardware()).prop_map(|(banks_log2, hw)| Hardware {
        banks: 1 << banks_log2,
        mapping: BankMapping::Linear,
        ..hw
    })
}

/// Requests the kernels special-case, with every lane of the warp drawn from one shape:
/// few distinct elements (repeats, shared words, crowded groups), random elements of a
/// small range, strides (progressions), lane pairs or quads on one element (the pair
/// merge, repeats of the previous lane), tile rows; mostly aligned, at times one lane
/// off by a byte; dense, sparse or contiguous runs of lanes.
fn aligned_request() -> impl Strategy<Value = (u8, Op, Vec<Option<u32>>)> {
    let op = prop::sample::select(vec![Op::Load, Op::Load, Op::Store, Op::Atomic, Op::Reduction]);
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

/// Affine requests: a lane mask (dense, a run, random or one lane), a stride (0,
/// negative, a whole number of elements or of bytes) and a first address. Each comes
/// back `moves + 1` times, moved by multiples of powers of two, of the bank row, or by
/// odd amounts, so that the memo of `evaluate_masked` both hits and misses.
fn affine_request() -> impl Strategy<Value = (u8, Op, u64, i64, u32, Vec<u32>)> {
    let op = prop::sample::select(vec![
        Op::Load,
        Op::Load,
        Op::Store,
        Op::Atomic,
        Op::Reduction,
        Op::Barrier,
        Op::GlobalLoad,
        Op::GlobalStore,
    ]);
    let width = prop::sample::select(vec![1u8, 2, 4, 8, 16]);
    (width, op, any::<u64>(), any::<u64>(), prop::collection::vec(any::<u32>(), 0..6)).prop_map(
        |(bytes, op, seed, mask_bits, moves)| {
            let b = bytes as i64;
            let stride = match seed % 6 {
                0 => 0,
                1 => b * (seed >> 8) as i64 % 70,
                2 => -(b * ((seed >> 8) % 40) as i64),
                3 => (seed >> 8) as i64 % 70,
                4 => b * 33,
                _ => (seed >> 8) as i64 % 5000 - 2500,
            };
            let mask = match (seed >> 20) % 4 {
                0 => u64::MAX,
                1 => {
                    let (lo, len) = ((seed >> 24) % 64, 1 + (seed >> 32) % 64);
                    (u64::MAX >> (64 - len.min(64 - lo))) << lo
                }
                2 => mask_bits | 1 << ((seed >> 40) % 64),
                _ => 1 << ((seed >> 40) % 64),
            };
            // room for 64 lanes either way, and for the moves
            let first = (1 << 24) + (seed >> 44) as u32 % 100_000;
            let moves = moves
                .iter()
                .map(|&m| {
                    let k = m >> 8 & 31;
                    match m % 4 {
                        0 => (k * 128) << ((m >> 16) % 6),
                        1 => k * 384,
                        2 => k * 4096,
                        _ => m >> 8 & 0xFFFF,
                    }
                })
                .collect();
            (bytes, op, mask, stride, first, moves)
        },
    )
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

/// A slice: width, op, 64-lane mask, the stride of an affine slice (`None`: listed),
/// and one address per active lane.
type SliceCase = (u8, Op, u64, Option<i64>, Vec<u32>);

/// The summed outcome of a 64-lane slice's warp requests on the general path.
fn general_slice(general: &mut BankModel, op: Op, bytes: u8, mask: u64, addrs: &[u32]) -> SliceOutcome {
    let warp = general.hardware().warp;
    let kmask = u64::MAX >> (64 - warp);
    let (mut out, mut k) = (SliceOutcome::default(), 0);
    for j in 0..64 / warp {
        let m = (mask >> (j * warp)) & kmask;
        let lanes: Vec<u16> = (0..warp as u16).filter(|l| m >> l & 1 == 1).collect();
        if lanes.is_empty() {
            continue;
        }
        let a = &addrs[k..k + lanes.len()];
        k += lanes.len();
        out.add(general.evaluate_general(&WarpRequest { op, bytes, lanes: &lanes, addrs: a }));
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1024, ..ProptestConfig::default() })]

    /// `evaluate_slice` and `recall_slice` + `remember_slice` (with the memo of slices)
    /// give the sum of the general path's outcomes over a slice's warps, for affine and
    /// listed slices, each seen three times at each place (a slice enters the memo the
    /// second time, so the third is a hit) and moved around (hits where the move is a
    /// multiple of the period, misses elsewhere), with the usual tables and with tables
    /// of one entry.
    #[test]
    fn slices_equal_the_sum_of_their_warps(
        hw in hardware(),
        slices in prop::collection::vec(affine_request(), 1..6),
        listed in prop::collection::vec(request(), 0..4),
    ) {
        hw.validate().map_err(|v| TestCaseError::fail(format!("{v:?}")))?;
        let mut models = [BankModel::new(&hw), BankModel::new(&hw).with_slice_entries(1)];
        let mut split = [BankModel::new(&hw), BankModel::new(&hw).with_slice_entries(1)];
        let mut general = BankModel::new(&hw);
        // (first, stride) forms and listed forms of every slice
        let mut cases: Vec<SliceCase> = Vec::new();
        for (bytes, op, mask, stride, first, moves) in slices {
            let lanes: Vec<i64> = (0..64).filter(|l| mask >> l & 1 == 1).collect();
            for at in std::iter::once(first).chain(moves.iter().map(|m| first + m)) {
                let addrs: Vec<u32> = lanes.iter().map(|&l| (at as i64 + stride * (l - lanes[0])) as u32).collect();
                cases.push((bytes, op, mask, Some(stride), addrs.clone()));
                cases.push((bytes, op, mask, None, addrs));
            }
        }
        for (bytes, op, elems) in listed {
            let mask = elems.iter().enumerate().fold(0u64, |m, (l, a)| m | (a.is_some() as u64) << l);
            let addrs: Vec<u32> = elems.iter().flatten().copied().collect();
            if mask != 0 {
                for shift in [0u32, 128, 4096, 4] {
                    // (every access below 2^32, as binary traces guarantee)
                    let moved: Option<Vec<u32>> = addrs
                        .iter()
                        .map(|&a| a.checked_add(shift).filter(|&a| a as u64 + bytes as u64 <= 1 << 32))
                        .collect();
                    cases.extend(moved.map(|moved| (bytes, op, mask, None, moved)));
                }
                // the same first lanes, then a last lane on the first lane's word or on
                // another word of its bank (a slice that only the whole key tells apart)
                if addrs.len() > 4 {
                    let row = hw.banks * hw.bank_bytes;
                    for last in [addrs[0], addrs[0].wrapping_add(row)] {
                        let mut other = addrs.clone();
                        *other.last_mut().unwrap() = last;
                        if last as u64 + bytes as u64 <= 1 << 32 {
                            cases.push((bytes, op, mask, None, addrs.clone()));
                            cases.push((bytes, op, mask, None, other));
                        }
                    }
                }
            }
        }
        for (bytes, op, mask, stride, addrs) in &cases {
            let (bytes, op, mask) = (*bytes, *op, *mask);
            if addrs.iter().any(|&a| a as u64 + bytes as u64 > 1 << 32) {
                continue; // (binary traces hold no such access: see `evaluate_slice`)
            }
            let want = general_slice(&mut general, op, bytes, mask, addrs);
            let form = match stride {
                Some(stride) => LaneAddrs::Affine { first: addrs[0], stride: *stride },
                None => LaneAddrs::Listed(addrs),
            };
            let req = MaskedRequest { op, bytes, mask, addrs: form };
            for _ in 0..3 {
                for m in &mut models {
                    prop_assert_eq!(m.evaluate_slice(&req), want, "{:?}", req);
                }
                for m in &mut split {
                    let got = match m.recall_slice(&req) {
                        Ok(o) => o,
                        Err(ticket) => {
                            let mut o = SliceOutcome::default();
                            let warp = m.hardware().warp;
                            req.warps(warp, |_, r| {
                                o.add(m.evaluate_masked(r));
                                Ok::<_, ()>(())
                            }).unwrap();
                            m.remember_slice(ticket, &req, o);
                            o
                        }
                    };
                    prop_assert_eq!(got, want, "recall/remember {:?}", req);
                }
            }
        }
    }
}

/// Hardware where a 64-lane slice is two warps of one phase each (warp 32, phases of 32
/// lanes at every width, no pair merge): the domain of the kernel that takes both warps
/// of a slice at once. Any bank count up to 64, bank width and same-word rules.
fn paired_hardware() -> impl Strategy<Value = Hardware> {
    pow2_hardware().prop_map(|hw| Hardware {
        warp: 32,
        phase_lanes: PhaseLanes { b1: 32, b2: 32, b4: 32, b8: 32, b16: 32 },
        load_pair_merge: None,
        ..hw
    })
}

/// A full 64-lane slice: width, op and an address per lane, from one shape for the
/// whole slice: random words of a small range (crowded groups, repeated words, not next
/// to each other), words that share their group and the low bits above it (the kernel's
/// quick hashes collide, so it must leave the phase to the one-warp kernel), strides,
/// lane pairs on one word, and at times one lane off by a byte.
fn full_slice() -> impl Strategy<Value = (u8, Op, Vec<u32>)> {
    let op = prop::sample::select(vec![Op::Load, Op::Load, Op::Store, Op::Atomic, Op::Reduction]);
    let width = prop::sample::select(vec![1u8, 2, 4, 8, 16]);
    (width, op, 0u8..6, any::<u64>(), prop::collection::vec(any::<u32>(), 64)).prop_map(
        |(bytes, op, shape, seed, raw)| {
            let b = bytes as u32;
            let stride = (seed % 70) as u32;
            let odd = (seed >> 40) as usize % 512;
            let addrs = raw
                .iter()
                .enumerate()
                .map(|(lane, &r)| {
                    let l = lane as u32;
                    let elem = match shape {
                        0 => r % 96,
                        1 => r % 2048,
                        2 => r % 49152,
                        // group `l % 4`, and above it one of a few values that agree in
                        // their low five bits (and, for some, in the xor of every five)
                        3 => l % 4 + 64 * [0, 32, 1024, 33 * 32, 32 * 1024, 1][r as usize % 6],
                        4 => (seed >> 8) as u32 % 1024 + l * stride,
                        _ => l / 2 * stride,
                    };
                    elem * b + (lane == odd && b > 1) as u32
                })
                .collect();
            (bytes, op, addrs)
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2048, ..ProptestConfig::default() })]

    /// `evaluate_warps` on full slices (the kernel that takes a slice's two warps at once,
    /// where it applies, with and without conflict detection, and without AVX-512) gives
    /// the general path's sum over the warps; and where the kernel itself decides, each
    /// warp's wavefronts are the general path's.
    #[test]
    fn full_slices_of_two_warps_equal_the_general_path(
        hw in prop_oneof![paired_hardware(), Just(sim_core::presets_for_tests::h100_like())],
        slices in prop::collection::vec(full_slice(), 1..8),
    ) {
        hw.validate().map_err(|v| TestCaseError::fail(format!("{v:?}")))?;
        let mut models = [
            BankModel::new(&hw),
            BankModel::new(&hw).without_conflict_detection(),
            BankModel::new(&hw).without_avx512(),
        ];
        let mut general = BankModel::new(&hw);
        let lanes: Vec<u16> = (0..32).collect();
        for (bytes, op, addrs) in &slices {
            let (bytes, op) = (*bytes, *op);
            if addrs.iter().any(|&a| a as u64 + bytes as u64 > 1 << 32) {
                continue;
            }
            let want = general_slice(&mut general, op, bytes, u64::MAX, addrs);
            let req = MaskedRequest { op, bytes, mask: u64::MAX, addrs: LaneAddrs::Listed(addrs) };
            for m in &mut models {
                prop_assert_eq!(m.evaluate_warps(&req), want, "{:?}", req);
                if let Some((w0, w1)) = m.full_slice_pair(op, bytes, addrs) {
                    for (w, half) in [(w0, &addrs[..32]), (w1, &addrs[32..])] {
                        let one = general.evaluate_general(&WarpRequest { op, bytes, lanes: &lanes, addrs: half });
                        prop_assert_eq!(w, one.wavefronts, "kernel {:?}", req);
                    }
                }
            }
        }
    }
}

/// The kernel that takes a slice's two warps at once decides most full slices of random
/// 4-byte words on the h100 rules, where the CPU has what it needs (AVX-512 with GFNI),
/// and its answers are the general path's.
#[test]
fn the_two_warp_kernel_decides_random_words() {
    let hw = sim_core::presets_for_tests::h100_like();
    let (model, mut general) = (BankModel::new(&hw), BankModel::new(&hw));
    let lanes: Vec<u16> = (0..32).collect();
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let mut decided = 0;
    for _ in 0..1000 {
        let addrs: Vec<u32> = (0..64)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x >> 40) as u32 % 12288 * 4
            })
            .collect();
        let want: Vec<u32> = addrs
            .chunks(32)
            .map(|half| {
                general
                    .evaluate_general(&WarpRequest { op: Op::Load, bytes: 4, lanes: &lanes, addrs: half })
                    .wavefronts
            })
            .collect();
        if let Some((w0, w1)) = model.full_slice_pair(Op::Load, 4, &addrs) {
            assert_eq!([w0, w1], want[..], "{addrs:?}");
            decided += 1;
        }
    }
    #[cfg(target_arch = "x86_64")]
    let kernel = {
        use std::arch::is_x86_feature_detected as has;
        has!("avx512f")
            && has!("avx512bw")
            && has!("avx512vl")
            && has!("avx512vbmi")
            && has!("avx512bitalg")
            && has!("avx512cd")
            && has!("gfni")
            && has!("avx2")
    };
    #[cfg(not(target_arch = "x86_64"))]
    let kernel = false;
    // (random words of 48 KiB: the quick check fails only where both hashes collide)
    if kernel {
        assert!(decided > 900, "decided {decided} of 1000");
    } else {
        assert_eq!(decided, 0, "no kernel, no answers");
    }
}

/// A tile slice (see `LaneAddrs::Tile`): width, op, 64-lane mask, the steps of the lane
/// number's bits, lane 0's address (every lane of 0..64 in range, moves included), and
/// moves. Steps of whole elements (tile rows and columns, with pitches that conflict or
/// not), zero (lanes sharing an element), negative, and bytes (unaligned).
fn tile_request() -> impl Strategy<Value = (u8, Op, u64, [i32; 6], u32, Vec<u32>)> {
    let op =
        prop::sample::select(vec![Op::Load, Op::Load, Op::Store, Op::Atomic, Op::Reduction, Op::GlobalLoad]);
    let width = prop::sample::select(vec![1u8, 2, 4, 8, 16]);
    (
        width,
        op,
        any::<u64>(),
        any::<u64>(),
        prop::collection::vec(0u8..8, 6),
        prop::collection::vec(any::<u32>(), 0..5),
    )
        .prop_map(|(bytes, op, seed, mask_bits, kinds, moves)| {
            let b = bytes as i32;
            // a row of 2^w lanes, then rows `pitch` bytes apart
            let w = (seed % 7) as usize;
            let pitch = match (seed >> 4) % 4 {
                0 => b << w,
                1 => (b << w) + b,
                2 => 128 * ((seed >> 8) % 5) as i32 + 4,
                _ => ((seed >> 8) % 3000) as i32,
            };
            let mut steps = [0i32; 6];
            for (j, s) in steps.iter_mut().enumerate() {
                *s = match kinds[j] {
                    0 => 0,
                    1 => -(b << j),
                    2 => ((seed >> (12 + j)) % 9) as i32 - 4,
                    _ if j < w => b << j,
                    _ => pitch << (j - w),
                };
            }
            let mask = match (seed >> 24) % 4 {
                0 => u64::MAX,
                1 => u64::MAX >> 32,
                2 => mask_bits | 1,
                _ => {
                    let (lo, len) = ((seed >> 32) % 64, 1 + (seed >> 40) % 64);
                    (u64::MAX >> (64 - len.min(64 - lo))) << lo
                }
            };
            let low: i64 = steps.iter().map(|&s| (s as i64).min(0)).sum();
            let origin = ((1 << 24) - low) as u32 + (seed >> 48) as u32 % 4096;
            let moves = moves
                .iter()
                .map(|&m| [128, 384, 4096, 4, m >> 12][m as usize % 5] * (1 + (m >> 8) % 4))
                .collect();
            (bytes, op, mask, steps, origin, moves)
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2048, ..ProptestConfig::default() })]

    /// Tile slices: `evaluate_slice`, `recall_slice` + `remember_slice`, and each warp
    /// request of `MaskedRequest::warps` through `evaluate_masked` give the general
    /// path's outcomes over the slice's addresses written out, at every warp size; each
    /// slice seen three times at each place (the third is a memo hit), moved around,
    /// with the usual tables and with tables of one entry (every slice meets the key of
    /// the one before).
    #[test]
    fn tile_slices_equal_the_sum_of_their_warps(
        hw in hardware(),
        tiles in prop::collection::vec(tile_request(), 1..6),
    ) {
        hw.validate().map_err(|v| TestCaseError::fail(format!("{v:?}")))?;
        let mut models = [BankModel::new(&hw), BankModel::new(&hw).with_slice_entries(1)];
        let mut general = BankModel::new(&hw);
        let warp = hw.warp;
        // each tile, then the same with one step longer by an element (a slice that
        // only the steps tell apart)
        let tiles = tiles.into_iter().flat_map(|(bytes, op, mask, steps, origin, moves)| {
            (0..7).map(move |j| {
                let mut steps = steps;
                if j < 6 {
                    steps[j] += bytes as i32;
                }
                (bytes, op, mask, steps, origin, moves.clone())
            })
        });
        for (bytes, op, mask, steps, origin, moves) in tiles {
            for at in std::iter::once(origin).chain(moves.iter().map(|m| origin + m)) {
                let lane = |l: u32| (0..6).filter(|j| l >> j & 1 == 1).map(|j| steps[j] as i64).sum::<i64>() + at as i64;
                let addrs: Vec<u32> = (0..64).filter(|l| mask >> l & 1 == 1).map(|l| lane(l) as u32).collect();
                let mut written = vec![0; addrs.len()];
                sim_core::tile_addrs(at, &steps, mask, &mut written);
                prop_assert_eq!(&written, &addrs);
                let want = general_slice(&mut general, op, bytes, mask, &addrs);
                let req = MaskedRequest { op, bytes, mask, addrs: LaneAddrs::Tile { origin: at, steps: &steps } };
                // the warps: each a tile whose lanes are the slice's
                let mut k = 0;
                req.warps(warp, |j, r| {
                    let n = r.mask.count_ones() as usize;
                    let (lanes, a): (Vec<u16>, Vec<u32>) =
                        (0..warp as u16).filter(|l| r.mask >> l & 1 == 1).map(|l| (l, addrs[k + lanes_before(r.mask, l)])).unzip();
                    k += n;
                    for m in &mut models {
                        let got = m.evaluate_masked(r);
                        let w = general.evaluate_general(&WarpRequest { op, bytes, lanes: &lanes, addrs: &a });
                        if got != w {
                            return Err(TestCaseError::fail(format!("warp {j} of {req:?}: {got:?} != {w:?}")));
                        }
                    }
                    Ok(())
                })?;
                prop_assert_eq!(k, addrs.len());
                for _ in 0..3 {
                    for m in &mut models {
                        prop_assert_eq!(m.evaluate_slice(&req), want, "{:?}", req);
                        let got = match m.recall_slice(&req) {
                            Ok(o) => o,
                            Err(ticket) => {
                                let o = m.evaluate_warps(&req);
                                m.remember_slice(ticket, &req, o);
                                o
                            }
                        };
                        prop_assert_eq!(got, want, "recall/remember {:?}", req);
                    }
                }
            }
        }
    }
}

/// Active lanes of `mask` below lane `l`.
fn lanes_before(mask: u64, l: u16) -> usize {
    (mask & ((1u64 << l) - 1)).count_ones() as usize
}
