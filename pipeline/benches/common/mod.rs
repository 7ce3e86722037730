//! The standard workload mix of the benchmarks, generated straight into the binary trace
//! format (streaming: any size in bounded memory).
//!
//! Blocks of 256 threads (four 64-thread slices, eight 32-lane warps) run 64 steps; step
//! `s` is one instruction of class `s % 4`:
//!
//! | class | what |
//! | --- | --- |
//! | strided 4-byte | loads and stores at `base + 4 × stride × thread`, stride cycling through 1, 2, 3, 4, 8, 16, 32, 33 |
//! | random 4-byte | loads of random words |
//! | 16-byte GEMM tile | float4 loads of a 64 × 32 float A tile (rows 32 or 36 floats apart) and of a B-tile row that lane pairs share (the H100's pair merge) |
//! | masked | 4-byte loads with a random half of the lanes active, or only the first few lanes of the slice (a tail warp) |
//!
//! Every address lies inside 192 KiB, below every preset's shared memory. The mix is
//! deterministic: block `b`'s requests depend only on `b`.
#![allow(dead_code)] // each bench target uses a part

use sim_core::{stats::Summary, BankModel, Hardware, LaneAddrs, MaskedRequest, Op, SliceOutcome};
use std::io::Write;
use std::path::Path;
use traces::binary::{Attrs, BinaryError, Chunk, Group, LaneAttr, RawChunk, Reader, WriteError, Writer};

/// Warp size of the benchmarks.
pub const WARP: u32 = 32;

/// Threads per block.
pub const THREADS: u32 = 256;
/// Steps per thread.
pub const STEPS: u32 = 64;
/// Words of shared memory the mix touches (192 KiB).
const WORDS: u32 = 48 * 1024;

/// A workload class of the mix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// Strided 4-byte loads and stores.
    Strided4,
    /// Random 4-byte loads.
    Random4,
    /// 16-byte GEMM tile loads.
    Gemm16,
    /// Masked 4-byte loads.
    Masked4,
}

impl Class {
    /// All classes, in step order.
    pub const ALL: [Class; 4] = [Class::Strided4, Class::Random4, Class::Gemm16, Class::Masked4];

    /// A short name.
    pub fn name(self) -> &'static str {
        match self {
            Class::Strided4 => "strided-4B",
            Class::Random4 => "random-4B",
            Class::Gemm16 => "gemm-16B",
            Class::Masked4 => "masked-4B",
        }
    }
}

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u32 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 32) as u32
    }
}

/// Writes blocks `blocks` of the mix; `classes` are the classes of steps 0, 1, 2, ...
/// in turn (all four for the standard mix, one for a single-class workload).
pub fn write_blocks<W: Write>(
    w: &mut Writer<W>,
    blocks: std::ops::Range<u32>,
    classes: &[Class],
) -> Result<(), WriteError> {
    let mut addrs = [0u32; 64];
    for block in blocks {
        for slice in 0..THREADS / 64 {
            let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ ((block as u64) << 8 | slice as u64));
            for step in 0..STEPS {
                let class = classes[step as usize % classes.len()];
                let round = step / classes.len() as u32;
                let mut mask = u64::MAX;
                let mut op = Op::Load;
                let bytes;
                match class {
                    Class::Strided4 => {
                        bytes = 4;
                        op = if round.is_multiple_of(2) { Op::Load } else { Op::Store };
                        let stride = [1, 2, 3, 4, 8, 16, 32, 33][round as usize % 8];
                        let base = (block * 97 + step * 31) % 4096;
                        for (lane, a) in addrs.iter_mut().enumerate() {
                            let t = slice * 64 + lane as u32;
                            *a = (base + t * stride) % WORDS * 4;
                        }
                    }
                    Class::Random4 => {
                        bytes = 4;
                        for a in addrs.iter_mut() {
                            *a = rng.next() % WORDS * 4;
                        }
                    }
                    Class::Gemm16 => {
                        bytes = 16;
                        for (lane, a) in addrs.iter_mut().enumerate() {
                            let t = slice * 64 + lane as u32;
                            let k = round % 8;
                            *a = if round.is_multiple_of(2) {
                                // A tile: 64 rows of 32 floats (pitch 32 or 36), 8 float4 per row
                                let pitch = if round.is_multiple_of(4) { 32 } else { 36 };
                                (((t / 8) % 64) * pitch + (t % 8) * 4) * 4
                            } else {
                                // B tile row k: lane pairs share a float4
                                16384 + (k * 64 + ((t / 2) % 16) * 4) * 4
                            };
                        }
                    }
                    Class::Masked4 => {
                        bytes = 4;
                        mask = if round.is_multiple_of(2) {
                            (rng.next() as u64) << 32 | rng.next() as u64
                        } else {
                            u64::MAX >> (63 - (block + step) % 48)
                        };
                        if mask == 0 {
                            mask = 1;
                        }
                        let mut m = mask;
                        let mut i = 0;
                        while m != 0 {
                            let lane = m.trailing_zeros();
                            m &= m - 1;
                            let t = slice * 64 + lane;
                            addrs[i] = (block * 64 + t * (1 + round % 2)) % WORDS * 4;
                            i += 1;
                        }
                    }
                }
                let n = mask.count_ones() as usize;
                let attrs = Attrs::Uniform(LaneAttr {
                    op,
                    bytes,
                    gap: 0,
                    dep: None,
                    wait: None,
                    site: traces::NO_SITE,
                });
                w.push(&Group { block, slice, step, mask, attrs, addrs: &addrs[..n] })?;
            }
        }
    }
    Ok(())
}

/// The mix of `blocks` blocks as binary trace bytes.
pub fn mix_bytes(blocks: u32, classes: &[Class]) -> Vec<u8> {
    let mut w = Writer::new(Vec::new(), "mix", false).expect("in memory");
    write_blocks(&mut w, 0..blocks, classes).expect("a valid mix");
    w.finish().expect("in memory")
}

/// Simulates a binary trace on the bank model, chunk by chunk, with `banksim run`'s own
/// code ([`pipeline::stream::totals`], the file mapped): every thread of the
/// current pool reads the next chunk in turn, decodes it lazily, checks it and simulates
/// its requests as lane masks, and the per-chunk summaries are added up. Memory: a couple
/// of chunks per thread. The summary and the warp requests.
pub fn simulate_file(path: &Path, hw: &Hardware) -> Result<(Summary, u64), pipeline::Error> {
    let how = pipeline::stream::Reading::new(0);
    let s = pipeline::stream::totals(pipeline::stream::open(path)?, hw, &how)?;
    Ok((s.summary, s.requests))
}

/// A slice's outcome through the model's memo of slices, as `banksim run` takes it
/// ([`pipeline::stream::slice_outcome`]).
#[inline]
pub fn slice_outcome(model: &mut BankModel, r: &MaskedRequest<'_>, warp: u32) -> SliceOutcome {
    debug_assert_eq!(warp, model.hardware().warp);
    pipeline::stream::slice_outcome(model, r)
}

/// Reads and decodes the file without simulating it, chunk by chunk as
/// [`simulate_file`] reads it (on the current pool's threads, the file mapped); returns
/// the warp requests and a checksum of what was decoded (so that nothing is optimised
/// away). With `split`, every request's lanes and addresses are written out in (block,
/// warp, step) order (as the cycle engine takes them); without, requests are walked as
/// lane masks (as [`simulate_file`] takes them: the limit of that path).
#[inline(never)] // a frame of its own in profiles
pub fn read_decode(path: &Path, split: bool) -> Result<(u64, u64), BinaryError> {
    let mut reader = Reader::open(path)?;
    reader.map_payloads();
    let total = traces::parallel::fold_chunks(
        reader,
        Chunk::default,
        |chunk, raw: &RawChunk| {
            let (mut requests, mut check) = (0u64, 0u64);
            if split {
                raw.decode(chunk)?;
                chunk.split(WARP)?;
                for r in chunk.iter() {
                    check = check.wrapping_add(r.lanes.len() as u64 + r.addrs[0] as u64 + r.op as u64);
                }
                requests += chunk.len() as u64;
            } else {
                raw.decode_lazy(chunk)?;
                chunk.for_each_masked(WARP, |w| {
                    let r = &w.request;
                    let first = match r.addrs {
                        LaneAddrs::Affine { first, .. } => first,
                        LaneAddrs::Listed(a) => a[0],
                        LaneAddrs::Tile { origin, .. } => origin,
                    };
                    check = check.wrapping_add(r.mask.count_ones() as u64 + first as u64 + r.op as u64);
                    requests += 1;
                    Ok::<_, BinaryError>(())
                })?;
            }
            Ok::<_, BinaryError>((requests, check))
        },
        |(requests, check), (n, c)| {
            *requests += n;
            *check = check.wrapping_add(c);
        },
    )?;
    Ok(total.unwrap_or_default())
}

/// Every chunk of the file as read, payload loaded (for timing the decoder alone).
pub fn raw_chunks(path: &Path) -> Result<Vec<RawChunk>, BinaryError> {
    let mut reader = Reader::open(path)?;
    let mut raws = Vec::new();
    let mut raw = RawChunk::default();
    while reader.next_chunk(&mut raw)? {
        raw.load()?;
        raws.push(std::mem::take(&mut raw));
    }
    Ok(raws)
}

/// Every chunk of the file, decoded (lazily: affine addresses are not written out), and
/// the number of warp requests.
pub fn decoded_chunks(path: &Path) -> Result<(Vec<Chunk>, u64), BinaryError> {
    let mut reader = Reader::open(path)?;
    let mut raw = RawChunk::default();
    let mut chunks = Vec::new();
    let mut n = 0;
    while reader.next_chunk(&mut raw)? {
        let mut c = Chunk::default();
        raw.decode_lazy(&mut c)?;
        c.for_each_masked(WARP, |_| {
            n += 1;
            Ok::<_, BinaryError>(())
        })?;
        chunks.push(c);
    }
    Ok((chunks, n))
}

/// The bank model alone over decoded chunks ([`slice_outcome`]: the memo of slices and
/// the memo of affine requests included); the total wavefronts.
#[inline(never)] // a frame of its own in profiles
pub fn model_only(chunks: &[Chunk], hw: &Hardware) -> u64 {
    let mut model = BankModel::new(hw);
    let mut w = 0u64;
    for c in chunks {
        c.for_each_slice(|s| {
            w += slice_outcome(&mut model, &s.request, hw.warp).wavefronts as u64;
            Ok::<_, BinaryError>(())
        })
        .expect("decoded");
    }
    w
}

/// The bank model alone over requests with every lane's address written out
/// (`evaluate`, no memo; `chunks` split for [`WARP`]); the total wavefronts.
#[inline(never)] // a frame of its own in profiles
pub fn model_expanded(chunks: &[Chunk], hw: &Hardware) -> u64 {
    let mut model = BankModel::new(hw);
    let mut w = 0u64;
    for c in chunks {
        for r in c.iter() {
            w += model.evaluate(&r.warp_request()).wavefronts as u64;
        }
    }
    w
}
