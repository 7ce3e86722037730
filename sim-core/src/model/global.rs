//! Global accesses (`gld`, `gst`): one pipe wavefront per 128-byte line the warp touches.

use crate::request::Outcome;

/// Bytes of one global-memory line: a global access costs one pipe wavefront per line
/// the warp touches (see `Op::GlobalLoad`).
pub(crate) const GLOBAL_LINE_BYTES: u32 = 128;

/// A global access's wavefronts: the distinct [`GLOBAL_LINE_BYTES`] lines among
/// `addrs` (never conflicts: `ideal` is the same).
pub(super) fn global_lines(addrs: &[u32]) -> Outcome {
    let n = distinct_units(addrs, GLOBAL_LINE_BYTES);
    Outcome { wavefronts: n, ideal: n }
}

/// The number of distinct `unit`-byte pieces of memory among `addrs` (lines of 128
/// bytes: what [`global_lines`] counts; sectors of 32).
pub(crate) fn distinct_units(addrs: &[u32], unit: u32) -> u32 {
    let mut seen = [0u32; 64];
    let mut n = 0;
    for &a in addrs {
        let u = a / unit;
        if !seen[..n].contains(&u) {
            if n == seen.len() {
                // more than 64 lanes (no supported warp size): count the rest as new
                return addrs.len() as u32;
            }
            seen[n] = u;
            n += 1;
        }
    }
    n as u32
}
