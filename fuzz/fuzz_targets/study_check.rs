//! A study checked whole (`Study::expand`, what `banksim sweep` runs before anything):
//! every problem names the study file, no message names the parser's internals, a
//! byte-order mark changes nothing, and the line finder reads any text.
#![no_main]
use configs::study::{key, locate, Seg, Source, Study};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let _ = locate::line_of(text, &[key("workloads"), Seg::Index(0), key("params")]);
    let _ = locate::is_one_value(text);
    let study = match Study::parse(text, "fuzz.ron") {
        Ok(s) => s,
        Err(e) => {
            let m = e.to_string();
            assert!(m.starts_with("fuzz.ron"), "{m}");
            assert!(!m.contains("serde_stacker") && !m.contains("untagged"), "{m}");
            return;
        }
    };
    if !text.starts_with('\u{feff}') {
        let bom = format!("\u{feff}{text}");
        assert_eq!(Study::parse(&bom, "fuzz.ron").ok().as_ref(), Some(&study));
    }
    // keep the loop fast: expand only small studies
    let Ok(cells) = study.cell_count("fuzz.ron") else { return };
    if cells > 10_000 {
        return;
    }
    let e = study.expand(Source { file: "fuzz.ron", text });
    assert_eq!(e.workloads.len(), e.spec_of.len());
    for p in &e.problems {
        assert!(p.starts_with("fuzz.ron"), "{p}");
    }
    if e.problems.is_empty() {
        assert!(e.hardware.iter().all(|c| c.hardware.validate().is_ok()));
    }
});
