//! Statistics of a run: totals by operation.

use crate::op::Op;
use crate::request::{Outcome, SliceOutcome};

/// Totals for one operation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OpTotals {
    /// Warp requests.
    pub requests: u64,
    /// Active lane accesses.
    pub lanes: u64,
    /// Wavefronts.
    pub wavefronts: u64,
    /// Ideal (conflict-free) wavefronts.
    pub ideal: u64,
    /// Bank conflicts: the sum of each request's `max(0, wavefronts - ideal)`.
    pub conflicts: u64,
}

impl OpTotals {
    /// Adds one request.
    pub fn add(&mut self, lanes: usize, o: Outcome) {
        self.requests += 1;
        self.lanes += lanes as u64;
        self.wavefronts += o.wavefronts as u64;
        self.ideal += o.ideal as u64;
        self.conflicts += o.conflicts() as u64;
    }

    /// Adds the warp requests of one slice (`lanes` active lanes in all).
    #[inline]
    pub fn add_slice(&mut self, lanes: usize, o: SliceOutcome) {
        self.requests += o.requests as u64;
        self.lanes += lanes as u64;
        self.wavefronts += o.wavefronts as u64;
        self.ideal += o.ideal as u64;
        self.conflicts += o.conflicts as u64;
    }

    /// Adds another total.
    pub fn merge(&mut self, other: &OpTotals) {
        self.requests += other.requests;
        self.lanes += other.lanes;
        self.wavefronts += other.wavefronts;
        self.ideal += other.ideal;
        self.conflicts += other.conflicts;
    }
}

/// Totals per operation, indexed by `Op as usize`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Totals per op, in [`Op::ALL`] order.
    pub by_op: [OpTotals; Op::COUNT],
}

impl Summary {
    /// Adds one request's outcome.
    pub fn add(&mut self, op: Op, lanes: usize, o: Outcome) {
        self.by_op[op as usize].add(lanes, o);
    }

    /// Adds the outcome of one slice's warp requests (`BankModel::evaluate_slice`).
    #[inline]
    pub fn add_slice(&mut self, op: Op, lanes: usize, o: SliceOutcome) {
        self.by_op[op as usize].add_slice(lanes, o);
    }

    /// Totals of one op.
    pub fn op(&self, op: Op) -> &OpTotals {
        &self.by_op[op as usize]
    }

    /// Totals over the shared-memory ops (barriers and global accesses excluded).
    pub fn memory_total(&self) -> OpTotals {
        let mut t = OpTotals::default();
        for op in Op::ALL.into_iter().filter(|op| op.is_memory()) {
            t.merge(self.op(op));
        }
        t
    }

    /// Adds another summary.
    pub fn merge(&mut self, other: &Summary) {
        for (a, b) in self.by_op.iter_mut().zip(&other.by_op) {
            a.merge(b);
        }
    }
}
