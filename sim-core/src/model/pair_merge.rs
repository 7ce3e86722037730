//! The load pair-merge rule (H100): a wide load whose lanes pair up (each lane and its
//! partner `lane ^ mask` on the same address) is served in phases of twice the lanes.

use crate::hardware::Hardware;
use crate::request::WarpRequest;

/// Marks an inactive lane in the per-lane address table the rule is checked with.
pub(super) const NONE: u32 = u32::MAX;

/// Whether the lanes of load `req` pair up under `hw`'s pair-merge rule. `dense` holds
/// `NONE` for every lane of the warp, and does again on return.
pub(super) fn pairs_merge(hw: &Hardware, dense: &mut [u32], req: &WarpRequest<'_>) -> bool {
    let Some(pm) = &hw.crossbar.load_pair_merge else { return false };
    if !pm.widths.contains(&req.bytes) {
        return false;
    }
    for (&lane, &addr) in req.lanes.iter().zip(req.addrs) {
        dense[lane as usize] = addr;
    }
    let warp = hw.warp;
    let merged = pm.masks.iter().any(|&mask| {
        req.lanes.iter().zip(req.addrs).all(|(&lane, &addr)| {
            let partner = lane as u32 ^ mask;
            partner >= warp || {
                let other = dense[partner as usize];
                other == NONE || other == addr
            }
        })
    });
    for &lane in req.lanes {
        dense[lane as usize] = NONE;
    }
    merged
}
