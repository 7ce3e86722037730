//! What a run is asked to do ([`EngineOptions`], [`DepPolicy`]) and why it may refuse
//! ([`EngineError`]).

/// What a request without a `dep` value depends on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DepPolicy {
    /// It waits for the warp's previous load (or returning atomic) to complete: the
    /// loaded value feeds the next shared access or what comes before it.
    #[default]
    PreviousLoad,
    /// It only waits for its turn in program order.
    Independent,
}

/// Options of one engine run.
#[derive(Clone, Debug, Default)]
pub struct EngineOptions {
    /// Default dependence of requests without a `dep` value.
    pub dep_policy: DepPolicy,
    /// Threads per block; `None`: the largest thread index in the workload + 1
    /// (rounded up to whole warps).
    pub threads_per_block: Option<u32>,
    /// Shared-memory bytes per block; `None`: the highest byte the workload touches.
    pub smem_per_block: Option<u32>,
    /// Keep per-request issue and completion cycles.
    pub per_request: bool,
    /// What-if: every request costs its ideal wavefronts (no bank conflicts), so that the
    /// difference from a plain run is what the conflicts cost.
    pub no_conflicts: bool,
    /// SMs that share the DRAM bandwidth (`dram_bytes_per_cycle`); `None`: the SMs that
    /// run blocks. A run standing for a larger dispatch (one SM with its share of the
    /// blocks) gives the dispatch's.
    pub bandwidth_sms: Option<u32>,
    /// Simulate every block of a launch (`sim_core::launch::run`), never one SM standing
    /// for all (the shortcut for identical blocks): what checks the shortcut.
    pub full: bool,
    /// Memory the run may hold for what grows with the dispatch (its blocks' tables,
    /// per-request timings), checked before it starts ([`crate::launch::run`]).
    pub memory: crate::limits::MemoryBound,
}

/// Why the engine cannot run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EngineError {
    /// The hardware has no timing parameters.
    #[error("hardware `{hardware}` has no `timing` parameters: the cycle engine needs them")]
    NoTiming {
        /// Hardware name.
        hardware: String,
    },
    /// One block does not fit on an SM.
    #[error("a block needs {needed} {what} but an SM has {available}: no block can be resident")]
    BlockTooLarge {
        /// What does not fit.
        what: &'static str,
        /// Needed.
        needed: u64,
        /// Available per SM.
        available: u64,
    },
    /// A workload held a window at a time could not read its next blocks.
    #[error("{0}")]
    Input(String),
    /// The run would be larger than a limit allows (see [`crate::limits`]).
    #[error(transparent)]
    Limit(#[from] crate::limits::LimitError),
}
