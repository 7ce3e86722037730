//! Traces read as they stream by, for what needs no more than a few blocks at a time:
//! the bank-model totals ([`totals`]), each request with its outcome for per-request rows
//! ([`for_each_evaluated`]), the requests for the cycle engine ([`load`]), and a binary
//! file for the engine's window of blocks ([`totals_to_binary_file`]). Each picks its
//! reader by the input's format ([`Input::format`]), here and nowhere else:
//!
//! - `binary`: every thread reads the next chunk (in turn), decodes, checks and works
//!   on it; totals are added up at the end (integer sums, the same whatever the order),
//!   other results taken in chunk order. Memory is a couple of chunks per thread.
//! - `text`: a set of whole blocks at a time, in block order: as read where the
//!   blocks come in order, else sorted by block with bounded memory
//!   ([`text_in_block_order`]). Memory is a batch of text and the blocks still open.

mod binary;
mod parts;
mod text;

pub use binary::{slice_outcome, Held};
pub use parts::{open, Evaluated, Reading, Streamed};
pub use text::text_in_block_order;

use crate::error::{Error, Result};
use crate::simulate::Loaded;
use sim_core::Hardware;
use std::path::{Path, PathBuf};
use traces::{Input, TraceFormat};

/// The bank-model totals of the trace `input` (either format), checked as it streams by.
pub fn totals(input: Input, hw: &Hardware, how: &Reading) -> Result<Streamed> {
    match input.format() {
        TraceFormat::Binary => binary::totals(input, hw, how),
        TraceFormat::Text => text::totals(input, hw, how),
    }
}

/// The trace `input` (either format) read into warp requests of `hw.warp` lanes, checked,
/// held as `R` asks ([`Held`]: whole, or as the engine needs them), with the bank-model
/// totals where the reading took them.
pub fn load<R: Held>(input: Input, hw: &Hardware, how: &Reading) -> Result<Loaded<R>> {
    match input.format() {
        TraceFormat::Binary => binary::load(input, hw, how),
        TraceFormat::Text => text::load(input, hw, how),
    }
}

/// [`totals`], and a binary trace file of the same requests in block order, for the
/// cycle engine's window ([`crate::window`]): a binary trace file's own path, or a text
/// trace written as one into `dir` (every error naming its line). A binary trace on a
/// stream cannot be read twice: it is refused.
pub fn totals_to_binary_file(
    input: Input,
    hw: &Hardware,
    how: &Reading,
    dir: &Path,
) -> Result<(Streamed, PathBuf)> {
    match (input.format(), input.path().map(Path::to_path_buf)) {
        (TraceFormat::Binary, Some(path)) => Ok((binary::totals(input, hw, how)?, path)),
        (TraceFormat::Binary, None) => Err(Error::Input(format!(
            "{}: a binary trace read from a stream cannot be read again a window of blocks at a time",
            input.name()
        ))),
        (TraceFormat::Text, _) => {
            let path = dir.join("trace.bsim");
            Ok((text::totals_to_binary(input, hw, how, &path)?, path))
        }
    }
}

/// Reads the trace `input` (either format), checks it, groups it into warp requests and
/// evaluates each on the bank model, handing them to `f` in (block, warp, step) order a
/// run of whole blocks at a time, with a state that `start` makes: what writes a row per
/// request, with memory bounded whatever the trace's size. Binary chunks are worked on
/// side by side (mapped with `how.map`); a text trace goes through
/// [`text_in_block_order`] (`how.sort_memory`), which may start over with a fresh state
/// when it finds the blocks out of order. Returns the state, the trace's name and the
/// records read.
pub fn for_each_evaluated<S: Send, E: From<Error> + From<traces::TraceError> + Send>(
    input: Input,
    hw: &Hardware,
    how: &Reading,
    start: impl FnMut() -> Result<S, E>,
    f: impl FnMut(&mut S, &Evaluated) -> Result<(), E> + Send,
) -> Result<(S, String, u64), E> {
    match input.format() {
        TraceFormat::Binary => binary::for_each_evaluated(input, hw, how, start, f),
        TraceFormat::Text => text::for_each_evaluated(input, hw, how, start, f),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_core::{stats::Summary, BankModel};
    use traces::{block_runs, Record, Requests};

    /// A text trace of `blocks` blocks (in that order) of 64 threads, 4 steps each, and
    /// the folder that holds it (gone when dropped).
    fn trace_file(name: &str, blocks: &[u32]) -> (tempfile::TempDir, std::path::PathBuf) {
        let mut s = String::from("block,thread,step,op,addr,bytes\n");
        for &b in blocks {
            for t in 0..64u32 {
                for step in 0..4u32 {
                    s.push_str(&format!("{b},{t},{step},ld,{},4\n", (b * 3 + t * (step * 8 + 1)) % 4096 * 4));
                }
            }
        }
        let dir = tempfile::Builder::new().prefix("banksim-stream-").tempdir().unwrap();
        let path = dir.path().join(name);
        std::fs::write(&path, s).unwrap();
        (dir, path)
    }

    /// Totals of the trace at `path`, read whole and grouped at once.
    fn whole(path: &std::path::Path, hw: &Hardware) -> (u64, u64, Summary) {
        let trace = traces::text::read(path).unwrap();
        let mut model = BankModel::new(hw);
        let mut summary = Summary::default();
        let requests = Requests::group(&trace, hw.warp).unwrap();
        for r in requests.iter() {
            summary.add(r.op, r.lanes.len(), model.evaluate(&r.warp_request()));
        }
        (trace.len() as u64, requests.len() as u64, summary)
    }

    #[test]
    fn blocks_in_any_order_give_the_totals_of_the_whole_trace() {
        let hw = configs::preset("h100").unwrap();
        // (81 blocks of 256 records: two runs of blocks, simulated side by side)
        let blocks: Vec<u32> = (0..80).chain([90]).collect();
        let shuffled: Vec<u32> = (0..80).rev().chain([90, 85]).collect();
        for (name, blocks) in [("ordered.csv", blocks), ("shuffled.csv", shuffled)] {
            let (_dir, path) = trace_file(name, &blocks);
            // (memory 0: a sorted run per few thousand records, merged)
            for memory in [1 << 30, 0] {
                let t = totals(Input::open(&path).unwrap(), &hw, &Reading::new(memory)).unwrap();
                assert_eq!((t.records, t.requests, t.summary), whole(&path, &hw), "{name} {memory}");
            }
            let input = Input::open(&path).unwrap();
            let start = || Ok::<_, Error>(0u64);
            let how = Reading { map: false, ..Reading::new(0) };
            let (rows, _, records) = for_each_evaluated(input, &hw, &how, start, |rows, e| {
                assert!(e.requests.iter().zip(e.requests.iter().skip(1)).all(|(a, b)| a.block <= b.block));
                assert_eq!(e.requests.len(), e.outcomes.len());
                *rows += e.requests.len() as u64;
                Ok(())
            })
            .unwrap();
            assert_eq!((records, rows), (whole(&path, &hw).0, whole(&path, &hw).1));
        }
        let (_dir, path) = trace_file("b.csv", &[0, 1, 2, 3, 4, 5]);
        assert!(block_runs(&traces::text::read(&path).unwrap().records, 1 << 10).len() > 1);
    }

    #[test]
    fn block_runs_end_at_block_ends() {
        let recs: Vec<Record> = [0, 0, 1, 1, 1, 2, 5, 5]
            .iter()
            .map(|&block| Record {
                block,
                thread: 0,
                step: 0,
                op: sim_core::Op::Load,
                addr: 0,
                bytes: 4,
                gap: 0,
                dep: None,
                wait: None,
                site: traces::NO_SITE,
            })
            .collect();
        assert_eq!(block_runs(&recs, 3), [0..5, 5..8]);
        assert_eq!(block_runs(&recs, 1), [0..2, 2..5, 5..8]);
        // (size 0: one run per block, as grouping sorts them)
        assert_eq!(block_runs(&recs, 0), [0..2, 2..5, 5..6, 6..8]);
        let whole = block_runs(&recs, 100);
        assert_eq!((whole.len(), whole[0].clone()), (1, 0..8));
        assert_eq!(block_runs(&recs[..0], 3), []);
    }
}
