//! Text traces streamed a set of whole blocks at a time, in block order.

use super::binary::Held;
use super::parts::{reading, Evaluated, Part, Reading, Streamed};
use crate::check::check_slice;
use crate::error::{Error, Result};
use crate::progress::{Phase, Progress, Unit};
use crate::simulate::Loaded;
use sim_core::{stats::Summary, BankModel, Hardware};
use std::path::Path;
use traces::{block_runs, Input, Record, Requests, Trace};

/// Simulates the text trace `input` on the bank model, a set of whole blocks at a time in
/// block order ([`text_in_block_order`]: streamed, or sorted with about
/// `how.sort_memory` bytes).
pub(super) fn totals(input: Input, hw: &Hardware, how: &Reading) -> Result<Streamed> {
    let &Reading { threads_per_block, sort_memory, progress, .. } = how;
    if let Some(totals) = fold_totals(&input, hw, threads_per_block, progress) {
        return Ok(totals);
    }
    let source = input.name().to_string();
    let start = || Ok::<_, Error>(Streamed::new(&source));
    text_in_block_order(input, sort_memory, progress, start, |total, _, done| {
        add_totals(total, done, hw, threads_per_block)
    })
}

/// [`totals`] on a file whose blocks come in order, read on every thread at once
/// ([`traces::text_fold`]); `None` where the file must be read the ordinary way (a
/// stream, blocks out of order, or any problem, which that way names).
fn fold_totals(
    input: &Input,
    hw: &Hardware,
    threads_per_block: Option<u32>,
    progress: &dyn Progress,
) -> Option<Streamed> {
    let (file, len) = (input.file()?, input.file_len()?);
    let source = input.name();
    let bar = reading(input, progress);
    let (part, _) = traces::text_fold::fold_whole_blocks(
        file,
        len,
        source,
        || BankModel::new(hw),
        |model, records, lines| {
            check_slice(source, records, lines, hw, threads_per_block).ok()?;
            let requests = Requests::group_records(source, records, lines, hw.warp).ok()?;
            let mut summary = Summary::default();
            for r in requests.iter() {
                summary.add(r.op, r.lanes.len(), model.evaluate(&r.warp_request()));
            }
            Some(Part { summary, records: records.len() as u64, requests: requests.len() as u64 })
        },
        |total, part| {
            total.summary.merge(&part.summary);
            total.records += part.records;
            total.requests += part.requests;
        },
        |n| bar.progress().advance(n),
    )?;
    let part = part.unwrap_or_default();
    Some(Streamed {
        source: source.to_string(),
        records: part.records,
        requests: part.requests,
        summary: part.summary,
    })
}

/// Checks, groups and simulates the whole blocks `done`, runs of blocks side by side, and
/// adds their totals to `total` in file order (or gives the first problem).
fn add_totals(
    total: &mut Streamed,
    done: &Trace,
    hw: &Hardware,
    threads_per_block: Option<u32>,
) -> Result<()> {
    use rayon::prelude::*;
    let parts: Vec<Result<Part>> = block_runs(&done.records, 1 << 14)
        .into_par_iter()
        .map_init(
            || BankModel::new(hw),
            |model, run| {
                let (requests, records) = group_run(done, run, hw, threads_per_block)?;
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
}

/// [`totals`] that also writes the trace, in block order, as a binary trace to `out`
/// (a temporary file the caller made): what puts a text trace where the cycle engine
/// can read it a window of blocks at a time, with every error naming its line.
pub(super) fn totals_to_binary(input: Input, hw: &Hardware, how: &Reading, out: &Path) -> Result<Streamed> {
    use traces::binary::Writer;
    let &Reading { threads_per_block, sort_memory, progress, .. } = how;
    let source = input.name().to_string();
    let file = || -> Result<std::io::BufWriter<std::fs::File>> {
        let f = std::fs::File::create(out)
            .map_err(|e| Error::Input(format!("{}: cannot create: {e}", out.display())))?;
        Ok(std::io::BufWriter::with_capacity(1 << 20, f))
    };
    let start =
        || Ok::<_, Error>((Streamed::new(&source), None::<Writer<std::io::BufWriter<std::fs::File>>>));
    let (totals, writer) =
        text_in_block_order(input, sort_memory, progress, start, |(total, writer), columns, done| {
            add_totals(total, done, hw, threads_per_block)?;
            let w = match writer {
                Some(w) => w,
                None => writer.insert(
                    Writer::for_text_columns(file()?, &source, columns)
                        .map_err(|e| Error::Input(format!("{}: cannot write: {e}", out.display())))?
                        .with_tensor_ops(),
                ),
            };
            w.push_trace(done).map_err(|e| Error::Input(format!("{}: cannot write: {e}", out.display())))
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

/// Reads the text trace `input` into warp requests of `hw.warp` lanes, checked, a set of
/// whole blocks at a time in block order ([`text_in_block_order`]: streamed, or sorted
/// with about `how.sort_memory` bytes): only the requests are held, not the records
/// (about 40 bytes each), and a trace whose blocks are not in order needs no sort of all
/// its records in memory.
///
/// The requests are held as the binary reader holds them ([`Held`]).
pub(super) fn load<R: Held>(input: Input, hw: &Hardware, how: &Reading) -> Result<Loaded<R>> {
    use rayon::prelude::*;
    let &Reading { threads_per_block, sort_memory, progress, .. } = how;
    let source = input.name().to_string();
    let start = || {
        Ok::<_, Error>(Loaded {
            source: source.clone(),
            records: 0,
            requests: R::empty(hw.warp),
            summary: None,
        })
    };
    text_in_block_order(input, sort_memory, progress, start, |total, _, done| {
        let parts: Vec<Result<(R, Option<Summary>, u64)>> = block_runs(&done.records, 1 << 14)
            .into_par_iter()
            .map_init(
                || BankModel::new(hw),
                |model, run| {
                    let (requests, records) = group_run(done, run, hw, threads_per_block)?;
                    let (held, summary) = R::from_requests(requests, model);
                    Ok((held, summary, records))
                },
            )
            .collect();
        for part in parts {
            let (requests, summary, records) = part?;
            total.requests.append(&requests);
            total.records += records;
            if let Some(s) = summary {
                total.summary.get_or_insert_with(Summary::default).merge(&s);
            }
        }
        Ok(())
    })
}

/// [`super::for_each_evaluated`] on a text trace, through [`text_in_block_order`].
pub(super) fn for_each_evaluated<S: Send, E: From<Error> + From<traces::TraceError> + Send>(
    input: Input,
    hw: &Hardware,
    how: &Reading,
    mut start: impl FnMut() -> Result<S, E>,
    mut f: impl FnMut(&mut S, &Evaluated) -> Result<(), E> + Send,
) -> Result<(S, String, u64), E> {
    use rayon::prelude::*;
    let &Reading { threads_per_block, sort_memory, progress, .. } = how;
    let source = input.name().to_string();
    let start = || Ok::<_, E>((start()?, 0u64));
    let (state, records) =
        text_in_block_order(input, sort_memory, progress, start, |(state, records), _, done| {
            let parts: Vec<Result<(Evaluated, u64)>> = block_runs(&done.records, 1 << 14)
                .into_par_iter()
                .map_init(
                    || BankModel::new(hw),
                    |model, run| {
                        let (requests, n) = group_run(done, run, hw, threads_per_block)?;
                        let outcomes = requests.iter().map(|r| model.evaluate(&r.warp_request())).collect();
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
    Ok((state, source, records))
}

/// Hands the text trace `input` to `blocks` a set of whole blocks at a time, in block
/// order (each block's records in file order), with the header's
/// column count, at least once (a trace of no records is one empty set); `blocks`
/// works on a state that `start` makes. Memory stays bounded whatever the trace's size:
/// - a file whose blocks come in order (block ids never go down, as `capture`,
///   `convert` and `gen` write them) streams as it is read (`text_blocks`);
/// - a file whose blocks are not in order is read again from its start, with a fresh
///   state (the first is dropped: whatever it wrote goes with it), its records sorted
///   by block with about `sort_memory` bytes of buffer and sorted runs spilled to a
///   temporary folder ([`traces::sort::BlockSorter`]); so is standard input, which
///   cannot be read twice.
pub fn text_in_block_order<S: Send, E: From<Error> + From<traces::TraceError> + Send>(
    input: Input,
    sort_memory: usize,
    progress: &dyn Progress,
    mut start: impl FnMut() -> Result<S, E>,
    mut blocks: impl FnMut(&mut S, usize, &Trace) -> Result<(), E> + Send,
) -> Result<S, E> {
    // (a regular file can be read again from its start; a stream cannot)
    let input = match input.path().map(Path::to_path_buf) {
        Some(path) => {
            let mut state = start()?;
            if text_blocks(input, progress, |columns, t| blocks(&mut state, columns, t))? {
                return Ok(state);
            }
            drop(state);
            super::parts::open(&path)?
        }
        None => input,
    };
    let mut state = start()?;
    let source = input.name().to_string();
    let mut sorter =
        traces::sort::BlockSorter::new(&source, sort_memory).track_folder(crate::files::SORT_FOLDERS);
    let mut columns = 0;
    let mut sites = Vec::new();
    let bar = reading(&input, progress);
    traces::text::for_each_batch(bar.counting(input.into_reader()), &source, |records, lines, header| {
        if columns == 0 {
            sites.clone_from(&header.sites);
        }
        columns = header.columns;
        sorter.push(records, lines)
    })?;
    drop(bar);
    let _merging = match sorter.runs() {
        0 => Phase::begin(progress, &format!("sorting {source} by block"), None, Unit::Time),
        n => Phase::begin(progress, &format!("merging {n} sorted runs of {source}"), None, Unit::Time),
    };
    let mut any = false;
    sorter.finish(|mut t| {
        any = true;
        t.sites.clone_from(&sites);
        blocks(&mut state, columns, &t)
    })?;
    if !any {
        blocks(&mut state, columns, &Trace::new(source.as_str()))?;
    }
    Ok(state)
}

/// Records per thread that [`text_blocks`] gathers before it hands on the whole blocks.
const WHOLE_PER_THREAD: usize = 1 << 15;

/// Reads the text trace at `path` a set of whole blocks at a time, where its blocks come
/// in order (block ids never go down): `blocks` gets the header's column count and each
/// set of blocks in turn, with their lines (at least once: a trace of no records is one
/// empty set). A block is whole once a record of a later block is read; whole blocks are
/// handed on once [`WHOLE_PER_THREAD`] records per thread are held, so memory is a batch
/// of text and about that many records. `false` (having read up to there) where a
/// block comes after a later one.
fn text_blocks<E: From<Error> + From<traces::TraceError> + Send>(
    input: Input,
    progress: &dyn Progress,
    mut blocks: impl FnMut(usize, &Trace) -> Result<(), E> + Send,
) -> Result<bool, E> {
    use rayon::prelude::*;
    let mut unordered = false;
    let source = input.name().to_string();
    let bar = reading(&input, progress);
    let file = bar.counting(input.into_reader());
    // records of the blocks not whole yet (the last block read, and the batch after it),
    // and a second trace whose room takes the open block when the whole ones go on: both
    // keep their room from set to set, so that the records are copied into memory
    // already in use (fresh pages cost more than the copy on many cores)
    let (mut open, mut spare) = (Trace::new(source.as_str()), Trace::new(source.as_str()));
    let mut columns = 0;
    // records held before the whole blocks among them are handed on: about a batch of
    // the reader's text (a megabyte, some 50 000 records, per thread)
    let whole_enough = rayon::current_num_threads().max(1) * WHOLE_PER_THREAD;
    let mut close = |open: &mut Trace, spare: &mut Trace, upto: usize, columns: usize| -> Result<(), E> {
        spare.records.clear();
        spare.lines.clear();
        spare.records.extend_from_slice(&open.records[upto..]);
        spare.lines.extend_from_slice(&open.lines[upto..]);
        open.records.truncate(upto);
        open.lines.truncate(upto);
        blocks(columns, open)?;
        std::mem::swap(open, spare);
        Ok(())
    };
    let read = traces::text::for_each_batch(
        file,
        &source,
        |records: &[Record], lines: &[u32], header| -> Result<(), E> {
            if columns == 0 {
                open.sites.clone_from(&header.sites);
                spare.sites.clone_from(&header.sites);
            }
            columns = header.columns;
            // (the check and the copy side by side: on one thread they are a serial part
            // of the reader that shows on many cores)
            let floor = open.records.last().map_or(0, |r| r.block);
            if records.first().is_some_and(|r| r.block < floor) || !traces::blocks_in_order(records) {
                unordered = true;
                return Err(Error::Input("the trace's blocks are not in order".into()).into());
            }
            open.records.par_extend(records.par_iter().with_min_len(1 << 14).copied());
            open.lines.par_extend(lines.par_iter().with_min_len(1 << 14).copied());
            // every block before the last one read is whole; they go on once there are
            // enough of them to keep every thread busy (the reader hands its text over a
            // megabyte at a time, often only two or three blocks)
            if open.records.len() >= whole_enough {
                let last = open.records.last().map_or(0, |r| r.block);
                let upto = open.records.partition_point(|r| r.block < last);
                if upto > 0 {
                    close(&mut open, &mut spare, upto, columns)?;
                }
            }
            Ok(())
        },
    );
    match read {
        Ok(_) => {
            let n = open.len();
            close(&mut open, &mut spare, n, columns)?;
            Ok(true)
        }
        Err(_) if unordered => Ok(false),
        Err(e) => Err(e),
    }
}
