//! The binary trace reader: any bytes give a trace or an error naming the offset.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(trace) = traces::binary::parse(data, "fuzz.bsim") {
        let _ = traces::Requests::group(&trace, 32);
    }
});
