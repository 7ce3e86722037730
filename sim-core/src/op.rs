//! What a warp request does: the operation and its access width.

use serde::{Deserialize, Serialize};
use std::fmt;

/// The operation of one warp request.
///
/// Atomics come in two kinds because the hardware treats them differently: on an H100,
/// `ATOMS.ADD` whose result is used serializes every lane (even lanes on one word),
/// while a reduction whose result is unused (`ATOMS.POPC.INC`) merges lanes on one word.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[repr(u8)]
pub enum Op {
    /// A shared-memory load (`ld`).
    Load = 0,
    /// A shared-memory store (`st`).
    Store = 1,
    /// An atomic whose result is returned to the thread (`atom`).
    Atomic = 2,
    /// An atomic reduction whose result is unused (`red`).
    Reduction = 3,
    /// A block-wide barrier (`bar`): no memory access.
    Barrier = 4,
    /// A global-memory load (`gld`): not a shared access, but on GPUs whose L1 cache and
    /// shared memory are one unit (NVIDIA since Volta) it passes through the same pipe,
    /// one wavefront per 128-byte line the warp touches, and returns after the
    /// timing's `global_latency`.
    GlobalLoad = 5,
    /// A global-memory store (`gst`): the pipe's wavefronts, nothing returns.
    GlobalStore = 6,
}

impl Op {
    /// Every operation, in code order.
    pub const ALL: [Op; 7] =
        [Op::Load, Op::Store, Op::Atomic, Op::Reduction, Op::Barrier, Op::GlobalLoad, Op::GlobalStore];

    /// The short name used in trace files and reports.
    pub fn name(self) -> &'static str {
        match self {
            Op::Load => "ld",
            Op::Store => "st",
            Op::Atomic => "atom",
            Op::Reduction => "red",
            Op::Barrier => "bar",
            Op::GlobalLoad => "gld",
            Op::GlobalStore => "gst",
        }
    }

    /// Parses a short name (`ld`, `st`, `atom`, `red`, `bar`, `gld`, `gst`).
    pub fn from_name(s: &str) -> Option<Op> {
        Op::ALL.into_iter().find(|op| op.name() == s)
    }

    /// Whether the request accesses shared memory (`ld`, `st`, `atom`, `red`): what the
    /// bank model serves.
    pub fn is_memory(self) -> bool {
        matches!(self, Op::Load | Op::Store | Op::Atomic | Op::Reduction)
    }

    /// Whether the request accesses global memory (`gld`, `gst`).
    pub fn is_global(self) -> bool {
        matches!(self, Op::GlobalLoad | Op::GlobalStore)
    }

    /// Whether the request returns data its warp may wait for (`ld`, `atom`, `gld`).
    pub fn returns(self) -> bool {
        matches!(self, Op::Load | Op::Atomic | Op::GlobalLoad)
    }
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Access widths a lane may use, in bytes.
pub const WIDTHS: [u8; 5] = [1, 2, 4, 8, 16];

/// Whether `bytes` is a supported access width (1, 2, 4, 8 or 16).
#[inline]
pub fn is_valid_width(bytes: u8) -> bool {
    // (the writer asks for every lane: no search through `WIDTHS`)
    matches!(bytes, 1 | 2 | 4 | 8 | 16)
}

/// Index of a width in [`WIDTHS`]; `None` for an unsupported width.
pub fn width_index(bytes: u8) -> Option<usize> {
    WIDTHS.iter().position(|&w| w == bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_widths_are_the_listed_ones() {
        for b in 0..=u8::MAX {
            assert_eq!(is_valid_width(b), WIDTHS.contains(&b), "width {b}");
            assert_eq!(width_index(b).is_some(), is_valid_width(b), "width {b}");
        }
    }
}
