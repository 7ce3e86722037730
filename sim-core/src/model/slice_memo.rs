//! The memo of whole slices: the summed outcome of a slice's warp requests, remembered
//! by the slice's whole key.
//!
//! Kernels repeat their shared-memory shapes: every block loads its tiles at the same
//! shared addresses, a loop walks the same pattern at a new offset. A repeated slice then
//! costs a hash and a compare instead of its warps' evaluation (and, for affine slices,
//! instead of one closed form per warp).
//!
//! The key is exact, as in the memo of affine requests: moving every address by a
//! multiple of the period `P` ([`Period`]) keeps each lane's bank, which words are equal,
//! and which 128-byte global lines are equal, so the outcome depends only on
//! - an affine slice (lane `l` at `first + stride × (l − lowest lane)`): op, width, the
//!   64-lane mask, the stride and `first mod P`;
//! - a tile slice (lane `l` at `origin + Σ_j bit j of l × steps[j]`): op, width, the
//!   mask, the six steps and `origin mod P` (every lane of a tile, active or not, lies
//!   in `0..2^32`, so moving them all keeps the steps);
//! - a listed slice: op, width, the mask and every address minus `base`, the lowest
//!   address rounded down to a multiple of `P` (so nothing wraps around).
//!
//! The tables are direct-mapped and every entry holds its whole key (a listed entry
//! holds up to 64 addresses). Slices that never come back (random addresses, random
//! masks) would pay for the key and evict the ones that do, so a slice only enters a
//! table the second time its *sketch* is seen: a 32-bit hash kept in a small filter of
//! [`FILTER`] tags. An affine or tile slice's sketch is the hash of its whole key; a listed
//! slice's comes from its first four lanes (op, width, mask, the first address mod `P`
//! and the next three relative to it), and only a listed slice whose sketch was seen
//! before has its whole key computed and looked up. Results never depend on the filter
//! or the tables: only the time does.

use super::period::{kind_key, Period};
use crate::hardware::Hardware;
use crate::masked::{LaneAddrs, MaskedRequest};
use crate::request::SliceOutcome;

/// What `BankModel::remember_slice` is to do with a slice that
/// `BankModel::recall_slice` did not know.
#[derive(Clone, Copy, Debug)]
pub struct SliceTicket(Keep);

#[derive(Clone, Copy, Debug)]
enum Keep {
    /// Nothing (no memo, or the slice's sketch was new).
    Not,
    /// Into this slot of the affine table, with `first mod P` and the kind.
    Affine { slot: usize, first: u32, kind: u32 },
    /// Into this slot of the listed table, the addresses less `base`.
    Listed { slot: usize, base: u32, kind: u32 },
    /// Into this slot of the tile table, with `origin mod P` and the kind.
    Tile { slot: usize, origin: u32, kind: u32 },
}

/// Entries of the table of affine slices (a power of two).
const AFFINE_ENTRIES: usize = 1024;
/// Entries of the table of listed slices (a power of two; each holds 64 addresses).
const LISTED_ENTRIES: usize = 256;
/// Entries of the table of tile slices (a power of two).
const TILE_ENTRIES: usize = 256;
/// Tags of the filter of sketches (a power of two).
const FILTER: usize = 2048;

/// One remembered affine slice.
#[derive(Clone, Copy, Debug, Default)]
struct AffineEntry {
    mask: u64,
    stride: i64,
    /// First address modulo the period.
    first: u32,
    /// `(op + 1) << 8 | bytes`; 0 for an empty entry.
    kind: u32,
    outcome: SliceOutcome,
}

/// One remembered tile slice.
#[derive(Clone, Copy, Debug, Default)]
struct TileEntry {
    mask: u64,
    steps: [i32; 6],
    /// Lane 0's address modulo the period.
    origin: u32,
    /// `(op + 1) << 8 | bytes`; 0 for an empty entry.
    kind: u32,
    outcome: SliceOutcome,
}

/// One remembered listed slice (its addresses are in [`SliceMemo::addrs`]).
#[derive(Clone, Copy, Debug, Default)]
struct ListedEntry {
    mask: u64,
    /// `(op + 1) << 8 | bytes`; 0 for an empty entry.
    kind: u32,
    outcome: SliceOutcome,
}

/// The memo of whole slices (see the module documentation).
#[derive(Clone, Debug)]
pub(super) struct SliceMemo {
    period: Period,
    /// Allocated at the first slice ([`Self::allocate`]).
    affine: Box<[AffineEntry]>,
    listed: Box<[ListedEntry]>,
    tile: Box<[TileEntry]>,
    /// 64 addresses (minus the slice's base) per listed entry.
    addrs: Box<[u32]>,
    affine_size: usize,
    listed_size: usize,
    tile_size: usize,
    /// Sketches seen (see the module documentation), by their top bits; 0 for none.
    filter: Box<[u32]>,
    /// Whether the CPU has AVX2 (for [`Self::find_listed`]).
    avx2: bool,
}

impl SliceMemo {
    /// The (empty) memo for `hw`.
    pub(super) fn new(hw: &Hardware) -> SliceMemo {
        SliceMemo {
            period: Period::of(hw),
            affine: Box::new([]),
            listed: Box::new([]),
            tile: Box::new([]),
            addrs: Box::new([]),
            affine_size: AFFINE_ENTRIES,
            listed_size: LISTED_ENTRIES,
            tile_size: TILE_ENTRIES,
            filter: Box::new([]),
            #[cfg(target_arch = "x86_64")]
            avx2: std::is_x86_feature_detected!("avx2"),
            #[cfg(not(target_arch = "x86_64"))]
            avx2: false,
        }
    }

    /// The entry of a listed slice (`addrs` one per lane of `mask`, at least one), its
    /// base, and whether the entry holds this very slice.
    #[inline]
    fn find_listed(&self, kind: u32, mask: u64, addrs: &[u32]) -> (usize, u32, bool) {
        #[cfg(target_arch = "x86_64")]
        if self.avx2 {
            // SAFETY: `avx2` is set only where the CPU has AVX2.
            return unsafe { self.find_listed_avx2(kind, mask, addrs) };
        }
        self.find_listed_with(kind, mask, addrs)
    }

    /// [`Self::find_listed_with`] compiled for AVX2 (SSE2 has neither the unsigned
    /// minimum nor the 32-bit multiply of its loops).
    ///
    /// # Safety
    /// The CPU must have AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn find_listed_avx2(&self, kind: u32, mask: u64, addrs: &[u32]) -> (usize, u32, bool) {
        self.find_listed_with(kind, mask, addrs)
    }

    #[inline(always)]
    fn find_listed_with(&self, kind: u32, mask: u64, addrs: &[u32]) -> (usize, u32, bool) {
        let addrs = &addrs[..addrs.len().min(64)];
        let lowest = addrs.iter().fold(u32::MAX, |lo, &a| lo.min(a));
        let base = lowest - self.period.modulo(lowest);
        let h = addrs.iter().zip(&LANE_KEYS).fold(0u32, |h, (&a, &k)| h.wrapping_add((a - base) ^ k));
        let i = slot_of(mask ^ (h as u64) << 32 ^ (kind as u64) << 12, self.listed_size);
        let e = &self.listed[i];
        let kept = &self.addrs[i * 64..i * 64 + addrs.len()];
        // (no early exit: the whole compare vectorizes)
        let same = e.kind == kind
            && e.mask == mask
            && addrs.iter().zip(kept).fold(0, |d, (&a, &k)| d | ((a - base) ^ k)) == 0;
        (i, base, same)
    }

    /// Makes the tables and the filter at the first slice (models that never see one,
    /// such as the cycle engine's, stay small). The check is inlined into the caller,
    /// the allocation kept out of line.
    #[inline(always)]
    fn allocate(&mut self) {
        if self.filter.is_empty() {
            self.make_tables();
        }
    }

    #[cold]
    #[inline(never)]
    fn make_tables(&mut self) {
        self.affine = vec![AffineEntry::default(); self.affine_size].into();
        self.listed = vec![ListedEntry::default(); self.listed_size].into();
        self.tile = vec![TileEntry::default(); self.tile_size].into();
        self.addrs = vec![0; self.listed_size * 64].into();
        self.filter = vec![0; FILTER].into();
    }

    /// Whether `sketch` was seen before; remembers it either way.
    #[inline]
    fn seen(&mut self, sketch: u32) -> bool {
        let tag = sketch | 1;
        // (indexed by its top bits: the sketches are the top halves of products)
        let t = &mut self.filter[(sketch >> (32 - FILTER.trailing_zeros())) as usize & (FILTER - 1)];
        let seen = *t == tag;
        *t = tag;
        seen
    }
}

/// Keys of the listed hash, one per lane position: the hash adds up each lane's offset
/// xored with its key (which only picks a slot; entries hold their whole key). An xor,
/// not a product: 32-bit multiplies are two micro-ops each on Intel cores.
const LANE_KEYS: [u32; 64] = {
    let mut k = [0u32; 64];
    let mut x = 0x9E37_79B9u32;
    let mut i = 0;
    while i < 64 {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        k[i] = x | 1;
        i += 1;
    }
    k
};

/// A 64-bit hash of two words (every bit of the result depends on every bit of both).
#[inline]
fn mix(a: u64, b: u64) -> u64 {
    let mut h = a.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ b;
    h ^= h >> 33;
    h = h.wrapping_mul(0xD6E8_FEB8_6659_FD93);
    h ^ h >> 29
}

/// The slot of hash `h` in a table of `size` entries (a power of two, one included).
#[inline]
fn slot_of(h: u64, size: usize) -> usize {
    mix(h, 0) as usize & (size - 1)
}

impl SliceMemo {
    /// The remembered outcome of the slice `req`, or a ticket with which to hand its
    /// outcome to [`Self::remember`] once the caller has evaluated its warps.
    #[inline]
    pub(super) fn recall(&mut self, req: &MaskedRequest<'_>) -> Result<SliceOutcome, SliceTicket> {
        debug_assert!(req.mask != 0);
        if self.period.is_none() {
            return Err(SliceTicket(Keep::Not));
        }
        match req.addrs {
            LaneAddrs::Affine { first, stride } => self.recall_affine(req, first, stride),
            LaneAddrs::Listed(addrs) => self.recall_listed(req, addrs),
            LaneAddrs::Tile { origin, steps } => self.recall_tile(req, origin, steps),
        }
    }

    /// Remembers the outcome of a slice that [`Self::recall`] did not know, where its
    /// ticket says to. `req` must be the slice of the ticket and `outcome` its warps'
    /// summed outcome.
    #[inline]
    pub(super) fn remember(&mut self, ticket: SliceTicket, req: &MaskedRequest<'_>, outcome: SliceOutcome) {
        match (ticket.0, req.addrs) {
            (Keep::Affine { slot, first, kind }, LaneAddrs::Affine { stride, .. }) => {
                self.affine[slot] = AffineEntry { mask: req.mask, stride, first, kind, outcome };
            }
            (Keep::Listed { slot, base, kind }, LaneAddrs::Listed(addrs)) => {
                self.listed[slot] = ListedEntry { mask: req.mask, kind, outcome };
                for (k, &a) in self.addrs[slot * 64..].iter_mut().zip(addrs) {
                    *k = a - base;
                }
            }
            (Keep::Tile { slot, origin, kind }, LaneAddrs::Tile { steps, .. }) => {
                self.tile[slot] = TileEntry { mask: req.mask, steps: *steps, origin, kind, outcome };
            }
            _ => {}
        }
    }

    #[inline]
    fn recall_affine(
        &mut self,
        req: &MaskedRequest<'_>,
        first: u32,
        stride: i64,
    ) -> Result<SliceOutcome, SliceTicket> {
        self.allocate();
        let at = self.period.modulo(first);
        let kind = kind_key(req.op, req.bytes);
        let h = mix(req.mask ^ (stride as u64).rotate_left(29), (at as u64) << 32 | kind as u64);
        let slot = h as usize & (self.affine_size - 1);
        let e = &self.affine[slot];
        if e.kind == kind && e.mask == req.mask && e.stride == stride && e.first == at {
            return Ok(e.outcome);
        }
        Err(self.ticket((h >> 32) as u32, Keep::Affine { slot, first: at, kind }))
    }

    #[inline]
    fn recall_tile(
        &mut self,
        req: &MaskedRequest<'_>,
        origin: u32,
        steps: &[i32; 6],
    ) -> Result<SliceOutcome, SliceTicket> {
        self.allocate();
        let at = self.period.modulo(origin);
        let kind = kind_key(req.op, req.bytes);
        let s = |j: usize| steps[j] as u32 as u64;
        let h = mix(
            req.mask ^ (s(0) | s(1) << 32) ^ (s(2) | s(3) << 32).rotate_left(17),
            (s(4) | s(5) << 32) ^ ((at as u64) << 20 | kind as u64).rotate_left(40),
        );
        let slot = h as usize & (self.tile_size - 1);
        let e = &self.tile[slot];
        // (the steps xored and ored, not `==` on the arrays: one compare, not six)
        let same_steps = e.steps.iter().zip(steps).fold(0, |d, (a, b)| d | (a ^ b)) == 0;
        if e.kind == kind && e.mask == req.mask && same_steps && e.origin == at {
            return Ok(e.outcome);
        }
        Err(self.ticket((h >> 32) as u32, Keep::Tile { slot, origin: at, kind }))
    }

    #[inline]
    fn recall_listed(&mut self, req: &MaskedRequest<'_>, addrs: &[u32]) -> Result<SliceOutcome, SliceTicket> {
        self.allocate();
        let kind = kind_key(req.op, req.bytes);
        // the sketch: the first four lanes, relative to the first
        let a0 = addrs[0];
        let rel = |i: usize| addrs.get(i).map_or(0, |&a| a.wrapping_sub(a0)) as u64;
        let sketch = mix(
            req.mask ^ rel(1) << 32 ^ rel(2),
            rel(3) << 32 ^ (self.period.modulo(a0) as u64) << 16 ^ kind as u64,
        );
        if !self.seen((sketch >> 32) as u32) {
            return Err(SliceTicket(Keep::Not));
        }
        let (slot, base, same) = self.find_listed(kind, req.mask, addrs);
        if same {
            return Ok(self.listed[slot].outcome);
        }
        Err(SliceTicket(Keep::Listed { slot, base, kind }))
    }

    /// A ticket to keep the slice as `keep` says where its sketch was seen before (the
    /// sketch is remembered either way), else to keep nothing.
    #[inline]
    fn ticket(&mut self, sketch: u32, keep: Keep) -> SliceTicket {
        SliceTicket(if self.seen(sketch) { keep } else { Keep::Not })
    }

    /// Makes each table `entries` entries (a power of two) from the next slice on.
    pub(super) fn set_entries(&mut self, entries: usize) {
        assert!(entries.is_power_of_two());
        (self.affine_size, self.listed_size, self.tile_size) = (entries, entries, entries);
        self.filter = Box::new([]);
    }
}
