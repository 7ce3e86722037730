//! `banksim run` on a binary trace, streamed: every thread reads the next chunk (in
//! turn), decodes, checks and simulates it, and adds the chunk's totals to its own;
//! those are added up at the end (`traces::parallel::fold_chunks`: integer sums, the
//! same whatever the order). Memory is a couple of chunks per thread, whatever the
//! file's size.
//!
//! A text trace whose blocks come one after another (block ids never go down, as
//! `banksim capture` and `convert` write them) streams too: a block is grouped and simulated once a record of a
//! later block is read. Memory is a batch of text and the blocks still open.

use super::check::{access_problem, check_slice, thread_problem};
use super::error::{Error, Result};
use super::simulate::Loaded;
use crate::output::progress;
use sim_core::{stats::Summary, BankModel, Hardware, LaneAddrs, MaskedRequest, Outcome, SliceOutcome};
use std::path::Path;
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

/// A bar over the bytes of `input` read.
fn reading(input: &Input) -> progress::Progress {
    progress::bytes(input.file_len(), &format!("reading {}", input.name()))
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
    let bar = reading(&input);
    let reader = open(input, map)?;
    let source = reader.name().to_string();
    let total = traces::parallel::fold_chunks(
        reader,
        || Slot { chunk: Chunk::default(), model: BankModel::new(hw) },
        |s, raw| {
            bar.reached(raw.offset());
            simulate_chunk(s, raw, hw, threads_per_block, &source)
        },
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
    let bar = reading(&input);
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
            bar.reached(raw.offset());
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

/// Simulates the text trace `input` (opened from `path`) on the bank model, a set of
/// whole blocks at a time in block order ([`text_in_block_order`]: streamed, or sorted
/// with about `sort_memory` bytes).
pub fn run_text(
    path: &Path,
    input: Input,
    hw: &Hardware,
    threads_per_block: Option<u32>,
    sort_memory: usize,
) -> Result<Streamed> {
    use rayon::prelude::*;
    let source = input.name().to_string();
    let start = || {
        Ok::<_, Error>(Streamed {
            source: source.clone(),
            records: 0,
            requests: 0,
            summary: Summary::default(),
        })
    };
    text_in_block_order(path, input, sort_memory, start, |total, _, done| {
        // runs of whole blocks, checked, grouped and simulated side by side; their totals
        // (or the first problem) taken in file order
        let parts: Vec<Result<Part>> = block_runs(&done.records, 1 << 14)
            .into_par_iter()
            .map_init(
                || BankModel::new(hw),
                |model, run| {
                    let (requests, records) = group_run(&done, run, hw, threads_per_block)?;
                    let mut summary = Summary::default();
                    for r in requests.iter() {
                        summary.add(r.op, r.lanes.len(), model.evaluate(&r.warp_request()));
                    }
                    Ok(Part { summary, records, requests: requests.len() as u64 })
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
    })
}

/// [`run_text`] that also writes the trace, in block order, as a binary trace to `out`
/// (a temporary file the caller made): what puts a text trace where the cycle engine
/// can read it a window of blocks at a time, with every error naming its line.
pub fn run_text_to_binary(
    path: &Path,
    input: Input,
    hw: &Hardware,
    threads_per_block: Option<u32>,
    sort_memory: usize,
    out: &Path,
) -> Result<Streamed> {
    use traces::binary::Writer;
    let source = input.name().to_string();
    let file = || -> Result<std::io::BufWriter<std::fs::File>> {
        let f = std::fs::File::create(out)
            .map_err(|e| Error::Input(format!("{}: cannot create: {e}", out.display())))?;
        Ok(std::io::BufWriter::with_capacity(1 << 20, f))
    };
    let start = || {
        let totals =
            Streamed { source: source.clone(), records: 0, requests: 0, summary: Summary::default() };
        Ok::<_, Error>((totals, None::<Writer<std::io::BufWriter<std::fs::File>>>))
    };
    let (totals, writer) =
        text_in_block_order(path, input, sort_memory, start, |(total, writer), columns, done| {
            use rayon::prelude::*;
            let parts: Vec<Result<Part>> = block_runs(&done.records, 1 << 14)
                .into_par_iter()
                .map_init(
                    || BankModel::new(hw),
                    |model, run| {
                        let (requests, records) = group_run(&done, run, hw, threads_per_block)?;
                        let mut summary = Summary::default();
                        for r in requests.iter() {
                            summary.add(r.op, r.lanes.len(), model.evaluate(&r.warp_request()));
                        }
                        Ok(Part { summary, records, requests: requests.len() as u64 })
                    },
                )
                .collect();
            for part in parts {
                let part = part?;
                total.summary.merge(&part.summary);
                total.records += part.records;
                total.requests += part.requests;
            }
            let w = match writer {
                Some(w) => w,
                None => writer.insert(
                    if columns > 8 {
                        Writer::with_waits(file()?, &source)
                    } else {
                        Writer::new(file()?, &source, columns > 6)
                    }
                    .map_err(|e| Error::Input(format!("{}: cannot write: {e}", out.display())))?,
                ),
            };
            w.push_trace(&done).map_err(|e| Error::Input(format!("{}: cannot write: {e}", out.display())))
        })?;
    let w = writer.expect("a trace has a header");
    let mut f = w.finish().map_err(|e| Error::Input(format!("{}: cannot write: {e}", out.display())))?;
    std::io::Write::flush(&mut f)
        .map_err(|e| Error::Input(format!("{}: cannot write: {e}", out.display())))?;
    Ok(totals)
}

/// The records `run` of `done` (whole blocks), checked and grouped: their requests and
/// the number of records.
fn group_run(
    done: &Trace,
    run: std::ops::Range<usize>,
    hw: &Hardware,
    threads_per_block: Option<u32>,
) -> Result<(Requests, u64)> {
    let (records, lines) = (&done.records[run.clone()], &done.lines[run]);
    check_slice(&done.source, records, lines, hw, threads_per_block)?;
    Ok((Requests::group_records(&done.source, records, lines, hw.warp)?, records.len() as u64))
}

/// Reads the text trace `input` (opened from `path`) into warp requests of `hw.warp`
/// lanes, checked, a set of whole blocks at a time in block order
/// ([`text_in_block_order`]: streamed, or sorted with about `sort_memory` bytes): only
/// the requests are held, not the records (about 40 bytes each), and a trace whose
/// blocks are not in order needs no sort of all its records in memory.
pub fn load_text(
    path: &Path,
    input: Input,
    hw: &Hardware,
    threads_per_block: Option<u32>,
    sort_memory: usize,
) -> Result<Loaded> {
    use rayon::prelude::*;
    let source = input.name().to_string();
    let start = || {
        Ok::<_, Error>(Loaded {
            source: source.clone(),
            records: 0,
            requests: Requests::new(hw.warp),
            summary: None,
        })
    };
    text_in_block_order(path, input, sort_memory, start, |total, _, done| {
        let parts: Vec<Result<(Requests, u64)>> = block_runs(&done.records, 1 << 14)
            .into_par_iter()
            .map(|run| group_run(&done, run, hw, threads_per_block))
            .collect();
        for part in parts {
            let (requests, records) = part?;
            total.requests.append(&requests);
            total.records += records;
        }
        Ok(())
    })
}

/// How a trace is read: the checks' block size, a binary trace mapped into memory or
/// not ([`open`]), the memory of the sort of a text trace out of block order.
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

/// Reads the trace `input` (opened from `path`, either format), checks it, groups it
/// into warp requests and evaluates each on the bank model, handing them to `f` in
/// (block, warp, step) order a run of whole blocks at a time, with a state that `start`
/// makes: what writes a row per request, with memory bounded whatever the trace's size.
/// Binary chunks are worked on side by side (`map` as in [`open`]); a text trace goes
/// through [`text_in_block_order`] (`sort_memory`), which may start over with a fresh
/// state when it finds the blocks out of order. Returns the state, the trace's name and
/// the records read.
pub fn for_each_evaluated<S: Send, E: From<Error> + From<traces::TraceError> + Send>(
    path: &Path,
    input: Input,
    hw: &Hardware,
    how: &Reading,
    mut start: impl FnMut() -> Result<S, E>,
    mut f: impl FnMut(&mut S, &Evaluated) -> Result<(), E> + Send,
) -> Result<(S, String, u64), E> {
    use rayon::prelude::*;
    use std::sync::atomic::{AtomicBool, Ordering};
    let &Reading { threads_per_block, map, sort_memory } = how;
    let source = input.name().to_string();
    if !(input.is_binary() || input.looks_binary()) {
        let start = || Ok::<_, E>((start()?, 0u64));
        let (state, records) =
            text_in_block_order(path, input, sort_memory, start, |(state, records), _, done| {
                let parts: Vec<Result<(Evaluated, u64)>> = block_runs(&done.records, 1 << 14)
                    .into_par_iter()
                    .map_init(
                        || BankModel::new(hw),
                        |model, run| {
                            let (requests, n) = group_run(&done, run, hw, threads_per_block)?;
                            let outcomes =
                                requests.iter().map(|r| model.evaluate(&r.warp_request())).collect();
                            Ok((Evaluated { requests, outcomes }, n))
                        },
                    )
                    .collect();
                for part in parts {
                    let (part, n) = part?;
                    f(state, &part)?;
                    *records += n;
                }
                Ok(())
            })?;
        return Ok((state, source, records));
    }
    let mut state = start()?;
    let bar = reading(&input);
    let reader = open(input, map)?;
    let (mut records, mut failed) = (0u64, None);
    // (once `f` fails, the chunks still read are passed over)
    let stop = AtomicBool::new(false);
    let read = traces::parallel::for_each_chunk(
        reader,
        || (Chunk::default(), BankModel::new(hw)),
        |(chunk, model), raw| -> Result<(Evaluated, u64)> {
            if stop.load(Ordering::Relaxed) {
                return Ok((Evaluated { requests: Requests::new(hw.warp), outcomes: Vec::new() }, 0));
            }
            bar.reached(raw.offset());
            raw.decode_lazy(chunk)?;
            chunk.split(hw.warp)?;
            let mut part =
                Evaluated { requests: Requests::new(hw.warp), outcomes: Vec::with_capacity(chunk.len()) };
            for r in chunk.iter() {
                check_request(&r, hw, threads_per_block, &source, raw)?;
                part.outcomes.push(model.evaluate(&r.warp_request()));
                part.requests.push_ref(&r);
            }
            Ok((part, chunk.records() as u64))
        },
        |(part, n)| {
            if failed.is_none() {
                match f(&mut state, &part) {
                    Ok(()) => records += n,
                    Err(e) => {
                        failed = Some(e);
                        stop.store(true, Ordering::Relaxed);
                    }
                }
            }
        },
    );
    if let Some(e) = failed {
        return Err(e);
    }
    read?;
    Ok((state, source, records))
}

/// Hands the text trace `input` (opened from `path`) to `blocks` a set of whole blocks
/// at a time, in block order (each block's records in file order), with the header's
/// column count, at least once (a trace of no records is one empty set); `blocks`
/// works on a state that `start` makes. Memory stays bounded whatever the trace's size:
/// - a file whose blocks come in order (block ids never go down, as `capture`,
///   `convert` and `gen` write them) streams as it is read ([`text_blocks`]);
/// - a file whose blocks are not in order is read again from its start, with a fresh
///   state (the first is dropped: whatever it wrote goes with it), its records sorted
///   by block with about `sort_memory` bytes of buffer and sorted runs spilled to a
///   temporary folder ([`traces::sort::BlockSorter`]); so is standard input, which
///   cannot be read twice.
pub fn text_in_block_order<S: Send, E: From<Error> + From<traces::TraceError> + Send>(
    path: &Path,
    input: Input,
    sort_memory: usize,
    mut start: impl FnMut() -> Result<S, E>,
    mut blocks: impl FnMut(&mut S, usize, Trace) -> Result<(), E> + Send,
) -> Result<S, E> {
    let input = if input.is_file() {
        let mut state = start()?;
        if text_blocks(input, |columns, t| blocks(&mut state, columns, t))? {
            return Ok(state);
        }
        drop(state);
        super::simulate::open_trace(path)?
    } else {
        input
    };
    let mut state = start()?;
    let source = input.name().to_string();
    let mut sorter = traces::sort::BlockSorter::new(&source, sort_memory);
    let mut columns = 0;
    let bar = reading(&input);
    traces::text::for_each_batch(bar.wrap_read(input.into_reader()), &source, |records, lines, header| {
        columns = header;
        sorter.push(records, lines)
    })?;
    drop(bar);
    let _merging = match sorter.runs() {
        0 => progress::spinner(&format!("sorting {source} by block")),
        n => progress::spinner(&format!("merging {n} sorted runs of {source}")),
    };
    let mut any = false;
    sorter.finish(|t| {
        any = true;
        blocks(&mut state, columns, t)
    })?;
    if !any {
        blocks(&mut state, columns, Trace::new(source.as_str()))?;
    }
    Ok(state)
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
    let bar = reading(&input);
    let file = bar.wrap_read(input.into_reader());
    // records of the blocks not whole yet (the last block read, and the batch after it)
    let mut open = Trace::new(source.as_str());
    let mut columns = 0;
    // (the blocks still open, at most one, are moved out rather than the whole ones)
    let mut close = |open: &mut Trace, upto: usize, columns: usize| -> Result<(), E> {
        let mut rest = Trace::new(source.as_str());
        rest.records = open.records.split_off(upto);
        rest.lines = open.lines.split_off(upto);
        blocks(columns, std::mem::replace(open, rest))
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
            let path = trace_file(name, &blocks);
            // (memory 0: a sorted run per few thousand records, merged)
            for memory in [1 << 30, 0] {
                let t = run_text(&path, Input::open(&path).unwrap(), &hw, None, memory).unwrap();
                assert_eq!((t.records, t.requests, t.summary), whole(&path, &hw), "{name} {memory}");
            }
            let input = Input::open(&path).unwrap();
            let start = || Ok::<_, Error>(0u64);
            let how = Reading { threads_per_block: None, map: false, sort_memory: 0 };
            let (rows, _, records) = for_each_evaluated(&path, input, &hw, &how, start, |rows, e| {
                assert!(e.requests.iter().zip(e.requests.iter().skip(1)).all(|(a, b)| a.block <= b.block));
                assert_eq!(e.requests.len(), e.outcomes.len());
                *rows += e.requests.len() as u64;
                Ok(())
            })
            .unwrap();
            assert_eq!((records, rows), (whole(&path, &hw).0, whole(&path, &hw).1));
        }
        assert!(
            block_runs(
                &traces::text::read(&trace_file("b.csv", &[0, 1, 2, 3, 4, 5])).unwrap().records,
                1 << 10
            )
            .len()
                > 1
        );
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
