//! Slices: the warp requests of up to 64 lanes at once, and the memo of whole slices.
//!
//! A binary trace stores the active threads of a 64-thread slice of a block at one step
//! as one group; at warp 32 it is two warp requests, at warp 16 four. A run that only
//! needs totals ([`crate::stats::Summary`]) can take a slice whole:
//! [`BankModel::evaluate_slice`] gives the sum of the outcomes of its warp requests
//! ([`MaskedRequest::warps`], each through [`BankModel::evaluate_masked`]) and remembers
//! that sum by the slice's whole key. Kernels repeat their shared-memory shapes: every
//! block loads its tiles at the same shared addresses, a loop walks the same pattern at
//! a new offset. A repeated slice then costs a hash and a compare instead of its warps'
//! evaluation (and, for affine slices, instead of one closed form per warp).
//!
//! The key is exact, as in the memo of affine requests (`masked.rs`): moving every
//! address by a multiple of the period `P` keeps each lane's bank, which words are
//! equal, and which 128-byte global lines are equal, so the outcome depends only on
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

use crate::masked::{kind_key, LaneAddrs, MaskedRequest, Period};
use crate::model::{BankModel, Outcome};
use crate::Hardware;

/// The summed cost of the warp requests of one slice.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SliceOutcome {
    /// Warp requests (warps with an active lane).
    pub requests: u32,
    /// Wavefronts, summed over the requests.
    pub wavefronts: u32,
    /// Ideal wavefronts, summed.
    pub ideal: u32,
    /// Bank conflicts, summed: each request's `max(0, wavefronts − ideal)`.
    pub conflicts: u32,
}

impl SliceOutcome {
    /// Adds one warp request's outcome.
    #[inline]
    pub fn add(&mut self, o: Outcome) {
        self.requests += 1;
        self.wavefronts += o.wavefronts;
        self.ideal += o.ideal;
        self.conflicts += o.conflicts();
    }
}

impl<'a> MaskedRequest<'a> {
    /// Calls `f` with each warp request of a slice of up to 64 lanes (`self.mask` over
    /// 64 lanes; warp `j` holds lanes `j × warp ..`): the warp's index and its request,
    /// with lane numbers within the warp. `warp` is a power of two up to 64. Stops at
    /// `f`'s first error.
    #[inline]
    pub fn warps<E>(
        &self,
        warp: u32,
        mut f: impl FnMut(u32, &MaskedRequest<'a>) -> Result<(), E>,
    ) -> Result<(), E> {
        debug_assert!(warp.is_power_of_two() && warp <= 64);
        let per = 64 >> warp.trailing_zeros();
        let kmask = u64::MAX >> (64 - warp);
        let l0 = self.mask.trailing_zeros();
        let mut skip = 0usize;
        for j in 0..per {
            let low = j * warp;
            let mask = (self.mask >> low) & kmask;
            if mask == 0 {
                continue;
            }
            let addrs = match self.addrs {
                LaneAddrs::Listed(all) => {
                    let n = mask.count_ones() as usize;
                    let listed = &all[skip..skip + n];
                    skip += n;
                    LaneAddrs::Listed(listed)
                }
                LaneAddrs::Affine { first, stride } => {
                    let lane = low + mask.trailing_zeros() - l0;
                    LaneAddrs::Affine {
                        first: first.wrapping_add((stride as u32).wrapping_mul(lane)),
                        stride,
                    }
                }
                // lane `low` is the warp's lane 0 (the bits above the warp's stay)
                LaneAddrs::Tile { origin, steps } => {
                    LaneAddrs::Tile { origin: crate::masked::tile_lane(origin, steps, low), steps }
                }
            };
            f(j, &MaskedRequest { op: self.op, bytes: self.bytes, mask, addrs })?;
        }
        Ok(())
    }
}

/// What [`BankModel::remember_slice`] is to do with a slice that
/// [`BankModel::recall_slice`] did not know.
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
pub(crate) struct SliceMemo {
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
    pub(crate) fn new(hw: &Hardware) -> SliceMemo {
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
    /// such as the cycle engine's, stay small). (The check inline, the allocation out of
    /// line: as one function, not inlined, its call was 2% of the mix's time.)
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
/// xored with its key (which only picks a slot; entries hold their whole key). It was a
/// sum of products, but the 32-bit multiplies were a quarter of the lookup's time on
/// an Intel Xeon (two micro-ops each): GEMM tiles ran 2% faster with the xor.
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

impl BankModel {
    /// The summed outcome of the warp requests of a slice of up to 64 lanes (`req.mask`
    /// over 64 lanes, cut into warps of this hardware's warp size), remembered by the
    /// slice's whole key where the period allows (see the module documentation). Equal
    /// to adding up [`Self::evaluate_masked`] over [`MaskedRequest::warps`].
    ///
    /// `req.mask` must be non-zero; `Listed` must hold one address per active lane; every
    /// access must end at or below 2^32 (as a binary trace's reader checks). A hot loop
    /// does better with [`Self::recall_slice`], [`Self::evaluate_warps`] on a miss and
    /// [`Self::remember_slice`] in its own body (see there).
    pub fn evaluate_slice(&mut self, req: &MaskedRequest<'_>) -> SliceOutcome {
        match self.recall_slice(req) {
            Ok(o) => o,
            Err(ticket) => {
                let out = self.evaluate_warps(req);
                self.remember_slice(ticket, req, out);
                out
            }
        }
    }

    /// The summed outcome of the warp requests of a slice (as [`Self::evaluate_slice`],
    /// without the memo of slices): a full slice of listed addresses at warp 32 whose
    /// warps are each one 32-lane phase of the fast path goes to the kernel that takes
    /// both warps at once (random words, where a slice's two warps are most of its
    /// cost); anything else is added up over [`MaskedRequest::warps`] with
    /// [`Self::evaluate_masked`]. Inlined, so that the warp loop is compiled into the
    /// caller's (see [`Self::recall_slice`]).
    #[inline(always)]
    pub fn evaluate_warps(&mut self, req: &MaskedRequest<'_>) -> SliceOutcome {
        if let (u64::MAX, LaneAddrs::Listed(addrs)) = (req.mask, req.addrs) {
            if let Some((w0, w1)) = self.full_slice_pair(req.op, req.bytes, addrs) {
                // (each warp's phase has an active lane, so each count is at least one)
                return SliceOutcome { requests: 2, wavefronts: w0 + w1, ideal: 2, conflicts: w0 + w1 - 2 };
            }
        }
        let mut out = SliceOutcome::default();
        let _ = req.warps(self.hw.warp, |_, r| {
            out.add(self.evaluate_masked(r));
            Ok::<_, ()>(())
        });
        out
    }

    /// [`Self::evaluate_slice`] in two halves: the remembered outcome of the slice
    /// `req`, or a ticket with which to hand its outcome to [`Self::remember_slice`]
    /// once the caller has evaluated its warps ([`Self::evaluate_warps`]). (The three
    /// calls in the caller's loop, with the model's fast path inlined into it, ran a third
    /// faster on random addresses than the same loop inside the model, and the mix 6-9%
    /// faster than [`Self::evaluate_slice`] with the two-warp kernel.)
    #[inline]
    pub fn recall_slice(&mut self, req: &MaskedRequest<'_>) -> Result<SliceOutcome, SliceTicket> {
        debug_assert!(req.mask != 0);
        if self.slices.period.is_none() {
            return Err(SliceTicket(Keep::Not));
        }
        match req.addrs {
            LaneAddrs::Affine { first, stride } => self.recall_affine(req, first, stride),
            LaneAddrs::Listed(addrs) => self.recall_listed(req, addrs),
            LaneAddrs::Tile { origin, steps } => self.recall_tile(req, origin, steps),
        }
    }

    /// Remembers the outcome of a slice that [`Self::recall_slice`] did not know, where
    /// its ticket says to. `req` must be the slice of the ticket and `outcome` its
    /// warps' summed outcome.
    #[inline]
    pub fn remember_slice(&mut self, ticket: SliceTicket, req: &MaskedRequest<'_>, outcome: SliceOutcome) {
        let m = &mut self.slices;
        match (ticket.0, req.addrs) {
            (Keep::Affine { slot, first, kind }, LaneAddrs::Affine { stride, .. }) => {
                m.affine[slot] = AffineEntry { mask: req.mask, stride, first, kind, outcome };
            }
            (Keep::Listed { slot, base, kind }, LaneAddrs::Listed(addrs)) => {
                m.listed[slot] = ListedEntry { mask: req.mask, kind, outcome };
                for (k, &a) in m.addrs[slot * 64..].iter_mut().zip(addrs) {
                    *k = a - base;
                }
            }
            (Keep::Tile { slot, origin, kind }, LaneAddrs::Tile { steps, .. }) => {
                m.tile[slot] = TileEntry { mask: req.mask, steps: *steps, origin, kind, outcome };
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
        let m = &mut self.slices;
        m.allocate();
        let at = m.period.modulo(first);
        let kind = kind_key(req.op, req.bytes);
        let h = mix(req.mask ^ (stride as u64).rotate_left(29), (at as u64) << 32 | kind as u64);
        let slot = h as usize & (m.affine_size - 1);
        let e = &m.affine[slot];
        if e.kind == kind && e.mask == req.mask && e.stride == stride && e.first == at {
            return Ok(e.outcome);
        }
        Err(SliceTicket(if m.seen((h >> 32) as u32) {
            Keep::Affine { slot, first: at, kind }
        } else {
            Keep::Not
        }))
    }

    #[inline]
    fn recall_tile(
        &mut self,
        req: &MaskedRequest<'_>,
        origin: u32,
        steps: &[i32; 6],
    ) -> Result<SliceOutcome, SliceTicket> {
        let m = &mut self.slices;
        m.allocate();
        let at = m.period.modulo(origin);
        let kind = kind_key(req.op, req.bytes);
        let s = |j: usize| steps[j] as u32 as u64;
        let h = mix(
            req.mask ^ (s(0) | s(1) << 32) ^ (s(2) | s(3) << 32).rotate_left(17),
            (s(4) | s(5) << 32) ^ ((at as u64) << 20 | kind as u64).rotate_left(40),
        );
        let slot = h as usize & (m.tile_size - 1);
        let e = &m.tile[slot];
        // (the steps xored and ored: `==` on the arrays compared them one by one, a
        // tenth of the worker loop's time)
        let same_steps = e.steps.iter().zip(steps).fold(0, |d, (a, b)| d | (a ^ b)) == 0;
        if e.kind == kind && e.mask == req.mask && same_steps && e.origin == at {
            return Ok(e.outcome);
        }
        Err(SliceTicket(if m.seen((h >> 32) as u32) {
            Keep::Tile { slot, origin: at, kind }
        } else {
            Keep::Not
        }))
    }

    #[inline]
    fn recall_listed(&mut self, req: &MaskedRequest<'_>, addrs: &[u32]) -> Result<SliceOutcome, SliceTicket> {
        let m = &mut self.slices;
        m.allocate();
        let kind = kind_key(req.op, req.bytes);
        // the sketch: the first four lanes, relative to the first
        let a0 = addrs[0];
        let rel = |i: usize| addrs.get(i).map_or(0, |&a| a.wrapping_sub(a0)) as u64;
        let sketch = mix(
            req.mask ^ rel(1) << 32 ^ rel(2),
            rel(3) << 32 ^ (m.period.modulo(a0) as u64) << 16 ^ kind as u64,
        );
        if !m.seen((sketch >> 32) as u32) {
            return Err(SliceTicket(Keep::Not));
        }
        let (slot, base, same) = m.find_listed(kind, req.mask, addrs);
        if same {
            return Ok(m.listed[slot].outcome);
        }
        Err(SliceTicket(Keep::Listed { slot, base, kind }))
    }

    /// The same model with slice memos of `entries` entries each (a power of two);
    /// tests use one entry, so that every slice meets the previous one's key.
    #[doc(hidden)]
    pub fn with_slice_entries(mut self, entries: usize) -> BankModel {
        assert!(entries.is_power_of_two());
        let m = &mut self.slices;
        (m.affine_size, m.listed_size, m.tile_size) = (entries, entries, entries);
        m.filter = Box::new([]);
        self
    }
}
