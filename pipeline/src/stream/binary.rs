//! Binary traces streamed: chunks decoded, checked and worked on by every thread.

use super::parts::{reading, Evaluated, Part, Reading, Streamed};
use crate::check::{access_problem, thread_problem};
use crate::error::{Error, Result};
use crate::simulate::Loaded;
use sim_core::engine::{Costed, EngineRequest};
use sim_core::{stats::Summary, BankModel, Hardware, LaneAddrs, MaskedRequest, Outcome, SliceOutcome};
use traces::binary::{Chunk, RawChunk, Reader};
use traces::{Input, RequestRef, Requests};

/// One worker's buffers, reused from chunk to chunk.
struct Slot {
    chunk: Chunk,
    model: BankModel,
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

/// Simulates the binary trace `input` on the bank model, chunk by chunk (`how.map` as in
/// [`open`]).
pub(super) fn totals(input: Input, hw: &Hardware, how: &Reading) -> Result<Streamed> {
    let &Reading { threads_per_block, map, progress, .. } = how;
    let bar = reading(&input, progress);
    let reader = open(input, map)?;
    let source = reader.name().to_string();
    let total = traces::parallel::fold_chunks(
        reader,
        || Slot { chunk: Chunk::default(), model: BankModel::new(hw) },
        |s, raw| {
            bar.progress().reach(raw.offset());
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
        let limit = threads_per_block.unwrap_or(crate::check::MAX_THREADS_PER_BLOCK) as u64;
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

/// Reads the binary trace `input` into warp requests of `hw.warp` lanes, checked as
/// [`totals`] checks them (`how.map` as in [`open`]): every thread decodes the next chunk
/// and splits it into requests (a chunk holds whole runs of one 64-thread slice, so its
/// requests are in (block, warp, step) order on their own), and the parts are appended
/// in chunk order. The bank-model totals come with them, taken as [`totals`] takes
/// them on each chunk's slices (no second pass over the requests).
///
/// The same requests as reading the trace's records and grouping them
/// ([`Requests::group`]), without holding the records: those took about 40 bytes each
/// (1.3 GB for the million requests of the benchmark mix) and their sort by (block,
/// warp, step) was most of `banksim run --cycles`'s time.
///
/// The requests are held whole ([`Requests`], for the per-request outputs) or as the
/// engine needs them ([`Costed`], each evaluated by the bank model as it is loaded, in
/// parallel, and its lanes dropped: a fifth of the memory).
pub(super) fn load<R: Held>(input: Input, hw: &Hardware, how: &Reading) -> Result<Loaded<R>> {
    let &Reading { threads_per_block, map, progress, .. } = how;
    let bar = reading(&input, progress);
    let reader = open(input, map)?;
    let source = reader.name().to_string();
    let mut total = Loaded {
        source: source.clone(),
        records: 0,
        requests: R::empty(hw.warp),
        summary: Some(Summary::default()),
    };
    // parts merged, kept for later chunks: their memory is reused, not given back to the
    // system and taken (and zeroed) again for every chunk
    let spares = std::sync::Mutex::new(Vec::new());
    traces::parallel::for_each_chunk(
        reader,
        || Slot { chunk: Chunk::default(), model: BankModel::new(hw) },
        |s, raw| -> Result<(R, Part)> {
            bar.progress().reach(raw.offset());
            raw.decode_lazy(&mut s.chunk)?;
            // the totals and the checks of `totals` on the chunk's slices, where they
            // apply (far faster than request by request), before the split
            let quick = quick_totals(s, hw, threads_per_block);
            s.chunk.split(hw.warp)?;
            let spare = spares.lock().unwrap_or_else(|p| p.into_inner()).pop();
            let mut part = spare.unwrap_or_else(|| R::empty(hw.warp));
            part.clear();
            part.reserve(s.chunk.len(), s.chunk.records());
            let mut summary = Summary::default();
            for r in s.chunk.iter() {
                let mut cost = None;
                if quick.is_none() {
                    check_request(&r, hw, threads_per_block, &source, raw)?;
                    let o = s.model.evaluate(&r.warp_request());
                    summary.add(r.op, r.lanes.len(), o);
                    cost = Some(o);
                }
                part.push(&r, cost, &mut s.model);
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

/// What [`super::load`] fills, chunk by chunk in parallel: requests in (block, warp,
/// step) order.
pub trait Held: Send + Sized {
    /// No requests, of `warp`-lane warps.
    fn empty(warp: u32) -> Self;
    /// Holds none (keeping the memory).
    fn clear(&mut self);
    /// Makes room for `requests` more, of `records` lanes in all.
    fn reserve(&mut self, requests: usize, records: usize);
    /// Adds `r`, whose bank-model outcome is `cost` where the caller took it (`model`:
    /// the bank model of the thread loading it).
    fn push(&mut self, r: &RequestRef<'_>, cost: Option<Outcome>, model: &mut BankModel);
    /// Adds every request of `other`, whose blocks follow these.
    fn append(&mut self, other: &Self);
    /// `requests` (a text trace's whole blocks, grouped) held this way, with their
    /// bank-model totals where this takes them on the way (`None`: a pass over the
    /// requests takes them later).
    fn from_requests(requests: Requests, model: &mut BankModel) -> (Self, Option<Summary>);
}

impl Held for Requests {
    fn empty(warp: u32) -> Self {
        Requests::new(warp)
    }
    fn clear(&mut self) {
        Requests::clear(self)
    }
    fn reserve(&mut self, requests: usize, records: usize) {
        Requests::reserve(self, requests, records)
    }
    fn push(&mut self, r: &RequestRef<'_>, _: Option<Outcome>, _: &mut BankModel) {
        self.push_ref(r)
    }
    fn append(&mut self, other: &Self) {
        Requests::append(self, other)
    }
    fn from_requests(requests: Requests, _: &mut BankModel) -> (Self, Option<Summary>) {
        (requests, None)
    }
}

impl Held for Costed {
    fn empty(warp: u32) -> Self {
        Costed::new(warp)
    }
    fn clear(&mut self) {
        Costed::clear(self)
    }
    fn reserve(&mut self, requests: usize, _: usize) {
        Costed::reserve(self, requests)
    }
    fn push(&mut self, r: &RequestRef<'_>, cost: Option<Outcome>, model: &mut BankModel) {
        Costed::push(self, &EngineRequest { cost, ..r.engine_request() }, model)
    }
    fn append(&mut self, other: &Self) {
        Costed::append(self, other)
    }
    fn from_requests(requests: Requests, model: &mut BankModel) -> (Self, Option<Summary>) {
        let (mut costed, mut summary) = (Costed::new(requests.warp_size), Summary::default());
        costed.reserve(requests.len());
        for r in requests.iter() {
            let o = model.evaluate(&r.warp_request());
            summary.add(r.op, r.lanes.len(), o);
            Held::push(&mut costed, &r, Some(o), model);
        }
        (costed, Some(summary))
    }
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

/// [`super::for_each_evaluated`] on a binary trace: chunks worked on side by side,
/// handed to `f` in chunk order.
pub(super) fn for_each_evaluated<S: Send, E: From<Error> + From<traces::TraceError> + Send>(
    input: Input,
    hw: &Hardware,
    how: &Reading,
    mut start: impl FnMut() -> Result<S, E>,
    mut f: impl FnMut(&mut S, &Evaluated) -> Result<(), E> + Send,
) -> Result<(S, String, u64), E> {
    use std::sync::atomic::{AtomicBool, Ordering};
    let &Reading { threads_per_block, map, progress, .. } = how;
    let source = input.name().to_string();
    let mut state = start()?;
    let bar = reading(&input, progress);
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
            bar.progress().reach(raw.offset());
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
