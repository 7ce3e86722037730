//! The presets of current GPUs (`b200`, `rtx5090`, `rdna4`, `cdna4`): each holds the
//! numbers its file cites, and a documented property follows from its bank rule. The
//! expected values are worked out from the rule (bank = word mod banks, a phase costs
//! its busiest bank's distinct words), not copied from a run.

use configs::preset;
use sim_core::{BankModel, Hardware, Op, Outcome, WarpRequest};

/// One request of `lanes` lanes, each moving `bytes` at word `word(l)`.
fn request(hw: &Hardware, bytes: u8, lanes: u32, word: impl Fn(u32) -> u32) -> Outcome {
    let lane_ids: Vec<u16> = (0..lanes as u16).collect();
    let addrs: Vec<u32> = (0..lanes).map(|l| 4 * word(l)).collect();
    BankModel::new(hw).evaluate(&WarpRequest { op: Op::Load, bytes, lanes: &lane_ids, addrs: &addrs })
}

#[test]
fn b200_has_227_kib_per_block_and_a_32_way_transpose_column() {
    let hw = preset("b200").unwrap();
    // 228 KiB per SM; CUTLASS's sm100_smem_capacity_bytes (227 KiB) plus the 1 KiB CUDA
    // reserves per block fills it, on the 228 KiB carveout, one block per SM
    assert_eq!((hw.banks, hw.bank_bytes, hw.warp, hw.smem_per_sm), (32, 4, 32, 228 * 1024));
    let t = hw.timing.as_ref().unwrap();
    let sim_core::Occupancy::SmallestCarveout { sizes, reserved } = &t.occupancy else { panic!("{t:?}") };
    assert_eq!((227 * 1024 + reserved, sizes.last()), (hw.smem_per_sm, Some(&hw.smem_per_sm)));
    assert_eq!(t.occupancy.blocks_by_smem(227 * 1024, hw.smem_per_sm), Some(1));
    // a column of a 32x32 fp32 tile: lane l reads word 32 l, all in bank 0, 32
    // distinct words: 32 wavefronts against an ideal of 1
    assert_eq!(request(&hw, 4, 32, |l| 32 * l), Outcome { wavefronts: 32, ideal: 1 });
    // padded to 33 words a row: banks l mod 32, all distinct
    assert_eq!(request(&hw, 4, 32, |l| 33 * l), Outcome { wavefronts: 1, ideal: 1 });
}

#[test]
fn rtx5090_has_99_kib_per_block_and_the_hopper_banks() {
    let hw = preset("rtx5090").unwrap();
    assert_eq!((hw.banks, hw.bank_bytes, hw.warp, hw.smem_per_sm), (32, 4, 32, 100 * 1024));
    let t = hw.timing.as_ref().unwrap();
    assert_eq!((t.sms, t.max_threads_per_sm), (170, 1536));
    // CUTLASS's sm120_smem_capacity_bytes (99 KiB) plus the 1 KiB reserve is the SM's
    let sim_core::Occupancy::SmallestCarveout { reserved, .. } = &t.occupancy else { panic!("{t:?}") };
    assert_eq!(99 * 1024 + reserved, hw.smem_per_sm);
    // a warp of 16-byte loads at a 256-byte stride: phases of 8 lanes (128 bytes), each
    // lane's 4 words in banks 0-3 (256 bytes is 2 x 32 words): 8-way in each of the 4
    // phases, 32 wavefronts against an ideal of 4
    assert_eq!(request(&hw, 16, 32, |l| 64 * l), Outcome { wavefronts: 32, ideal: 4 });
}

#[test]
fn cdna4_64_banks_serve_two_rows_128_bytes_apart_where_cdna3_32_conflict() {
    // a half-wave (lanes 0-31) reads 16 consecutive words of two rows 32 words (128
    // bytes) apart: lane l reads word (l mod 16) + 32 (l / 16)
    let word = |l: u32| l % 16 + 32 * (l / 16);
    // cdna3: 32 banks, words w and w + 32 share bank w: 2-way in its one phase of 32
    // lanes
    let cdna3 = preset("cdna3").unwrap();
    assert_eq!(request(&cdna3, 4, 32, word), Outcome { wavefronts: 2, ideal: 1 });
    // cdna4: 64 banks, words 0-15 and 32-47 are banks 0-15 and 32-47: conflict-free
    let cdna4 = preset("cdna4").unwrap();
    assert_eq!((cdna4.banks, cdna4.bank_bytes, cdna4.warp), (64, 4, 64));
    assert_eq!(request(&cdna4, 4, 32, word), Outcome { wavefronts: 1, ideal: 1 });
    // ds_read_b64_tr_b16 traced as 8-byte loads: a wave64 reading 8 consecutive bytes
    // each (512 bytes) takes the two 256-byte phases of 32 lanes, conflict-free
    assert_eq!(request(&cdna4, 8, 64, |l| 2 * l), Outcome { wavefronts: 2, ideal: 2 });
}

#[test]
fn rdna4_has_32_banks_a_wave32_and_no_lane_groups_yet() {
    let hw = preset("rdna4").unwrap();
    assert_eq!((hw.banks, hw.bank_bytes, hw.warp, hw.smem_per_sm), (32, 4, 32, 64 * 1024));
    // the gfx12 B128 lane order is not modelled: no explicit groups
    assert!(hw.crossbar.groups.is_empty());
    // a wave32 reading every other word: words 2l land in the 16 even banks, two
    // distinct words each: 2-way in the one phase of 32 lanes
    assert_eq!(request(&hw, 4, 32, |l| 2 * l), Outcome { wavefronts: 2, ideal: 1 });
}
