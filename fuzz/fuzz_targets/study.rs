//! The study (sweep spec) parser and its expansion into hardware and workload cells.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(study) = configs::study::Study::parse(text, "fuzz.ron") else { return };
    // bound the expansion: a study of many axes is legal but slow to expand
    let cells: usize = study.hardware.values().map(|v| v.len().max(1)).product::<usize>() * study.presets.len();
    if cells > 10_000 {
        return;
    }
    if let Ok(hw) = study.hardware_cells("fuzz.ron") {
        assert!(hw.iter().all(|c| c.hardware.validate().is_ok()));
    }
    let _ = study.workload_cells("fuzz.ron");
});
