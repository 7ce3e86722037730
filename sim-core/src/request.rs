//! What the bank model takes and gives: a warp request ([`WarpRequest`]), its cost
//! ([`Outcome`], summed over a slice's warps in [`SliceOutcome`]) and the cells of the
//! bank × lane picture ([`Cell`]).

use crate::op::Op;

/// One warp request: the active lanes of one warp at one step, all with the same op and
/// width. Lanes are ascending and unique; `addrs[i]` is the byte address of `lanes[i]`.
#[derive(Clone, Copy, Debug)]
pub struct WarpRequest<'a> {
    /// Operation.
    pub op: Op,
    /// Access width in bytes (1, 2, 4, 8 or 16).
    pub bytes: u8,
    /// Active lanes, ascending, each below the warp size.
    pub lanes: &'a [u16],
    /// Byte address of each active lane in shared memory.
    pub addrs: &'a [u32],
}

/// The cost of one warp request.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Wavefronts (bank-conflict-free passes) the request needs.
    pub wavefronts: u32,
    /// Wavefronts it would need without conflicts: its phases with an active lane.
    pub ideal: u32,
}

impl Outcome {
    /// Bank conflicts as Nsight Compute counts them: `max(0, wavefronts - ideal)`.
    pub fn conflicts(&self) -> u32 {
        self.wavefronts.saturating_sub(self.ideal)
    }
}

/// One lane's use of one bank in one wavefront: a cell of the bank × lane picture.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Cell {
    /// Wavefront index within the request (phases in order, wavefronts within a phase).
    pub wavefront: u32,
    /// Bank.
    pub bank: u32,
    /// Lane.
    pub lane: u16,
    /// Bank word (byte address / bank width).
    pub word: u32,
}

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
