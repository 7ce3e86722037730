//! The stride sweep's one-SM shortcut against the full engine.

use pipeline::stridebench::{predict, Sweep};

#[test]
fn one_sm_share_gives_the_full_engines_figures() {
    let hw = configs::preset("h100").unwrap();
    let sms = hw.timing.as_ref().unwrap().sms;
    // 264 blocks: two per SM, the shortcut applies
    assert_eq!(264 % sms, 0);
    for stride in [1, 2, 17, 32] {
        for gap in [0, 7] {
            let sweep = Sweep { blocks: 264, iters: 64, stride, gap };
            let full = predict(&hw, &sweep, false).unwrap();
            let one = predict(&hw, &sweep, true).unwrap();
            assert_eq!(one, full, "stride {stride} gap {gap}");
            assert!(full.cycles > 0);
        }
    }
    // more blocks than fit on the SMs at once: the later blocks are dispatched in rounds
    let mut small = hw.clone();
    small.timing.as_mut().unwrap().sms = 4;
    let sweep = Sweep { blocks: 4 * 9, iters: 32, stride: 33, gap: 3 };
    let full = predict(&small, &sweep, false).unwrap();
    assert!(full.blocks_per_sm < 9, "{full:?}: every block resident at once tests no dispatch");
    assert_eq!(predict(&small, &sweep, true).unwrap(), full);
}
