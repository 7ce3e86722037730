//! Warp requests as a lane mask plus addresses, and the memo of affine requests.
//!
//! A binary trace stores most requests as `first + stride × lane` (strided accesses,
//! broadcasts) or as tiles ([`LaneAddrs::Tile`]: a step per bit of the lane number,
//! kept whole by the memo of slices, `slice.rs`). An affine request's outcome depends
//! only on its op, width, lane mask, stride and where the first address falls within
//! the bank mapping's period `P`: moving every address by a multiple of `P` bytes keeps
//! every lane's bank, which words are equal, and which 128-byte global lines are equal.
//!
//! [`BankModel::evaluate_masked`] first tries the fast path's closed form, which needs no
//! expansion whatever the mask: on a linear power-of-two mapping, with aligned accesses
//! and a stride of whole units and no pair merge, the busiest bank group is the largest
//! residue class of the active lane numbers modulo the stride's period over the groups.
//! Other affine requests (XOR mappings, unaligned or byte strides, pair merges) go
//! through a small direct-mapped table of outcomes keyed by `(op, width, mask, stride,
//! first mod P)`: a hit costs a hash and a compare instead of expanding the addresses and
//! counting them. The table is exact, not a heuristic: every entry holds its whole key.
//! (The closed form came after the table and is cheaper than a lookup: strided requests
//! 62 → 76 M/s, masked ones 48 → 76 M/s on the benchmark mix.)
//! (`sim-core/tests/fast_path.rs` checks both against the general path on random
//! hardware, requests and translations, with a one-entry memo that always misses too.)
//!
//! ```text
//! P = lcm(W × bank_bytes, 128)   W = banks (linear) or lcm(banks, 2^(shift + bits(mask))) (XOR)
//! ```

use crate::mapping::BankMapping;
use crate::model::{BankModel, Outcome, WarpRequest, GLOBAL_LINE_BYTES};
use crate::op::Op;
use crate::Hardware;

/// The addresses of a [`MaskedRequest`]'s active lanes.
#[derive(Clone, Copy, Debug)]
pub enum LaneAddrs<'a> {
    /// Lane `l`'s address is `first + stride × (l − lowest active lane)`. Every address
    /// lies in `0..2^32` (no wrap-around).
    Affine {
        /// Address of the lowest active lane.
        first: u32,
        /// Bytes from one lane to the next.
        stride: i64,
    },
    /// One address per active lane, in lane order.
    Listed(&'a [u32]),
    /// Lane `l`'s address is `origin + Σ_j bit j of l × steps[j]`: a tile of rows and
    /// columns (`smem[ty][tx]` with a power-of-two row of threads), lane pairs or quads on
    /// one word, and strides too. Every lane's address, active or not, lies in `0..2^32`
    /// (so `origin` does). (A warp request's lane numbers are below the warp size, so
    /// the steps of higher bits do not move its lanes: [`MaskedRequest::warps`] keeps
    /// the slice's.)
    Tile {
        /// Address of lane 0 (active or not).
        origin: u32,
        /// Bytes added by each bit of the lane number, lowest bit first.
        steps: &'a [i32; 6],
    },
}

/// One warp request given by its lane mask: the form binary traces store.
#[derive(Clone, Copy, Debug)]
pub struct MaskedRequest<'a> {
    /// Operation.
    pub op: Op,
    /// Access width in bytes (1, 2, 4, 8 or 16).
    pub bytes: u8,
    /// Active lanes (bit `l` for lane `l`), below the warp size; at least one.
    pub mask: u64,
    /// Their addresses.
    pub addrs: LaneAddrs<'a>,
}

impl MaskedRequest<'_> {
    /// Active lanes (the length of a `Listed` request's addresses, without counting).
    #[inline]
    pub fn lanes(&self) -> usize {
        match self.addrs {
            LaneAddrs::Listed(a) => a.len(),
            LaneAddrs::Affine { .. } | LaneAddrs::Tile { .. } => self.mask.count_ones() as usize,
        }
    }
}

/// Lane numbers 0..64; requests with contiguous lanes borrow a slice of it.
pub const LANE_NUMBERS: [u16; 64] = {
    let mut a = [0u16; 64];
    let mut i = 0;
    while i < 64 {
        a[i] = i as u16;
        i += 1;
    }
    a
};

/// Entries of the memo (a power of two).
const MEMO_ENTRIES: usize = 4096;

/// One remembered affine request.
#[derive(Clone, Copy, Debug, Default)]
struct Entry {
    mask: u64,
    stride: i64,
    /// First address modulo the period.
    first: u32,
    /// `(op + 1) << 8 | bytes`; 0 for an empty entry.
    kind: u32,
    outcome: Outcome,
}

/// The memo of affine requests' outcomes (see the module documentation).
#[derive(Clone, Debug)]
pub(crate) struct Memo {
    /// The table, allocated at the first affine request (models that never see one,
    /// such as the cycle engine's, stay small).
    entries: Box<[Entry]>,
    period: Period,
    /// Entries to allocate (a power of two).
    size: usize,
    /// Lane numbers and addresses of the request being written out (taken while the
    /// model evaluates it).
    scratch: Option<Box<Scratch>>,
}

/// See [`Memo::scratch`].
#[derive(Clone, Debug)]
struct Scratch {
    lanes: [u16; 64],
    addrs: [u32; 64],
}

impl Memo {
    /// The (empty) memo for `hw`.
    pub(crate) fn new(hw: &Hardware) -> Memo {
        Memo {
            entries: Box::new([]),
            period: Period::of(hw),
            size: MEMO_ENTRIES,
            scratch: Some(Box::new(Scratch { lanes: [0; 64], addrs: [0; 64] })),
        }
    }
}

/// The period `P` as the memos (of affine requests, of slices) use it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Period {
    /// `P`, or 0 where it does not fit in 31 bits (no memo).
    bytes: u32,
    /// `P - 1` where `P` is a power of two, else 0.
    pow2_mask: u32,
}

impl Period {
    pub(crate) fn of(hw: &Hardware) -> Period {
        let bytes = period_bytes(hw).unwrap_or(0);
        Period { bytes, pow2_mask: if bytes.is_power_of_two() { bytes - 1 } else { 0 } }
    }

    /// Whether there is none (then there is no memo).
    #[inline]
    pub(crate) fn is_none(self) -> bool {
        self.bytes == 0
    }

    /// `a mod P` (`P` must exist).
    #[inline]
    pub(crate) fn modulo(self, a: u32) -> u32 {
        if self.pow2_mask != 0 {
            a & self.pow2_mask
        } else {
            a % self.bytes
        }
    }
}

/// An op and a width as one word of a memo's key; 0 is left for an empty entry.
#[inline]
pub(crate) fn kind_key(op: Op, bytes: u8) -> u32 {
    (op as u32 + 1) << 8 | bytes as u32
}

/// Bytes `P` by which every address of a request can move without changing its
/// outcome on `hw`, if it fits in 31 bits.
pub(crate) fn period_bytes(hw: &Hardware) -> Option<u32> {
    let banks = hw.banks as u64;
    let words = match hw.mapping {
        BankMapping::Linear => banks,
        BankMapping::Xor { shift, mask } => {
            let bits = 32 - mask.leading_zeros();
            if mask == 0 || shift >= 32 {
                banks
            } else if shift + bits >= 32 {
                return None;
            } else {
                lcm(banks, 1 << (shift + bits))
            }
        }
    };
    let p = lcm(words.checked_mul(hw.bank_bytes as u64)?, GLOBAL_LINE_BYTES as u64);
    (p < 1 << 31).then_some(p as u32)
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

fn lcm(a: u64, b: u64) -> u64 {
    a / gcd(a, b) * b
}

impl BankModel {
    /// [`Self::evaluate`] of a request given by its lane mask. Affine requests take the
    /// fast path's closed form where it has one, else (on hardware with a period below
    /// 2^31 bytes) an exact memo of outcomes (see the module documentation); the results
    /// are those of [`Self::evaluate`].
    ///
    /// `req.mask` must be non-zero and below the warp size; `Listed` must hold one
    /// address per active lane.
    #[inline(always)]
    pub fn evaluate_masked(&mut self, req: &MaskedRequest<'_>) -> Outcome {
        debug_assert!(req.mask != 0 && (self.hw.warp == 64 || req.mask >> self.hw.warp == 0));
        match req.addrs {
            LaneAddrs::Listed(addrs) => {
                if let Some(lanes) = contiguous_lanes(req.mask, addrs.len()) {
                    // (no scratch to take)
                    return self.evaluate(&WarpRequest { op: req.op, bytes: req.bytes, lanes, addrs });
                }
                let mut s = self.memo.scratch.take().expect("scratch put back");
                let lanes = write_lanes(req.mask, addrs.len(), &mut s.lanes);
                let out = self.evaluate(&WarpRequest { op: req.op, bytes: req.bytes, lanes, addrs });
                self.memo.scratch = Some(s);
                out
            }
            LaneAddrs::Affine { first, stride } => {
                match self.affine_closed_form(req.op, req.bytes, req.mask, first, stride) {
                    Some(out) => out,
                    None => self.evaluate_affine(req, first, stride),
                }
            }
            // (tiles repeat by whole slices: the memo of slices keeps them)
            LaneAddrs::Tile { origin, steps } => self.expand(req, |a| tile_addrs(origin, steps, req.mask, a)),
        }
    }

    #[inline]
    fn evaluate_affine(&mut self, req: &MaskedRequest<'_>, first: u32, stride: i64) -> Outcome {
        let memo = &mut self.memo;
        if memo.entries.is_empty() {
            if memo.period.is_none() {
                return self.expand(req, |a| affine_addrs(first, stride as u32, req.mask, a));
            }
            memo.entries = vec![Entry::default(); memo.size].into();
        }
        let at = memo.period.modulo(first);
        let kind = kind_key(req.op, req.bytes);
        let h = (req.mask ^ (stride as u64).rotate_left(29) ^ ((at as u64) << 40 | (kind as u64) << 20))
            .wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let slot = (h >> (63 - memo.size.trailing_zeros()) >> 1) as usize;
        let e = &memo.entries[slot];
        if e.kind == kind && e.mask == req.mask && e.stride == stride && e.first == at {
            return e.outcome;
        }
        let outcome = self.expand(req, |a| affine_addrs(first, stride as u32, req.mask, a));
        self.memo.entries[slot] = Entry { mask: req.mask, stride, first: at, kind, outcome };
        outcome
    }

    /// The same model with a memo of `entries` entries (a power of two); tests use one
    /// entry, so that every request meets the previous one's key.
    #[doc(hidden)]
    pub fn with_memo_entries(mut self, entries: usize) -> BankModel {
        assert!(entries.is_power_of_two());
        self.memo.size = entries;
        self.memo.entries = Box::new([]);
        self
    }

    /// A request evaluated lane by lane, its addresses written by `write` (one per
    /// active lane of `req.mask`, in lane order: affine or tile requests).
    #[inline(never)]
    fn expand(&mut self, req: &MaskedRequest<'_>, write: impl FnOnce(&mut [u32])) -> Outcome {
        let mut s = self.memo.scratch.take().expect("scratch put back");
        let Scratch { lanes, addrs } = &mut *s;
        let lanes = lanes_of(req.mask, lanes);
        let addrs = &mut addrs[..lanes.len()];
        write(addrs);
        let out = self.evaluate(&WarpRequest { op: req.op, bytes: req.bytes, lanes, addrs });
        self.memo.scratch = Some(s);
        out
    }
}

/// Writes the addresses of the active lanes of `mask` into `dst` (one per lane, in lane
/// order): lane `l` at `first + stride × (l − lowest lane)`, modulo 2^32.
#[inline]
pub fn affine_addrs(first: u32, stride: u32, mask: u64, dst: &mut [u32]) {
    debug_assert_eq!(dst.len(), mask.count_ones() as usize);
    let l0 = mask.trailing_zeros();
    if (mask >> l0).wrapping_add(1) & (mask >> l0) == 0 {
        // contiguous lanes: a loop over constants, which vectorizes
        for (d, &i) in dst.iter_mut().zip(&LANE_NUMBERS) {
            *d = first.wrapping_add(stride.wrapping_mul(i as u32));
        }
    } else {
        let mut m = mask;
        for d in dst.iter_mut() {
            let l = m.trailing_zeros() - l0;
            m &= m - 1;
            *d = first.wrapping_add(stride.wrapping_mul(l));
        }
    }
}

/// Writes the addresses of the active lanes of `mask` into `dst` (one per lane, in lane
/// order): lane `l` at `origin + Σ_j bit j of l × steps[j]`, modulo 2^32.
#[inline]
pub fn tile_addrs(origin: u32, steps: &[i32; 6], mask: u64, dst: &mut [u32]) {
    debug_assert_eq!(dst.len(), mask.count_ones() as usize);
    // lane l at rows[l / 8] + cols[l % 8]: the sums of bits 3-5 (with the origin) and 0-2
    let sums = |s: &[i32], at: u32| {
        let (a, b, c) = (s[0] as u32, s[1] as u32, s[2] as u32);
        let (ab, ac, bc) = (a.wrapping_add(b), a.wrapping_add(c), b.wrapping_add(c));
        [0, a, b, ab, c, ac, bc, ab.wrapping_add(c)].map(|x: u32| x.wrapping_add(at))
    };
    let (cols, rows) = (sums(&steps[..3], 0), sums(&steps[3..], origin));
    let l0 = mask.trailing_zeros();
    if mask >> l0 == u64::MAX >> (64 - dst.len()) && l0.is_multiple_of(8) && dst.len().is_multiple_of(8) {
        // whole rows of eight lanes (full warps): a vector add a row
        for (d, &r) in dst.chunks_exact_mut(8).zip(&rows[l0 as usize / 8..]) {
            for (d, &c) in d.iter_mut().zip(&cols) {
                *d = r.wrapping_add(c);
            }
        }
    } else {
        let mut m = mask;
        for d in dst.iter_mut() {
            let l = m.trailing_zeros() as usize;
            m &= m - 1;
            *d = rows[l / 8].wrapping_add(cols[l % 8]);
        }
    }
}

/// The address of lane `lane` of a tile (see [`LaneAddrs::Tile`]), modulo 2^32.
#[inline]
pub fn tile_lane(origin: u32, steps: &[i32; 6], lane: u32) -> u32 {
    steps.iter().enumerate().fold(
        origin,
        |a, (j, &s)| {
            if lane >> j & 1 == 1 {
                a.wrapping_add(s as u32)
            } else {
                a
            }
        },
    )
}

/// The `n` lane numbers of `mask` (`n` its count of ones, at least one) where they are
/// contiguous: a slice of [`LANE_NUMBERS`].
#[inline]
fn contiguous_lanes(mask: u64, n: usize) -> Option<&'static [u16]> {
    debug_assert!(n >= 1 && n == mask.count_ones() as usize);
    let tz = mask.trailing_zeros() as usize;
    (mask >> tz == u64::MAX >> (64 - n)).then(|| &LANE_NUMBERS[tz..tz + n])
}

/// The lane numbers of `mask`, ascending: a slice of [`LANE_NUMBERS`] where they are
/// contiguous, else written into `buf`.
#[inline]
fn lanes_of(mask: u64, buf: &mut [u16; 64]) -> &[u16] {
    let n = mask.count_ones() as usize;
    match contiguous_lanes(mask, n) {
        Some(lanes) => lanes,
        None => write_lanes(mask, n, buf),
    }
}

/// The `n` lane numbers of `mask` (`n` its count of ones), ascending, written into `buf`.
#[inline]
fn write_lanes(mask: u64, n: usize, buf: &mut [u16; 64]) -> &[u16] {
    debug_assert_eq!(n, mask.count_ones() as usize);
    let mut m = mask;
    for b in buf.iter_mut().take(n) {
        *b = m.trailing_zeros() as u16;
        m &= m - 1;
    }
    &buf[..n]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::presets_for_tests::h100_like;

    #[test]
    fn periods() {
        let mut hw = h100_like();
        assert_eq!(period_bytes(&hw), Some(128));
        hw.bank_bytes = 8;
        assert_eq!(period_bytes(&hw), Some(256));
        hw.banks = 24;
        assert_eq!(period_bytes(&hw), Some(384));
        hw.banks = 32;
        hw.bank_bytes = 4;
        hw.mapping = BankMapping::Xor { shift: 5, mask: 7 };
        assert_eq!(period_bytes(&hw), Some(1024));
        hw.mapping = BankMapping::Xor { shift: 30, mask: 7 };
        assert_eq!(period_bytes(&hw), None);
    }
}
