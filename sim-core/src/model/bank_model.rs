//! [`BankModel`]: the model's state (its hardware, the scratch of both paths, the
//! fast path's tables, the memos) and its entry points for one warp request:
//! [`BankModel::evaluate`], [`BankModel::picture`], and the switches tests use to turn
//! SIMD kernels off.

use super::affine_memo::Memo;
use super::fast::Fast;
use super::general::{self, General};
use super::pair_merge::NONE;
use super::slice_memo::SliceMemo;
use crate::hardware::Hardware;
use crate::masked::LaneScratch;
use crate::op::Op;
use crate::request::{Cell, Outcome, WarpRequest};

/// Evaluates warp requests against one [`Hardware`]. Holds scratch space that is reused
/// from request to request, so the steady state allocates nothing.
#[derive(Clone, Debug)]
pub struct BankModel {
    pub(super) hw: Hardware,
    /// Address per lane of the warp, `NONE` where inactive (pair-merge check).
    dense: Vec<u32>,
    /// The general path's scratch.
    general: General,
    /// The fast path's tables and scratch; `None` where it does not apply.
    fast: Option<Box<Fast>>,
    /// Outcomes of affine requests ([`Self::evaluate_masked`]), made at the first one.
    pub(super) memo: Memo,
    /// Outcomes of whole slices ([`Self::evaluate_slice`]), made at the first one.
    pub(super) slices: SliceMemo,
    /// Lane numbers and addresses of a masked request being written out (taken while
    /// the model evaluates it).
    pub(super) scratch: Option<Box<LaneScratch>>,
}

impl BankModel {
    /// A model of `hw`. `hw` must have passed [`Hardware::validate`].
    pub fn new(hw: &Hardware) -> BankModel {
        debug_assert!(hw.validate().is_ok());
        BankModel {
            hw: hw.clone(),
            dense: vec![NONE; hw.warp as usize],
            general: General::new(hw),
            fast: Fast::new(hw),
            memo: Memo::new(hw),
            slices: SliceMemo::new(hw),
            scratch: Some(LaneScratch::boxed()),
        }
    }

    /// The same model without the SIMD kernels (for tests that compare them with the
    /// scalar code).
    #[doc(hidden)]
    pub fn without_simd(self) -> BankModel {
        self.limit_kernels(false, false, false)
    }

    /// The same model without the AVX-512 kernel (the AVX2 ones where the CPU has them),
    /// for tests that compare the kernels.
    #[doc(hidden)]
    pub fn without_avx512(self) -> BankModel {
        self.limit_kernels(true, false, false)
    }

    /// The same model with the AVX-512 kernel (where the CPU has it) but without its
    /// conflict detection, for tests that compare the kernels.
    #[doc(hidden)]
    pub fn without_conflict_detection(self) -> BankModel {
        self.limit_kernels(true, true, false)
    }

    /// Turns off the kernels not allowed (a kernel the CPU lacks stays off).
    fn limit_kernels(mut self, avx2: bool, avx512: bool, conflict: bool) -> BankModel {
        if let Some(f) = &mut self.fast {
            f.limit_kernels(avx2, avx512, conflict);
        }
        self
    }

    /// `Fast::affine`: the closed form of an affine request given by its mask, where
    /// the fast path has one.
    #[inline]
    pub(super) fn affine_closed_form(
        &self,
        op: Op,
        bytes: u8,
        mask: u64,
        first: u32,
        stride: i64,
    ) -> Option<Outcome> {
        self.fast.as_deref()?.affine(op, bytes, mask, first, stride)
    }

    /// `Fast::pair`: the two warp requests of a full 64-lane slice at warp 32, one
    /// 32-lane phase each, by the AVX-512 kernel that takes both at once; `None` where it
    /// does not apply or does not decide.
    /// (Public for the tests that check the kernel itself.)
    #[doc(hidden)]
    #[inline]
    pub fn full_slice_pair(&self, op: Op, bytes: u8, addrs: &[u32]) -> Option<(u32, u32)> {
        if self.hw.warp != 32 {
            return None;
        }
        self.fast.as_deref()?.pair(op, bytes, addrs)
    }

    /// The hardware this model evaluates.
    pub fn hardware(&self) -> &Hardware {
        &self.hw
    }

    /// Lanes per phase for `req`, after the load pair-merge rule (the consecutive-lane
    /// phases: where the crossbar lists lane groups for its op and width, those serve it).
    pub fn phase_lanes(&mut self, req: &WarpRequest<'_>) -> u32 {
        general::phase_lanes(&self.hw, &mut self.dense, req)
    }

    /// Wavefronts and ideal wavefronts of one request. Barriers cost nothing.
    ///
    /// Hardware with at most 64 banks of one port and the `Multicast` or `Serialize` rule
    /// takes an allocation-free fast path (a bitmask of the banks used and a word per bank;
    /// aligned accesses on a linear power-of-two mapping count one key per lane), in
    /// phases of consecutive lanes or, for explicit lane groups, with the lanes first
    /// gathered into group order; everything else (banks of several ports, lane groups
    /// that would need more than 64 positions), and [`Self::picture`], takes the general
    /// path. Both give the same results.
    #[inline]
    pub fn evaluate(&mut self, req: &WarpRequest<'_>) -> Outcome {
        if let Some(fast) = self.fast.as_deref_mut() {
            if let Some(out) = fast.evaluate(&self.hw, &mut self.dense, req) {
                return out;
            }
        }
        self.evaluate_general(req)
    }

    /// [`Self::evaluate`] on the general path only (for tests that compare the paths).
    #[doc(hidden)]
    #[inline(never)]
    pub fn evaluate_general(&mut self, req: &WarpRequest<'_>) -> Outcome {
        self.general.run(&self.hw, &mut self.dense, req, None)
    }

    /// The bank × lane picture of a request: which lane uses which bank in which
    /// wavefront, sorted by (wavefront, bank, lane).
    pub fn picture(&mut self, req: &WarpRequest<'_>) -> (Outcome, Vec<Cell>) {
        let mut cells = Vec::new();
        let outcome = self.general.run(&self.hw, &mut self.dense, req, Some(&mut cells));
        cells.sort_unstable();
        (outcome, cells)
    }
}
