//! Every preset loads and validates; malformed configs list every problem with a place.

use configs::{parse_config, preset, preset_names, ConfigError};

#[test]
fn every_preset_loads_and_validates() {
    let names = preset_names();
    assert_eq!(names, ["h100", "a100", "v100", "kepler", "gtx580", "g80", "hd5870", "cdna3", "rdna3"]);
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
        (named.name.as_str(), named.load_pair_merge.is_none(), named.timing.is_none()),
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
    ("unknown preset as base", "(base: \"h200\")", &["c.ron:1:", "unknown preset `h200`", "h100"]),
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
    let msg = configs::load("h200").unwrap_err().to_string();
    assert!(msg.contains("unknown preset `h200`") && msg.contains("h100, a100"), "{msg}");
    let msg = configs::load(env!("CARGO_MANIFEST_DIR")).unwrap_err().to_string();
    assert!(msg.contains("directory"), "{msg}");
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
