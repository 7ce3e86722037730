//! What every SM of a run reads and nobody changes: [`Ctx`].

use super::options::EngineOptions;
use crate::timing::Timing;

/// The run's shared, read-only context.
pub(super) struct Ctx<'a, W: ?Sized> {
    /// The hardware's timing parameters.
    pub(super) timing: &'a Timing,
    /// The requests.
    pub(super) work: &'a W,
    pub(super) opts: &'a EngineOptions,
    /// Each block's range of requests (start, end), in block order.
    pub(super) blocks: &'a [(usize, usize)],
    pub(super) warps_per_block: u32,
    /// Cycles, in 256ths, one global 128-byte line holds its SM's share of DRAM
    /// bandwidth (0: no limit).
    pub(super) line_cost: u64,
    /// Global lines a block's L1 share holds (`Timing::l1_bytes` over the blocks an SM
    /// runs at once; 0: no L1).
    pub(super) l1_lines: usize,
}
