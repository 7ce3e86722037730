//! [`BankModel::evaluate_slice`]: the warp requests of a slice of up to 64 lanes at once.
//!
//! A binary trace stores the active threads of a 64-thread slice of a block at one step
//! as one group; at warp 32 it is two warp requests, at warp 16 four. A run that only
//! needs totals can take a slice whole: [`BankModel::evaluate_slice`] gives the sum of
//! the outcomes of its warp requests ([`MaskedRequest::warps`], each through
//! [`BankModel::evaluate_masked`]) and remembers that sum by the slice's whole key in
//! the memo of slices (`slice_memo`).

use super::bank_model::BankModel;
use super::slice_memo::SliceTicket;
use crate::masked::{LaneAddrs, MaskedRequest};
use crate::request::SliceOutcome;

impl BankModel {
    /// The summed outcome of the warp requests of a slice of up to 64 lanes (`req.mask`
    /// over 64 lanes, cut into warps of this hardware's warp size), remembered by the
    /// slice's whole key where the period allows (see the memo of slices). Equal
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
    /// once the caller has evaluated its warps ([`Self::evaluate_warps`]). The three
    /// calls in the caller's own loop let the model's fast path be inlined into that loop.
    #[inline]
    pub fn recall_slice(&mut self, req: &MaskedRequest<'_>) -> Result<SliceOutcome, SliceTicket> {
        self.slices.recall(req)
    }

    /// Remembers the outcome of a slice that [`Self::recall_slice`] did not know, where
    /// its ticket says to. `req` must be the slice of the ticket and `outcome` its
    /// warps' summed outcome.
    #[inline]
    pub fn remember_slice(&mut self, ticket: SliceTicket, req: &MaskedRequest<'_>, outcome: SliceOutcome) {
        self.slices.remember(ticket, req, outcome);
    }

    /// The same model with slice memos of `entries` entries each (a power of two);
    /// tests use one entry, so that every slice meets the previous one's key.
    #[doc(hidden)]
    pub fn with_slice_entries(mut self, entries: usize) -> BankModel {
        self.slices.set_entries(entries);
        self
    }
}
