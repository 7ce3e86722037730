//! Every preset loads and validates; malformed configs list every problem with a place.

use configs::{parse_config, preset, preset_names, ConfigError};
use sim_core::SameWord;

#[test]
fn every_preset_loads_and_validates() {
    let names = preset_names();
    assert_eq!(
        names,
        [
            "h100", "a100", "v100", "kepler", "gtx580", "g80", "hd5870", "cdna3", "cdna4", "rdna3", "h200",
            "b200", "rtx5090", "rdna4"
        ]
    );
    for name in names {
        let hw = preset(name).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(hw.name, name);
        hw.validate().unwrap();
        assert!(configs::preset_source(name).unwrap().contains("//"), "{name} cites its sources");
    }
}

#[test]
fn override_fields_of_a_base_preset() {
    let hw = parse_config("(base: \"cdna3\", warp: 32, mapping: Xor(shift: 5, mask: 31))", "u.ron").unwrap();
    assert_eq!((hw.name.as_str(), hw.warp, hw.banks), ("cdna3+", 32, 32));
    let same = parse_config("(base: \"g80\")", "u.ron").unwrap();
    assert_eq!(same, preset("g80").unwrap());
    let named = parse_config(
        "(base: \"h100\", name: \"h100-64\", warp: 64, load_pair_merge: None, timing: None)",
        "u.ron",
    )
    .unwrap();
    assert_eq!(
        (named.name.as_str(), named.crossbar.load_pair_merge.is_none(), named.timing.is_none()),
        ("h100-64", true, true)
    );
}

#[test]
fn a_full_config_without_base_is_accepted() {
    let src = configs::preset_source("gtx580").unwrap().replace("\"gtx580\"", "\"mine\"");
    let hw = parse_config(&src, "mine.ron").unwrap();
    assert_eq!(hw.name, "mine");
}

/// Each malformed config and what its message must say.
const BAD_CONFIGS: &[(&str, &str, &[&str])] = &[
    ("not RON", "banks = 32", &["c.ron:1:", "Expected"]),
    ("unclosed paren", "(base: \"h100\", banks: 16", &["c.ron:1:"]),
    ("wrong type", "(base: \"h100\", banks: \"many\")", &["c.ron:1:", "integer"]),
    ("unknown enum variant", "(base: \"h100\", broadcast: Sometimes)", &["c.ron:1:", "Sometimes"]),
    ("unknown field", "(base: \"h100\",\n wrap: 64)", &["c.ron:2:", "`wrap`", "unknown field", "warp"]),
    ("unknown preset as base", "(base: \"h300\")", &["c.ron:1:", "unknown preset `h300`", "h100"]),
    ("zero banks", "(base: \"h100\",\n banks: 0)", &["c.ron:2:", "`banks`", "between 1 and 1024", "got 0"]),
    ("absurd banks", "(base: \"h100\", banks: 100000)", &["`banks`", "got 100000"]),
    ("negative banks", "(base: \"h100\", banks: -4)", &["c.ron:1:"]),
    ("warp not a power of two", "(base: \"h100\", warp: 48)", &["`warp`", "power of two", "got 48"]),
    ("bank width 3", "(base: \"h100\", bank_bytes: 3)", &["`bank_bytes`", "got 3"]),
    ("bad phase lanes", "(base: \"h100\",\n phase_lanes: (b1: 32, b2: 32, b4: 0, b8: 16, b16: 8))", &["c.ron:2:", "`phase_lanes.b4`", "got 0"]),
    ("phase lanes missing a width", "(base: \"h100\", phase_lanes: (b1: 32, b2: 32, b4: 32, b8: 16))", &["c.ron:1:", "b16"]),
    ("xor mask too big", "(base: \"h100\", mapping: Xor(shift: 5, mask: 64))", &["`mapping.mask`", "below the bank count 32"]),
    ("pair merge mask zero", "(base: \"h100\", load_pair_merge: Some((widths: [8], masks: [0])))", &["`load_pair_merge.masks`", "mask 0"]),
    ("pair merge width 3", "(base: \"h100\", load_pair_merge: Some((widths: [3], masks: [1])))", &["`load_pair_merge.widths`", "3 is not an access width"]),
    ("zero SMs", "(base: \"h100\", timing: Some((sms: 0, max_threads_per_sm: 2048, max_blocks_per_sm: 32, schedulers_per_sm: 4, latency_base: 27, latency_per_wavefront: 2, pipe_cycles_per_wavefront: 1, issue_cycles: 1)))", &["`timing.sms`", "positive"]),
    ("no base and fields missing", "(name: \"x\", banks: 32)", &["c.ron", "`bank_bytes`: missing", "`warp`: missing", "base"]),
    ("empty file", "", &["c.ron:1:"]),
    ("zero ports", "(base: \"h100\",\n crossbar: (ports: 0))", &["c.ron:2:", "`crossbar.ports`", "between 1 and 64", "got 0"]),
    ("crossbar width 96", "(base: \"h100\", crossbar: (width: 96))", &["`crossbar.width`", "power of two", "got 96"]),
    ("bad crossbar lanes", "(base: \"h100\", crossbar: (lanes: (b1: 32, b2: 32, b4: 3, b8: 16, b16: 8)))", &["`crossbar.lanes.b4`", "got 3"]),
    ("unknown crossbar field", "(base: \"h100\",\n crossbar: (wdth: 64))", &["c.ron:2:", "wdth"]),
    ("both spellings", "(base: \"h100\",\n broadcast: Serialize,\n crossbar: (broadcast: Multicast))", &["c.ron:2:", "`broadcast`", "also given as `crossbar.broadcast`"]),
    ("groups missing a lane", "(base: \"cdna3\", crossbar: (groups: [(ops: [Store], bytes: 16, groups: [[0, 1, 2]])]))", &["`crossbar.groups[0].groups`", "lanes of the warp in no group: 3, 4"]),
    ("a lane in two groups", "(base: \"cdna3\", warp: 4, crossbar: (groups: [(ops: [Store], bytes: 4, groups: [[0, 1], [1, 2, 3]])]))", &["`crossbar.groups[0].groups`", "more than one group: 1"]),
    ("a lane past 63", "(base: \"cdna3\", warp: 2, crossbar: (groups: [(ops: [Store], bytes: 4, groups: [[0, 1, 64]])]))", &["lane 64 is above 63"]),
    ("groups of a barrier", "(base: \"cdna3\", warp: 1, crossbar: (groups: [(ops: [Barrier], bytes: 4, groups: [[0]])]))", &["`crossbar.groups[0].ops`", "Barrier"]),
    ("groups and pair merge", "(base: \"h100\", warp: 1, crossbar: (groups: [(ops: [Load], bytes: 16, groups: [[0]])]))", &["`crossbar.groups[0].ops`", "pair merge"]),
    ("groups of width 3", "(base: \"h100\", warp: 1, crossbar: (groups: [(ops: [Store], bytes: 3, groups: [[0]])]))", &["`crossbar.groups[0].bytes`", "3 is not an access width"]),
    ("no base, crossbar without width", "(name: \"x\", banks: 32, bank_bytes: 4, warp: 32, crossbar: (broadcast: Multicast, write_collision: Multicast, atomic: Serialize, reduction: Serialize), mapping: Linear, smem_per_sm: 1024, timing: None)", &["`crossbar.width`: missing"]),
];

#[test]
fn malformed_configs_name_the_place_and_the_problem() {
    for (what, input, needles) in BAD_CONFIGS {
        let err = parse_config(input, "c.ron").expect_err(what);
        let msg = err.to_string();
        for n in *needles {
            assert!(msg.contains(n), "{what}: message `{msg}` lacks `{n}`");
        }
    }
}

#[test]
fn every_violation_is_listed_at_once() {
    let err =
        parse_config("(base: \"h100\",\n banks: 0,\n warp: 3,\n bank_bytes: 5,\n colour: 1,\n)", "c.ron")
            .unwrap_err();
    let ConfigError::Invalid { violations, .. } = &err else { panic!("{err}") };
    assert_eq!(violations.len(), 4, "{violations:#?}");
    let all = violations.join("\n");
    for n in ["c.ron:2: `banks`", "c.ron:3: `warp`", "c.ron:4: `bank_bytes`", "c.ron:5: `colour`"] {
        assert!(all.contains(n), "`{all}` lacks `{n}`");
    }
}

#[test]
fn unknown_preset_lists_the_known_ones() {
    let msg = configs::load("h300").unwrap_err().to_string();
    assert!(msg.contains("unknown preset `h300`") && msg.contains("h100, a100"), "{msg}");
    let msg = configs::load(env!("CARGO_MANIFEST_DIR")).unwrap_err().to_string();
    assert!(msg.contains("directory"), "{msg}");
}

/// The phase tables the presets had in the old spelling (`phase_lanes`, lanes for 1, 2,
/// 4, 8 and 16 bytes), copied from their sources; the new spelling's width gives the same.
const OLD_PHASE_TABLES: &[(&str, [u32; 5])] = &[
    ("h100", [32, 32, 32, 16, 8]),
    ("a100", [32, 32, 32, 16, 8]),
    ("v100", [32, 32, 32, 16, 8]),
    ("kepler", [32, 32, 32, 32, 16]),
    ("gtx580", [32, 32, 32, 16, 8]),
    ("g80", [16, 16, 16, 8, 4]),
    ("hd5870", [32, 32, 32, 16, 8]),
    ("cdna3", [32, 32, 32, 16, 8]),
    ("rdna3", [32, 32, 32, 16, 8]),
];

#[test]
fn the_crossbar_width_gives_each_preset_its_old_phase_table() {
    for (name, table) in OLD_PHASE_TABLES {
        let hw = preset(name).unwrap();
        assert_eq!([1, 2, 4, 8, 16].map(|b| hw.phase_lanes(b)), *table, "{name}");
        assert_eq!(hw.crossbar.ports, 1, "{name}");
    }
    let cdna4 = preset("cdna4").unwrap();
    assert_eq!([1, 2, 4, 8, 16].map(|b| cdna4.phase_lanes(b)), [64, 64, 64, 32, 16]);
    assert_eq!((cdna4.banks, cdna4.smem_per_sm), (64, 160 * 1024));
}

#[test]
fn the_old_spelling_still_loads_and_means_what_it_meant() {
    // The gtx580 preset as it was written before the crossbar section, every field given.
    let old = "(
        name: \"gtx580\", banks: 32, bank_bytes: 4, warp: 32,
        phase_lanes: (b1: 32, b2: 32, b4: 32, b8: 16, b16: 8),
        broadcast: Multicast, write_collision: Multicast, atomic: Serialize, reduction: Serialize,
        load_pair_merge: None, mapping: Linear, smem_per_sm: 49152, timing: None,
    )";
    let hw = parse_config(old, "old.ron").unwrap();
    let new = preset("gtx580").unwrap();
    assert_eq!([1, 2, 4, 8, 16].map(|b| hw.phase_lanes(b)), [1, 2, 4, 8, 16].map(|b| new.phase_lanes(b)));
    assert_eq!(hw.crossbar.width, 128, "the width the old table implies");
    assert_eq!((hw.crossbar.broadcast, hw.crossbar.reduction), (SameWord::Multicast, SameWord::Serialize));
    // overrides in the old spelling land in the crossbar
    let hw = parse_config(
        "(base: \"h100\", phase_lanes: (b1: 32, b2: 32, b4: 32, b8: 32, b16: 32), broadcast: Serialize, load_pair_merge: None)",
        "u.ron",
    )
    .unwrap();
    assert_eq!(hw.phase_lanes(16), 32);
    assert_eq!(hw.crossbar.broadcast, SameWord::Serialize);
    assert!(hw.crossbar.load_pair_merge.is_none());
    assert_eq!(hw.crossbar.width, 512);
}

#[test]
fn changing_the_bank_width_alone_keeps_the_lanes_per_phase() {
    // As before the crossbar section: kepler's preset says "for the 4-byte mode override
    // `bank_bytes: 4`", which keeps 32 lanes per phase for 8-byte accesses.
    let hw = parse_config("(base: \"kepler\", bank_bytes: 4)", "u.ron").unwrap();
    assert_eq!([1, 2, 4, 8, 16].map(|b| hw.phase_lanes(b)), [32, 32, 32, 32, 16]);
    let hw = parse_config("(base: \"h100\", bank_bytes: 8, warp: 64)", "u.ron").unwrap();
    assert_eq!([1, 2, 4, 8, 16].map(|b| hw.phase_lanes(b)), [32, 32, 32, 16, 8]);
    // naming the width makes the lanes follow the bank width: 256 / max(bytes, 8)
    let hw = parse_config("(base: \"h100\", bank_bytes: 8, crossbar: (width: 256))", "u.ron").unwrap();
    assert_eq!([1, 2, 4, 8, 16].map(|b| hw.phase_lanes(b)), [32, 32, 32, 32, 16]);
}

#[test]
fn crossbar_fields_override_one_by_one() {
    let hw = parse_config("(base: \"h100\", crossbar: (ports: 2, width: 256))", "u.ron").unwrap();
    let h100 = preset("h100").unwrap();
    assert_eq!(hw.name, "h100+");
    assert_eq!((hw.crossbar.ports, hw.crossbar.width), (2, 256));
    assert_eq!(hw.crossbar.load_pair_merge, h100.crossbar.load_pair_merge);
    assert_eq!([1, 2, 4, 8, 16].map(|b| hw.phase_lanes(b)), [32, 32, 32, 32, 16]);
    // the what-if of docs/configs.md: consecutive 16-byte vectors take 2 phases of 16
    // lanes (256 bytes: two words per bank, served at once by two ports), not 4 of 8
    let lanes: Vec<u16> = (0..32).collect();
    let addrs: Vec<u32> = (0..32).map(|l| 16 * l).collect();
    let req = sim_core::WarpRequest { op: sim_core::Op::Load, bytes: 16, lanes: &lanes, addrs: &addrs };
    assert_eq!(sim_core::BankModel::new(&hw).evaluate(&req).wavefronts, 2);
    assert_eq!(sim_core::BankModel::new(&h100).evaluate(&req).wavefronts, 4);
    // `lanes: None` returns to the width's phases
    let hw = parse_config("(base: \"h100\", crossbar: (lanes: None, width: 64))", "u.ron").unwrap();
    assert_eq!([1, 2, 4, 8, 16].map(|b| hw.phase_lanes(b)), [16, 16, 16, 8, 4]);
}

#[test]
fn tensor_op_rules_override_one_by_one_and_are_checked() {
    use sim_core::{OpRule, SameWord};
    let h100 = preset("h100").unwrap();
    assert_eq!(h100.crossbar.ops.ldgsts_cg, OpRule::Bypass);
    // a kernel whose 4-byte cp.async sources lie 16 bytes apart: a phase per global line
    let src = "(base: \"h100\", crossbar: (ops: (ldgsts: Phases(lanes: 8, same_word: Serialize))))";
    let hw = parse_config(src, "u.ron").unwrap();
    assert_eq!(hw.crossbar.ops.ldgsts, OpRule::Phases { lanes: Some(8), same_word: SameWord::Serialize });
    assert_eq!((hw.crossbar.ops.ldsm, hw.crossbar.ops.ldgsts_cg), (h100.crossbar.ops.ldsm, OpRule::Bypass));
    // presets that say nothing serve them as the loads and stores of their width
    assert_eq!(preset("v100").unwrap().crossbar.ops.ldsm, OpRule::Crossbar);
    let e = parse_config(
        "(base: \"h100\", crossbar: (ops: (ldsm: Phases(lanes: 3, same_word: Multicast))))",
        "u.ron",
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("`crossbar.ops.ldsm.lanes`: must be a power of two from 1 to 64, got 3"), "{e}");
    let e =
        parse_config("(base: \"h100\", crossbar: (ops: (lds: Bypass)))", "u.ron").unwrap_err().to_string();
    assert!(e.contains("`lds`") && e.contains("ldgsts_cg"), "{e}");
}

#[test]
fn a_study_sweeps_crossbar_fields_by_path() {
    let src = r#"(
        name: "x",
        presets: ["h100"],
        hardware: {"crossbar.width": [64, 256], "crossbar.ports": [1, 2], "banks": [32]},
        workloads: [(gen: "strided", params: {"stride": 1})],
    )"#;
    let study = configs::study::Study::parse(src, "s.ron").unwrap();
    let cells = study.hardware_cells("s.ron").unwrap();
    let got: Vec<(u32, u32)> =
        cells.iter().map(|c| (c.hardware.crossbar.width, c.hardware.crossbar.ports)).collect();
    // axes in name order, the last fastest
    assert_eq!(got, [(64, 1), (256, 1), (64, 2), (256, 2)]);
    assert_eq!(cells[0].values[1], ("crossbar.ports".to_string(), "1".to_string()));
    let bad = src.replace("\"banks\"", "\"timing.sms\"");
    let err = configs::study::Study::parse(&bad, "s.ron").unwrap().hardware_cells("s.ron").unwrap_err();
    assert!(err.to_string().contains("`hardware.timing.sms`: only the crossbar's fields"), "{err}");
    let bad = src.replace("[1, 2]", "[0]");
    let err = configs::study::Study::parse(&bad, "s.ron").unwrap().hardware_cells("s.ron").unwrap_err();
    assert!(err.to_string().contains("`crossbar.ports`"), "{err}");
}

/// The LDS examples of the ROCm Composable Kernel docs, "Understanding AMD GPU LDS and
/// Bank Conflicts" (composable_kernel, docs/conceptual/ck_tile/hardware/
/// lds_bank_conflicts.rst), on the cdna3 preset: a tile of rows of 64 fp16 (128 bytes,
/// all 32 banks), each lane moving one 16-byte vector of 8 fp16 (`ds_write_b128`,
/// `ds_read_b128`), one wave of 64 lanes.
mod ck_tile_lds {
    use configs::{parse_config, preset};
    use sim_core::{BankModel, Hardware, Op, Outcome, WarpRequest};

    /// Byte address of the 16-byte vector `col` (0..8) of row `row`.
    fn at(row: u32, col: u32) -> u32 {
        row * 128 + col * 16
    }

    /// The XOR preshuffle of the page's "XOR Preshuffle" section with KPerBlock = 64 and
    /// KPack = 8: column `x` of row `y` is stored at column `(y mod 8) xor x`.
    fn xor(row: u32, col: u32) -> u32 {
        (row % 8) ^ col
    }

    fn wave(hw: &Hardware, op: Op, addr: impl Fn(u32) -> u32) -> Outcome {
        let lanes: Vec<u16> = (0..64).collect();
        let addrs: Vec<u32> = (0..64).map(addr).collect();
        BankModel::new(hw).evaluate(&WarpRequest { op, bytes: 16, lanes: &lanes, addrs: &addrs })
    }

    #[test]
    fn row_major_ds_write_b128_is_conflict_free() {
        // "Write Access Pattern": lane l writes vector l % 8 of row l / 8 (consecutive
        // addresses); each phase of 8 lanes (0-7, 8-15, ...) touches 32 distinct banks.
        let hw = preset("cdna3").unwrap();
        assert_eq!(wave(&hw, Op::Store, |l| at(l / 8, l % 8)), Outcome { wavefronts: 8, ideal: 8 });
        // the same write with the XOR preshuffle stays conflict-free
        assert_eq!(
            wave(&hw, Op::Store, |l| at(l / 8, xor(l / 8, l % 8))),
            Outcome { wavefronts: 8, ideal: 8 }
        );
    }

    #[test]
    fn column_wise_ds_read_b128_has_4_way_conflicts_in_every_phase() {
        // "Read Access Pattern": the read for the next MFMA goes down the tile: lane l
        // reads vector l / 16 of row l % 16 (the 16x16 MFMA operand layout, the one for
        // which the page's "4-way bank conflicts in every phase" holds). Group 0-3 +
        // 20-23 then reads rows 0-3 of vector 0 (banks 0-3, four words each) and rows 4-7
        // of vector 1 (banks 4-7, four words each): 4 wavefronts, in each of 8 groups.
        let hw = preset("cdna3").unwrap();
        let read = |l: u32| at(l % 16, l / 16);
        assert_eq!(wave(&hw, Op::Load, read), Outcome { wavefronts: 32, ideal: 8 });
        // with phases of 8 consecutive lanes, as ds_write_b128 has, the same read would be
        // 8-way (rows 0-7 of vector 0 in one phase): the documented groups matter
        let contiguous = parse_config("(base: \"cdna3\", crossbar: (groups: []))", "u.ron").unwrap();
        assert_eq!(wave(&contiguous, Op::Load, read), Outcome { wavefronts: 64, ideal: 8 });
        // the XOR preshuffle removes the conflicts ("XOR preshuffle: restores full
        // bandwidth with zero storage overhead")
        assert_eq!(
            wave(&hw, Op::Load, |l| at(l % 16, xor(l % 16, l / 16))),
            Outcome { wavefronts: 8, ideal: 8 }
        );
    }

    #[test]
    fn a_wave32_override_keeps_the_lower_half_of_the_groups() {
        // lanes 32-63 are left out of the groups; the read of lanes 0-31 still pairs
        // lanes 0-3 with 20-23 (4-way), not 0-7 (8-way)
        let hw = parse_config("(base: \"cdna3\", warp: 32)", "u.ron").unwrap();
        let lanes: Vec<u16> = (0..32).collect();
        let addrs: Vec<u32> = (0..32).map(|l| at(l % 16, l / 16)).collect();
        let out = BankModel::new(&hw).evaluate(&WarpRequest {
            op: Op::Load,
            bytes: 16,
            lanes: &lanes,
            addrs: &addrs,
        });
        assert_eq!(out, Outcome { wavefronts: 16, ideal: 4 });
    }

    #[test]
    fn consecutive_ds_read_b128_is_conflict_free_in_the_documented_groups() {
        // lanes 0-3 and 20-23 read bytes 0-63 and 320-383: banks 0-15 and 16-31
        let hw = preset("cdna3").unwrap();
        assert_eq!(wave(&hw, Op::Load, |l| 16 * l), Outcome { wavefronts: 8, ideal: 8 });
    }
}

#[test]
fn overrides_apply_to_any_machine_with_the_messages_of_a_config_file() {
    let h100 = configs::preset("h100").unwrap();
    let wide = configs::parse_overrides(&h100, "(banks: 64, bank_bytes: 8)", "kw").unwrap();
    assert_eq!((wide.name.as_str(), wide.banks, wide.bank_bytes, wide.warp), ("h100+", 64, 8, 32));
    // on a machine that is not a preset: its other fields stay
    let narrow = configs::parse_overrides(&wide, "(warp: 16)", "kw").unwrap();
    assert_eq!((narrow.banks, narrow.bank_bytes, narrow.warp), (64, 8, 16));
    // `base` starts from that preset instead
    let cdna3 = configs::parse_overrides(&wide, "(base: \"cdna3\")", "kw").unwrap();
    assert_eq!(cdna3, configs::preset("cdna3").unwrap());
    // nothing set: the machine as it was, name and all
    assert_eq!(configs::parse_overrides(&h100, "()", "kw").unwrap(), h100);
    // the same messages as a config file naming the base
    let bad = "(banks: 0, colour: 1, mapping: Xor(shift: 40, mask: 1))";
    let file = "(base: \"h100\", banks: 0, colour: 1, mapping: Xor(shift: 40, mask: 1))";
    let from_file = parse_config(file, "kw").unwrap_err().to_string();
    let from_overrides = configs::parse_overrides(&h100, bad, "kw").unwrap_err().to_string();
    assert_eq!(from_overrides, from_file);
    for n in ["kw:1: `banks`", "kw:1: `colour`: unknown field", "kw:1: `mapping.shift`"] {
        assert!(from_overrides.contains(n), "`{from_overrides}` lacks `{n}`");
    }
    let msg = configs::parse_overrides(&h100, "(banks: \"many\")", "kw").unwrap_err().to_string();
    assert!(msg.starts_with("kw:1:"), "{msg}");
}

#[test]
fn h200_is_the_h100_with_its_faster_memory_and_l2() {
    let (h100, mut h200) = (preset("h100").unwrap(), preset("h200").unwrap());
    let (t100, t200) = (h100.timing.as_ref().unwrap(), h200.timing.as_ref().unwrap());
    // validate/results/{h100,h200}/bandwidth.csv: 2 GiB copied in 711.8 and 505.0 us;
    // 1 GiB read from a 16 MiB buffer in 137.6 and 119.2 us
    assert!(t200.dram_bytes_per_cycle > 1.4 * t100.dram_bytes_per_cycle, "{t200:?}");
    assert!(t200.l2_bytes_per_cycle > 1.1 * t100.l2_bytes_per_cycle, "{t200:?}");
    h200.name = h100.name.clone();
    let t = h200.timing.as_mut().unwrap();
    (t.dram_bytes_per_cycle, t.l2_bytes_per_cycle) = (t100.dram_bytes_per_cycle, t100.l2_bytes_per_cycle);
    assert_eq!(h200, h100);
}

#[test]
fn every_preset_written_as_ron_reads_back_the_same() {
    use configs::{to_ron, RonStyle};
    for name in preset_names() {
        let hw = preset(name).unwrap();
        let file = to_ron(&hw, RonStyle::File).unwrap();
        assert_eq!(parse_config(&file, name).unwrap(), hw, "{name}:\n{file}");
        let line = to_ron(&hw, RonStyle::Line).unwrap();
        assert!(!line.contains('\n') && line.contains(", ") && !line.contains(",)"), "{line}");
        assert_eq!(parse_config(&line, name).unwrap(), hw, "{name}: {line}");
    }
}
