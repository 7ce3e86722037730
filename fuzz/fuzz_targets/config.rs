//! The config / preset parser: any text gives a validated Hardware or an error.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(hw) = configs::parse_config(text, "fuzz.ron") {
        assert!(hw.validate().is_ok(), "a parsed config is valid");
    }
});
