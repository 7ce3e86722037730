//! What the streamed readers share: their results and options, and the progress of a
//! trace being read.

use crate::progress::{Phase, Progress, Silent, Unit};
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

/// Opens the trace at `path` (`-`: standard input) once, its first bytes read to tell
/// its format.
pub fn open(path: &std::path::Path) -> crate::Result<Input> {
    Input::open(path).map_err(|source| traces::TraceError::Io { path: path.into(), source }.into())
}

/// The phase of reading `input`, over its bytes where its length is known.
pub(super) fn reading<'a>(input: &Input, progress: &'a dyn Progress) -> Phase<'a> {
    Phase::begin(progress, &format!("reading {}", input.name()), input.file_len(), Unit::Bytes)
}

/// How a trace is read: the checks' block size, a binary trace mapped into memory or
/// not, the memory of the sort of a text trace out of block order, where progress goes.
#[derive(Clone, Copy)]
pub struct Reading<'a> {
    /// Threads per block the checks allow (default: any up to the limit).
    pub threads_per_block: Option<u32>,
    /// Whether a binary trace's chunks are read mapped into memory.
    pub map: bool,
    /// Bytes of records a sort holds before it writes a sorted run to disk.
    pub sort_memory: usize,
    /// Where the reading reports how far it has come.
    pub progress: &'a dyn Progress,
}

impl Reading<'static> {
    /// Any block size, binary traces mapped, `sort_memory` bytes to sort a text trace out
    /// of block order, no progress reported.
    pub fn new(sort_memory: usize) -> Reading<'static> {
        Reading { threads_per_block: None, map: true, sort_memory, progress: &Silent }
    }
}

/// Warp requests of whole blocks, in (block, warp, step) order, with each one's
/// bank-model outcome.
pub struct Evaluated {
    /// The requests.
    pub requests: Requests,
    /// The outcome of each request.
    pub outcomes: Vec<Outcome>,
}
