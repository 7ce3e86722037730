//! `banksim probe`'s inference without a GPU: times made from presets' own bank models
//! (`pipeline::probe::synthesize`) must give back each preset's banks, bank width, lanes
//! served together, broadcast rule and pair merge; times that do not depend on the
//! pattern must give "no banks".

use pipeline::probe::infer::{infer, Inference};
use pipeline::probe::patterns::{patterns, WIDTHS};
use pipeline::probe::report::{compare_with, fields, lane_set, preset};
use pipeline::probe::{evidence, synthesize, Evidence, Timing, Verdict};
use sim_core::Hardware;

/// The inference on `hw`'s synthesized times (floor in wavefronts, noise as a share).
fn probe(hw: &Hardware, floor: f64, noise: f64) -> (Evidence, Inference) {
    let e = synthesize(hw, &patterns(hw.warp), floor, noise);
    let inf = infer(&e);
    (e, inf)
}

/// Asserts that `inf` found `hw`'s structure, field by field.
fn assert_found(inf: &Inference, hw: &Hardware) {
    let c = &inf.best.candidate;
    let name = &hw.name;
    assert_eq!(inf.verdict, Verdict::Banks, "{name}");
    assert_eq!((c.warp, c.banks, c.bank_bytes), (hw.warp, hw.banks, hw.bank_bytes), "{name}: {c:?}");
    for (i, w) in WIDTHS.iter().enumerate() {
        assert_eq!(c.lanes[i], lane_set(hw, *w as u8), "{name}: lanes at {w} B: {c:?}");
    }
    assert_eq!(c.broadcast, hw.crossbar.broadcast, "{name}");
    let merge = hw.crossbar.load_pair_merge.as_ref().map_or(vec![], |m| m.masks.clone());
    assert_eq!(c.merge, merge, "{name}");
    assert!(inf.undetermined.is_empty(), "{name}: undetermined {:?}", inf.undetermined);
}

#[test]
fn the_h100_preset_is_found_from_its_own_wavefronts() {
    let h100 = configs::preset("h100").unwrap();
    let (e, inf) = probe(&h100, 1.0, 0.0);
    assert_found(&inf, &h100);
    // and the comparison says so, field by field
    let found = inf.best.candidate.hardware("probed", Some(&h100), e.smem_per_sm);
    let c = compare_with("h100", &h100, &e, &inf);
    let text = fields(&found, &c, &inf, e.patterns.len());
    assert!(text.contains("0 of 8 fields differ"), "{text}");
}

#[test]
fn the_h100_is_found_when_short_loads_are_bound_by_issue_and_times_are_noisy() {
    // a load of fewer than 1.5 wavefronts' worth takes as long as 1.5, times within 5%
    let h100 = configs::preset("h100").unwrap();
    let (_, inf) = probe(&h100, 1.5, 0.05);
    assert_found(&inf, &h100);
    assert_eq!(inf.best.fit.floor, 1.5);
}

#[test]
fn every_preset_is_found_from_its_own_wavefronts_with_noise() {
    // 16 (g80), 32 and 64 (cdna4) banks; 8-byte banks (kepler); warps of 64 (cdna3,
    // cdna4, hd5870); cdna3's 16-byte lane groups that are not consecutive lanes
    for name in configs::preset_names() {
        let hw = configs::preset(name).unwrap();
        let (_, inf) = probe(&hw, 1.0, 0.03);
        assert_found(&inf, &hw);
    }
}

#[test]
fn the_h100_preset_is_found_from_times_measured_on_an_h100() {
    // `banksim probe --csv` on an H100 80GB HBM3 (validate/results/h100/probe/)
    let path = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/h100/probe_times.csv"));
    let e = evidence::parse(&std::fs::read_to_string(path).unwrap(), path).unwrap();
    let inf = infer(&e);
    let h100 = configs::preset("h100").unwrap();
    assert_found(&inf, &h100);
    assert!(inf.best.fit.rms(e.patterns.len()) < 0.05, "{:?}", inf.best.fit);
}

#[test]
fn the_evidence_read_back_from_csv_gives_the_same_structure() {
    let hw = configs::preset("cdna4").unwrap();
    let (e, inf) = probe(&hw, 1.0, 0.03);
    let back = evidence::parse(&evidence::to_csv(&e), std::path::Path::new("cdna4.csv")).unwrap();
    let again = infer(&back);
    assert_eq!(again.best.candidate, inf.best.candidate);
    assert_found(&again, &hw);
}

#[test]
fn the_probed_preset_reads_back_as_a_config() {
    let hw = configs::preset("rdna3").unwrap();
    let (e, inf) = probe(&hw, 1.0, 0.03);
    let found = inf.best.candidate.hardware("probed-rdna3", Some(&hw), e.smem_per_sm);
    let text = preset(&e, &inf, &found, Some("rdna3")).unwrap();
    let back = configs::parse_config(&text, "probed-rdna3.ron").unwrap();
    assert_eq!(back, found);
    back.validate().unwrap();
    assert!(text.starts_with("// `probed-rdna3`: shared-memory banks probed"), "{text}");
}

/// Evidence of `patterns(warp)` whose times are `per_width[i]` ns at width `WIDTHS[i]`,
/// each times a pseudo-random factor within `1 ± noise`, and a fixed cost of 100 ns.
fn flat(warp: u32, per_width: [f64; 3], noise: f64) -> Evidence {
    let ps = patterns(warp);
    let mut jitter = pipeline::probe::jitter(0x9e37_79b9_7f4a_7c15, noise);
    let at = |ns: f64| Timing { median_ns: ns, q1_ns: ns, q3_ns: ns, reps: 1 };
    let times = ps
        .iter()
        .map(|p| {
            let w = WIDTHS.iter().position(|&w| w == p.bytes).unwrap();
            at(100.0 + per_width[w] * jitter())
        })
        .collect();
    Evidence {
        adapter: "flat".into(),
        warps: vec![warp],
        smem_per_sm: 32768,
        timer: "synthesized".into(),
        patterns: ps,
        times,
        overhead: [at(100.0); 3],
    }
}

#[test]
fn flat_times_show_no_banks() {
    // one time for every pattern; a time per width (a CPU moves more bytes in a wider
    // load); with noise up to 40% (a busy CPU); on warps of 8 (lavapipe's subgroups), 32 and 64
    for (warp, per_width, noise) in [
        (32, [5000.0; 3], 0.0),
        (32, [5000.0, 5300.0, 7000.0], 0.10),
        (8, [5000.0, 5300.0, 7000.0], 0.10),
        (64, [5000.0, 5000.0, 9000.0], 0.05),
        (8, [5000.0, 5300.0, 7000.0], 0.40),
        (32, [5000.0, 5300.0, 7000.0], 0.40),
    ] {
        let inf = infer(&flat(warp, per_width, noise));
        assert_eq!(inf.verdict, Verdict::NoBanks, "warp {warp}, {per_width:?}, noise {noise}");
    }
}
