//! [`BankModel::evaluate_masked`]: a warp request given by its lane mask. Affine
//! requests take the fast path's closed form where it has one (no expansion, whatever
//! the mask: on a linear power-of-two mapping, with aligned accesses, a stride of whole
//! units and no pair merge, the busiest bank group is the largest residue class of the
//! active lane numbers modulo the stride's period over the groups), else the memo of
//! affine requests; anything else is written out lane by lane.

use super::bank_model::BankModel;
use crate::masked::{
    affine_addrs, contiguous_lanes, lanes_of, tile_addrs, write_lanes, LaneAddrs, MaskedRequest,
};
use crate::request::{Outcome, WarpRequest};

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
                let mut s = self.scratch.take().expect("scratch put back");
                let lanes = write_lanes(req.mask, addrs.len(), &mut s.lanes);
                let out = self.evaluate(&WarpRequest { op: req.op, bytes: req.bytes, lanes, addrs });
                self.scratch = Some(s);
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

    /// An affine request through the memo of affine requests.
    #[inline]
    fn evaluate_affine(&mut self, req: &MaskedRequest<'_>, first: u32, stride: i64) -> Outcome {
        match self.memo.recall(req.op, req.bytes, req.mask, first, stride) {
            Ok(outcome) => outcome,
            Err(ticket) => {
                let outcome = self.expand(req, |a| affine_addrs(first, stride as u32, req.mask, a));
                if let Some(ticket) = ticket {
                    self.memo.remember(ticket, req.mask, stride, outcome);
                }
                outcome
            }
        }
    }

    /// The same model with a memo of `entries` entries (a power of two); tests use one
    /// entry, so that every request meets the previous one's key.
    #[doc(hidden)]
    pub fn with_memo_entries(mut self, entries: usize) -> BankModel {
        self.memo.set_entries(entries);
        self
    }

    /// A request evaluated lane by lane, its addresses written by `write` (one per
    /// active lane of `req.mask`, in lane order: affine or tile requests).
    #[inline(never)]
    fn expand(&mut self, req: &MaskedRequest<'_>, write: impl FnOnce(&mut [u32])) -> Outcome {
        let mut s = self.scratch.take().expect("scratch put back");
        let scratch = &mut *s;
        let lanes = lanes_of(req.mask, &mut scratch.lanes);
        let addrs = &mut scratch.addrs[..lanes.len()];
        write(addrs);
        let out = self.evaluate(&WarpRequest { op: req.op, bytes: req.bytes, lanes, addrs });
        self.scratch = Some(s);
        out
    }
}
