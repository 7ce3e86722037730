//! The binary trace format: compact, columnar, checksummed, read in chunks.
//!
//! A binary trace holds the same per-thread records as a text trace, so it stays
//! warp-agnostic, but stores them grouped: a *group* is the active threads of one
//! 64-thread *slice* of a block (`slice = thread / 64`, `lane = thread % 64`) at one
//! step, with a 64-bit lane mask. Every supported warp size (a power of two up to 64)
//! divides 64, so a group splits into whole warp requests of any warp size without
//! looking at other groups: replaying at warp 32 cuts each mask in halves, at 16 in
//! quarters. Groups are sorted by (block, slice, step); a chunk always holds whole
//! runs of one (block, slice), so the requests of one chunk can be put in the engine's
//! (block, warp, step) order on their own, and memory stays bounded by the chunk size
//! (plus the largest single run of one 64-thread slice, which a chunk never splits).
//!
//! ```text
//! file    = header chunk* end
//! header  = magic "\x89BNKSIM\n" (8 bytes), version u16 = 2 (1: no tile mode), flags u16 (bit 0: the
//!           trace has the gap/dep columns; bit 1: every gap is followed by a wait),
//!           slice lanes u8 = 64, 3 zero bytes,
//!           CRC-32 u32 of the 16 bytes before it
//! chunk   = "CHNK", groups u32, lanes u32 (active lanes = records),
//!           first (block, slice, step) 3 x u32, last (block, slice, step) 3 x u32,
//!           8 column lengths u32, CRC-32 u32 (IEEE, of the 68 bytes before it and the
//!           payload), payload = the 8 columns one after the other
//! end     = "END!", chunks u64, groups u64, lanes u64, CRC-32 u32 of the 28 bytes
//!           before it; nothing may follow
//! ```
//! All integers are little-endian. In the columns, `v` is an unsigned LEB128 varint and
//! `z` a zigzag varint (signed). Every chunk decodes on its own: the "previous group"
//! below starts as block 0, slice 0, step 0, first address 0, no addresses.
//!
//! | column | per group |
//! | --- | --- |
//! | 0 block | `v` block − previous block |
//! | 1 slice | `v` slice − previous slice if the block is the same, else `v` slice |
//! | 2 step | `v` step − previous step − 1 within the same (block, slice), else `v` step |
//! | 3 mask | contiguous lanes: first lane (u8 < 64), count (u8); otherwise 0xFF then the mask (u64) |
//! | 4 attr | one code (uniform group), or 0xFF then one code per active lane; code = op (bits 0-2: ld, st, atom, red, bar, gld, gst) + width (bits 3-5: 0 for bar, else log2(bytes) + 1) + dep (bits 6-7: none, 0, 1) |
//! | 5 gap | `v` gap, once per group, or once per active lane after a 0xFF attr; with flag bit 1, each gap is followed by `v` its wait: 0 for none, else wait + 1 (at most gap + 1) |
//! | 6 addr mode | 0 all zero; 1 affine; 2 delta; 3 repeat the previous group's addresses; 4 packed; 5 tile |
//! | 7 addr | affine: `z` first − previous first address, `z` stride per lane number (addr = first + stride × (lane − first lane)); delta: `z` first − previous first address, then `z` from each active lane's address to the next's; packed: `z` lowest − previous first address, u8 shift, u8 bits (shift + bits ≤ 32), then one `bits`-bit offset per active lane, packed LSB first into ⌈lanes × bits / 8⌉ bytes (addr = lowest + (offset << shift)); tile: `z` lane 0's address − previous first address, u8 bits (bit j set: lane bit j has a step; bits 6-7 zero), then `z` each step present, lowest bit first (addr = lane 0's + Σ steps of the lane number's set bits; every lane 0..63, active or not, inside 0..2^32, each step inside ±2^31) |
//!
//! ("Previous first address" is the first active lane's address of the previous group.)
//! So a warp reading `base + 4 × lane` costs about 10 bytes, a pointer chase that
//! repeats its addresses 8, 32 random words of 192 KiB about 70 (2 bytes a lane),
//! against about 1 KiB of text. The tile mode holds `smem[ty][tx]` with a power-of-two
//! row of threads, float4 tile loads and lanes sharing an element in pairs or quads: a
//! 64-lane float4 tile of 8-lane rows costs 13 bytes, against 60 packed, and a reader
//! need not write its addresses out. The writer picks, per group, the first of repeat,
//! zero and affine that fits, else the smallest of tile, delta and packed (a tile when
//! it is no larger). Corrupt or truncated files
//! give a [`BinaryError`] naming the file and the byte offset; nothing panics on bad
//! input.
//!
//! ```
//! use traces::{binary, text, Requests};
//!
//! let csv = "block,thread,step,op,addr,bytes\n0,0,0,ld,0,4\n0,1,0,ld,4,4\n0,33,0,st,128,4\n";
//! let trace = text::parse(csv.as_bytes(), "t.csv").unwrap();
//! let mut bytes = Vec::new();
//! binary::write(&trace, &mut bytes).unwrap();
//! assert_eq!(&bytes[..8], binary::MAGIC);
//! let back = binary::parse(&bytes[..], "t.bsim").unwrap();
//! let (a, b) = (Requests::group(&trace, 32).unwrap(), Requests::group(&back, 32).unwrap());
//! assert_eq!(a.len(), b.len());
//!
//! // or chunk by chunk, as warp requests, with bounded memory
//! let mut reader = binary::Reader::new(&bytes[..], "t.bsim", None).unwrap();
//! let (mut raw, mut chunk) = (binary::RawChunk::default(), binary::Chunk::default());
//! let mut requests = 0;
//! while reader.next_chunk(&mut raw).unwrap() {
//!     raw.decode(&mut chunk).unwrap();
//!     chunk.split(32).unwrap();
//!     requests += chunk.len();
//! }
//! assert_eq!(requests, 2); // warp 0 (lanes 0, 1) and warp 1 (lane 1)
//! ```

use crate::group::{merge_dep, merge_wait, RequestRef};
use crate::record::{Record, Trace};
// (lane numbers 0..64; requests with contiguous lanes borrow a slice of it)
use sim_core::LANE_NUMBERS as IOTA;
use sim_core::{LaneAddrs, MaskedRequest, Op};
use std::io::{Read, Write};
use std::path::Path;
use std::sync::Arc;

/// The first 8 bytes of every binary trace.
pub const MAGIC: &[u8; 8] = b"\x89BNKSIM\n";
/// The format version this crate writes; it reads every version from 1 (version 2
/// added the tile address mode).
pub const VERSION: u16 = 2;
/// Threads per group (the lane mask's width).
pub const SLICE_LANES: u32 = 64;

const HEADER_LEN: usize = 20;
const CHUNK_TAG: &[u8; 4] = b"CHNK";
const END_TAG: &[u8; 4] = b"END!";
const CHUNK_HEADER_LEN: usize = 72;
const END_LEN: usize = 32;
const COLUMNS: usize = 8;
const COLUMN_NAMES: [&str; COLUMNS] = ["block", "slice", "step", "mask", "attr", "gap", "addr mode", "addr"];
/// Largest payload a reader accepts for one chunk.
pub const MAX_CHUNK_BYTES: u32 = 1 << 30;
/// A writer closes a chunk at the next (block, slice) boundary once it holds this many
/// active lanes.
pub const CHUNK_LANES: u32 = 1 << 16;
/// Bytes of the file mapped at once ([`Reader::map_payloads`]; a larger payload gets a
/// window of its own size).
const WINDOW_BYTES: u64 = 4 << 20;
const FLAG_TIMING: u16 = 1;
const FLAG_WAIT: u16 = 2;
const PER_LANE: u8 = 0xFF;
const EXPLICIT_MASK: u8 = 0xFF;
const MODE_ZERO: u8 = 0;
const MODE_AFFINE: u8 = 1;
const MODE_DELTA: u8 = 2;
const MODE_REPEAT: u8 = 3;
const MODE_PACKED: u8 = 4;
const MODE_TILE: u8 = 5;
/// Reading a binary trace failed. Every variant names the file and, where it applies,
/// the byte offset.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BinaryError {
    /// The file could not be opened or read.
    #[error("{file}: cannot read at byte {offset}: {source}")]
    Io {
        /// The file.
        file: String,
        /// Byte offset of the failed read.
        offset: u64,
        /// The cause.
        source: std::io::Error,
    },
    /// The file does not start with [`MAGIC`].
    #[error("{file}: not a banksim binary trace (the first 8 bytes are not the magic \\x89BNKSIM\\n)")]
    Magic {
        /// The file.
        file: String,
    },
    /// The header names a version or flags this reader does not know.
    #[error(
        "{file}: byte {offset}: unsupported {what} {found} (this banksim reads versions 1 to {VERSION})"
    )]
    Unsupported {
        /// The file.
        file: String,
        /// Byte offset of the field.
        offset: u64,
        /// Which field.
        what: &'static str,
        /// The value found.
        found: u64,
    },
    /// The file ends early.
    #[error("{file}: truncated: the file ends at byte {offset} inside {inside}")]
    Truncated {
        /// The file.
        file: String,
        /// The file's length.
        offset: u64,
        /// What was being read.
        inside: String,
    },
    /// The bytes at `offset` are not a valid binary trace.
    #[error("{file}: corrupt at byte {offset}: {problem}")]
    Corrupt {
        /// The file.
        file: String,
        /// Byte offset of the bad field (for a checksum, of the chunk).
        offset: u64,
        /// What is wrong.
        problem: String,
    },
    /// Lanes of one warp request disagree on the op or width (warp sizes above the
    /// trace's own can merge threads that ran different instructions).
    #[error("{file}: chunk at byte {offset}: block {block} warp {warp} step {step} mixes {problem}; all lanes of a warp at one step must run the same instruction")]
    Mixed {
        /// The file.
        file: String,
        /// Byte offset of the chunk.
        offset: u64,
        /// Block id.
        block: u32,
        /// Warp index in the block.
        warp: u32,
        /// Step.
        step: u32,
        /// What differs.
        problem: String,
    },
    /// The warp size is not usable.
    #[error("warp size {warp} is not supported: expected a power of two from 1 to 64")]
    WarpSize {
        /// The warp size asked for.
        warp: u32,
    },
}

/// Writing a binary trace failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WriteError {
    /// The output could not be written.
    #[error("cannot write: {0}")]
    Io(#[from] std::io::Error),
    /// Two records of one thread share a step.
    #[error(
        "{file}: block {block} thread {thread} step {step} has two records (lines {first_line} and {line})"
    )]
    Duplicate {
        /// The trace's source.
        file: String,
        /// Block id.
        block: u32,
        /// Thread id.
        thread: u32,
        /// Step.
        step: u32,
        /// Line of one record (0 if generated).
        first_line: u32,
        /// Line of the other.
        line: u32,
    },
    /// A record or group the format cannot hold.
    #[error("{file}: block {block} slice {slice} step {step}: {problem}")]
    Invalid {
        /// The trace's source.
        file: String,
        /// Block id.
        block: u32,
        /// 64-thread slice.
        slice: u32,
        /// Step.
        step: u32,
        /// What is wrong.
        problem: String,
    },
}

/// One thread's attributes: what it does and when.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaneAttr {
    /// Operation.
    pub op: Op,
    /// Access width (0 for barriers).
    pub bytes: u8,
    /// Cycles of other work since the thread's previous record.
    pub gap: u32,
    /// Dependence on the thread's previous load.
    pub dep: Option<bool>,
    /// Cycles of `gap` before the first use of the previous load's value (a file
    /// written with waits only, see [`Writer::with_waits`]).
    pub wait: Option<u32>,
}

/// The attributes of a group's lanes.
#[derive(Clone, Copy, Debug)]
pub enum Attrs<'a> {
    /// Every active lane has these.
    Uniform(LaneAttr),
    /// One per active lane, in lane order.
    PerLane(&'a [LaneAttr]),
}

/// One group for [`Writer::push`]: the active threads of one 64-thread slice of a block
/// at one step.
#[derive(Clone, Copy, Debug)]
pub struct Group<'a> {
    /// Block id.
    pub block: u32,
    /// Slice: thread / 64.
    pub slice: u32,
    /// Step.
    pub step: u32,
    /// Active lanes (thread % 64), bit `l` for lane `l`; not zero.
    pub mask: u64,
    /// The lanes' attributes.
    pub attrs: Attrs<'a>,
    /// Byte address per active lane, in lane order.
    pub addrs: &'a [u32],
}

fn attr_code(a: &LaneAttr) -> Option<u8> {
    let width = match (a.op, a.bytes) {
        (Op::Barrier, 0) => 0,
        (Op::Barrier, _) => return None,
        (_, b) if sim_core::is_valid_width(b) => b.trailing_zeros() as u8 + 1,
        _ => return None,
    };
    let dep = match a.dep {
        None => 0,
        Some(false) => 1,
        Some(true) => 2,
    };
    Some(a.op as u8 | width << 3 | dep << 6)
}

/// (op, bytes, dep) of a code; `None` for an invalid code.
#[inline]
fn decode_code(code: u8) -> Option<(Op, u8, Option<bool>)> {
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

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn varint_len(v: u64) -> usize {
    (64 - (v | 1).leading_zeros() as usize).div_ceil(7)
}

fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

fn unzigzag(v: u64) -> i64 {
    (v >> 1) as i64 ^ -((v & 1) as i64)
}

/// Writes binary traces group by group, in (block, slice, step) order, closing a chunk
/// every [`CHUNK_LANES`] lanes at a (block, slice) boundary. Memory: one chunk.
pub struct Writer<W: Write> {
    out: W,
    name: String,
    cols: [Vec<u8>; COLUMNS],
    /// Groups and lanes in the open chunk.
    groups: u32,
    lanes: u32,
    first: (u32, u32, u32),
    /// Last group written (whole file), for ordering.
    last: Option<(u32, u32, u32)>,
    /// Previous group in the open chunk: its key, first address and addresses.
    prev_key: (u32, u32, u32),
    prev_first: u32,
    prev_addrs: Vec<u32>,
    chunks: u64,
    total_groups: u64,
    total_lanes: u64,
    chunk_lanes: u32,
    /// Whether the file stores a wait after every gap (flag bit 1).
    waits: bool,
}

impl<W: Write> Writer<W> {
    /// Starts a binary trace on `out`; `name` is used in messages, `timing_columns`
    /// records whether the source had the gap/dep columns.
    pub fn new(out: W, name: &str, timing_columns: bool) -> Result<Writer<W>, WriteError> {
        Writer::start(out, name, timing_columns, false)
    }

    /// [`Writer::new`] for records with waits (the text format's `wait` column): every
    /// gap is stored with its wait.
    pub fn with_waits(out: W, name: &str) -> Result<Writer<W>, WriteError> {
        Writer::start(out, name, true, true)
    }

    fn start(mut out: W, name: &str, timing_columns: bool, waits: bool) -> Result<Writer<W>, WriteError> {
        let mut header = [0u8; HEADER_LEN];
        header[..8].copy_from_slice(MAGIC);
        header[8..10].copy_from_slice(&VERSION.to_le_bytes());
        let flags = if timing_columns { FLAG_TIMING } else { 0 } | if waits { FLAG_WAIT } else { 0 };
        header[10..12].copy_from_slice(&flags.to_le_bytes());
        header[12] = SLICE_LANES as u8;
        let crc = crc32fast::hash(&header[..16]);
        header[16..].copy_from_slice(&crc.to_le_bytes());
        out.write_all(&header)?;
        Ok(Writer {
            out,
            name: name.into(),
            cols: Default::default(),
            groups: 0,
            lanes: 0,
            first: (0, 0, 0),
            last: None,
            prev_key: (0, 0, 0),
            prev_first: 0,
            prev_addrs: Vec::new(),
            chunks: 0,
            total_groups: 0,
            total_lanes: 0,
            chunk_lanes: CHUNK_LANES,
            waits,
        })
    }

    /// Closes chunks at `lanes` lanes instead of [`CHUNK_LANES`] (tests use small chunks).
    pub fn with_chunk_lanes(mut self, lanes: u32) -> Writer<W> {
        self.chunk_lanes = lanes.max(1);
        self
    }

    /// The output written so far (the open chunk is still buffered).
    pub fn output(&self) -> &W {
        &self.out
    }

    /// Appends one group; groups must come in strictly increasing (block, slice, step).
    pub fn push(&mut self, g: &Group<'_>) -> Result<(), WriteError> {
        let key = (g.block, g.slice, g.step);
        let invalid = |problem: String| WriteError::Invalid {
            file: self.name.clone(),
            block: g.block,
            slice: g.slice,
            step: g.step,
            problem,
        };
        if let Some(last) = self.last {
            if key <= last {
                return Err(invalid(format!(
                    "groups out of order: (block, slice, step) must increase, previous was {last:?}"
                )));
            }
        }
        let n = g.mask.count_ones() as usize;
        if n == 0 || g.addrs.len() != n {
            return Err(invalid(format!("{} addresses for a lane mask of {n} lanes", g.addrs.len())));
        }
        if g.slice > u32::MAX / SLICE_LANES {
            return Err(invalid("thread index beyond 2^32".into()));
        }
        let waits = self.waits;
        let attr_ok = |a: &LaneAttr, addr: u32| {
            attr_code(a).is_some()
                && addr as u64 + a.bytes as u64 <= 1 << 32
                && a.wait.is_none_or(|w| waits && w <= a.gap)
        };
        let codes_ok = match g.attrs {
            // one code for every lane: only the highest address can go past 2^32
            Attrs::Uniform(a) => attr_ok(&a, g.addrs.iter().copied().max().unwrap_or(0)),
            Attrs::PerLane(v) => v.len() == n && v.iter().zip(g.addrs).all(|(a, &addr)| attr_ok(a, addr)),
        };
        if !codes_ok {
            return Err(invalid(
                "invalid attributes: a width of 1, 2, 4, 8 or 16 bytes (0 for a barrier), one per lane, address + width below 2^32, and a wait (in a file written with waits) at most the gap".into(),
            ));
        }
        let new_run = self.last.is_none_or(|(b, s, _)| (b, s) != (g.block, g.slice));
        if new_run && self.lanes >= self.chunk_lanes {
            self.flush()?;
        }
        if self.groups == 0 {
            self.first = key;
            self.prev_key = (0, 0, 0);
            self.prev_first = 0;
            self.prev_addrs.clear();
        }
        self.encode(g, n);
        self.prev_key = key;
        self.last = Some(key);
        self.groups += 1;
        self.lanes += n as u32;
        if self.cols.iter().map(|c| c.len() as u64).sum::<u64>() > MAX_CHUNK_BYTES as u64 - 1024 {
            return Err(WriteError::Invalid {
                file: self.name.clone(),
                block: g.block,
                slice: g.slice,
                step: g.step,
                problem: "one run of a 64-thread slice is too large for a chunk (1 GiB)".into(),
            });
        }
        Ok(())
    }

    fn encode(&mut self, g: &Group<'_>, n: usize) {
        let (pb, ps, pt) = self.prev_key;
        let [c_block, c_slice, c_step, c_mask, c_attr, c_gap, c_mode, c_addr] = &mut self.cols;
        put_varint(c_block, (g.block - pb) as u64);
        if g.block == pb {
            put_varint(c_slice, (g.slice - ps) as u64);
        } else {
            put_varint(c_slice, g.slice as u64);
        }
        if (g.block, g.slice) == (pb, ps) && self.groups > 0 {
            put_varint(c_step, (g.step - pt - 1) as u64);
        } else {
            put_varint(c_step, g.step as u64);
        }
        let first_lane = g.mask.trailing_zeros();
        if (g.mask >> first_lane).wrapping_add(1) & (g.mask >> first_lane) == 0 {
            c_mask.extend_from_slice(&[first_lane as u8, n as u8]);
        } else {
            c_mask.push(EXPLICIT_MASK);
            c_mask.extend_from_slice(&g.mask.to_le_bytes());
        }
        let waits = self.waits;
        let put_gap = |c_gap: &mut Vec<u8>, a: &LaneAttr| {
            put_varint(c_gap, a.gap as u64);
            if waits {
                put_varint(c_gap, a.wait.map_or(0, |w| w as u64 + 1));
            }
        };
        match g.attrs {
            Attrs::Uniform(a) => {
                c_attr.push(attr_code(&a).unwrap_or(0));
                put_gap(c_gap, &a);
            }
            Attrs::PerLane(v) => {
                let uniform = v.iter().all(|a| a == &v[0]);
                if uniform {
                    c_attr.push(attr_code(&v[0]).unwrap_or(0));
                    put_gap(c_gap, &v[0]);
                } else {
                    c_attr.push(PER_LANE);
                    for a in v {
                        c_attr.push(attr_code(a).unwrap_or(0));
                        put_gap(c_gap, a);
                    }
                }
            }
        }
        let a = g.addrs;
        let first = a[0];
        if a == &self.prev_addrs[..] {
            c_mode.push(MODE_REPEAT);
        } else if a.iter().all(|&x| x == 0) {
            c_mode.push(MODE_ZERO);
        } else {
            let base = zigzag(first as i64 - self.prev_first as i64);
            let stride = if n > 1 {
                let l1 = (g.mask & (g.mask - 1)).trailing_zeros();
                let d = a[1] as i64 - first as i64;
                let span = (l1 - first_lane) as i64;
                (d % span == 0).then_some(d / span)
            } else {
                Some(0)
            };
            let affine = stride.filter(|&s| {
                let mut m = g.mask;
                a.iter().all(|&x| {
                    let l = m.trailing_zeros();
                    m &= m - 1;
                    x as i64 == first as i64 + s * (l - first_lane) as i64
                })
            });
            match affine {
                Some(s) => {
                    c_mode.push(MODE_AFFINE);
                    put_varint(c_addr, base);
                    put_varint(c_addr, zigzag(s));
                }
                None => {
                    // the smallest of a tile, lane-to-lane deltas and offsets from the
                    // lowest address packed in as few bits as they need (a tile when
                    // it is no larger: its addresses need not be written out)
                    let delta_len: usize =
                        a.windows(2).map(|w| varint_len(zigzag(w[1] as i64 - w[0] as i64))).sum();
                    let min = a.iter().copied().min().unwrap_or(0);
                    let or = a.iter().fold(0, |m, &x| m | (x - min));
                    let shift = if or == 0 { 0 } else { or.trailing_zeros() };
                    let bits = 32 - (or >> shift).leading_zeros();
                    let packed_len = 2 + (n * bits as usize).div_ceil(8);
                    let tile = tile_of(g.mask, a).map(|(origin, steps)| {
                        let origin = zigzag(origin - self.prev_first as i64);
                        let len = varint_len(origin)
                            + 1
                            + steps
                                .iter()
                                .map(|&s| if s == 0 { 0 } else { varint_len(zigzag(s as i64)) })
                                .sum::<usize>();
                        (origin, steps, len)
                    });
                    if let Some((origin, steps, _)) =
                        tile.filter(|&(_, _, len)| len <= packed_len.min(varint_len(base) + delta_len))
                    {
                        c_mode.push(MODE_TILE);
                        put_varint(c_addr, origin);
                        let bits = steps.iter().enumerate().fold(0u8, |b, (j, &s)| b | ((s != 0) as u8) << j);
                        c_addr.push(bits);
                        for &s in steps.iter().filter(|&&s| s != 0) {
                            put_varint(c_addr, zigzag(s as i64));
                        }
                    } else if packed_len < delta_len {
                        c_mode.push(MODE_PACKED);
                        put_varint(c_addr, zigzag(min as i64 - self.prev_first as i64));
                        c_addr.extend_from_slice(&[shift as u8, bits as u8]);
                        let mut acc = 0u64;
                        let mut have = 0;
                        for &x in a {
                            acc |= (((x - min) >> shift) as u64) << have;
                            have += bits;
                            while have >= 8 {
                                c_addr.push(acc as u8);
                                acc >>= 8;
                                have -= 8;
                            }
                        }
                        if have > 0 {
                            c_addr.push(acc as u8);
                        }
                    } else {
                        c_mode.push(MODE_DELTA);
                        put_varint(c_addr, base);
                        for w in a.windows(2) {
                            put_varint(c_addr, zigzag(w[1] as i64 - w[0] as i64));
                        }
                    }
                }
            }
        }
        self.prev_first = first;
        self.prev_addrs.clear();
        self.prev_addrs.extend_from_slice(a);
    }

    fn flush(&mut self) -> Result<(), WriteError> {
        if self.groups == 0 {
            return Ok(());
        }
        let last = self.last.unwrap_or_default();
        let mut h = Vec::with_capacity(CHUNK_HEADER_LEN);
        h.extend_from_slice(CHUNK_TAG);
        for v in [self.groups, self.lanes, self.first.0, self.first.1, self.first.2, last.0, last.1, last.2] {
            h.extend_from_slice(&v.to_le_bytes());
        }
        for c in &self.cols {
            h.extend_from_slice(&(c.len() as u32).to_le_bytes());
        }
        let mut crc = crc32fast::Hasher::new();
        crc.update(&h);
        for c in &self.cols {
            crc.update(c);
        }
        h.extend_from_slice(&crc.finalize().to_le_bytes());
        self.out.write_all(&h)?;
        for c in &mut self.cols {
            self.out.write_all(c)?;
            c.clear();
        }
        self.chunks += 1;
        self.total_groups += self.groups as u64;
        self.total_lanes += self.lanes as u64;
        self.groups = 0;
        self.lanes = 0;
        Ok(())
    }

    /// Writes the last chunk and the end marker, and returns the output.
    pub fn finish(mut self) -> Result<W, WriteError> {
        self.flush()?;
        let mut e = Vec::with_capacity(END_LEN);
        e.extend_from_slice(END_TAG);
        for v in [self.chunks, self.total_groups, self.total_lanes] {
            e.extend_from_slice(&v.to_le_bytes());
        }
        let crc = crc32fast::hash(&e);
        e.extend_from_slice(&crc.to_le_bytes());
        self.out.write_all(&e)?;
        self.out.flush()?;
        Ok(self.out)
    }
}

/// The tile form of a group's addresses (see [`LaneAddrs::Tile`]): lane 0's address and
/// the step of each bit of the lane number (0 for bits that no two active lanes tell
/// apart), where every active lane's address is `origin + Σ_j bit j of lane × steps[j]`,
/// each step fits in 32 bits and every lane of 0..64, active or not, lies in
/// `0..2^32 − 16` (so that any width fits). `addrs` holds one address per lane of `mask`.
fn tile_of(mask: u64, addrs: &[u32]) -> Option<(i64, [i32; 6])> {
    let mut at = [None; 64];
    let mut m = mask;
    for &a in addrs {
        at[m.trailing_zeros() as usize] = Some(a as i64);
        m &= m - 1;
    }
    let mut steps = [0i32; 6];
    for (j, step) in steps.iter_mut().enumerate() {
        let bit = 1u64 << j;
        // the active lanes whose bit j is clear, where the lane with it set is active too
        let pairs = mask & !BIT_LANES[j] & (mask >> bit);
        if pairs != 0 {
            let l = pairs.trailing_zeros() as usize;
            *step = i32::try_from(at[l | bit as usize]? - at[l]?).ok()?;
        } else if mask & BIT_LANES[j] != 0 && mask & !BIT_LANES[j] != 0 {
            return None; // bit j varies, but no two active lanes differ in it alone
        }
    }
    let l0 = mask.trailing_zeros();
    let origin = at[l0 as usize]? - lane_sum(&steps, l0);
    let mut m = mask;
    for &a in addrs {
        if a as i64 != origin + lane_sum(&steps, m.trailing_zeros()) {
            return None;
        }
        m &= m - 1;
    }
    let lo = origin + steps.iter().map(|&s| (s as i64).min(0)).sum::<i64>();
    let hi = origin + steps.iter().map(|&s| (s as i64).max(0)).sum::<i64>();
    (lo >= 0 && hi + 16 <= 1 << 32).then_some((origin, steps))
}

/// The lanes 0..64 whose bit `j` is set, as masks.
const BIT_LANES: [u64; 6] = [
    0xAAAA_AAAA_AAAA_AAAA,
    0xCCCC_CCCC_CCCC_CCCC,
    0xF0F0_F0F0_F0F0_F0F0,
    0xFF00_FF00_FF00_FF00,
    0xFFFF_0000_FFFF_0000,
    0xFFFF_FFFF_0000_0000,
];

/// `Σ_j bit j of lane × steps[j]`.
fn lane_sum(steps: &[i32; 6], lane: u32) -> i64 {
    steps.iter().enumerate().filter(|&(j, _)| lane >> j & 1 == 1).map(|(_, &s)| s as i64).sum()
}

/// Writes `trace` as a binary trace (records sorted by block, thread / 64, step,
/// thread). Two records of one thread at one step are an error, as is a record the
/// format cannot hold.
pub fn write<W: Write>(trace: &Trace, out: W) -> Result<W, WriteError> {
    write_chunked(trace, out, CHUNK_LANES)
}

/// [`write()`] closing chunks at `chunk_lanes` lanes (at the next (block, slice) boundary).
pub fn write_chunked<W: Write>(trace: &Trace, out: W, chunk_lanes: u32) -> Result<W, WriteError> {
    let mut w = if trace.records.iter().any(|r| r.wait.is_some()) {
        Writer::with_waits(out, &trace.source)?
    } else {
        Writer::new(out, &trace.source, trace.has_timing_columns)?
    }
    .with_chunk_lanes(chunk_lanes);
    w.push_trace(trace)?;
    w.finish()
}

impl<W: Write> Writer<W> {
    /// Appends the records of `trace` (in any order), as groups; every group must come
    /// after the groups pushed before, so a trace written in parts goes block by block.
    /// Records with waits need a writer [`Writer::with_waits`].
    pub fn push_trace(&mut self, trace: &Trace) -> Result<(), WriteError> {
        let recs = &trace.records;
        let mut order: Vec<u32> = (0..recs.len() as u32).collect();
        order.sort_unstable_by_key(|&i| {
            let r = &recs[i as usize];
            (r.block, r.thread / SLICE_LANES, r.step, r.thread, i)
        });
        let mut attrs: Vec<LaneAttr> = Vec::with_capacity(64);
        let mut addrs: Vec<u32> = Vec::with_capacity(64);
        let mut i = 0;
        while i < order.len() {
            let r0 = &recs[order[i] as usize];
            let key = (r0.block, r0.thread / SLICE_LANES, r0.step);
            let (mut mask, mut j) = (0u64, i);
            attrs.clear();
            addrs.clear();
            while j < order.len() {
                let r = &recs[order[j] as usize];
                if (r.block, r.thread / SLICE_LANES, r.step) != key {
                    break;
                }
                let bit = 1u64 << (r.thread % SLICE_LANES);
                if mask & bit != 0 {
                    return Err(WriteError::Duplicate {
                        file: trace.source.clone(),
                        block: r.block,
                        thread: r.thread,
                        step: r.step,
                        first_line: trace.lines[order[j - 1] as usize],
                        line: trace.lines[order[j] as usize],
                    });
                }
                mask |= bit;
                attrs.push(LaneAttr { op: r.op, bytes: r.bytes, gap: r.gap, dep: r.dep, wait: r.wait });
                addrs.push(r.addr);
                j += 1;
            }
            let g = Group {
                block: key.0,
                slice: key.1,
                step: key.2,
                mask,
                attrs: Attrs::PerLane(&attrs),
                addrs: &addrs,
            };
            self.push(&g)?;
            i = j;
        }
        Ok(())
    }
}

/// What the file header says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// Format version.
    pub version: u16,
    /// Whether the source trace had the gap/dep columns.
    pub timing_columns: bool,
    /// Whether every gap is stored with its wait.
    pub waits: bool,
}

/// Totals from the end marker.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Totals {
    /// Chunks.
    pub chunks: u64,
    /// Groups.
    pub groups: u64,
    /// Active lanes (records).
    pub lanes: u64,
}

/// Reads a binary trace chunk by chunk: [`Reader::next_chunk`] reads and checks one
/// chunk's bytes (sequential), [`RawChunk::decode`] decodes them (may run on any
/// thread), [`Chunk::split`] cuts them into warp requests.
pub struct Reader<R: Read> {
    src: R,
    /// The file again, for positional reads (files opened by [`Reader::open`], on Unix).
    file: Option<Arc<std::fs::File>>,
    /// Whether chunks are read by position and their payloads left to
    /// [`RawChunk::load`] ([`Reader::defer_payloads`]).
    defer: bool,
    /// Whether deferred payloads are read from mapped windows of the file.
    map: bool,
    /// The window the last payload was in, and its byte offset in the file.
    window: Option<(Arc<memmap2::Mmap>, u64)>,
    /// Bytes mapped at once ([`WINDOW_BYTES`]; smaller in tests).
    window_bytes: u64,
    name: Arc<str>,
    offset: u64,
    file_len: Option<u64>,
    header: Header,
    last: Option<(u32, u32, u32)>,
    seen: Totals,
    end: Option<Totals>,
}

impl Reader<std::io::BufReader<std::fs::File>> {
    /// Opens a binary trace file.
    pub fn open(path: &Path) -> Result<Self, BinaryError> {
        let name = path.display().to_string();
        let io = |source| BinaryError::Io { file: name.clone(), offset: 0, source };
        let file = std::fs::File::open(path).map_err(io)?;
        let meta = file.metadata().map_err(io)?;
        if meta.is_dir() {
            return Err(io(std::io::Error::other("is a directory, expected a trace file")));
        }
        let again = if cfg!(unix) { file.try_clone().ok().map(Arc::new) } else { None };
        let mut r = Reader::new(std::io::BufReader::with_capacity(1 << 16, file), &name, Some(meta.len()))?;
        r.file = again;
        Ok(r)
    }
}

impl<R: Read> Reader<R> {
    /// Reads the header from `src`; `name` is used in messages, `file_len` (if known)
    /// lets a truncated file be reported before reading the rest.
    pub fn new(mut src: R, name: &str, file_len: Option<u64>) -> Result<Self, BinaryError> {
        let name: Arc<str> = name.into();
        let mut h = [0u8; HEADER_LEN];
        let got = read_full(&mut src, &mut h).map_err(|source| BinaryError::Io {
            file: name.to_string(),
            offset: 0,
            source,
        })?;
        if got < 8 || &h[..8] != MAGIC {
            return Err(BinaryError::Magic { file: name.to_string() });
        }
        if got < HEADER_LEN {
            return Err(BinaryError::Truncated {
                file: name.to_string(),
                offset: got as u64,
                inside: "the file header".into(),
            });
        }
        let unsupported =
            |offset, what, found| BinaryError::Unsupported { file: name.to_string(), offset, what, found };
        let version = u16::from_le_bytes([h[8], h[9]]);
        if !(1..=VERSION).contains(&version) {
            return Err(unsupported(8, "version", version as u64));
        }
        let crc = u32::from_le_bytes([h[16], h[17], h[18], h[19]]);
        if crc32fast::hash(&h[..16]) != crc {
            return Err(BinaryError::Corrupt {
                file: name.to_string(),
                offset: 16,
                problem: "checksum mismatch in the file header".into(),
            });
        }
        let flags = u16::from_le_bytes([h[10], h[11]]);
        if flags & !(FLAG_TIMING | FLAG_WAIT) != 0 {
            return Err(unsupported(10, "flags", flags as u64));
        }
        if h[12] as u32 != SLICE_LANES {
            return Err(unsupported(12, "slice lanes", h[12] as u64));
        }
        if h[13..16] != [0, 0, 0] {
            return Err(unsupported(
                13,
                "reserved bytes",
                u32::from_le_bytes([h[13], h[14], h[15], 0]) as u64,
            ));
        }
        Ok(Reader {
            src,
            file: None,
            defer: false,
            map: false,
            window: None,
            window_bytes: WINDOW_BYTES,
            name,
            offset: HEADER_LEN as u64,
            file_len,
            header: Header {
                version,
                timing_columns: flags & FLAG_TIMING != 0,
                waits: flags & FLAG_WAIT != 0,
            },
            last: None,
            seen: Totals::default(),
            end: None,
        })
    }

    /// From now on, [`Reader::next_chunk`] reads only each chunk's header (by position,
    /// so that the serial part of a parallel read is short) and leaves its payload to
    /// [`RawChunk::load`], which the thread that decodes the chunk calls. Whether that
    /// applies: only to a file opened with [`Reader::open`] (on Unix), and only before
    /// the first chunk is read.
    pub fn defer_payloads(&mut self) -> bool {
        self.defer = self.file.is_some() && self.seen.chunks == 0 && self.end.is_none();
        self.defer
    }

    /// From now on, the payloads that [`Reader::defer_payloads`] leaves to
    /// [`RawChunk::load`] are not read into a buffer but borrowed from windows of the file
    /// mapped into memory (4 MiB at a time, each unmapped once no chunk holds it, so that
    /// memory stays bounded). That saves copying every byte out of the page cache: on the
    /// benchmark mix, 5-8% of the time on one core (and with
    /// [`RawChunk::fetch_during_decode`], the next chunk's bytes come from memory while
    /// this one is decoded). It defers the payloads ([`Reader::defer_payloads`]), and
    /// applies where that does and the file can be mapped (else the payloads are read).
    ///
    /// A file that shrinks while it is mapped is an error where it is found: when a
    /// window is mapped (the file's length) or a chunk loaded ([`RawChunk::load`] maps
    /// its pages first). But one truncated by another process between a chunk's load and
    /// its decode ends this process with `SIGBUS` (as with every mapped read): do not map
    /// a file that may still be written.
    pub fn map_payloads(&mut self) -> bool {
        // (a file system that cannot map files keeps the reads: one byte mapped to see)
        // SAFETY: the byte is not read.
        let mappable = |f: &std::fs::File| unsafe { memmap2::MmapOptions::new().len(1).map(f) }.is_ok();
        self.map = self.defer_payloads() && self.file.as_deref().is_some_and(mappable);
        self.map
    }

    /// Reads into `buf` at byte `at`, which is where the sequential source stands unless
    /// chunks are read by position; the bytes read (fewer at the end of the input).
    fn read_at(&mut self, buf: &mut [u8], at: u64) -> std::io::Result<usize> {
        match &self.file {
            #[cfg(unix)]
            Some(f) if self.defer => read_full_at(f, buf, at),
            _ => read_full(&mut self.src, buf),
        }
    }

    /// The file header.
    pub fn header(&self) -> Header {
        self.header
    }

    /// The file's name, as used in messages.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The totals of the end marker, once [`Reader::next_chunk`] has returned `false`.
    pub fn totals(&self) -> Option<Totals> {
        self.end
    }

    fn corrupt(&self, offset: u64, problem: String) -> BinaryError {
        BinaryError::Corrupt { file: self.name.to_string(), offset, problem }
    }

    fn truncated(&self, offset: u64, inside: String) -> BinaryError {
        BinaryError::Truncated { file: self.name.to_string(), offset, inside }
    }

    /// Reads the next chunk into `raw` (reusing its buffer) and checks its header and its
    /// order after the previous chunk; `false` at the end marker, after which the totals
    /// are checked and nothing may follow. The payload's checksum is checked by
    /// [`RawChunk::decode`] (or [`RawChunk::verify`]), on the thread that decodes it.
    pub fn next_chunk(&mut self, raw: &mut RawChunk) -> Result<bool, BinaryError> {
        if self.end.is_some() {
            return Ok(false);
        }
        let at = self.offset;
        let name = self.name.clone();
        let io = |offset, source| BinaryError::Io { file: name.to_string(), offset, source };
        let mut tag = [0u8; 4];
        let got = self.read_at(&mut tag, at).map_err(|e| io(at, e))?;
        if got < 4 {
            let inside = if got == 0 { "the chunk list: the end marker is missing" } else { "a chunk tag" };
            return Err(self.truncated(at + got as u64, inside.into()));
        }
        if &tag == END_TAG {
            return self.read_end(at).map(|_| false);
        }
        if &tag != CHUNK_TAG {
            return Err(self.corrupt(
                at,
                format!("expected a chunk (`CHNK`) or the end marker (`END!`), found {tag:02x?}"),
            ));
        }
        let mut h = [0u8; CHUNK_HEADER_LEN];
        h[..4].copy_from_slice(&tag);
        let got = self.read_at(&mut h[4..], at + 4).map_err(|e| io(at + 4, e))?;
        if got < CHUNK_HEADER_LEN - 4 {
            return Err(self.truncated(
                at + 4 + got as u64,
                format!("the header of chunk {} (at byte {at})", self.seen.chunks),
            ));
        }
        let u = |i: usize| u32::from_le_bytes([h[4 * i], h[4 * i + 1], h[4 * i + 2], h[4 * i + 3]]);
        let (groups, lanes) = (u(1), u(2));
        let first = (u(3), u(4), u(5));
        let last = (u(6), u(7), u(8));
        let mut cols = [0u32; COLUMNS];
        for (c, col) in cols.iter_mut().enumerate() {
            *col = u(9 + c);
        }
        let crc = u(17);
        let payload: u64 = cols.iter().map(|&c| c as u64).sum();
        if payload > MAX_CHUNK_BYTES as u64
            || groups == 0
            || lanes < groups
            || lanes as u64 > groups as u64 * 64
            // every group takes at least one byte of the block, step, attr, gap and addr
            // mode columns and two of the mask column: the header's counts (which size
            // the decoder's buffers) can never exceed what the payload holds
            || [0, 2, 4, 5, 6].iter().any(|&c| groups > cols[c])
            || groups as u64 * 2 > cols[3] as u64
        {
            // a checksum failure is more telling when the header is otherwise plausible
            return Err(self.corrupt(
                at,
                format!("implausible chunk header ({groups} groups, {lanes} lanes, {payload} payload bytes)"),
            ));
        }
        let body = at + CHUNK_HEADER_LEN as u64;
        if let Some(len) = self.file_len {
            if body + payload > len {
                return Err(self.truncated(
                    len,
                    format!("chunk {} (at byte {at}, {payload} payload bytes)", self.seen.chunks),
                ));
            }
        }
        raw.pending = None;
        raw.mapped = None;
        raw.ahead = (0, 0);
        match &self.file {
            Some(f) if self.defer && self.map => {
                let (end, index) = (body + payload, self.seen.chunks);
                let fits = self
                    .window
                    .as_ref()
                    .is_some_and(|(w, w_at)| *w_at <= body && end <= w_at + w.len() as u64);
                if !fits {
                    self.window = None;
                    let file_len = self.file_len.unwrap_or(end);
                    let now = f.metadata().map_err(|e| io(body, e))?.len();
                    if now < end {
                        return Err(shrank(&self.name, now, index, at));
                    }
                    let len = (file_len.min(now) - body).min(payload.max(self.window_bytes));
                    // SAFETY: the window lies inside the file as it is now; see
                    // `Reader::map_payloads` for a file that shrinks while mapped.
                    let w = unsafe { memmap2::MmapOptions::new().offset(body).len(len as usize).map(&**f) }
                        .map_err(|e| io(body, e))?;
                    self.window = Some((Arc::new(w), body));
                }
                if let Some((w, w_at)) = &self.window {
                    raw.mapped = Some(Mapped {
                        window: w.clone(),
                        file: f.clone(),
                        at: body,
                        start: (body - w_at) as usize,
                        len: payload as usize,
                        index,
                        checked: false,
                    });
                }
            }
            // (the file's length is known: the payload is there, barring a file that
            // shrinks while it is read, which `load` reports; `bytes` keeps the last
            // payload until then, so that `load` need not zero it first)
            Some(f) if self.defer => {
                raw.pending =
                    Some(Pending { file: f.clone(), at: body, len: payload as u32, index: self.seen.chunks })
            }
            _ => {
                raw.bytes.clear();
                // read what is there, at most `payload` bytes: the buffer grows with the
                // data actually present, never to a size a corrupt header merely claims
                let got =
                    (&mut self.src).take(payload).read_to_end(&mut raw.bytes).map_err(|e| io(body, e))?;
                if got < payload as usize {
                    return Err(self
                        .truncated(body + got as u64, format!("chunk {} (at byte {at})", self.seen.chunks)));
                }
            }
        }
        // The payload's checksum is left to whoever decodes the chunk
        // ([`RawChunk::decode`] checks it first), so that it runs in parallel; this
        // serial part only reads. A chunk out of order is checked here, its checksum
        // first (a corrupt header is more telling as a checksum failure).
        let head_crc = crc32fast::hash(&h[..CHUNK_HEADER_LEN - 4]);
        let out_of_order = if first > last {
            Some((at + 12, format!("chunk's first group {first:?} is after its last {last:?}")))
        } else {
            self.last.filter(|&prev| first <= prev || (first.0, first.1) == (prev.0, prev.1)).map(|prev| {
                (
                    at + 12,
                    format!("chunk starts at (block, slice, step) {first:?}, not after the previous chunk's run ending at {prev:?}"),
                )
            })
        };
        if let Some((offset, problem)) = out_of_order {
            raw.name = self.name.clone();
            raw.load()?;
            checksum(&self.name, at, self.seen.chunks, head_crc, crc, raw.payload())?;
            return Err(self.corrupt(offset, problem));
        }
        self.last = Some(last);
        raw.head_crc = head_crc;
        raw.crc = crc;
        raw.name = self.name.clone();
        raw.waits = self.header.waits;
        raw.offset = at;
        raw.index = self.seen.chunks;
        raw.groups = groups;
        raw.lanes = lanes;
        raw.first = first;
        raw.last = last;
        raw.cols = cols;
        self.seen.chunks += 1;
        self.seen.groups += groups as u64;
        self.seen.lanes += lanes as u64;
        self.offset = body + payload;
        Ok(true)
    }

    fn read_end(&mut self, at: u64) -> Result<(), BinaryError> {
        let mut e = [0u8; END_LEN];
        e[..4].copy_from_slice(END_TAG);
        let got = self.read_at(&mut e[4..], at + 4).map_err(|source| BinaryError::Io {
            file: self.name.to_string(),
            offset: at,
            source,
        })?;
        if got < END_LEN - 4 {
            return Err(self.truncated(at + 4 + got as u64, "the end marker".into()));
        }
        let q = |i: usize| u64::from_le_bytes(e[4 + 8 * i..12 + 8 * i].try_into().unwrap_or_default());
        let totals = Totals { chunks: q(0), groups: q(1), lanes: q(2) };
        let crc = u32::from_le_bytes([e[28], e[29], e[30], e[31]]);
        if crc32fast::hash(&e[..28]) != crc {
            return Err(self.corrupt(at, "checksum mismatch in the end marker".into()));
        }
        if totals != self.seen {
            return Err(self.corrupt(
                at,
                format!("the end marker counts {totals:?} but the file holds {:?}", self.seen),
            ));
        }
        let mut extra = [0u8; 1];
        let after = at + END_LEN as u64;
        if self.read_at(&mut extra, after).map_err(|source| BinaryError::Io {
            file: self.name.to_string(),
            offset: after,
            source,
        })? != 0
        {
            return Err(self.corrupt(after, "data after the end marker".into()));
        }
        self.end = Some(totals);
        Ok(())
    }
}

/// [`read_full`] at byte `at` of `file`, by position (the file's cursor stays put).
#[cfg(unix)]
fn read_full_at(file: &std::fs::File, buf: &mut [u8], at: u64) -> std::io::Result<usize> {
    use std::os::unix::fs::FileExt;
    let mut n = 0;
    while n < buf.len() {
        match file.read_at(&mut buf[n..], at + n as u64) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// Reads until `buf` is full or the input ends; the number of bytes read.
fn read_full<R: Read>(r: &mut R, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// The file `file` ends at byte `now`, inside chunk `index` (at byte `at`), which was
/// there when the file was opened.
fn shrank(file: &str, now: u64, index: u64, at: u64) -> BinaryError {
    BinaryError::Truncated {
        file: file.to_string(),
        offset: now,
        inside: format!("chunk {index} (at byte {at}): the file shrank while it was read"),
    }
}

/// Checks that `payload` after a chunk header whose CRC is `head_crc` has the checksum
/// `stored` (chunk `index` at byte `at` of `file`).
fn checksum(
    file: &str,
    at: u64,
    index: u64,
    head_crc: u32,
    stored: u32,
    payload: &[u8],
) -> Result<(), BinaryError> {
    let mut hasher = crc32fast::Hasher::new_with_initial(head_crc);
    hasher.update(payload);
    let found = hasher.finalize();
    if found == stored {
        return Ok(());
    }
    Err(BinaryError::Corrupt {
        file: file.to_string(),
        offset: at,
        problem: format!(
            "checksum mismatch in chunk {index} ({} payload bytes): stored {stored:#010x}, computed {found:#010x}",
            payload.len()
        ),
    })
}

/// A chunk's payload inside a mapped window of the file.
#[derive(Clone, Debug)]
struct Mapped {
    window: Arc<memmap2::Mmap>,
    file: Arc<std::fs::File>,
    /// Byte offset of the payload in the file.
    at: u64,
    /// Where the payload starts in the window, and its length.
    start: usize,
    len: usize,
    /// The chunk's index.
    index: u64,
    /// Whether [`RawChunk::load`] found the payload's pages there.
    checked: bool,
}

/// Where a chunk's payload is, for [`RawChunk::load`].
#[derive(Clone, Debug)]
struct Pending {
    file: Arc<std::fs::File>,
    at: u64,
    len: u32,
    index: u64,
}

/// One chunk's bytes, as [`Reader::next_chunk`] read them; [`RawChunk::decode`] checks
/// their checksum.
#[derive(Clone, Debug, Default)]
pub struct RawChunk {
    name: Arc<str>,
    offset: u64,
    index: u64,
    groups: u32,
    lanes: u32,
    first: (u32, u32, u32),
    last: (u32, u32, u32),
    cols: [u32; COLUMNS],
    bytes: Vec<u8>,
    /// CRC-32 of the chunk header (without its checksum), and the checksum it stores.
    head_crc: u32,
    crc: u32,
    /// The payload, still to be read ([`Reader::defer_payloads`]).
    pending: Option<Pending>,
    /// The payload in a mapped window of the file, in place of `bytes`.
    mapped: Option<Mapped>,
    /// Address and length of the next chunk's mapped payload, fetched into the cache a
    /// little at a time while this chunk is decoded ([`RawChunk::fetch_during_decode`]).
    ahead: (usize, usize),
    /// Whether every gap is followed by a wait (the file's flag bit 1).
    waits: bool,
}

/// A column being decoded.
struct Col<'a> {
    data: &'a [u8],
    pos: usize,
    /// Byte offset of the column in the file.
    at: u64,
    index: usize,
}

impl Col<'_> {
    #[inline]
    fn byte(&mut self) -> Option<u8> {
        let b = *self.data.get(self.pos)?;
        self.pos += 1;
        Some(b)
    }

    #[inline(always)]
    fn varint(&mut self) -> Option<u64> {
        let b = *self.data.get(self.pos)?;
        self.pos += 1;
        if b < 0x80 {
            return Some(b as u64);
        }
        let mut v = (b & 0x7F) as u64;
        let mut shift = 7;
        loop {
            let b = *self.data.get(self.pos)?;
            self.pos += 1;
            if shift == 63 && b > 1 {
                return None;
            }
            v |= ((b & 0x7F) as u64) << shift;
            if b < 0x80 {
                return Some(v);
            }
            shift += 7;
        }
    }

    fn offset(&self) -> u64 {
        self.at + self.pos as u64
    }

    /// [`Self::varint`] with no branch on the length where eight bytes are left and the
    /// varint ends within them (for values whose length the core cannot predict).
    #[inline(always)]
    fn varint_unpredictable(&mut self) -> Option<u64> {
        if let Some(w) = self.data.get(self.pos..self.pos + 8) {
            let w = u64::from_le_bytes(w.try_into().unwrap_or_default());
            let stops = !w & 0x8080_8080_8080_8080;
            if stops != 0 {
                let bits = stops.trailing_zeros() + 1;
                let x = w & (u64::MAX >> (64 - bits));
                self.pos += bits as usize / 8;
                let x = (x & 0x007F_007F_007F_007F) | (x & 0x7F00_7F00_7F00_7F00) >> 1;
                let x = (x & 0x0000_3FFF_0000_3FFF) | (x & 0x3FFF_0000_3FFF_0000) >> 2;
                return Some((x & 0x0000_0000_0FFF_FFFF) | (x & 0x0FFF_FFFF_0000_0000) >> 4);
            }
        }
        self.varint()
    }
}

/// A decoded chunk: its groups, and (after [`Chunk::split`]) its warp requests for one
/// warp size. Reuse one `Chunk` for every chunk: the steady state allocates nothing.
#[derive(Clone, Debug, Default)]
pub struct Chunk {
    name: Arc<str>,
    offset: u64,
    // groups
    g_block: Vec<u32>,
    g_slice: Vec<u32>,
    g_step: Vec<u32>,
    g_mask: Vec<u64>,
    /// Attribute code, or `PER_LANE` (then `g_gap` is the start in `lane_code`).
    g_code: Vec<u8>,
    g_gap: Vec<u32>,
    /// Wait + 1, 0 for none (groups with one code).
    g_wait: Vec<u32>,
    /// Start of the group's lanes in `addrs`.
    g_start: Vec<u32>,
    /// The group's addresses where a formula gives them (zero, affine, tile, or
    /// repeating such a group with the same mask), else `Form::Listed`.
    g_form: Vec<Form>,
    /// The steps of the chunk's tile groups (`Form::Tile::at`).
    g_tiles: Vec<[i32; 6]>,
    addrs: Vec<u32>,
    /// Whether the addresses of groups with a formula are still to be written into
    /// `addrs` ([`RawChunk::decode_lazy`]).
    lazy: bool,
    /// Whether some group has per-lane attributes.
    per_lane: bool,
    lane_code: Vec<u8>,
    lane_gap: Vec<u32>,
    lane_wait: Vec<u32>,
    // requests
    warp_size: u32,
    reqs: Vec<Req>,
    /// `IOTA`, then the lanes of requests whose lanes are not contiguous.
    lanes: Vec<u16>,
}

/// How a group's addresses are given: listed in [`Chunk::addrs`], or by a formula
/// (the forms of [`LaneAddrs`]) whose addresses a lazy decode does not write out.
#[derive(Clone, Copy, Debug, Default)]
enum Form {
    #[default]
    Listed,
    /// `first + stride × (lane − lowest lane)`.
    Affine { first: u32, stride: i64 },
    /// `origin + Σ_j bit j of lane × steps[j]`, the steps at `at` in [`Chunk::g_tiles`];
    /// every lane of 0..64 inside `0..2^32`. (An index keeps a form at 16 bytes: with
    /// the steps in place, strided and masked loads ran 3% slower.)
    Tile { origin: u32, at: u32 },
}

impl Form {
    /// Writes the addresses of the active lanes of `mask` into `dst` (nothing for a
    /// listed group).
    #[inline]
    fn fill(self, tiles: &[[i32; 6]], mask: u64, dst: &mut [u32]) {
        match self {
            Form::Listed => {}
            Form::Affine { first, stride } => sim_core::affine_addrs(first, stride as u32, mask, dst),
            Form::Tile { origin, at } => sim_core::tile_addrs(origin, &tiles[at as usize], mask, dst),
        }
    }

    /// The address of `lane` (of a group whose lowest lane is `l0`); `None` for a listed
    /// group.
    #[inline]
    fn lane(self, tiles: &[[i32; 6]], lane: u32, l0: u32) -> Option<u32> {
        match self {
            Form::Listed => None,
            Form::Affine { first, stride } => {
                Some(first.wrapping_add((stride as u32).wrapping_mul(lane - l0)))
            }
            Form::Tile { origin, at } => Some(sim_core::tile_lane(origin, &tiles[at as usize], lane)),
        }
    }
}

/// Tile groups whose steps the decoder remembers, per chunk.
const TILES_SEEN: usize = 4;

/// The steps of a tile group as the decoder read them. The same step bits and the same
/// bytes give the same steps, so a later group of the chunk with both takes them from
/// `at` in [`Chunk::g_tiles`] and skips the bytes. (GEMM tile loads, which repeat two or
/// three shapes, decoded 15% faster; the whole mix 2%.)
#[derive(Clone, Copy, Debug, Default)]
struct TileSeen {
    bits: u8,
    /// Bytes of the steps' varints, 1 to 16 (0: an empty entry).
    len: u8,
    /// The 16 bytes from the first step's on (the first `len` are the steps').
    bytes: u128,
    /// The sum of the negative steps, and of the positive ones.
    down: i64,
    up: i64,
    at: u32,
}

impl TileSeen {
    /// Whether 16 bytes `w` (read after `bits`) start with this entry's steps.
    #[inline]
    fn matches(&self, bits: u8, w: u128) -> bool {
        // (an empty entry matches nothing; `max` keeps the shift below 128)
        let keep = u128::MAX >> (128 - 8 * self.len.max(1) as u32);
        self.len > 0 && self.bits == bits && (w ^ self.bytes) & keep == 0
    }
}

/// One warp request of a [`Chunk`] (one record, so that splitting pushes once).
#[derive(Clone, Copy, Debug, Default)]
struct Req {
    block: u32,
    warp: u32,
    step: u32,
    gap: u32,
    /// Wait + 1, 0 for none.
    wait: u32,
    /// First address in `addrs`.
    start: u32,
    /// First lane in `lanes`.
    lanes: u32,
    code: u8,
    count: u8,
}

impl RawChunk {
    /// Byte offset of the chunk in the file.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// Active lanes (records) in the chunk.
    pub fn lanes(&self) -> u32 {
        self.lanes
    }

    /// Decodes the chunk's groups into `out`, checking every field.
    pub fn decode(&self, out: &mut Chunk) -> Result<(), BinaryError> {
        self.decode_any::<false>(out).inspect_err(|_| out.forget_groups())
    }

    /// [`Self::decode`], but the addresses of affine groups (most strided and tiled
    /// accesses) are only written out when something needs them one by one
    /// ([`Chunk::split`], [`Chunk::push_records`]); [`Chunk::for_each_masked`] hands them
    /// on as `first + stride × lane`. Every field is checked all the same.
    pub fn decode_lazy(&self, out: &mut Chunk) -> Result<(), BinaryError> {
        self.decode_any::<true>(out).inspect_err(|_| out.forget_groups())
    }

    /// [`Self::decode_with`], compiled with the POPCNT instruction where the CPU has it
    /// (lane counts are on every group's path; without it each is a dozen instructions).
    #[inline(always)]
    fn decode_any<const LAZY: bool>(&self, out: &mut Chunk) -> Result<(), BinaryError> {
        #[cfg(target_arch = "x86_64")]
        if popcnt_available() {
            // SAFETY: the CPU has POPCNT.
            return unsafe { self.decode_popcnt::<LAZY>(out) };
        }
        self.decode_with::<LAZY>(out)
    }

    /// # Safety
    /// The CPU must have POPCNT.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "popcnt")]
    unsafe fn decode_popcnt<const LAZY: bool>(&self, out: &mut Chunk) -> Result<(), BinaryError> {
        self.decode_with::<LAZY>(out)
    }

    /// Reads the payload that a reader with [`Reader::defer_payloads`] left to this (on
    /// the thread that calls it); of a mapped payload ([`Reader::map_payloads`]), puts its
    /// pages in the page table and so finds a file that shrank since (an error here, not
    /// a `SIGBUS` in the decode); nothing otherwise. Call it before decoding.
    pub fn load(&mut self) -> Result<(), BinaryError> {
        if let Some(m) = &self.mapped {
            return if m.checked { Ok(()) } else { self.check_mapped() };
        }
        let Some(p) = self.pending.take() else { return Ok(()) };
        #[cfg(unix)]
        {
            // (only bytes past the last payload's length are zeroed before the read)
            self.bytes.resize(p.len as usize, 0);
            let got = read_full_at(&p.file, &mut self.bytes, p.at).map_err(|source| BinaryError::Io {
                file: self.name.to_string(),
                offset: p.at,
                source,
            })?;
            if got < p.len as usize {
                return Err(shrank(&self.name, p.at + got as u64, p.index, self.offset));
            }
        }
        Ok(())
    }

    /// [`RawChunk::load`] of a mapped payload: its pages put in the page table (which the
    /// decode's first touch would do page by page). That fails where a page is past the
    /// end of a file that shrank since its window was mapped, where a touch would be a
    /// `SIGBUS`. (Where it is not supported, e.g. before Linux 5.14, the file's length is
    /// checked instead.)
    #[inline(never)]
    fn check_mapped(&mut self) -> Result<(), BinaryError> {
        let Some(m) = &mut self.mapped else { return Ok(()) };
        #[cfg(target_os = "linux")]
        let populated = m.window.advise_range(memmap2::Advice::PopulateRead, m.start, m.len).is_ok();
        #[cfg(not(target_os = "linux"))]
        let populated = false;
        let end = m.at + m.len as u64;
        if !populated {
            if let Some(now) = m.file.metadata().ok().map(|md| md.len()).filter(|&now| now < end) {
                return Err(shrank(&self.name, now, m.index, self.offset));
            }
        }
        m.checked = true;
        Ok(())
    }

    /// The payload's bytes.
    #[inline]
    fn payload(&self) -> &[u8] {
        match &self.mapped {
            Some(m) => &m.window[m.start..m.start + m.len],
            None => &self.bytes,
        }
    }

    /// While this chunk is decoded, fetch `next`'s payload into the cache a few lines at
    /// a time, where it is mapped (a mapped payload is read from memory on first touch,
    /// and a core alone reads memory far slower than it decodes; spread over the decode,
    /// the reads overlap it). `next` is loaded first ([`RawChunk::load`]: its pages put in
    /// the page table, where a prefetch needs them); where that fails, nothing is fetched
    /// and its own load, in its turn, fails again. A hint: nothing changes but the time.
    pub fn fetch_during_decode(&mut self, next: Option<&mut RawChunk>) {
        self.ahead = (0, 0);
        let Some(n) = next.filter(|n| n.mapped.is_some()) else { return };
        if let (Ok(()), Some(m)) = (n.load(), &n.mapped) {
            self.ahead = (m.window[m.start..].as_ptr() as usize, m.len);
        }
    }

    /// Lets go of the mapped window that holds the payload, if any (a window is unmapped
    /// once no chunk holds it).
    pub fn release(&mut self) {
        self.mapped = None;
    }

    /// Whether the payload is borrowed from a mapped window ([`Reader::map_payloads`]).
    pub fn is_mapped(&self) -> bool {
        self.mapped.is_some()
    }

    /// Checks the chunk's checksum (which [`Reader::next_chunk`] leaves to this, so that
    /// it runs on the thread that decodes the chunk).
    pub fn verify(&self) -> Result<(), BinaryError> {
        debug_assert!(
            self.pending.is_none() && self.mapped.as_ref().is_none_or(|m| m.checked),
            "a deferred payload not loaded"
        );
        checksum(&self.name, self.offset, self.index, self.head_crc, self.crc, self.payload())
    }

    #[inline(always)]
    fn decode_with<const LAZY: bool>(&self, out: &mut Chunk) -> Result<(), BinaryError> {
        self.verify()?;
        out.name = self.name.clone();
        out.offset = self.offset;
        out.lazy = LAZY;
        out.per_lane = false;
        out.lane_code.clear();
        out.lane_gap.clear();
        out.lane_wait.clear();
        out.clear_requests();
        let n = self.groups as usize;
        // The group columns are sized up front and written by index (pushes would store
        // nine lengths a group). They are not cleared first: every group's entry in each
        // is written below (or the chunk is an error and forgets its groups), and
        // resizing zeroes only what a column grows by.
        out.g_block.resize(n, 0);
        out.g_slice.resize(n, 0);
        out.g_step.resize(n, 0);
        out.g_mask.resize(n, 0);
        out.g_code.resize(n, 0);
        out.g_gap.resize(n, 0);
        out.g_wait.resize(n, 0);
        out.g_start.resize(n + 1, 0);
        out.g_form.resize(n, Form::default());
        out.g_tiles.clear();
        // the header's lane count (checked against the groups below) sizes the output;
        // every lane is written below (or the chunk is an error), so the buffer is not
        // cleared first: resizing only zeroes what it grows by
        out.addrs.resize(self.lanes as usize, 0);
        let mut start = 0usize;
        let payload = self.payload();
        let body = self.offset + CHUNK_HEADER_LEN as u64;
        let mut cols: [Col<'_>; COLUMNS] = std::array::from_fn(|i| {
            let len = self.cols[i] as usize;
            let c = Col { data: &payload[start..start + len], pos: 0, at: body + start as u64, index: i };
            start += len;
            c
        });
        let corrupt = |c: &Col<'_>, problem: &str| BinaryError::Corrupt {
            file: self.name.to_string(),
            offset: c.offset(),
            problem: format!("column `{}` of chunk {}: {problem}", COLUMN_NAMES[c.index], self.index),
        };
        let [c_block, c_slice, c_step, c_mask, c_attr, c_gap, c_mode, c_addr] = &mut cols;
        let u32_of = |c: &mut Col<'_>, what: &str| -> Result<u32, BinaryError> {
            let v =
                c.varint().ok_or_else(|| corrupt(c, &format!("truncated or overlong varint ({what})")))?;
            u32::try_from(v).map_err(|_| corrupt(c, &format!("{what} {v} does not fit in 32 bits")))
        };
        // `u32_of` with the one-byte case inline (most deltas, steps and gaps)
        macro_rules! small {
            ($c:expr, $what:expr) => {{
                let c: &mut Col<'_> = $c;
                match c.data.get(c.pos) {
                    Some(&b) if b < 0x80 => {
                        c.pos += 1;
                        b as u32
                    }
                    _ => u32_of(c, $what)?,
                }
            }};
        }
        // a gap and, in a file with waits, its wait (+ 1, 0 for none; at most the gap)
        let waits = self.waits;
        // (a macro, not a closure, so that the common case, a one-byte gap and no waits,
        // is inline)
        macro_rules! gap_wait {
            ($c:expr) => {{
                let c: &mut Col<'_> = $c;
                let gap = small!(c, "gap");
                if waits {
                    let w = u32_of(c, "wait")?;
                    if w > 0 && w - 1 > gap {
                        return Err(corrupt(c, &format!("wait {} beyond its gap {gap}", w - 1)));
                    }
                    (gap, w)
                } else {
                    (gap, 0)
                }
            }};
        }
        let (g_block, g_slice, g_step, g_mask) =
            (&mut out.g_block[..n], &mut out.g_slice[..n], &mut out.g_step[..n], &mut out.g_mask[..n]);
        let (g_code, g_gap, g_wait, g_start, g_form) = (
            &mut out.g_code[..n],
            &mut out.g_gap[..n],
            &mut out.g_wait[..n],
            &mut out.g_start[..n],
            &mut out.g_form[..n],
        );
        // The columns are decoded one at a time, in column order (each pass a short
        // loop with little state: the lockstep loop over all eight kept two dozen
        // cursors and outputs live and spilled them). Block, slice, step and gap columns
        // of one byte a group (every value below 128: the usual case) and attr columns
        // of one valid code a group take a fast pass; any other column, or a value out
        // of range, takes the exact pass, which reports the column's first bad field.
        // (So a chunk with several bad fields reports the one in the earliest column.)

        // 1. blocks: deltas
        let fast = one_byte_each(c_block.data, n) && {
            let mut b = 0u64;
            for (o, &d) in g_block.iter_mut().zip(c_block.data) {
                b += d as u64;
                *o = b as u32;
            }
            b <= u32::MAX as u64
        };
        if fast {
            c_block.pos = n;
        } else {
            let mut pb = 0u32;
            for block in g_block.iter_mut() {
                let db = small!(c_block, "block delta");
                *block = pb.checked_add(db).ok_or_else(|| corrupt(c_block, "block beyond 2^32"))?;
                pb = *block;
            }
        }
        // 2. slices: a delta within the same block, else the slice
        const LAST_SLICE: u32 = u32::MAX / SLICE_LANES;
        let fast = one_byte_each(c_slice.data, n) && {
            let (mut pb, mut ps, mut ok) = (0u32, 0u32, true);
            for ((s, &b), &d) in g_slice.iter_mut().zip(&*g_block).zip(c_slice.data) {
                // (past a bad slice the sums may wrap: the exact pass runs then)
                ps = if b == pb { ps.wrapping_add(d as u32) } else { d as u32 };
                ok &= ps <= LAST_SLICE;
                *s = ps;
                pb = b;
            }
            ok
        };
        if fast {
            c_slice.pos = n;
        } else {
            let (mut pb, mut ps) = (0u32, 0u32);
            for (s, &block) in g_slice.iter_mut().zip(&*g_block) {
                *s = if block == pb {
                    ps.checked_add(small!(c_slice, "slice delta"))
                } else {
                    Some(small!(c_slice, "slice"))
                }
                .filter(|&s| s <= LAST_SLICE)
                .ok_or_else(|| corrupt(c_slice, "thread index beyond 2^32"))?;
                (pb, ps) = (block, *s);
            }
        }
        // 3. steps: within the same (block, slice) the delta from the previous step + 1
        let same_run = |gi: usize| gi > 0 && g_block[gi] == g_block[gi - 1] && g_slice[gi] == g_slice[gi - 1];
        let fast = one_byte_each(c_step.data, n) && {
            let (mut pt, mut ok) = (0u64, true);
            for (gi, (t, &d)) in g_step.iter_mut().zip(c_step.data).enumerate() {
                pt = if same_run(gi) { pt + 1 + d as u64 } else { d as u64 };
                ok &= pt <= u32::MAX as u64;
                *t = pt as u32;
            }
            ok
        };
        if fast {
            c_step.pos = n;
        } else {
            let mut pt = 0u32;
            for (gi, t) in g_step.iter_mut().enumerate() {
                *t = if same_run(gi) {
                    let d = small!(c_step, "step delta");
                    pt.checked_add(1).and_then(|p| p.checked_add(d))
                } else {
                    Some(small!(c_step, "step"))
                }
                .ok_or_else(|| corrupt(c_step, "step beyond 2^32"))?;
                pt = *t;
            }
        }
        // 4. lane masks, and where each group's addresses start in `out.addrs`
        let mut filled = 0usize;
        for (m, start) in g_mask.iter_mut().zip(g_start.iter_mut()) {
            let b0 = c_mask.byte().ok_or_else(|| corrupt(c_mask, "ends early"))?;
            let mask = if b0 == EXPLICIT_MASK {
                let bytes = c_mask.data.get(c_mask.pos..c_mask.pos + 8);
                let bytes = bytes.ok_or_else(|| {
                    c_mask.pos = c_mask.data.len();
                    corrupt(c_mask, "ends inside a lane mask")
                })?;
                c_mask.pos += 8;
                u64::from_le_bytes(bytes.try_into().unwrap_or_default())
            } else {
                let count = c_mask.byte().ok_or_else(|| corrupt(c_mask, "ends early"))? as u32;
                if b0 >= 64 || count == 0 || b0 as u32 + count > 64 {
                    return Err(corrupt(c_mask, &format!("bad lane run: first lane {b0}, {count} lanes")));
                }
                (u64::MAX >> (64 - count)) << b0
            };
            if mask == 0 {
                return Err(corrupt(c_mask, "empty lane mask"));
            }
            *m = mask;
            *start = filled as u32;
            filled += mask.count_ones() as usize;
            if filled > out.addrs.len() {
                return Err(corrupt(c_mask, &format!("more lanes than the chunk header's {}", self.lanes)));
            }
        }
        // 5. attribute codes: one a group, or 0xFF and one a lane (then the group's gap
        // entry is where its lanes start in `lane_code`)
        if c_attr.data.len() == n && c_attr.data.iter().all(|&c| decode_code(c).is_some()) {
            // (0xFF is not a code: every group has one)
            g_code.copy_from_slice(c_attr.data);
            c_attr.pos = n;
        } else {
            for ((code, gap), &mask) in g_code.iter_mut().zip(g_gap.iter_mut()).zip(&*g_mask) {
                *code = c_attr.byte().ok_or_else(|| corrupt(c_attr, "ends early"))?;
                if *code == PER_LANE {
                    out.per_lane = true;
                    *gap = out.lane_code.len() as u32;
                    for _ in 0..mask.count_ones() {
                        let c = c_attr.byte().ok_or_else(|| corrupt(c_attr, "ends inside per-lane codes"))?;
                        if decode_code(c).is_none() {
                            c_attr.pos -= 1;
                            return Err(corrupt(c_attr, &format!("invalid op/width code {c:#04x}")));
                        }
                        out.lane_code.push(c);
                    }
                } else if decode_code(*code).is_none() {
                    c_attr.pos -= 1;
                    return Err(corrupt(c_attr, &format!("invalid op/width code {:#04x}", *code)));
                }
            }
        }
        // 6. gaps (and waits): one a group, or one a lane after per-lane codes
        if !waits && !out.per_lane && one_byte_each(c_gap.data, n) {
            for ((gap, wait), &d) in g_gap.iter_mut().zip(g_wait.iter_mut()).zip(c_gap.data) {
                (*gap, *wait) = (d as u32, 0);
            }
            c_gap.pos = n;
        } else {
            for ((gap, wait), (&code, &mask)) in
                g_gap.iter_mut().zip(g_wait.iter_mut()).zip(g_code.iter().zip(&*g_mask))
            {
                if code == PER_LANE {
                    for _ in 0..mask.count_ones() {
                        let (gap, wait) = gap_wait!(c_gap);
                        out.lane_gap.push(gap);
                        out.lane_wait.push(wait);
                    }
                    *wait = 0;
                } else {
                    (*gap, *wait) = gap_wait!(c_gap);
                }
            }
        }
        // 7. addresses, written into the pre-sized `out.addrs` (lazily: not those of
        // groups with a formula)
        let mut prev_first = 0u32;
        let mut prev_range = 0..0usize;
        let mut prev_highest = 0u32;
        let mut prev_mask = 0u64;
        let mut prev_form = Form::Listed;
        // recent tile groups' steps (see `TileSeen`)
        let mut tiles_seen = [TileSeen::default(); TILES_SEEN];
        let mut tiles_in = 0usize;
        // the next chunk's payload (`fetch_during_decode`) is fetched `per` bytes (whole
        // cache lines) a group, into the core's L2
        let (ahead_at, ahead_end) = (self.ahead.0 & !63, self.ahead.0 + self.ahead.1);
        let per = (ahead_end - ahead_at).div_ceil(64).div_ceil(n) * 64;
        for gi in 0..n {
            #[cfg(target_arch = "x86_64")]
            {
                let mut at = ahead_at + gi * per;
                while at < ahead_end.min(ahead_at + (gi + 1) * per) {
                    // SAFETY: a prefetch never faults, whatever the address.
                    unsafe {
                        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T1 }>(at as *const i8)
                    };
                    at += 64;
                }
            }
            let (mask, code) = (g_mask[gi], g_code[gi]);
            let lanes = mask.count_ones() as usize;
            let a0 = g_start[gi] as usize;
            let a1 = a0 + lanes;
            let mode = c_mode.byte().ok_or_else(|| corrupt(c_mode, "ends early"))?;
            let mut form = Form::Listed;
            // the group's highest address, as each mode knows it, and its lowest lane's
            // (the next group's base is relative to it)
            let (highest, lane0): (u32, u32) = match mode {
                MODE_ZERO => {
                    form = Form::Affine { first: 0, stride: 0 };
                    if !LAZY {
                        out.addrs[a0..a1].fill(0);
                    }
                    (0, 0)
                }
                MODE_REPEAT => {
                    if prev_range.len() != lanes {
                        c_mode.pos -= 1;
                        return Err(corrupt(
                            c_mode,
                            &format!("repeats {} addresses for {lanes} lanes", prev_range.len()),
                        ));
                    }
                    if let Form::Listed = prev_form {
                        out.addrs.copy_within(prev_range.clone(), a0);
                    } else if mask == prev_mask {
                        form = prev_form;
                        if !LAZY {
                            out.addrs.copy_within(prev_range.clone(), a0);
                        }
                    } else {
                        // the previous group's addresses were not written: write them here
                        prev_form.fill(&out.g_tiles, prev_mask, &mut out.addrs[a0..a1]);
                    }
                    // (the same addresses as the previous group's)
                    (prev_highest, prev_first)
                }
                MODE_AFFINE | MODE_DELTA | MODE_PACKED | MODE_TILE => {
                    // (where groups of different kinds alternate, the base's length
                    // jumps from group to group: without the branch the mix ran 2-3%
                    // faster, one kind of group alone 1-3% slower; every other varint
                    // keeps the branch, strides ran 8% slower without it)
                    let base =
                        c_addr.varint_unpredictable().ok_or_else(|| corrupt(c_addr, "truncated varint"))?;
                    let first = prev_first as i64 + unzigzag(base);
                    if !(0..=u32::MAX as i64).contains(&first) {
                        return Err(corrupt(c_addr, &format!("address {first} outside 0..2^32")));
                    }
                    match mode {
                        MODE_AFFINE => {
                            let stride =
                                unzigzag(c_addr.varint().ok_or_else(|| corrupt(c_addr, "truncated varint"))?);
                            let l0 = mask.trailing_zeros() as i64;
                            let l1 = 63 - mask.leading_zeros() as i64;
                            let end = stride.checked_mul(l1 - l0).and_then(|d| first.checked_add(d));
                            if !end.is_some_and(|e| (0..=u32::MAX as i64).contains(&e)) {
                                return Err(corrupt(c_addr, "affine addresses outside 0..2^32"));
                            }
                            // first + stride * (lane - l0) stays between the two ends
                            let stride = if lanes == 1 { 0 } else { stride };
                            form = Form::Affine { first: first as u32, stride };
                            if !LAZY {
                                form.fill(&[], mask, &mut out.addrs[a0..a1]);
                            }
                            (first.max(end.unwrap_or(first)) as u32, first as u32)
                        }
                        MODE_TILE => {
                            // (`first` is lane 0's address here)
                            let bits = c_addr.byte().ok_or_else(|| corrupt(c_addr, "ends early"))?;
                            if bits >> 6 != 0 {
                                c_addr.pos -= 1;
                                return Err(corrupt(
                                    c_addr,
                                    &format!("tile step bits {bits:#04x} beyond lane bit 5"),
                                ));
                            }
                            // The same bits and step bytes as a recent tile group of the chunk
                            // (a kernel's tile loads repeat a few shapes): its steps again,
                            // without reading the varints one by one.
                            let ahead = c_addr.data.get(c_addr.pos..c_addr.pos + 16);
                            let ahead = ahead.map(|b| u128::from_le_bytes(b.try_into().unwrap_or_default()));
                            let seen = ahead.and_then(|w| tiles_seen.iter().find(|t| t.matches(bits, w)));
                            // the steps' index in `g_tiles`, and the sums of the negative
                            // and of the positive ones
                            let (at, down, up) = if let Some(t) = seen {
                                c_addr.pos += t.len as usize;
                                (t.at, t.down, t.up)
                            } else {
                                let start = c_addr.pos;
                                let (mut steps, mut down, mut up) = ([0i32; 6], 0, 0);
                                for (j, step) in steps.iter_mut().enumerate() {
                                    if bits >> j & 1 == 1 {
                                        let v = c_addr
                                            .varint()
                                            .ok_or_else(|| corrupt(c_addr, "truncated varint"))?;
                                        let v = unzigzag(v);
                                        *step = i32::try_from(v).map_err(|_| {
                                            corrupt(c_addr, &format!("tile step {v} beyond 32 bits"))
                                        })?;
                                        (down, up) = (down + v.min(0), up + v.max(0));
                                    }
                                }
                                let at = out.g_tiles.len() as u32;
                                out.g_tiles.push(steps);
                                let len = c_addr.pos - start;
                                if let (Some(bytes), 1..=16) = (ahead, len) {
                                    let t = TileSeen { bits, len: len as u8, bytes, down, up, at };
                                    tiles_seen[tiles_in % TILES_SEEN] = t;
                                    tiles_in += 1;
                                }
                                (at, down, up)
                            };
                            let (lo, hi) = (first + down, first + up);
                            if lo < 0 || hi > u32::MAX as i64 {
                                return Err(corrupt(c_addr, "tile addresses outside 0..2^32"));
                            }
                            form = Form::Tile { origin: first as u32, at };
                            let steps = &out.g_tiles[at as usize];
                            if !LAZY {
                                sim_core::tile_addrs(first as u32, steps, mask, &mut out.addrs[a0..a1]);
                            }
                            (hi as u32, sim_core::tile_lane(first as u32, steps, mask.trailing_zeros()))
                        }
                        MODE_DELTA => {
                            let dst = &mut out.addrs[a0..a1];
                            let mut a = first;
                            let mut highest = a;
                            dst[0] = a as u32;
                            for d in &mut dst[1..] {
                                let v = c_addr.varint().ok_or_else(|| corrupt(c_addr, "truncated varint"))?;
                                a += unzigzag(v);
                                if !(0..=u32::MAX as i64).contains(&a) {
                                    return Err(corrupt(c_addr, &format!("address {a} outside 0..2^32")));
                                }
                                highest = highest.max(a);
                                *d = a as u32;
                            }
                            (highest as u32, first as u32)
                        }
                        _ => {
                            let (shift, bits) = (
                                c_addr.byte().ok_or_else(|| corrupt(c_addr, "ends early"))? as u32,
                                c_addr.byte().ok_or_else(|| corrupt(c_addr, "ends early"))? as u32,
                            );
                            if shift + bits > 32 {
                                c_addr.pos -= 2;
                                return Err(corrupt(
                                    c_addr,
                                    &format!("packed offsets of {bits} bits shifted by {shift}"),
                                ));
                            }
                            let dst = &mut out.addrs[a0..a1];
                            let len = (lanes * bits as usize).div_ceil(8);
                            if c_addr.data.len() - c_addr.pos < len {
                                return Err(corrupt(c_addr, "ends inside packed offsets"));
                            }
                            // (the rest of the column comes along: the kernel may read past
                            // the offsets, which saves copying the last ones out)
                            let max = unpack(&c_addr.data[c_addr.pos..], len, bits, shift, first as u32, dst);
                            // the lowest address is `first`; the highest must stay below 2^32
                            if first as u64 + max as u64 > u32::MAX as u64 {
                                return Err(corrupt(c_addr, "packed addresses beyond 2^32"));
                            }
                            c_addr.pos += len;
                            ((first as u64 + max as u64) as u32, dst[0])
                        }
                    }
                }
                m => {
                    c_mode.pos -= 1;
                    return Err(corrupt(c_mode, &format!("unknown address mode {m}")));
                }
            };
            if LAZY && code == PER_LANE {
                // (checked lane by lane below)
                form.fill(&out.g_tiles, mask, &mut out.addrs[a0..a1]);
            }
            // address + width must stay below 2^32
            let fits = if code == PER_LANE {
                let codes = &out.lane_code[g_gap[gi] as usize..];
                out.addrs[a0..a1].iter().zip(codes).all(|(&a, &c)| a as u64 + width_of(c) as u64 <= 1 << 32)
            } else {
                highest as u64 + width_of(code) as u64 <= 1 << 32
            };
            if !fits {
                return Err(corrupt(c_addr, "address + width beyond 2^32"));
            }
            prev_first = lane0;
            prev_range = a0..a1;
            prev_highest = highest;
            prev_mask = mask;
            prev_form = form;
            g_form[gi] = form;
        }
        for c in &cols {
            if c.pos != c.data.len() {
                return Err(corrupt(
                    c,
                    &format!("{} bytes left over after {n} groups", c.data.len() - c.pos),
                ));
            }
        }
        let keys = |i: usize| (out.g_block[i], out.g_slice[i], out.g_step[i]);
        let header = |problem: String| BinaryError::Corrupt {
            file: self.name.to_string(),
            offset: self.offset,
            problem,
        };
        if filled != self.lanes as usize {
            return Err(header(format!(
                "chunk {} holds {filled} lanes, its header says {}",
                self.index, self.lanes
            )));
        }
        if (keys(0), keys(n - 1)) != (self.first, self.last) {
            return Err(header(format!(
                "chunk {} runs from {:?} to {:?}, its header says {:?} to {:?}",
                self.index,
                keys(0),
                keys(n - 1),
                self.first,
                self.last
            )));
        }
        out.g_start[n] = out.addrs.len() as u32;
        Ok(())
    }
}

/// Whether a column holds exactly `n` varints of one byte each: `n` bytes, none with the
/// high bit set.
#[inline]
fn one_byte_each(data: &[u8], n: usize) -> bool {
    // (no early exit: the fold vectorizes)
    data.len() == n && data.iter().fold(0u8, |a, &b| a | b) < 0x80
}

/// Unpacks `dst.len()` offsets of `bits` bits (LSB first) from `column[..len]` into
/// `dst[i] = base + (offset << shift)`; returns the largest `offset << shift`.
/// `len` is exactly `ceil(dst.len() × bits / 8)` and `shift + bits <= 32`. The bytes of
/// `column` after the offsets may be read (by whole vectors) but never change the result.
fn unpack(column: &[u8], len: usize, bits: u32, shift: u32, base: u32, dst: &mut [u32]) -> u32 {
    #[cfg(target_arch = "x86_64")]
    if simd_available() {
        // SAFETY: the CPU has AVX2.
        return unsafe { unpack_avx2(column, len, bits, shift, base, dst) };
    }
    unpack_with(column, len, bits, shift, base, dst, false)
}

/// [`unpack_with`] compiled for AVX2 (the loops over whole bytes vectorize with it).
///
/// # Safety
/// The CPU must have AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn unpack_avx2(column: &[u8], len: usize, bits: u32, shift: u32, base: u32, dst: &mut [u32]) -> u32 {
    unpack_with(column, len, bits, shift, base, dst, true)
}

/// [`unpack`], with the AVX2 kernel where `simd` (which only a CPU with AVX2 may set).
#[inline(always)]
fn unpack_with(
    column: &[u8],
    len: usize,
    bits: u32,
    shift: u32,
    base: u32,
    dst: &mut [u32],
    simd: bool,
) -> u32 {
    let packed = &column[..len];
    // whole bytes per offset (random words of a few hundred KiB take 16 bits): plain
    // loops over fixed-size byte groups, which the compiler vectorizes
    macro_rules! whole_bytes {
        ($k:literal) => {{
            debug_assert!(shift + 8 * $k <= 32 && packed.len() == dst.len() * $k);
            let mut max = 0u32;
            for (d, b) in dst.iter_mut().zip(packed.chunks_exact($k)) {
                let mut w = [0u8; 4];
                w[..$k].copy_from_slice(b);
                let v = u32::from_le_bytes(w) << shift;
                max = max.max(v);
                *d = base.wrapping_add(v);
            }
            return max;
        }};
    }
    // otherwise eight offsets at a time from `bits` bytes, with the width a constant
    macro_rules! fixed {
        ($($b:literal)*) => {
            match bits {
                8 => whole_bytes!(1),
                16 => whole_bytes!(2),
                24 => whole_bytes!(3),
                32 => whole_bytes!(4),
                $($b => return unpack_fixed::<$b>(column, len, shift, base, dst, simd),)*
                _ => {}
            }
        };
    }
    fixed!(1 2 3 4 5 6 7 9 10 11 12 13 14 15 17 18 19 20 21 22 23);
    let mask = if bits == 32 { u32::MAX } else { (1u32 << bits) - 1 };
    let mut max = 0u32;
    let whole = packed.len().saturating_sub(7);
    for (i, d) in dst.iter_mut().enumerate() {
        let bit = i * bits as usize;
        let byte = bit / 8;
        let word = if byte < whole {
            u64::from_le_bytes(packed[byte..byte + 8].try_into().unwrap_or_default())
        } else {
            let mut w = [0u8; 8];
            let tail = &packed[byte.min(packed.len())..];
            w[..tail.len()].copy_from_slice(tail);
            u64::from_le_bytes(w)
        };
        // in u64: `shift` may be 32 (with `bits` 0), which a u32 shift does not allow
        let v = ((((word >> (bit % 8)) as u32 & mask) as u64) << shift) as u32;
        max = max.max(v);
        *d = base.wrapping_add(v);
    }
    max
}

/// Whether [`avx2::unpack`] may run: the CPU has AVX2 (std caches the answer).
fn simd_available() -> bool {
    #[cfg(target_arch = "x86_64")]
    return std::arch::is_x86_feature_detected!("avx2");
    #[cfg(not(target_arch = "x86_64"))]
    return false;
}

/// Whether the CPU has POPCNT.
#[cfg(target_arch = "x86_64")]
fn popcnt_available() -> bool {
    std::arch::is_x86_feature_detected!("popcnt")
}

/// [`unpack`] for offsets of `B` bits (`0 < B < 24`, `shift + B <= 32`): each eight
/// offsets are `B` bytes, read as one integer of up to 192 bits (with `B` a constant,
/// every offset's position is one too). With `simd` (the CPU has AVX2): [`avx2::unpack`].
#[inline(never)]
fn unpack_fixed<const B: usize>(
    column: &[u8],
    len: usize,
    shift: u32,
    base: u32,
    dst: &mut [u32],
    simd: bool,
) -> u32 {
    debug_assert!(B < 24 && shift as usize + B <= 32 && len == (dst.len() * B).div_ceil(8));
    #[cfg(target_arch = "x86_64")]
    if simd {
        // SAFETY: `simd` is set only where the CPU has AVX2 (`simd_available`).
        return unsafe { avx2::unpack::<B>(column, len, shift, base, dst) };
    }
    let packed = &column[..len];
    #[cfg(not(target_arch = "x86_64"))]
    let _ = simd;
    let mask = (1u32 << B) - 1;
    let mut max = 0u32;
    let mut eight = |d: &mut [u32], b: &[u8]| {
        let mut w = [0u8; 24];
        w[..b.len()].copy_from_slice(b);
        let lo = u128::from_le_bytes(w[..16].try_into().unwrap_or_default());
        let hi = u64::from_le_bytes(w[16..].try_into().unwrap_or_default());
        for (j, d) in d.iter_mut().enumerate() {
            let at = j * B;
            let x = if at + B <= 128 {
                (lo >> at) as u32
            } else if at >= 128 {
                (hi >> (at - 128)) as u32
            } else {
                (lo >> at) as u32 | (hi as u32) << (128 - at)
            };
            let v = (x & mask) << shift;
            max = max.max(v);
            *d = base.wrapping_add(v);
        }
    };
    let whole = dst.len() / 8;
    let mut out = dst.chunks_exact_mut(8);
    for (d, b) in (&mut out).zip(packed.chunks_exact(B)) {
        eight(d, b);
    }
    // the last offsets (fewer than eight), from the bytes after the whole groups of eight
    let tail = out.into_remainder();
    if !tail.is_empty() {
        eight(tail, &packed[whole * B..]);
    }
    max
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::*;

    /// For offsets of `B` bits, eight at a time in one 256-bit register: the low half
    /// holds the 16 bytes from the group's first byte (offsets 0-3), the high half the
    /// 16 bytes from byte `4B / 8` (offsets 4-7). Per offset: the `vpshufb` indices of
    /// the four bytes it lies in (an offset spans at most `7 + 23` bits), and the bit it
    /// starts at within the first.
    const fn layout<const B: usize>() -> ([u8; 32], [u32; 8]) {
        let high = 4 * B / 8;
        let (mut shuffle, mut bit) = ([0u8; 32], [0u32; 8]);
        let mut j = 0;
        while j < 8 {
            let first = j * B / 8;
            let (half, at) = if j < 4 { (0, first) } else { (16, first - high) };
            let mut k = 0;
            while k < 4 {
                // (at most byte 12 of its half: every index is a real byte)
                shuffle[half + (j % 4) * 4 + k] = (at + k) as u8;
                k += 1;
            }
            bit[j] = (j * B % 8) as u32;
            j += 1;
        }
        (shuffle, bit)
    }

    /// [`super::unpack_fixed`] for a CPU with AVX2: eight offsets a step, loaded straight
    /// from `column` (the offsets are `column[..len]`, the bytes after them are read but
    /// masked off) while both 16-byte loads stay inside it, then from a zero-padded copy
    /// of the rest (the last step's extra lanes are dropped, and left out of the largest
    /// `offset << shift`, which this returns). A copy read back at once stalls (the
    /// loads straddle its stores), so only the end of a column takes it.
    ///
    /// # Safety
    /// The CPU must have AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn unpack<const B: usize>(
        column: &[u8],
        len: usize,
        shift: u32,
        base: u32,
        dst: &mut [u32],
    ) -> u32 {
        let (shuffle, bit) = const { layout::<B>() };
        let high = 4 * B / 8;
        let shuffle = _mm256_loadu_si256(shuffle.as_ptr().cast());
        let bit = _mm256_loadu_si256(bit.as_ptr().cast());
        let mask = _mm256_set1_epi32(((1u32 << B) - 1) as i32);
        let count = _mm_cvtsi32_si128(shift as i32);
        let base = _mm256_set1_epi32(base as i32);
        // the offsets of the eight at `p` (`p + high + 16` readable), `<< shift`
        let step = |p: *const u8| {
            let lo = _mm_loadu_si128(p.cast());
            let hi = _mm_loadu_si128(p.add(high).cast());
            let bytes = _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(lo), hi);
            let words = _mm256_shuffle_epi8(bytes, shuffle);
            _mm256_sll_epi32(_mm256_and_si256(_mm256_srlv_epi32(words, bit), mask), count)
        };
        let mut max = _mm256_setzero_si256();
        // step g reads bytes g × B .. g × B + high + 16
        let direct = (dst.len() / 8).min((column.len() + 1).saturating_sub(high + 16).div_ceil(B));
        for g in 0..direct {
            debug_assert!(g * B + high + 16 <= column.len());
            // SAFETY: both loads lie inside `column` (`direct` above), the store inside
            // `dst`.
            let v = step(column.as_ptr().add(g * B));
            max = _mm256_max_epu32(max, v);
            _mm256_storeu_si256(dst.as_mut_ptr().add(g * 8).cast(), _mm256_add_epi32(v, base));
        }
        // the rest: fewer than `high + 16 + B` bytes (else one more step would have fit)
        // and at most eight steps
        let (rest, out) = (&column[direct * B..len], &mut dst[direct * 8..]);
        let mut buf = [0u8; 8 * 23 + 32];
        buf[..rest.len()].copy_from_slice(rest);
        let iota = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
        for (g, d) in out.chunks_mut(8).enumerate() {
            // SAFETY: step g reads bytes g × B .. g × B + high + 16 of `buf`, inside it
            // (g < 8, B < 24, high < 12).
            let v = step(buf.as_ptr().add(g * B));
            if d.len() == 8 {
                max = _mm256_max_epu32(max, v);
                // SAFETY: `d` holds the eight lanes stored.
                _mm256_storeu_si256(d.as_mut_ptr().cast(), _mm256_add_epi32(v, base));
                continue;
            }
            let real = _mm256_cmpgt_epi32(_mm256_set1_epi32(d.len() as i32), iota);
            max = _mm256_max_epu32(max, _mm256_and_si256(v, real));
            let mut lanes = [0u32; 8];
            _mm256_storeu_si256(lanes.as_mut_ptr().cast(), _mm256_add_epi32(v, base));
            d.copy_from_slice(&lanes[..d.len()]);
        }
        let mut lanes = [0u32; 8];
        _mm256_storeu_si256(lanes.as_mut_ptr().cast(), max);
        lanes.into_iter().max().unwrap_or(0)
    }
}

fn width_of(code: u8) -> u8 {
    decode_code(code).map_or(0, |(_, b, _)| b)
}

fn dep_bits(dep: Option<bool>) -> u8 {
    match dep {
        None => 0,
        Some(false) => 1,
        Some(true) => 2,
    }
}

impl Chunk {
    fn clear_requests(&mut self) {
        self.reqs.clear();
        self.lanes.clear();
        self.lanes.extend_from_slice(&IOTA);
    }

    /// Leaves no groups and no requests (after a failed decode, which sized the group
    /// columns up front).
    fn forget_groups(&mut self) {
        self.g_block.clear();
        self.g_start.clear();
        self.addrs.clear();
        self.clear_requests();
    }

    /// Groups in the chunk.
    pub fn groups(&self) -> usize {
        self.g_block.len()
    }

    /// Active lanes (records) in the chunk.
    pub fn records(&self) -> usize {
        self.addrs.len()
    }

    /// Writes out the addresses [`RawChunk::decode_lazy`] left affine.
    fn fill_lazy(&mut self) {
        if !self.lazy {
            return;
        }
        self.lazy = false;
        for g in 0..self.groups() {
            let (s, e) = (self.g_start[g] as usize, self.g_start[g + 1] as usize);
            self.g_form[g].fill(&self.g_tiles, self.g_mask[g], &mut self.addrs[s..e]);
        }
    }

    /// Calls `f` with every group of the chunk as one slice request: its 64-lane mask and
    /// either `first + stride × lane` (affine groups, whose addresses a lazy decode did
    /// not write out) or the list of its addresses, the form
    /// [`sim_core::BankModel::evaluate_slice`] takes ([`MaskedRequest::warps`] cuts it
    /// into warp requests). Slices come in (block, slice, step) order.
    ///
    /// Returns `Ok(false)`, calling `f` for nothing, where some group has per-lane
    /// attributes (whose lanes may disagree on op or width): then [`Chunk::split`] is the
    /// way. Stops at `f`'s first error.
    #[inline]
    pub fn for_each_slice<E>(&self, mut f: impl FnMut(&MaskedSlice<'_>) -> Result<(), E>) -> Result<bool, E> {
        if self.per_lane {
            return Ok(false);
        }
        for g in 0..self.groups() {
            let (mask, code) = (self.g_mask[g], self.g_code[g]);
            let (op, bytes, _) = decode_code(code).unwrap_or((Op::Barrier, 0, None));
            let addrs = match self.g_form[g] {
                Form::Listed => {
                    LaneAddrs::Listed(&self.addrs[self.g_start[g] as usize..self.g_start[g + 1] as usize])
                }
                Form::Affine { first, stride } => LaneAddrs::Affine { first, stride },
                Form::Tile { origin, at } => LaneAddrs::Tile { origin, steps: &self.g_tiles[at as usize] },
            };
            f(&MaskedSlice {
                block: self.g_block[g],
                slice: self.g_slice[g],
                step: self.g_step[g],
                request: MaskedRequest { op, bytes, mask, addrs },
            })?;
        }
        Ok(true)
    }

    /// Calls `f` with every warp request of `warp` lanes in the chunk, as a lane mask
    /// and either `first + stride × lane` (affine groups, whose addresses a lazy decode
    /// did not write out) or the list of addresses: the form
    /// [`sim_core::BankModel::evaluate_masked`] takes. Requests come in group order
    /// ((block, slice, step), then the warps of the slice), not in the (block, warp,
    /// step) order of [`Chunk::split`]; lane numbers are within the warp.
    ///
    /// Returns `Ok(false)`, calling `f` for nothing, where some group has per-lane
    /// attributes (whose lanes may disagree on op or width): then [`Chunk::split`] is the
    /// way. Stops at `f`'s first error.
    pub fn for_each_masked<E>(
        &self,
        warp: u32,
        mut f: impl FnMut(&MaskedWarp<'_>) -> Result<(), E>,
    ) -> Result<bool, E>
    where
        E: From<BinaryError>,
    {
        // (not compiled with POPCNT as the decoder is: `f`, inlined into such a copy,
        // ran the bank model a quarter slower)
        if !(warp.is_power_of_two() && warp <= SLICE_LANES) {
            return Err(BinaryError::WarpSize { warp }.into());
        }
        let per = SLICE_LANES / warp;
        self.for_each_slice(|s| {
            s.request.warps(warp, |j, &request| {
                f(&MaskedWarp { block: s.block, warp: s.slice * per + j, step: s.step, request })
            })
        })
    }

    /// Cuts the groups into warp requests of `warp` lanes, in (block, warp, step) order.
    /// Lanes of one request must agree on op and width.
    pub fn split(&mut self, warp: u32) -> Result<(), BinaryError> {
        #[cfg(target_arch = "x86_64")]
        if popcnt_available() {
            // SAFETY: the CPU has POPCNT.
            return unsafe { self.split_popcnt(warp) };
        }
        self.split_with(warp)
    }

    /// [`Self::split_with`] with POPCNT (see [`RawChunk::decode_any`]).
    ///
    /// # Safety
    /// The CPU must have POPCNT.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "popcnt")]
    unsafe fn split_popcnt(&mut self, warp: u32) -> Result<(), BinaryError> {
        self.split_with(warp)
    }

    /// See [`Self::split`].
    #[inline(always)]
    fn split_with(&mut self, warp: u32) -> Result<(), BinaryError> {
        if !(warp.is_power_of_two() && warp <= SLICE_LANES) {
            return Err(BinaryError::WarpSize { warp });
        }
        self.fill_lazy();
        self.clear_requests();
        self.warp_size = warp;
        let per = SLICE_LANES / warp;
        let kmask = u64::MAX >> (64 - warp);
        let n = self.groups();
        self.reqs.reserve(n * per as usize);
        if per == 1 {
            for g in 0..n {
                self.emit(g, 0, self.g_mask[g], self.g_slice[g])?;
            }
            return Ok(());
        }
        let mut g = 0;
        while g < n {
            let (block, slice) = (self.g_block[g], self.g_slice[g]);
            let mut e = g + 1;
            while e < n && self.g_block[e] == block && self.g_slice[e] == slice {
                e += 1;
            }
            for j in 0..per {
                let low = j * warp;
                for h in g..e {
                    let sub = (self.g_mask[h] >> low) & kmask;
                    if sub != 0 {
                        let skip = (self.g_mask[h] & ((1u64 << low) - 1)).count_ones();
                        self.emit(h, skip, sub, slice * per + j)?;
                    }
                }
            }
            g = e;
        }
        Ok(())
    }

    /// Appends the request of group `g`'s lanes `sub` (lane numbers within the warp),
    /// which start `skip` active lanes into the group.
    #[inline]
    fn emit(&mut self, g: usize, skip: u32, sub: u64, warp: u32) -> Result<(), BinaryError> {
        let count = sub.count_ones();
        let start = self.g_start[g] + skip;
        let tz = sub.trailing_zeros();
        let lanes_at = if (sub >> tz).wrapping_add(1) & (sub >> tz) == 0 {
            tz
        } else {
            let at = self.lanes.len() as u32;
            let mut m = sub;
            while m != 0 {
                self.lanes.push(m.trailing_zeros() as u16);
                m &= m - 1;
            }
            at
        };
        let (code, gap, wait) = if self.g_code[g] == PER_LANE {
            let s = (self.g_gap[g] + skip) as usize;
            let codes = &self.lane_code[s..s + count as usize];
            let gaps = &self.lane_gap[s..s + count as usize];
            // the warp stalls at its earliest lane's first use (0: none, else wait + 1)
            let waits = &self.lane_wait[s..s + count as usize];
            let wait = waits.iter().map(|&w| w.checked_sub(1)).fold(None, merge_wait).map_or(0, |w| w + 1);
            let first = codes[0];
            let mut dep = decode_code(first).and_then(|(_, _, d)| d);
            for &c in &codes[1..] {
                if c & 0x3F != first & 0x3F {
                    let (a, b) = (decode_code(first), decode_code(c));
                    let problem = match (a, b) {
                        (Some((oa, _, _)), Some((ob, _, _))) if oa != ob => format!("ops: `{oa}` and `{ob}`"),
                        (Some((_, wa, _)), Some((_, wb, _))) => format!("widths: {wa} and {wb} bytes"),
                        _ => "attributes".into(),
                    };
                    return Err(BinaryError::Mixed {
                        file: self.name.to_string(),
                        offset: self.offset,
                        block: self.g_block[g],
                        warp,
                        step: self.g_step[g],
                        problem,
                    });
                }
                dep = merge_dep(dep, decode_code(c).and_then(|(_, _, d)| d));
            }
            (first & 0x3F | dep_bits(dep) << 6, gaps.iter().copied().max().unwrap_or(0), wait)
        } else {
            (self.g_code[g], self.g_gap[g], self.g_wait[g])
        };
        self.reqs.push(Req {
            block: self.g_block[g],
            warp,
            step: self.g_step[g],
            gap,
            wait,
            start,
            lanes: lanes_at,
            code,
            count: count as u8,
        });
        Ok(())
    }

    /// Warp requests after [`Chunk::split`].
    pub fn len(&self) -> usize {
        self.reqs.len()
    }

    /// Whether there are no warp requests.
    pub fn is_empty(&self) -> bool {
        self.reqs.is_empty()
    }

    /// The warp size of the last [`Chunk::split`].
    pub fn warp_size(&self) -> u32 {
        self.warp_size
    }

    /// Request `i` (its `line` is 0: binary traces have no lines).
    #[inline]
    pub fn get(&self, i: usize) -> RequestRef<'_> {
        let r = &self.reqs[i];
        let (op, bytes, dep) = decode_code(r.code).unwrap_or((Op::Barrier, 0, None));
        let n = r.count as usize;
        let s = r.start as usize;
        let l = r.lanes as usize;
        RequestRef {
            block: r.block,
            warp: r.warp,
            step: r.step,
            op,
            bytes,
            gap: r.gap,
            dep,
            wait: r.wait.checked_sub(1),
            line: 0,
            lanes: &self.lanes[l..l + n],
            addrs: &self.addrs[s..s + n],
        }
    }

    /// All requests in (block, warp, step) order.
    #[inline]
    pub fn iter(&self) -> ChunkRequests<'_> {
        ChunkRequests { chunk: self, next: 0 }
    }

    /// Appends the chunk's per-thread records to `trace` (in (block, slice, step, lane)
    /// order, with line 0).
    pub fn push_records(&self, trace: &mut Trace) {
        trace.records.reserve(self.records());
        trace.lines.reserve(self.records());
        for g in 0..self.groups() {
            let mut m = self.g_mask[g];
            let mut k = self.g_start[g] as usize;
            let per_lane = self.g_code[g] == PER_LANE;
            let mut p = self.g_gap[g] as usize;
            let (form, l0) = (self.g_form[g], m.trailing_zeros());
            while m != 0 {
                let lane = m.trailing_zeros();
                m &= m - 1;
                let (code, gap, wait) = if per_lane {
                    p += 1;
                    (self.lane_code[p - 1], self.lane_gap[p - 1], self.lane_wait[p - 1])
                } else {
                    (self.g_code[g], self.g_gap[g], self.g_wait[g])
                };
                let (op, bytes, dep) = decode_code(code).unwrap_or((Op::Barrier, 0, None));
                trace.records.push(Record {
                    block: self.g_block[g],
                    thread: self.g_slice[g] * SLICE_LANES + lane,
                    step: self.g_step[g],
                    op,
                    addr: match form.lane(&self.g_tiles, lane, l0) {
                        Some(a) if self.lazy => a,
                        _ => self.addrs[k],
                    },
                    bytes,
                    gap,
                    dep,
                    wait: wait.checked_sub(1),
                });
                trace.lines.push(0);
                k += 1;
            }
        }
    }
}

/// One group of [`Chunk::for_each_slice`]: the 64-thread slice `slice` of block `block`
/// at step `step`, as one request whose mask covers the slice's 64 lanes.
#[derive(Clone, Copy, Debug)]
pub struct MaskedSlice<'a> {
    /// Block.
    pub block: u32,
    /// Slice of the block (threads `64 × slice ..`).
    pub slice: u32,
    /// Step.
    pub step: u32,
    /// The slice's lanes and addresses.
    pub request: MaskedRequest<'a>,
}

/// One warp request of [`Chunk::for_each_masked`].
#[derive(Clone, Copy, Debug)]
pub struct MaskedWarp<'a> {
    /// Block.
    pub block: u32,
    /// Warp within the block.
    pub warp: u32,
    /// Step.
    pub step: u32,
    /// Op, width, lane mask (within the warp) and addresses.
    pub request: MaskedRequest<'a>,
}

/// The warp requests of a [`Chunk`], in order ([`Chunk::iter`]). A named type with an
/// inlined `next`, so that a caller's loop over requests compiles into one loop.
#[derive(Clone, Debug)]
pub struct ChunkRequests<'a> {
    chunk: &'a Chunk,
    next: usize,
}

impl<'a> Iterator for ChunkRequests<'a> {
    type Item = RequestRef<'a>;

    #[inline]
    fn next(&mut self) -> Option<RequestRef<'a>> {
        if self.next >= self.chunk.len() {
            return None;
        }
        self.next += 1;
        Some(self.chunk.get(self.next - 1))
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.chunk.len() - self.next;
        (left, Some(left))
    }
}

impl ExactSizeIterator for ChunkRequests<'_> {}

impl sim_core::engine::Workload for Chunk {
    #[inline]
    fn len(&self) -> usize {
        self.reqs.len()
    }

    #[inline]
    fn request(&self, i: usize) -> sim_core::engine::EngineRequest<'_> {
        self.get(i).engine_request()
    }
}

/// Reads a whole binary trace file into memory as records.
pub fn read(path: &Path) -> Result<Trace, BinaryError> {
    let reader = Reader::open(path)?;
    read_all(reader)
}

/// Parses a whole binary trace from a reader; `name` is used in messages.
pub fn parse<R: Read>(src: R, name: &str) -> Result<Trace, BinaryError> {
    read_all(Reader::new(src, name, None)?)
}

fn read_all<R: Read>(mut reader: Reader<R>) -> Result<Trace, BinaryError> {
    let mut trace = Trace::new(reader.name());
    trace.has_timing_columns = reader.header().timing_columns;
    let (mut raw, mut chunk) = (RawChunk::default(), Chunk::default());
    while reader.next_chunk(&mut raw)? {
        raw.decode(&mut chunk)?;
        chunk.push_records(&mut trace);
    }
    Ok(trace)
}

/// Whether the file at `path` starts with the binary trace magic.
pub fn is_binary(path: &Path) -> std::io::Result<bool> {
    let mut f = std::fs::File::open(path)?;
    let mut m = [0u8; 8];
    Ok(read_full(&mut f, &mut m)? == 8 && &m == MAGIC)
}

#[cfg(test)]
mod tests {
    /// `unpack` (whole bytes, the per-width loops, the general loop) gives what reading
    /// the bits one by one gives, for every width, shift and lane count.
    #[test]
    fn unpack_equals_bit_by_bit_reading() {
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for bits in 0..=32u32 {
            // the format guarantees shift + bits <= 32 (`unpack`'s precondition)
            for shift in [0, 1, 4, 32 - bits].into_iter().filter(|s| s + bits <= 32) {
                for n in 1..=64usize {
                    let len = (n * bits as usize).div_ceil(8);
                    // the offsets, then (as in a column) bytes that must not matter: none,
                    // or as many as the kernel may read past the offsets
                    let extra = if n % 2 == 0 { 0 } else { 40 };
                    let packed: Vec<u8> = (0..len + extra).map(|_| next() as u8).collect();
                    let base = next() as u32 % 1000;
                    let want: Vec<u32> = (0..n)
                        .map(|i| {
                            let v = (0..bits as usize)
                                .map(|k| {
                                    let bit = i * bits as usize + k;
                                    ((packed[bit / 8] >> (bit % 8)) & 1) as u64
                                })
                                .enumerate()
                                .fold(0u64, |acc, (k, b)| acc | b << k);
                            ((v << shift) as u32).wrapping_add(base)
                        })
                        .collect();
                    // the scalar code, the AVX2 kernel where the CPU has it, and `unpack` as
                    // the decoder calls it (compiled for AVX2 where the CPU has it)
                    for (simd, dispatch) in [(false, false), (super::simd_available(), false), (true, true)] {
                        let mut got = vec![0; n];
                        let max = if dispatch {
                            super::unpack(&packed, len, bits, shift, base, &mut got)
                        } else {
                            super::unpack_with(&packed, len, bits, shift, base, &mut got, simd)
                        };
                        let simd = if dispatch {
                            "as dispatched"
                        } else if simd {
                            "avx2"
                        } else {
                            "scalar"
                        };
                        assert_eq!(got, want, "{bits} bits, shift {shift}, {n} lanes, simd {simd}");
                        let want_max = want.iter().map(|w| w.wrapping_sub(base)).max().unwrap_or(0);
                        assert_eq!(
                            max, want_max,
                            "{bits} bits, shift {shift}, {n} lanes, simd {simd}: the largest offset"
                        );
                    }
                }
            }
        }
    }

    /// `Col::varint` reads back what `put_varint` wrote, for every length (one to ten
    /// bytes), at a column's end and followed by more bytes; truncated and overlong
    /// varints are `None`.
    #[test]
    fn varints_read_back_at_every_length() {
        let mut values = vec![0u64, 1, 0x7F, 0x80, 0x3FFF, 0x4000, u64::MAX, u64::MAX >> 1, 1 << 63];
        values.extend((0..64).flat_map(|k| [(1u64 << k) - 1, 1 << k, (1 << k) + 1]));
        values.extend((0..64).map(|k| 0x9E37_79B9_7F4A_7C15u64.rotate_left(k) >> k));
        // (both ways of reading: the loop, and without a branch on the length)
        let read = |bytes: &[u8]| {
            let mut c = super::Col { data: bytes, pos: 0, at: 0, index: 0 };
            let v = c.varint();
            let mut d = super::Col { data: bytes, pos: 0, at: 0, index: 0 };
            assert_eq!((d.varint_unpredictable(), d.pos), (v, c.pos), "{bytes:x?}");
            (v, c.pos)
        };
        for &v in &values {
            let mut bytes = Vec::new();
            super::put_varint(&mut bytes, v);
            let len = bytes.len();
            assert_eq!(len, super::varint_len(v));
            // at the end of the column, then followed by more bytes
            assert_eq!(read(&bytes), (Some(v), len), "{v:#x} alone");
            let mut padded = bytes.clone();
            padded.extend([0x80, 0xFF, 0x01, 0x7F, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00]);
            assert_eq!(read(&padded), (Some(v), len), "{v:#x} followed by more");
            // cut short: the last byte still says "more"
            if len > 1 {
                assert_eq!(read(&bytes[..len - 1]).0, None, "{v:#x} truncated");
            }
        }
        // eleven bytes, or a tenth byte above 1, do not fit in 64 bits
        for bad in [vec![0x80; 10], vec![0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x02]] {
            let mut padded = bad.clone();
            padded.extend([0u8; 8]);
            assert_eq!(read(&bad).0, None, "{bad:?}");
            assert_eq!(read(&padded).0, None, "{bad:?} followed by more");
        }
    }

    #[test]
    fn tile_groups_of_a_seen_shape_reuse_its_steps_and_decode_exactly() {
        // 4-byte loads of one 64-thread slice at a moving origin, in six tile shapes: rows
        // of 8 lanes 128 or 144 bytes apart, lane pairs, two shapes with the same step
        // bytes (4, 8, 16) on different lane bits, one whose last step's bytes differ from
        // the first shape's in one byte. Steps 0..40 cycle through four of them (each seen
        // again while remembered), steps 40..60 through the other two and the first
        // (which they evicted): 7 step sets, and one for each group too near the end of
        // the address column (fewer than 16 bytes after its step bits) to be looked up.
        let which = |step: u32| {
            if step < 40 {
                [0, 3, 4, 5][step as usize % 4]
            } else {
                [1, 2, 0][step as usize % 3]
            }
        };
        let shape = |step: u32, t: u32| match which(step) {
            0 => (t % 8) * 4 + (t / 8) * 128,
            1 => (t % 8) * 4 + (t / 8) * 144,
            2 => (t / 2) * 4,
            3 => (t % 8) * 4,
            4 => ((t >> 1) % 8) * 4,
            _ => (t % 8) * 4 + ((t / 8) % 4) * 128 + (t / 32) * 516,
        };
        let mut trace = crate::Trace::new("tiles");
        for step in 0..60 {
            for thread in 0..64 {
                let addr = 4096 * (step % 7) + shape(step, thread);
                let op = sim_core::Op::Load;
                trace.push(crate::Record {
                    block: 0,
                    thread,
                    step,
                    op,
                    addr,
                    bytes: 4,
                    gap: 0,
                    dep: None,
                    wait: None,
                });
            }
        }
        let bytes = super::write(&trace, Vec::new()).expect("a trace");
        let mut reader = super::Reader::new(&bytes[..], "tiles.bsim", None).expect("a header");
        let (mut raw, mut chunk) = (super::RawChunk::default(), super::Chunk::default());
        assert!(reader.next_chunk(&mut raw).expect("a chunk"));
        let tiles =
            |c: &super::Chunk| c.g_form.iter().filter(|f| matches!(f, super::Form::Tile { .. })).count();
        for lazy in [false, true] {
            if lazy {
                raw.decode_lazy(&mut chunk).expect("decodes");
            } else {
                raw.decode(&mut chunk).expect("decodes");
            }
            assert_eq!(tiles(&chunk), 60, "lazy {lazy}");
            assert!((7..=9).contains(&chunk.g_tiles.len()), "lazy {lazy}: {} step sets", chunk.g_tiles.len());
            let mut back = crate::Trace::new("back");
            chunk.push_records(&mut back);
            let addrs =
                |t: &crate::Trace| t.records.iter().map(|r| (r.step, r.thread, r.addr)).collect::<Vec<_>>();
            assert_eq!(addrs(&back), addrs(&trace), "lazy {lazy}");
        }
    }

    /// A trace of `chunks` chunks (8 blocks of 64 threads x 4 steps a chunk, strided and
    /// random-looking addresses) in a temporary file.
    fn chunked_file(tag: &str) -> std::path::PathBuf {
        let mut t = crate::Trace::new("w");
        let mut x = 0x9E37_79B9u32;
        for block in 0..48 {
            for thread in 0..64 {
                for step in 0..4 {
                    x ^= x << 13;
                    x ^= x >> 17;
                    x ^= x << 5;
                    let addr = if step % 2 == 0 { thread * 4 } else { x % 4096 * 4 };
                    t.push(crate::Record {
                        block,
                        thread,
                        step,
                        op: sim_core::Op::Load,
                        addr,
                        bytes: 4,
                        gap: 0,
                        dep: None,
                        wait: None,
                    });
                }
            }
        }
        let path = std::env::temp_dir().join(format!("traces-window-{tag}-{}.bsim", std::process::id()));
        std::fs::write(&path, super::write_chunked(&t, Vec::new(), 8 * 64 * 4).expect("a trace"))
            .expect("a temporary file");
        path
    }

    /// Every chunk's groups and addresses, through `decode`.
    fn decoded(reader: &mut super::Reader<impl std::io::Read>) -> Vec<(u64, Vec<u32>, Vec<u64>)> {
        let (mut raw, mut chunk) = (super::RawChunk::default(), super::Chunk::default());
        let mut out = Vec::new();
        while reader.next_chunk(&mut raw).expect("a chunk") {
            raw.load().expect("the payload");
            raw.decode(&mut chunk).expect("a good chunk");
            out.push((raw.offset(), chunk.addrs.clone(), chunk.g_mask.clone()));
        }
        out
    }

    /// Payloads borrowed from mapped windows decode as payloads read into a buffer:
    /// windows of one payload each, windows of a few, and windows smaller than a payload.
    #[test]
    fn mapped_windows_of_any_size_decode_as_reads_do() {
        let path = chunked_file("sizes");
        let mut plain = super::Reader::open(&path).expect("a header");
        let want = decoded(&mut plain);
        assert_eq!(want.len(), 6, "the file's chunks");
        let step = want.windows(2).map(|w| w[1].0 - w[0].0).max().expect("chunks");
        let spans = [(1, 6..=6), (step / 2, 6..=6), (step * 5 / 2, 2..=3), (super::WINDOW_BYTES, 1..=1)];
        for (window, expected) in spans {
            let mut r = super::Reader::open(&path).expect("a header");
            r.window_bytes = window;
            assert!(r.map_payloads(), "a file opened by path maps");
            let (mut raw, mut windows, mut chunks) = (super::RawChunk::default(), 0, Vec::new());
            let mut last = None;
            let mut chunk = super::Chunk::default();
            while r.next_chunk(&mut raw).expect("a chunk") {
                assert!(raw.is_mapped(), "window {window}: chunk at {} not mapped", raw.offset());
                // (a window is known by where it starts in the file)
                let w = r.window.as_ref().expect("a window").1;
                windows += usize::from(last != Some(w));
                last = Some(w);
                raw.load().expect("the payload");
                raw.decode(&mut chunk).expect("a good chunk");
                chunks.push((raw.offset(), chunk.addrs.clone(), chunk.g_mask.clone()));
            }
            assert_eq!(chunks, want, "window of {window} bytes");
            assert!(expected.contains(&windows), "window of {window} bytes: {windows} windows");
        }
        let _ = std::fs::remove_file(&path);
    }

    /// A file that shrinks inside a window already mapped is an error when the chunk is
    /// loaded, not a fault when it is decoded.
    #[test]
    fn a_file_that_shrinks_inside_a_mapped_window_is_an_error_at_load() {
        let path = chunked_file("inside");
        let offsets: Vec<u64> =
            decoded(&mut super::Reader::open(&path).expect("a header")).iter().map(|c| c.0).collect();
        let mut r = super::Reader::open(&path).expect("a header");
        r.map_payloads();
        let (mut raw, mut chunk) = (super::RawChunk::default(), super::Chunk::default());
        assert!(r.next_chunk(&mut raw).expect("the first chunk"));
        raw.load().expect("the first payload");
        raw.decode(&mut chunk).expect("a good chunk");
        // one window holds the whole file; the third chunk's payload is cut in the middle
        let cut = offsets[2] + super::CHUNK_HEADER_LEN as u64 + 40;
        std::fs::OpenOptions::new().write(true).open(&path).and_then(|f| f.set_len(cut)).expect("truncated");
        assert!(r.next_chunk(&mut raw).expect("the second chunk, still whole"));
        raw.load().expect("the second payload");
        raw.decode(&mut chunk).expect("a good chunk");
        assert!(r.next_chunk(&mut raw).expect("the third chunk's header, inside the window"));
        assert!(raw.is_mapped());
        let e = raw.load().expect_err("the payload is cut").to_string();
        assert!(
            e.contains(&format!("the file ends at byte {cut} inside chunk 2")) && e.contains("shrank"),
            "{e}"
        );
        // (a second load says so again)
        assert!(raw.load().is_err());
        let _ = std::fs::remove_file(&path);
    }

    /// A file that shrinks after it was opened is an error when the next window is
    /// mapped, not a fault.
    #[test]
    fn a_file_that_shrinks_while_mapped_is_an_error() {
        let path = chunked_file("shrink");
        let second = decoded(&mut super::Reader::open(&path).expect("a header"))[1].0;
        let mut r = super::Reader::open(&path).expect("a header");
        r.window_bytes = 1;
        r.map_payloads();
        let mut raw = super::RawChunk::default();
        assert!(r.next_chunk(&mut raw).expect("the first chunk"));
        // the second chunk's header stays, its payload goes
        let cut = second + super::CHUNK_HEADER_LEN as u64 + 1;
        std::fs::OpenOptions::new().write(true).open(&path).and_then(|f| f.set_len(cut)).expect("truncated");
        let e = r.next_chunk(&mut raw).expect_err("the file shrank").to_string();
        assert!(
            e.contains(&format!("truncated: the file ends at byte {cut}")) && e.contains("shrank"),
            "{e}"
        );
        let _ = std::fs::remove_file(&path);
    }
}
