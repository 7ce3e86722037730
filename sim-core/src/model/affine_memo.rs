//! The memo of affine requests' outcomes: a small direct-mapped table keyed by
//! `(op, width, mask, stride, first mod P)` ([`Period`]).
//!
//! An affine request (lane `l` at `first + stride × (l − lowest lane)`) whose closed form
//! the fast path lacks (XOR mappings, unaligned or byte strides, pair merges) is looked
//! up here before its addresses are written out and counted: a hit costs a hash and a
//! compare. The table is exact, not a heuristic: every entry holds its whole key.
//! (`sim-core/tests/fast_path.rs` checks it against the general path on random hardware,
//! requests and translations, with a one-entry memo that always misses too.)

use super::period::{kind_key, Period};
use crate::hardware::Hardware;
use crate::op::Op;
use crate::request::Outcome;

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

/// Where [`Memo::remember`] puts the outcome of a request [`Memo::recall`] did not know.
#[derive(Clone, Copy, Debug)]
pub(super) struct MemoTicket {
    slot: usize,
    /// First address modulo the period.
    first: u32,
    kind: u32,
}

/// The memo of affine requests' outcomes (see the module documentation).
#[derive(Clone, Debug)]
pub(super) struct Memo {
    /// The table, allocated at the first affine request (models that never see one,
    /// such as the cycle engine's, stay small).
    entries: Box<[Entry]>,
    period: Period,
    /// Entries to allocate (a power of two).
    size: usize,
}

impl Memo {
    /// The (empty) memo for `hw`.
    pub(super) fn new(hw: &Hardware) -> Memo {
        Memo { entries: Box::new([]), period: Period::of(hw), size: MEMO_ENTRIES }
    }

    /// The remembered outcome of the affine request (`op`, `bytes`, `mask`, `first`,
    /// `stride`), or where to remember it once evaluated (`None`: the hardware has no
    /// period below 2^31 bytes, so no memo).
    #[inline]
    pub(super) fn recall(
        &mut self,
        op: Op,
        bytes: u8,
        mask: u64,
        first: u32,
        stride: i64,
    ) -> Result<Outcome, Option<MemoTicket>> {
        if self.entries.is_empty() {
            if self.period.is_none() {
                return Err(None);
            }
            self.entries = vec![Entry::default(); self.size].into();
        }
        let at = self.period.modulo(first);
        let kind = kind_key(op, bytes);
        let h = (mask ^ (stride as u64).rotate_left(29) ^ ((at as u64) << 40 | (kind as u64) << 20))
            .wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let slot = (h >> (63 - self.size.trailing_zeros()) >> 1) as usize;
        let e = &self.entries[slot];
        if e.kind == kind && e.mask == mask && e.stride == stride && e.first == at {
            return Ok(e.outcome);
        }
        Err(Some(MemoTicket { slot, first: at, kind }))
    }

    /// Remembers the outcome of the request of `ticket` (with its `mask` and `stride`).
    #[inline]
    pub(super) fn remember(&mut self, ticket: MemoTicket, mask: u64, stride: i64, outcome: Outcome) {
        let MemoTicket { slot, first, kind } = ticket;
        self.entries[slot] = Entry { mask, stride, first, kind, outcome };
    }

    /// Makes the table `entries` entries (a power of two) from the next request on.
    pub(super) fn set_entries(&mut self, entries: usize) {
        assert!(entries.is_power_of_two());
        self.size = entries;
        self.entries = Box::new([]);
    }
}
