//! Built-in trace generators for the demo and the tests (the full set of parametric
//! generators arrives with the studies issue).

use crate::record::{Record, Trace};
use sim_core::Op;

/// A block that transposes a `tile × tile` tile of `bytes`-byte elements through shared
/// memory: every thread stores its element row-wise (`sh[ty][tx]`), a barrier, then
/// loads column-wise (`sh[tx][ty]`); rows are `tile + pad` elements apart. One block of
/// `tile × tile` threads, thread = ty * tile + tx.
pub fn transpose(tile: u32, pad: u32, bytes: u8) -> Trace {
    let mut trace = Trace::new(format!("transpose {tile}x{tile} pad {pad} ({bytes}-byte)"));
    let pitch = tile + pad;
    for ty in 0..tile {
        for tx in 0..tile {
            let thread = ty * tile + tx;
            let rec = |step, op, elem: u32| Record {
                block: 0,
                thread,
                step,
                op,
                addr: elem * bytes as u32,
                bytes: if op == Op::Barrier { 0 } else { bytes },
                gap: 0,
                dep: None,
            };
            trace.push(rec(0, Op::Store, ty * pitch + tx));
            trace.push(rec(1, Op::Barrier, 0));
            trace.push(rec(2, Op::Load, tx * pitch + ty));
        }
    }
    trace
}

/// One block of `threads` threads, each issuing one `op` of `bytes` bytes at element
/// `offset + thread × stride` (in elements of `bytes`).
pub fn strided(threads: u32, stride: u32, offset: u32, bytes: u8, op: Op) -> Trace {
    let mut trace = Trace::new(format!("stride {stride} ({bytes}-byte {op})"));
    for thread in 0..threads {
        trace.push(Record {
            block: 0,
            thread,
            step: 0,
            op,
            addr: (offset + thread * stride) * bytes as u32,
            bytes,
            gap: 0,
            dep: None,
        });
    }
    trace
}
