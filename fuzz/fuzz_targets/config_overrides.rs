//! A config's fields over a preset (`configs::parse_overrides`, as the Python package
//! applies keyword arguments, and `parse_config`): any text gives valid hardware or an
//! error that names the file in banksim's words, and a byte-order mark changes nothing.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let base = configs::preset("h100").expect("the h100 preset parses");
    match configs::parse_overrides(&base, text, "fuzz.ron") {
        Ok(hw) => assert!(hw.validate().is_ok(), "parsed overrides are valid"),
        Err(e) => {
            let m = e.to_string();
            assert!(m.contains("fuzz.ron"), "{m}");
            assert!(!m.contains("serde_stacker"), "{m}");
        }
    }
    if !text.starts_with('\u{feff}') {
        let bom = format!("\u{feff}{text}");
        let (plain, marked) = (configs::parse_config(text, "fuzz.ron"), configs::parse_config(&bom, "fuzz.ron"));
        assert_eq!(plain.ok(), marked.ok());
    }
});
