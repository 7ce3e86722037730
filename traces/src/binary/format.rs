//! The format's constants (magic, header and chunk layout, flags, address modes) and
//! the one-byte attribute code of an op, width and dependence.

use sim_core::Op;

/// The first 8 bytes of every binary trace.
pub const MAGIC: &[u8; 8] = b"\x89BNKSIM\n";
/// The newest format version this crate reads (every version from 1: version 2 added
/// the tile address mode, version 3 sites, version 4 the tensor-core ops). It writes
/// version 2, 3 for a trace with sites, or 4 for a writer told it may meet a
/// tensor-core op, so that an older reader still reads every trace it could hold.
pub const VERSION: u16 = 4;
/// The version of a file without sites.
pub(super) const VERSION_NO_SITES: u16 = 2;
/// The first version with sites.
pub(super) const VERSION_SITES: u16 = 3;
/// The first version whose attribute codes name the tensor-core ops (`ldsm`, `stsm`,
/// `ldgsts`, `ldgsts.cg`): op bits 7.
pub(super) const VERSION_TENSOR_OPS: u16 = 4;
/// Threads per group (the lane mask's width).
pub const SLICE_LANES: u32 = 64;

pub(super) const HEADER_LEN: usize = 20;
pub(super) const CHUNK_TAG: &[u8; 4] = b"CHNK";
pub(super) const END_TAG: &[u8; 4] = b"END!";
pub(super) const CHUNK_HEADER_LEN: usize = 72;
pub(super) const END_LEN: usize = 32;
pub(super) const COLUMNS: usize = 8;
pub(super) const COLUMN_NAMES: [&str; COLUMNS] =
    ["block", "slice", "step", "mask", "attr", "gap", "addr mode", "addr"];
/// Largest payload a reader accepts for one chunk.
pub const MAX_CHUNK_BYTES: u32 = 1 << 30;
/// A writer closes a chunk at the next (block, slice) boundary once it holds this many
/// active lanes.
pub const CHUNK_LANES: u32 = 1 << 16;

pub(super) const FLAG_TIMING: u16 = 1;
pub(super) const FLAG_WAIT: u16 = 2;
/// Every gap (and wait) is followed by its site + 1 (0 for none); the site table
/// follows the header.
pub(super) const FLAG_SITES: u16 = 4;
pub(super) const SITES_TAG: &[u8; 4] = b"SITE";
/// The longest site label a reader accepts, in bytes.
pub(super) const MAX_SITE_LABEL: u32 = 1 << 16;
pub(super) const PER_LANE: u8 = 0xFF;
pub(super) const EXPLICIT_MASK: u8 = 0xFF;
pub(super) const MODE_ZERO: u8 = 0;
pub(super) const MODE_AFFINE: u8 = 1;
pub(super) const MODE_DELTA: u8 = 2;
pub(super) const MODE_REPEAT: u8 = 3;
pub(super) const MODE_PACKED: u8 = 4;
pub(super) const MODE_TILE: u8 = 5;

/// (op, bytes, dep) of a code; `None` for an invalid code. (A tensor-core op's code is
/// valid from version 4 on only: see [`valid_code`].)
#[inline]
pub(super) fn decode_code(code: u8) -> Option<(Op, u8, Option<bool>)> {
    CODES[code as usize]
}

/// Whether `code` is valid in a file of a version with (`tensor_ops`) or without the
/// tensor-core ops.
#[inline]
pub(super) fn valid_code(code: u8, tensor_ops: bool) -> bool {
    match CODES[code as usize] {
        Some((op, _, _)) => tensor_ops || !op.is_tensor(),
        None => false,
    }
}

/// The tensor-core ops and widths of op code 7, by bits 3-5 of the code (version 4).
const TENSOR_CODES: [(Op, u8); 6] = [
    (Op::MatrixLoad, 16),
    (Op::MatrixStore, 16),
    (Op::AsyncCopy, 4),
    (Op::AsyncCopy, 8),
    (Op::AsyncCopy, 16),
    (Op::AsyncCopyBypass, 16),
];

/// The op and width bits (0-5) of `op` at `bytes`; `None` for a pair the format cannot
/// hold.
pub(super) fn op_width_bits(op: Op, bytes: u8) -> Option<u8> {
    if op.is_tensor() {
        let i = TENSOR_CODES.iter().position(|&t| t == (op, bytes))?;
        return Some(7 | (i as u8) << 3);
    }
    let width = match (op, bytes) {
        (Op::Barrier, 0) => 0,
        (Op::Barrier, _) => return None,
        (_, b) if sim_core::is_valid_width(b) => b.trailing_zeros() as u8 + 1,
        _ => return None,
    };
    Some(op as u8 | width << 3)
}

/// [`decode_code`] of every code, computed once.
const CODES: [Option<(Op, u8, Option<bool>)>; 256] = {
    const fn decode(code: u8) -> Option<(Op, u8, Option<bool>)> {
        let width = (code >> 3) & 7;
        let op = match code & 7 {
            0 => Op::Load,
            1 => Op::Store,
            2 => Op::Atomic,
            3 => Op::Reduction,
            4 => Op::Barrier,
            5 => Op::GlobalLoad,
            6 => Op::GlobalStore,
            _ => Op::MatrixLoad, // a tensor-core op: which one, in the width bits
        };
        let (op, bytes) = match (op, width) {
            (Op::MatrixLoad, w) if (w as usize) < TENSOR_CODES.len() => TENSOR_CODES[w as usize],
            (Op::MatrixLoad, _) => return None,
            (Op::Barrier, 0) => (op, 0),
            (Op::Barrier, _) | (_, 0) | (_, 6..) => return None,
            (_, w) => (op, 1u8 << (w - 1)),
        };
        let dep = match code >> 6 {
            0 => None,
            1 => Some(false),
            2 => Some(true),
            _ => return None,
        };
        Some((op, bytes, dep))
    }
    let mut table = [None; 256];
    let mut code = 0;
    while code < 256 {
        table[code] = decode(code as u8);
        code += 1;
    }
    table
};

/// The access width of a code (0 for an invalid one).
pub(super) fn width_of(code: u8) -> u8 {
    decode_code(code).map_or(0, |(_, b, _)| b)
}

/// The dependence field of a code (bits 6-7): none, 0 or 1.
pub(super) fn dep_bits(dep: Option<bool>) -> u8 {
    match dep {
        None => 0,
        Some(false) => 1,
        Some(true) => 2,
    }
}

/// Whether the set bits of `mask` are one contiguous run (a lane mask the mask column
/// stores as first lane and count).
#[inline]
pub(super) fn is_run(mask: u64) -> bool {
    let m = mask >> mask.trailing_zeros();
    m.wrapping_add(1) & m == 0
}
