//! `banksim run` on a binary trace, streamed: every thread reads the next chunk (in
//! turn), decodes, checks and simulates it, and adds the chunk's totals to its own;
//! those are added up at the end (`traces::parallel::fold_chunks`: integer sums, the
//! same whatever the order). Memory is a couple of chunks per thread, whatever the
//! file's size.
//!
//! A text trace whose blocks come one after another (block ids never go down, as
//! `banksim capture` and `convert` write them) streams too: a block is grouped and simulated once a record of a
//! later block is read. Memory is a batch of text and the blocks still open.

use super::check::{access_problem, check_records, thread_problem};
use super::error::{Error, Result};
use super::simulate::Loaded;
use sim_core::{stats::Summary, BankModel, Hardware, LaneAddrs, MaskedRequest, SliceOutcome};
use traces::binary::{Chunk, RawChunk, Reader};
use traces::Input;
use traces::{block_runs, Record, RequestRef, Requests, Trace};

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

/// One worker's buffers, reused from chunk to chunk.
struct Slot {
    chunk: Chunk,
    model: BankModel,
}

/// One chunk's totals (or the sum of several).
#[derive(Default)]
struct Part {
    summary: Summary,
    records: u64,
    requests: u64,
}

/// A binary trace reader of `input` (a regular file read by position, or a stream read
/// in turn); with `map`, a file's chunks are read from it mapped into memory
/// ([`Reader::map_payloads`]).
fn open(input: Input, map: bool) -> Result<Reader<Box<dyn std::io::Read + Send>>> {
    let mut reader = Reader::from_input(input)?;
    if map {
        reader.map_payloads();
    }
    Ok(reader)
}

/// Simulates the binary trace at `path` on the bank model, chunk by chunk (`map` as in
/// [`open`]).
pub fn run_binary(
    input: Input,
    hw: &Hardware,
    threads_per_block: Option<u32>,
    map: bool,
) -> Result<Streamed> {
    let reader = open(input, map)?;
    let source = reader.name().to_string();
    let total = traces::parallel::fold_chunks(
        reader,
        || Slot { chunk: Chunk::default(), model: BankModel::new(hw) },
        |s, raw| simulate_chunk(s, raw, hw, threads_per_block, &source),
        |total: &mut Part, part| {
            total.summary.merge(&part.summary);
            total.records += part.records;
            total.requests += part.requests;
        },
    )?
    .unwrap_or_default();
    Ok(Streamed { source, records: total.records, requests: total.requests, summary: total.summary })
}

/// A slice's outcome through the model's memo of slices, its warps evaluated here on a
/// miss (`evaluate_warps`: the two-warp kernel where it applies), faster than
/// `BankModel::evaluate_slice` (see `BankModel::recall_slice`).
#[inline]
pub fn slice_outcome(model: &mut BankModel, r: &MaskedRequest<'_>) -> SliceOutcome {
    match model.recall_slice(r) {
        Ok(o) => o,
        Err(ticket) => {
            let o = model.evaluate_warps(r);
            model.remember_slice(ticket, r, o);
            o
        }
    }
}

fn simulate_chunk(
    s: &mut Slot,
    raw: &RawChunk,
    hw: &Hardware,
    threads_per_block: Option<u32>,
    source: &str,
) -> Result<Part> {
    raw.decode_lazy(&mut s.chunk)?;
    if let Some(part) = quick_totals(s, hw, threads_per_block) {
        return Ok(part);
    }
    s.chunk.split(hw.warp)?;
    let mut summary = Summary::default();
    for r in s.chunk.iter() {
        check_request(&r, hw, threads_per_block, source, raw)?;
        summary.add(r.op, r.lanes.len(), s.model.evaluate(&r.warp_request()));
    }
    Ok(Part { summary, records: s.chunk.records() as u64, requests: s.chunk.len() as u64 })
}

/// The bank-model totals of the chunk `s` holds (decoded, not split), its requests as
/// lane masks, affine ones through the model's memo; `None` where anything is amiss (a
/// lane beyond the block, an address beyond shared memory or misaligned) or the chunk
/// has per-lane attributes: then the request-by-request path, which finds the first
/// problem in (block, warp, step) order and says what it is, decides. `Some`: every
/// request of the chunk passes [`check_request`].
///
/// Whole slices go through the model's memo of slices, recalled, evaluated and
/// remembered here, not inside the model (see `BankModel::recall_slice`).
fn quick_totals(s: &mut Slot, hw: &Hardware, threads_per_block: Option<u32>) -> Option<Part> {
    let mut summary = Summary::default();
    let mut requests = 0;
    let model = &mut s.model;
    let fine = s.chunk.for_each_slice(|w| {
        let r = &w.request;
        let last_lane = 63 - r.mask.leading_zeros();
        let limit = threads_per_block.unwrap_or(super::check::MAX_THREADS_PER_BLOCK) as u64;
        if w.slice as u64 * 64 + last_lane as u64 >= limit || !accesses_fit(hw, r) {
            return Err(Amiss);
        }
        let o = slice_outcome(model, r);
        summary.add_slice(r.op, r.lanes(), o);
        requests += o.requests as u64;
        Ok(())
    });
    matches!(fine, Ok(true)).then(|| Part { summary, records: s.chunk.records() as u64, requests })
}

/// Checks one request of the chunk `raw` of the binary trace `source`: its threads within
/// the block size, its accesses inside shared memory and aligned. The error names the
/// chunk and the request.
fn check_request(
    r: &RequestRef<'_>,
    hw: &Hardware,
    threads_per_block: Option<u32>,
    source: &str,
    raw: &RawChunk,
) -> Result<()> {
    let at = || {
        format!("{source}: chunk at byte {}: block {} warp {} step {}", raw.offset(), r.block, r.warp, r.step)
    };
    if let Some(&last) = r.lanes.last() {
        let thread = (r.warp as u64 * hw.warp as u64 + last as u64).min(u32::MAX as u64) as u32;
        if let Some(problem) = thread_problem(thread, threads_per_block) {
            return Err(Error::Check { at: at(), problem });
        }
    }
    for &a in r.addrs {
        if let Some(problem) = access_problem(hw, r.op, a, r.bytes) {
            return Err(Error::Check { at: at(), problem });
        }
    }
    Ok(())
}

/// Reads the binary trace at `path` into warp requests of `hw.warp` lanes, checked as
/// [`run_binary`] checks them (`map` as in [`open`]): every thread decodes the next chunk
/// and splits it into requests (a chunk holds whole runs of one 64-thread slice, so its
/// requests are in (block, warp, step) order on their own), and the parts are appended
/// in chunk order. The bank-model totals come with them, taken as [`run_binary`] takes
/// them on each chunk's slices (no second pass over the requests).
///
/// The same requests as reading the trace's records and grouping them
/// ([`Requests::group`]), without holding the records: those took about 40 bytes each
/// (1.3 GB for the million requests of the benchmark mix) and their sort by (block,
/// warp, step) was most of `banksim run --cycles`'s time.
pub fn load_binary(input: Input, hw: &Hardware, threads_per_block: Option<u32>, map: bool) -> Result<Loaded> {
    let reader = open(input, map)?;
    let source = reader.name().to_string();
    let mut total = Loaded {
        source: source.clone(),
        records: 0,
        requests: Requests::new(hw.warp),
        summary: Some(Summary::default()),
    };
    // parts merged, kept for later chunks: their memory is reused, not given back to the
    // system and taken (and zeroed) again for every chunk
    let spares = std::sync::Mutex::new(Vec::new());
    traces::parallel::for_each_chunk(
        reader,
        || Slot { chunk: Chunk::default(), model: BankModel::new(hw) },
        |s, raw| -> Result<(Requests, Part)> {
            raw.decode_lazy(&mut s.chunk)?;
            // the totals and the checks of `run_binary` on the chunk's slices, where they
            // apply (far faster than request by request), before the split
            let quick = quick_totals(s, hw, threads_per_block);
            s.chunk.split(hw.warp)?;
            let spare = spares.lock().unwrap_or_else(|p| p.into_inner()).pop();
            let mut part = spare.unwrap_or_else(|| Requests::new(hw.warp));
            part.clear();
            part.reserve(s.chunk.len(), s.chunk.records());
            let mut summary = Summary::default();
            for r in s.chunk.iter() {
                if quick.is_none() {
                    check_request(&r, hw, threads_per_block, &source, raw)?;
                    summary.add(r.op, r.lanes.len(), s.model.evaluate(&r.warp_request()));
                }
                part.push_ref(&r);
            }
            let totals = quick.unwrap_or(Part {
                summary,
                records: s.chunk.records() as u64,
                requests: s.chunk.len() as u64,
            });
            Ok((part, totals))
        },
        |(part, totals)| {
            total.requests.append(&part);
            spares.lock().unwrap_or_else(|p| p.into_inner()).push(part);
            total.records += totals.records;
            if let Some(s) = total.summary.as_mut() {
                s.merge(&totals.summary);
            }
        },
    )?;
    Ok(total)
}

/// A request of the fast path needs a closer look (see [`simulate_chunk`]).
struct Amiss;

impl From<traces::binary::BinaryError> for Amiss {
    fn from(_: traces::binary::BinaryError) -> Amiss {
        Amiss
    }
}

/// Whether every access of `r` is inside shared memory and aligned to its width (a
/// quick check that may say no where [`access_problem`] finds nothing: it
/// decides then).
#[inline]
fn accesses_fit(hw: &Hardware, r: &MaskedRequest<'_>) -> bool {
    if !r.op.is_memory() {
        return true;
    }
    let (b, end) = (r.bytes as u64, hw.smem_per_sm as u64);
    match r.addrs {
        LaneAddrs::Affine { first, stride } => {
            let span = (63 - r.mask.leading_zeros() - r.mask.trailing_zeros()) as i64;
            let last = first as i64 + stride * span;
            let (lo, hi) = (first.min(last as u32), first.max(last as u32));
            hi as u64 + b <= end && (lo as u64).is_multiple_of(b) && (span == 0 || stride % b as i64 == 0)
        }
        LaneAddrs::Tile { origin, steps } => {
            // (every lane of the slice, active or not: a no sends it to the exact check)
            let hi = origin as i64 + steps.iter().map(|&s| (s as i64).max(0)).sum::<i64>();
            let or = steps.iter().fold(origin, |or, &s| or | s as u32);
            hi as u64 + b <= end && (or as u64).is_multiple_of(b)
        }
        LaneAddrs::Listed(addrs) => {
            let (mut hi, mut or) = (0u32, 0u32);
            for &a in addrs {
                hi = hi.max(a);
                or |= a;
            }
            hi as u64 + b <= end && (or as u64).is_multiple_of(b)
        }
    }
}

/// Simulates the text trace at `path` on the bank model, block by block; `None` (having
/// read up to there) where a record's block comes after a later block's: then the trace
/// has to be read whole ([`traces::text::read`]), to put its records in order.
pub fn run_text(input: Input, hw: &Hardware, threads_per_block: Option<u32>) -> Result<Option<Streamed>> {
    use rayon::prelude::*;
    let mut total =
        Streamed { source: input.name().to_string(), records: 0, requests: 0, summary: Summary::default() };
    let in_order = text_blocks(input, |_, done| -> Result<()> {
        // runs of whole blocks, checked, grouped and simulated side by side; their totals
        // (or the first problem) taken in file order
        let parts: Vec<Result<Part>> = block_runs(&done.records, 1 << 14)
            .into_par_iter()
            .map_init(
                || BankModel::new(hw),
                |model, run| {
                    let mut part = Trace::new(done.source.as_str());
                    part.records.extend_from_slice(&done.records[run.clone()]);
                    part.lines.extend_from_slice(&done.lines[run]);
                    check_records(&part, hw, threads_per_block)?;
                    let requests = Requests::group(&part, hw.warp)?;
                    let mut summary = Summary::default();
                    for r in requests.iter() {
                        summary.add(r.op, r.lanes.len(), model.evaluate(&r.warp_request()));
                    }
                    Ok(Part { summary, records: part.len() as u64, requests: requests.len() as u64 })
                },
            )
            .collect();
        for part in parts {
            let part = part?;
            total.summary.merge(&part.summary);
            total.records += part.records;
            total.requests += part.requests;
        }
        Ok(())
    })?;
    Ok(in_order.then_some(total))
}

/// Reads the text trace at `path` a set of whole blocks at a time, where its blocks come
/// in order (block ids never go down): `blocks` gets the header's column count and each
/// set of blocks in turn, with their lines (at least once: a trace of no records is one
/// empty set). A block is whole once a record of a later block is read, so memory is a
/// batch of text and the blocks still open. `false` (having read up to there) where a
/// block comes after a later one.
pub fn text_blocks<E: From<Error> + From<traces::TraceError> + Send>(
    input: Input,
    mut blocks: impl FnMut(usize, Trace) -> Result<(), E> + Send,
) -> Result<bool, E> {
    let mut unordered = false;
    let source = input.name().to_string();
    let file = input.into_reader();
    // records of the blocks not whole yet (the last block read, and the batch after it)
    let mut open = Trace::new(source.as_str());
    let mut columns = 0;
    let mut close = |open: &mut Trace, upto: usize, columns: usize| -> Result<(), E> {
        let mut done = Trace::new(source.as_str());
        done.records.extend(open.records.drain(..upto));
        done.lines.extend(open.lines.drain(..upto));
        blocks(columns, done)
    };
    let read = traces::text::for_each_batch(
        file,
        &source,
        |records: &[Record], lines: &[u32], header| -> Result<(), E> {
            columns = header;
            let floor = open.records.last().map_or(0, |r| r.block);
            if records.first().is_some_and(|r| r.block < floor) || !traces::blocks_in_order(records) {
                unordered = true;
                return Err(Error::Input("the trace's blocks are not in order".into()).into());
            }
            open.records.extend_from_slice(records);
            open.lines.extend_from_slice(lines);
            // every block before the last one read is whole
            let last = open.records.last().map_or(0, |r| r.block);
            let upto = open.records.partition_point(|r| r.block < last);
            if upto > 0 {
                close(&mut open, upto, columns)?;
            }
            Ok(())
        },
    );
    match read {
        Ok(_) => {
            let n = open.len();
            close(&mut open, n, columns)?;
            Ok(true)
        }
        Err(_) if unordered => Ok(false),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A text trace of `blocks` blocks (in that order) of 64 threads, 4 steps each.
    fn trace_file(name: &str, blocks: &[u32]) -> std::path::PathBuf {
        let mut s = String::from("block,thread,step,op,addr,bytes\n");
        for &b in blocks {
            for t in 0..64u32 {
                for step in 0..4u32 {
                    s.push_str(&format!("{b},{t},{step},ld,{},4\n", (b * 3 + t * (step * 8 + 1)) % 4096 * 4));
                }
            }
        }
        let path = std::env::temp_dir().join(format!("banksim-stream-{}-{name}", std::process::id()));
        std::fs::write(&path, s).unwrap();
        path
    }

    #[test]
    fn blocks_in_order_stream_and_others_are_read_whole() {
        let hw = configs::preset("h100").unwrap();
        // (81 blocks of 256 records: two runs of blocks, simulated side by side)
        let blocks: Vec<u32> = (0..80).chain([90]).collect();
        let ordered = trace_file("ordered.csv", &blocks);
        let t = run_text(Input::open(&ordered).unwrap(), &hw, None).unwrap().expect("blocks in order stream");
        // the totals of the whole trace, grouped at once
        let trace = traces::text::read(&ordered).unwrap();
        let mut model = BankModel::new(&hw);
        let mut whole = Summary::default();
        let requests = Requests::group(&trace, hw.warp).unwrap();
        for r in requests.iter() {
            whole.add(r.op, r.lanes.len(), model.evaluate(&r.warp_request()));
        }
        assert_eq!((t.records, t.requests), (trace.len() as u64, requests.len() as u64));
        assert_eq!(t.summary, whole);
        assert!(block_runs(&trace.records, 1 << 14).len() > 1);
        // a block after a later one: read whole instead
        let unordered = trace_file("unordered.csv", &[0, 2, 1]);
        assert!(run_text(Input::open(&unordered).unwrap(), &hw, None).unwrap().is_none());
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
