//! What a warp request does: the operation and its access width.

use serde::{Deserialize, Serialize};
use std::fmt;

/// The operation of one warp request.
///
/// Atomics come in two kinds because the hardware treats them differently: on an H100,
/// `ATOMS.ADD` whose result is used serializes every lane (even lanes on one word),
/// while a reduction whose result is unused (`ATOMS.POPC.INC`) merges lanes on one word.
///
/// The instructions of tensor-core kernels have ops of their own, each served by its own
/// rule of the crossbar ([`crate::OpRules`]): `ldmatrix` / `stmatrix` (`LDSM` / `STSM`),
/// one record per lane that supplies a 16-byte row address (8 per 8×8 matrix: lanes 0–7
/// for `.x1`, 0–15 for `.x2`, 0–31 for `.x4`; `.trans` addresses the same banks), and
/// `cp.async` (`LDGSTS`): a lane's write of 4, 8 or 16 bytes into shared memory, its
/// address the shared destination.
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
    /// `ldmatrix` (`ldsm`): each record a 16-byte row of an 8×8 matrix of 16-bit
    /// elements; returns data like a load.
    MatrixLoad = 7,
    /// `stmatrix` (`stsm`): each record a 16-byte row written; nothing returns.
    MatrixStore = 8,
    /// `cp.async.ca` (`ldgsts`): a copy from global into shared memory of 4, 8 or 16
    /// bytes per lane, at the record's shared address; the shared-memory write's
    /// wavefronts go through the pipe like a store's, and nothing returns to a register.
    AsyncCopy = 9,
    /// `cp.async.cg` (`ldgsts.cg`, SASS `LDGSTS.E.BYPASS`): the 16-byte copy that
    /// bypasses the L1; on the H100 its shared-memory write does not use the pipe's
    /// wavefronts at all.
    AsyncCopyBypass = 10,
}

impl Op {
    /// How many operations there are.
    pub const COUNT: usize = 11;

    /// Every operation, in code order.
    pub const ALL: [Op; Op::COUNT] = [
        Op::Load,
        Op::Store,
        Op::Atomic,
        Op::Reduction,
        Op::Barrier,
        Op::GlobalLoad,
        Op::GlobalStore,
        Op::MatrixLoad,
        Op::MatrixStore,
        Op::AsyncCopy,
        Op::AsyncCopyBypass,
    ];

    /// The tensor-core-era ops (`ldsm`, `stsm`, `ldgsts`, `ldgsts.cg`), each with its own
    /// rule in the crossbar ([`crate::OpRules`]).
    pub const TENSOR: [Op; 4] = [Op::MatrixLoad, Op::MatrixStore, Op::AsyncCopy, Op::AsyncCopyBypass];

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
            Op::MatrixLoad => "ldsm",
            Op::MatrixStore => "stsm",
            Op::AsyncCopy => "ldgsts",
            Op::AsyncCopyBypass => "ldgsts.cg",
        }
    }

    /// Parses a short name (`ld`, `st`, `atom`, `red`, `bar`, `gld`, `gst`, `ldsm`, `stsm`,
    /// `ldgsts`, `ldgsts.cg`).
    pub fn from_name(s: &str) -> Option<Op> {
        Op::ALL.into_iter().find(|op| op.name() == s)
    }

    /// Whether the request accesses shared memory (`ld`, `st`, `atom`, `red` and the
    /// tensor-core ops): what the bank model serves.
    pub fn is_memory(self) -> bool {
        !matches!(self, Op::Barrier | Op::GlobalLoad | Op::GlobalStore)
    }

    /// Whether the op is one of [`Op::TENSOR`].
    pub fn is_tensor(self) -> bool {
        matches!(self, Op::MatrixLoad | Op::MatrixStore | Op::AsyncCopy | Op::AsyncCopyBypass)
    }

    /// The access widths the op allows: 16 bytes for `ldsm`, `stsm` and `ldgsts.cg`; 4, 8
    /// or 16 for `ldgsts`; every width of [`WIDTHS`] for the others (barriers take none).
    pub fn widths(self) -> &'static [u8] {
        match self {
            Op::MatrixLoad | Op::MatrixStore | Op::AsyncCopyBypass => &[16],
            Op::AsyncCopy => &[4, 8, 16],
            _ => &WIDTHS,
        }
    }

    /// Whether `bytes` is a width the op allows ([`Op::widths`]).
    #[inline]
    pub fn allows_width(self, bytes: u8) -> bool {
        match self {
            Op::MatrixLoad | Op::MatrixStore | Op::AsyncCopyBypass => bytes == 16,
            Op::AsyncCopy => matches!(bytes, 4 | 8 | 16),
            _ => is_valid_width(bytes),
        }
    }

    /// Whether the request accesses global memory (`gld`, `gst`).
    pub fn is_global(self) -> bool {
        matches!(self, Op::GlobalLoad | Op::GlobalStore)
    }

    /// Whether the request returns data its warp may wait for (`ld`, `atom`, `gld`,
    /// `ldsm`).
    pub fn returns(self) -> bool {
        matches!(self, Op::Load | Op::Atomic | Op::GlobalLoad | Op::MatrixLoad)
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
    fn names_codes_and_widths_agree() {
        for (i, op) in Op::ALL.into_iter().enumerate() {
            assert_eq!(op as usize, i, "{op}: ALL is in code order");
            assert_eq!(Op::from_name(op.name()), Some(op));
            for b in 0..=u8::MAX {
                assert_eq!(op.allows_width(b), op.widths().contains(&b), "{op} {b}");
            }
        }
        assert!(Op::TENSOR.iter().all(|op| op.is_tensor() && op.is_memory()));
        assert_eq!(Op::ALL.iter().filter(|op| op.is_tensor()).count(), Op::TENSOR.len());
    }

    #[test]
    fn valid_widths_are_the_listed_ones() {
        for b in 0..=u8::MAX {
            assert_eq!(is_valid_width(b), WIDTHS.contains(&b), "width {b}");
            assert_eq!(width_index(b).is_some(), is_valid_width(b), "width {b}");
        }
    }
}
