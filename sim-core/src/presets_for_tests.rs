//! Hardware descriptions for doctests and unit tests. The real presets are RON files in
//! `configs/`; this one mirrors `configs/presets/h100.ron`'s bank rules.

use crate::crossbar::OpRules;
use crate::hardware::{Crossbar, Hardware, PairMerge, SameWord};
use crate::mapping::BankMapping;

/// H100-like bank rules: 32 banks of 4 bytes, warp 32, a 128-byte crossbar, multicast,
/// returning atomics serialized, pair-merged 8/16-byte loads.
pub fn h100_like() -> Hardware {
    Hardware {
        name: "h100-like".into(),
        banks: 32,
        bank_bytes: 4,
        warp: 32,
        crossbar: Crossbar {
            width: 128,
            lanes: None,
            groups: Vec::new(),
            broadcast: SameWord::Multicast,
            write_collision: SameWord::Multicast,
            atomic: SameWord::Serialize,
            reduction: SameWord::Multicast,
            load_pair_merge: Some(PairMerge { widths: vec![8, 16], masks: vec![1, 2] }),
            ports: 1,
            ops: OpRules::default(),
        },
        mapping: BankMapping::Linear,
        smem_per_sm: 228 * 1024,
        timing: None,
    }
}
