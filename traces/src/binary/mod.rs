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
//! file    = header [sites] chunk* end
//! header  = magic "\x89BNKSIM\n" (8 bytes), version u16 = 2 (1: no tile mode; 3: with sites;
//!           4: with sites or not, and codes may name the tensor-core ops),
//!           flags u16 (bit 0: the trace has the gap/dep columns; bit 1: every gap is
//!           followed by a wait; bit 2, version 3 and on: every gap and wait is followed
//!           by a site, and the site table follows the header),
//!           slice lanes u8 = 64, 3 zero bytes,
//!           CRC-32 u32 of the 16 bytes before it
//! sites   = "SITE", count u32, count x (label length u32 (at most 65536), label UTF-8),
//!           CRC-32 u32 of the bytes before it from "SITE" on
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
//! | 4 attr | one code (uniform group), or 0xFF then one code per active lane; code = op (bits 0-2: ld, st, atom, red, bar, gld, gst) + width (bits 3-5: 0 for bar, else log2(bytes) + 1) + dep (bits 6-7: none, 0, 1); version 4: op bits 7 is a tensor-core op, bits 3-5 saying which and its width (0 ldsm 16, 1 stsm 16, 2 ldgsts 4, 3 ldgsts 8, 4 ldgsts 16, 5 ldgsts.cg 16) |
//! | 5 gap | `v` gap, once per group, or once per active lane after a 0xFF attr; with flag bit 1, each gap is followed by `v` its wait: 0 for none, else wait + 1 (at most gap + 1); with flag bit 2, then by `v` its site: 0 for none, else the site id + 1 (at most the table's count) |
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

mod chunk;
mod cpu;
mod decode;
mod error;
mod format;
mod raw;
mod read;
mod unpack;
mod varint;
mod write;

pub use chunk::{Chunk, ChunkRequests, MaskedSlice, MaskedWarp};
pub use error::{BinaryError, WriteError};
pub use format::{CHUNK_LANES, MAGIC, MAX_CHUNK_BYTES, SLICE_LANES, VERSION};
#[cfg(unix)]
pub(crate) use raw::read_full_at;
pub use raw::RawChunk;
pub use read::{is_binary, parse, read, read_all, Header, Reader, Totals};
pub use write::{write, write_chunked, Attrs, Group, LaneAttr, Writer};
