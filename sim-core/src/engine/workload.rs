//! The engine's input: warp requests ([`EngineRequest`]) ordered by block, warp and
//! program order, behind the [`Workload`] trait.

use crate::op::Op;
use crate::request::Outcome;

/// One warp request as the engine sees it.
#[derive(Clone, Copy, Debug)]
pub struct EngineRequest<'a> {
    /// Block id.
    pub block: u32,
    /// Warp index within the block.
    pub warp: u32,
    /// Operation.
    pub op: Op,
    /// Access width.
    pub bytes: u8,
    /// Cycles of other work since the warp's previous request.
    pub gap: u32,
    /// Dependence on the warp's previous load (`None`: the engine's `DepPolicy`).
    pub dep: Option<bool>,
    /// Cycles into `gap` after which the warp first needs its previous load's data (the
    /// first instruction that uses it; `gap` when it is the request itself). The work
    /// before it runs under the load's latency, the rest waits for the data: a warp
    /// issues in order, so latency shows only from the first use on. `None`: `dep`
    /// decides, and a dependent request waits for the data before its whole gap.
    pub wait: Option<u32>,
    /// Active lanes.
    pub lanes: &'a [u16],
    /// Byte address per active lane.
    pub addrs: &'a [u32],
    /// The bank model's outcome, where the workload already has it ([`super::Costed`],
    /// which keeps lanes and addresses only where the engine needs them: for global
    /// requests); `None`: the engine evaluates `lanes` and `addrs`.
    pub cost: Option<Outcome>,
}

/// Warp requests ordered by (block, warp, step), as the engine consumes them.
///
/// Contract: `request(i)` for `i < len()` is sorted by block, then warp, then program
/// order; lanes are below the warp size the requests were grouped for.
pub trait Workload: Sync {
    /// Number of requests.
    fn len(&self) -> usize;
    /// Whether there are none.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Request `i`.
    fn request(&self, i: usize) -> EngineRequest<'_>;
    /// The block of request `i`, as `request(i)` has it (a workload may answer faster).
    fn block(&self, i: usize) -> u32 {
        self.request(i).block
    }
    /// The threads of the largest block (its highest thread index + 1, at `warp` lanes
    /// per warp) and one past the highest shared-memory byte any load, store or atomic
    /// touches, where the workload knows them without a pass over every request;
    /// `None`: the engine makes that pass.
    fn extent(&self, warp: u32) -> Option<(u32, u32)> {
        let _ = warp;
        None
    }
    /// The index of each block's first request, in order (`block(i) != block(i - 1)`
    /// exactly at these `i`, and 0 first where there are requests), where the workload
    /// keeps them; `None`: the engine finds them with a pass over every request's block.
    fn block_starts(&self) -> Option<&[usize]> {
        None
    }
}
