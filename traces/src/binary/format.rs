//! The format's constants (magic, header and chunk layout, flags, address modes) and
//! the one-byte attribute code of an op, width and dependence.

use sim_core::Op;

/// The first 8 bytes of every binary trace.
pub const MAGIC: &[u8; 8] = b"\x89BNKSIM\n";
/// The newest format version this crate reads (every version from 1: version 2 added
/// the tile address mode, version 3 sites). It writes version 2, or 3 for a trace with
/// sites, so that a reader of version 2 still reads every trace without sites.
pub const VERSION: u16 = 3;
/// The version of a file without sites.
pub(super) const VERSION_NO_SITES: u16 = 2;
/// The first version with sites.
pub(super) const VERSION_SITES: u16 = 3;
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

/// (op, bytes, dep) of a code; `None` for an invalid code.
#[inline]
pub(super) fn decode_code(code: u8) -> Option<(Op, u8, Option<bool>)> {
    CODES[code as usize]
}

/// [`decode_code`] of every code, computed once.
const CODES: [Option<(Op, u8, Option<bool>)>; 256] = {
    const fn decode(code: u8) -> Option<(Op, u8, Option<bool>)> {
        let op = match code & 7 {
            0 => Op::Load,
            1 => Op::Store,
            2 => Op::Atomic,
            3 => Op::Reduction,
            4 => Op::Barrier,
            5 => Op::GlobalLoad,
            6 => Op::GlobalStore,
            _ => return None,
        };
        let width = (code >> 3) & 7;
        let bytes = match (op, width) {
            (Op::Barrier, 0) => 0,
            (Op::Barrier, _) | (_, 0) | (_, 6..) => return None,
            (_, w) => 1u8 << (w - 1),
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
