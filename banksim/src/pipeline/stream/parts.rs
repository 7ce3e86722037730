//! What the streamed readers share: their results and options, and the progress bar of
//! a trace being read.

use crate::output::progress;
use sim_core::{stats::Summary, Outcome};
use traces::{Input, Requests};

/// Totals of a streamed run.
pub struct Streamed {
    /// The trace's name (its path).
    pub source: String,
    /// Records read.
    pub records: u64,
    /// Warp requests simulated.
    pub requests: u64,
    /// Bank-model totals by op.
    pub summary: Summary,
}

impl Streamed {
    /// No records yet of the trace `source`.
    pub(super) fn new(source: &str) -> Streamed {
        Streamed { source: source.to_string(), records: 0, requests: 0, summary: Summary::default() }
    }
}

/// One chunk's totals (or the sum of several).
#[derive(Default)]
pub(super) struct Part {
    pub(super) summary: Summary,
    pub(super) records: u64,
    pub(super) requests: u64,
}

/// A bar over the bytes of `input` read.
pub(super) fn reading(input: &Input) -> progress::Progress {
    progress::bytes(input.file_len(), &format!("reading {}", input.name()))
}

/// How a trace is read: the checks' block size, a binary trace mapped into memory or
/// not, the memory of the sort of a text trace out of block order.
#[derive(Clone, Copy, Debug)]
pub struct Reading {
    /// Threads per block the checks allow (default: any up to the limit).
    pub threads_per_block: Option<u32>,
    /// Whether a binary trace's chunks are read mapped into memory.
    pub map: bool,
    /// Bytes of records a sort holds before it writes a sorted run to disk.
    pub sort_memory: usize,
}

/// Warp requests of whole blocks, in (block, warp, step) order, with each one's
/// bank-model outcome.
pub struct Evaluated {
    /// The requests.
    pub requests: Requests,
    /// The outcome of each request.
    pub outcomes: Vec<Outcome>,
}
