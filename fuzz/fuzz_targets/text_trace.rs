//! The text trace reader, grouping at three warp sizes, and the H100 bank model on
//! whatever parses: errors are fine, panics are bugs.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(trace) = traces::text::parse(data, "fuzz.csv") else { return };
    let hw = sim_core::presets_for_tests::h100_like();
    let mut model = sim_core::BankModel::new(&hw);
    for warp in [16, 32, 64] {
        let Ok(requests) = traces::Requests::group(&trace, warp) else { continue };
        if warp != 32 {
            continue;
        }
        for r in requests.iter() {
            let o = model.evaluate(&r.warp_request());
            assert!(o.wavefronts >= o.ideal || r.lanes.is_empty() || !r.op.is_memory());
        }
    }
});
