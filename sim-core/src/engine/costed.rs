//! Warp requests held as the engine needs them ([`Costed`]): each with its bank-model
//! outcome, evaluated as it is added, and without its lanes and addresses but for
//! global requests (whose lines the L2 and DRAM model count). About 32 bytes a request
//! instead of the 180 of a 32-lane request with its addresses: a large trace loads with
//! a fifth of the memory traffic, and the engine costs no request a second time.

use super::occupancy::request_extent;
use super::workload::{EngineRequest, Workload};
use crate::model::BankModel;
use crate::op::Op;
use crate::request::{Outcome, WarpRequest};

/// Warp requests in workload order, each costed by the bank model (see the module).
#[derive(Clone, Debug, Default)]
pub struct Costed {
    warp_size: u32,
    steps: Vec<Step>,
    /// Lanes and addresses of the global requests, in order.
    lanes: Vec<u16>,
    addrs: Vec<u32>,
    /// Index of each block's first request, in order.
    block_starts: Vec<usize>,
    /// Highest thread + 1 and one past the highest shared-memory byte, of any request.
    threads: u32,
    smem: u32,
}

#[derive(Clone, Copy, Debug)]
struct Step {
    block: u32,
    warp: u32,
    gap: u32,
    wait: u32,
    outcome: Outcome,
    /// Start of a global request's lanes and addresses (0 for any other request).
    at: u32,
    /// A global request's lane count.
    lanes: u16,
    op: Op,
    bytes: u8,
    flags: u8,
}

const HAS_DEP: u8 = 1;
const DEP: u8 = 2;
const HAS_WAIT: u8 = 4;

impl Costed {
    /// No requests yet, of `warp_size`-lane warps.
    pub fn new(warp_size: u32) -> Costed {
        Costed { warp_size, ..Costed::default() }
    }

    /// Adds `r` (after the requests held, in workload order), at its `cost` where it has
    /// one, else costed by `model` (a barrier costs nothing).
    pub fn push(&mut self, r: &EngineRequest<'_>, model: &mut BankModel) {
        let outcome = match (r.op, r.cost) {
            (Op::Barrier, _) => Outcome::default(),
            (_, Some(o)) => o,
            (op, None) => model.evaluate(&WarpRequest { op, bytes: r.bytes, lanes: r.lanes, addrs: r.addrs }),
        };
        if self.block_starts.is_empty() || self.steps.last().is_some_and(|s| s.block != r.block) {
            self.block_starts.push(self.steps.len());
        }
        let (threads, smem) = request_extent(r, self.warp_size);
        (self.threads, self.smem) = (self.threads.max(threads), self.smem.max(smem));
        let (mut at, mut lanes) = (0, 0);
        if r.op.is_global() {
            (at, lanes) = (self.addrs.len() as u32, r.lanes.len() as u16);
            self.lanes.extend_from_slice(r.lanes);
            self.addrs.extend_from_slice(r.addrs);
        }
        let mut flags = 0;
        if let Some(dep) = r.dep {
            flags |= HAS_DEP | if dep { DEP } else { 0 };
        }
        if r.wait.is_some() {
            flags |= HAS_WAIT;
        }
        self.steps.push(Step {
            block: r.block,
            warp: r.warp,
            gap: r.gap,
            wait: r.wait.unwrap_or(0),
            outcome,
            at,
            lanes,
            op: r.op,
            bytes: r.bytes,
            flags,
        });
    }

    /// Adds every request of `other` (whose blocks follow these), as [`Costed::push`]
    /// would.
    pub fn append(&mut self, other: &Costed) {
        let (n, at) = (self.steps.len(), self.addrs.len() as u32);
        let same_block = match (self.steps.last(), other.steps.first()) {
            (Some(a), Some(b)) => a.block == b.block,
            _ => false,
        };
        let skip = usize::from(same_block);
        self.block_starts.extend(other.block_starts.iter().skip(skip).map(|&s| s + n));
        self.steps.extend(other.steps.iter().map(|s| match s.op.is_global() {
            true => Step { at: s.at + at, ..*s },
            false => *s,
        }));
        self.lanes.extend_from_slice(&other.lanes);
        self.addrs.extend_from_slice(&other.addrs);
        (self.threads, self.smem) = (self.threads.max(other.threads), self.smem.max(other.smem));
    }

    /// Holds no requests (keeping the memory).
    pub fn clear(&mut self) {
        self.steps.clear();
        self.lanes.clear();
        self.addrs.clear();
        self.block_starts.clear();
        (self.threads, self.smem) = (0, 0);
    }

    /// Makes room for `n` more requests.
    pub fn reserve(&mut self, n: usize) {
        self.steps.reserve(n);
    }
}

impl Workload for Costed {
    #[inline]
    fn len(&self) -> usize {
        self.steps.len()
    }

    #[inline]
    fn request(&self, i: usize) -> EngineRequest<'_> {
        let s = &self.steps[i];
        let (at, n) = (s.at as usize, s.lanes as usize);
        EngineRequest {
            block: s.block,
            warp: s.warp,
            op: s.op,
            bytes: s.bytes,
            gap: s.gap,
            dep: (s.flags & HAS_DEP != 0).then_some(s.flags & DEP != 0),
            wait: (s.flags & HAS_WAIT != 0).then_some(s.wait),
            lanes: &self.lanes[at..at + n],
            addrs: &self.addrs[at..at + n],
            cost: Some(s.outcome),
        }
    }

    #[inline]
    fn block(&self, i: usize) -> u32 {
        self.steps[i].block
    }

    fn extent(&self, warp: u32) -> Option<(u32, u32)> {
        (warp == self.warp_size).then_some((self.threads, self.smem))
    }

    fn block_starts(&self) -> Option<&[usize]> {
        Some(&self.block_starts)
    }
}
