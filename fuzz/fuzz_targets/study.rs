//! The study (sweep spec) parser, its size check and its expansion into hardware and
//! workload cells.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(study) = configs::study::Study::parse(text, "fuzz.ron") else { return };
    // the size check never overflows and bounds every expansion below it; keep the fuzz
    // loop fast by expanding only small studies
    let Ok(cells) = study.cell_count("fuzz.ron") else { return };
    assert!(cells <= configs::study::MAX_CELLS);
    if cells > 10_000 {
        return;
    }
    if let Ok(hw) = study.hardware_cells("fuzz.ron") {
        assert!(hw.iter().all(|c| c.hardware.validate().is_ok()));
    }
    let _ = study.workload_cells("fuzz.ron");
});
