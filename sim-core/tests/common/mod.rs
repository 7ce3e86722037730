//! Strategies the property tests of the bank model share: random hardware, random warp
//! requests, affine requests.
// (each test binary uses a part of it)
#![allow(dead_code)]

use proptest::prelude::*;
use sim_core::{
    BankMapping, Crossbar, Hardware, LaneGroups, Op, OpRule, OpRules, PairMerge, PhaseLanes, SameWord,
};

pub fn pow2_upto_64() -> impl Strategy<Value = u32> {
    (0u32..=6).prop_map(|k| 1 << k)
}

pub fn rule() -> impl Strategy<Value = SameWord> {
    prop::sample::select(vec![SameWord::Multicast, SameWord::Serialize, SameWord::OneBroadcastWord])
}

/// Hardware from the whole valid space, not only the presets: bank counts that are not
/// powers of two or above 64 (general path), every bank width, warp and phase table,
/// XOR swizzles with any shift and mask, pair merges of any widths and masks.
pub fn hardware() -> impl Strategy<Value = Hardware> {
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
                crossbar: Crossbar {
                    width: 128,
                    lanes: Some(PhaseLanes { b1, b2, b4, b8, b16 }),
                    groups: Vec::new(),
                    broadcast: rules.0,
                    write_collision: rules.1,
                    atomic: rules.2,
                    reduction: rules.3,
                    load_pair_merge,
                    ports: 1,
                    ops: op_rules(bits >> 44),
                },
                mapping,
                smem_per_sm: 1 << 20,
                timing: None,
            }
        })
}

/// Rules of the tensor-core ops from the bits of `bits`: each the crossbar's, phases of
/// 1 to 64 lanes under either rule, or bypass.
pub fn op_rules(bits: u64) -> OpRules {
    let rule = |b: u64| match b % 4 {
        0 => OpRule::Crossbar,
        1 => OpRule::Bypass,
        k => OpRule::Phases {
            lanes: (b / 4 % 8 < 7).then_some(1 << (b / 4 % 8)),
            same_word: if k == 2 { SameWord::Multicast } else { SameWord::Serialize },
        },
    };
    OpRules { ldsm: rule(bits), stsm: rule(bits >> 5), ldgsts: rule(bits >> 10), ldgsts_cg: rule(bits >> 15) }
}

/// One request: width, op, and per lane of a 64-lane warp an optional address. The
/// addresses come from one of several shapes: few distinct elements (sharing and
/// conflicts), strides, unaligned bytes, and addresses near the top of the range.
pub fn request() -> impl Strategy<Value = (u8, Op, Vec<Option<u32>>)> {
    let op = prop::sample::select(vec![
        Op::Load,
        Op::Store,
        Op::Atomic,
        Op::Reduction,
        Op::Barrier,
        Op::MatrixLoad,
        Op::MatrixStore,
        Op::AsyncCopy,
        Op::AsyncCopyBypass,
    ]);
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

pub fn lanes_addrs(warp: u32, elems: &[Option<u32>]) -> (Vec<u16>, Vec<u32>) {
    elems[..warp as usize].iter().enumerate().filter_map(|(t, a)| a.map(|a| (t as u16, a))).unzip()
}

/// Hardware of the SIMD kernels' domain: a linear mapping on a power-of-two bank count
/// up to 64, any bank width, warp, phase table and pair merge.
pub fn pow2_hardware() -> impl Strategy<Value = Hardware> {
    (0u32..=6, hardware()).prop_map(|(banks_log2, hw)| Hardware {
        banks: 1 << banks_log2,
        mapping: BankMapping::Linear,
        ..hw
    })
}

/// Affine requests: a lane mask (dense, a run, random or one lane), a stride (0,
/// negative, a whole number of elements or of bytes) and a first address. Each comes
/// back `moves + 1` times, moved by multiples of powers of two, of the bank row, or by
/// odd amounts, so that the memo of `evaluate_masked` both hits and misses.
pub fn affine_request() -> impl Strategy<Value = (u8, Op, u64, i64, u32, Vec<u32>)> {
    let op = prop::sample::select(vec![
        Op::Load,
        Op::Load,
        Op::Store,
        Op::Atomic,
        Op::Reduction,
        Op::Barrier,
        Op::GlobalLoad,
        Op::GlobalStore,
        Op::MatrixLoad,
        Op::AsyncCopy,
        Op::AsyncCopyBypass,
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

/// [`hardware`] with explicit lane groups for some widths (each for some of the ops
/// that may have them): a random permutation of the 64 lanes cut into groups of one
/// power-of-two size (which the fast path gathers into group order) or of uneven sizes
/// (gathered where the padded groups fit 64 positions, else the general path). A width
/// whose loads get groups loses the pair merge.
pub fn grouped_hardware() -> impl Strategy<Value = Hardware> {
    let perm = Just((0u16..64).collect::<Vec<u16>>()).prop_shuffle();
    (hardware(), perm, any::<u64>()).prop_map(|(mut hw, perm, bits)| {
        for (k, w) in [1u8, 2, 4, 8, 16].into_iter().enumerate() {
            let b = bits >> (8 * k);
            let ops: Vec<Op> = [Op::Load, Op::Store, Op::Atomic, Op::Reduction]
                .into_iter()
                .enumerate()
                .filter(|(i, _)| b >> i & 1 == 1)
                .map(|(_, op)| op)
                .collect();
            if ops.is_empty() {
                continue;
            }
            // each width's groups from the permutation, rotated by its own amount, or from
            // blocks of 2 to 16 consecutive lanes in the permutation's order (blocks the
            // fast path moves whole)
            let block = 1 << (perm[k] % 5);
            let lanes: Vec<u16> = if block == 1 {
                (0..64).map(|i| perm[(i + 13 * k) % 64]).collect()
            } else {
                let order: Vec<u16> = perm.iter().copied().filter(|&l| l < 64 / block).collect();
                (0..64).map(|i| order[i as usize / block as usize] * block + i % block).collect()
            };
            let groups: Vec<Vec<u16>> = if b >> 7 & 1 == 0 {
                lanes.chunks(1 << (b >> 4 & 7).min(6)).map(|c| c.to_vec()).collect()
            } else {
                let mut cuts = Vec::new();
                let (mut at, mut x) = (0, b >> 4 | 1);
                while at < 64 {
                    x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    let len = (1 + (x >> 59) as usize % 12).min(64 - at);
                    cuts.push(lanes[at..at + len].to_vec());
                    at += len;
                }
                cuts
            };
            if ops.contains(&Op::Load) {
                if let Some(pm) = &mut hw.crossbar.load_pair_merge {
                    pm.widths.retain(|&x| x != w);
                }
            }
            hw.crossbar.groups.push(LaneGroups { ops, bytes: w, groups });
        }
        hw
    })
}
