//! Working through a binary trace's chunks on every thread of a rayon pool, with the
//! results merged in file order.
//!
//! Every worker loops: it takes the reader (a short serial section: read the chunk's
//! header; of a file, its payload is read by position on the worker's own thread
//! afterwards), lets go of it, does its own work on the chunk (check its checksum,
//! decode, simulate, ...) and hands the result to an in-order merge. Reading one chunk
//! overlaps the work on the others, and no thread waits for a whole window of chunks
//! to finish as a fork-join over batches would. Where the file is mapped
//! ([`Reader::map_payloads`]), a worker takes its next chunk before it works on the
//! one it holds, so that the next chunk's bytes come from memory into its core's cache
//! meanwhile ([`RawChunk::fetch_during_decode`]); it never waits for the merge while
//! it holds a chunk, so the look-ahead cannot stall the merge. Results that arrive
//! early wait in a small buffer; a worker does not read further ahead than a few chunks
//! per thread past the oldest unmerged one, so memory stays bounded (each worker's own
//! buffers plus that many results) whatever the file size. The merge sees the results in
//! chunk order whatever the thread count, so anything merged is deterministic.
//!
//! Where the results are counters that add up the same in any order,
//! [`fold_chunks`] does without the in-order merge: each worker adds its chunks'
//! results into its own total, the totals are added up at the end, and no worker ever
//! waits for a chunk that another holds. A worker whose core is taken away for a while
//! (by the OS or, on a virtual machine, by the host: "steal" time) then delays nothing
//! but its own chunk, where with the in-order merge every other worker stops within a
//! few chunks of it.

use crate::binary::{BinaryError, RawChunk, Reader};
use std::collections::BTreeMap;
use std::io::Read;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Condvar, Mutex};

/// Chunks a worker may read ahead of the oldest chunk not yet merged, per thread.
const AHEAD_PER_THREAD: u64 = 4;

/// Runs `work` on every chunk of `reader` on all threads of the current rayon pool
/// and calls `merge` with the results in chunk order.
///
/// `init` makes each worker's state (its decode buffers, its model), which `work`
/// reuses from chunk to chunk. The first error in file order is returned, whether it
/// came from reading a chunk (converted with `From<BinaryError>`) or from `work`;
/// `merge` has then seen exactly the chunks before it.
pub fn for_each_chunk<R, S, T, E>(
    reader: Reader<R>,
    init: impl Fn() -> S + Sync,
    work: impl Fn(&mut S, &RawChunk) -> Result<T, E> + Sync,
    merge: impl FnMut(T) + Send,
) -> Result<(), E>
where
    R: Read + Send,
    T: Send,
    E: From<BinaryError> + Send,
{
    let threads = rayon::current_num_threads().max(1) as u64;
    let shared = Shared::new(reader, merge, Some(AHEAD_PER_THREAD * threads));
    rayon::scope(|s| {
        for _ in 0..threads {
            s.spawn(|_| shared.worker(&init, &work, |index, result| shared.deliver(index, result)));
        }
    });
    match shared.merged.into_inner().unwrap_or_else(|p| p.into_inner()).error {
        Some((_, e)) => Err(e),
        None => Ok(()),
    }
}

/// Runs `work` on every chunk of `reader` on all threads of the current rayon pool and
/// adds up the results with `add`, in no particular order; `None` for a file without
/// chunks.
///
/// `add` must not depend on the order (sums of integer counters), for then the total
/// is the same whatever the thread count and whichever chunks finish first. Each worker
/// keeps its own total, so nothing waits for the chunks that other workers hold (see
/// the module's notes), and memory is each worker's buffers and total, whatever the
/// file size. `init` and the errors are as in [`for_each_chunk`]: the first error in
/// file order is returned (every chunk before it is worked on first), and the total is
/// then dropped.
pub fn fold_chunks<R, S, T, E>(
    reader: Reader<R>,
    init: impl Fn() -> S + Sync,
    work: impl Fn(&mut S, &RawChunk) -> Result<T, E> + Sync,
    add: impl Fn(&mut T, T) + Sync,
) -> Result<Option<T>, E>
where
    R: Read + Send,
    T: Send,
    E: From<BinaryError> + Send,
{
    // (no in-order merge: only its record of the first error is used)
    let shared = Shared::new(reader, |_: ()| {}, None);
    let total = sum_on_every_thread(add, |sink| {
        shared.worker(&init, &work, |index, result| match result {
            Ok(t) => sink(t),
            Err(e) => shared.fail(index, e),
        })
    });
    match shared.merged.into_inner().unwrap_or_else(|p| p.into_inner()).error {
        Some((_, e)) => Err(e),
        None => Ok(total),
    }
}

/// Runs `worker` once on every thread of the current rayon pool; each hands its results
/// to the sink it is given, and they are added up with `add` (in no particular order:
/// each thread keeps its own sum, and the sums are added at the end). `None` where no
/// worker gave any.
pub(crate) fn sum_on_every_thread<T: Send>(
    add: impl Fn(&mut T, T) + Sync,
    worker: impl Fn(&mut dyn FnMut(T)) + Sync,
) -> Option<T> {
    let threads = rayon::current_num_threads().max(1);
    let totals: Mutex<Option<T>> = Mutex::new(None);
    let gather = |into: &mut Option<T>, t: T| match into {
        Some(total) => add(total, t),
        None => *into = Some(t),
    };
    rayon::scope(|s| {
        for _ in 0..threads {
            s.spawn(|_| {
                let mut mine = None;
                worker(&mut |t| gather(&mut mine, t));
                if let Some(t) = mine {
                    gather(&mut totals.lock().unwrap_or_else(|p| p.into_inner()), t);
                }
            });
        }
    });
    totals.into_inner().unwrap_or_else(|p| p.into_inner())
}

struct Shared<R: Read, T, E, M> {
    reader: Mutex<Reader<R>>,
    /// Chunks read so far (the next chunk's index).
    issued: AtomicU64,
    /// Set at the end of the file or at an error: nothing more is read.
    stop: AtomicBool,
    merged: Mutex<Merge<T, E, M>>,
    /// Signalled when the merge moves on or reading stops.
    progress: Condvar,
    /// How many chunks past the oldest unmerged one may be read; `None`: any number
    /// (nothing is merged in order).
    ahead: Option<u64>,
}

struct Merge<T, E, M> {
    /// Index of the next chunk to merge.
    next: u64,
    /// Results of later chunks, waiting for the earlier ones.
    pending: BTreeMap<u64, T>,
    merge: M,
    /// The error of the earliest failing chunk seen so far.
    error: Option<(u64, E)>,
}

impl<R: Read + Send, T: Send, E: Send, M: FnMut(T) + Send> Shared<R, T, E, M> {
    fn new(mut reader: Reader<R>, merge: M, ahead: Option<u64>) -> Self {
        // the serial part reads chunk headers only; each worker reads its chunk's payload
        reader.defer_payloads();
        Shared {
            reader: Mutex::new(reader),
            issued: AtomicU64::new(0),
            stop: AtomicBool::new(false),
            merged: Mutex::new(Merge { next: 0, pending: BTreeMap::new(), merge, error: None }),
            progress: Condvar::new(),
            ahead,
        }
    }

    /// Works on chunks until there are none left, handing each result to `deliver` with
    /// the chunk's index.
    fn worker<S, U>(
        &self,
        init: &impl Fn() -> S,
        work: &impl Fn(&mut S, &RawChunk) -> Result<U, E>,
        mut deliver: impl FnMut(u64, Result<U, E>),
    ) where
        E: From<BinaryError>,
    {
        let mut state = init();
        let (mut raw, mut next) = (RawChunk::default(), RawChunk::default());
        let mut held = self.read(&mut raw, true);
        while let Some(index) = held {
            let mut then = None;
            // (the payload, where the reader left it to this thread)
            let result = match raw.load() {
                Ok(()) => {
                    // the next chunk is taken now, where the look-ahead allows it without
                    // a wait, so that its payload (where mapped) comes into this core's
                    // cache while this one is worked on
                    if raw.is_mapped() {
                        then = self.read(&mut next, false);
                    }
                    raw.fetch_during_decode(then.map(|_| &mut next));
                    work(&mut state, &raw)
                }
                Err(e) => Err(e.into()),
            };
            raw.release();
            deliver(index, result);
            held = match then {
                Some(_) => {
                    std::mem::swap(&mut raw, &mut next);
                    then
                }
                None => self.read(&mut raw, true),
            };
        }
    }

    /// Reads the next chunk into `raw`; its index, or `None` when there is nothing more
    /// to do (or, without `wait`, when the look-ahead would have to wait for the merge:
    /// a worker that holds a chunk not yet delivered never waits for the merge).
    fn read(&self, raw: &mut RawChunk, wait: bool) -> Option<u64>
    where
        E: From<BinaryError>,
    {
        if let Some(ahead) = self.ahead {
            // bounded look-ahead: wait until the merge is near enough
            let mut m = self.merged.lock().unwrap_or_else(|p| p.into_inner());
            while !self.stop.load(Ordering::Acquire) && self.issued.load(Ordering::Acquire) >= m.next + ahead
            {
                if !wait {
                    return None;
                }
                m = self.progress.wait(m).unwrap_or_else(|p| p.into_inner());
            }
        }
        let mut reader = self.reader.lock().unwrap_or_else(|p| p.into_inner());
        if self.stop.load(Ordering::Acquire) {
            return None;
        }
        let index = self.issued.load(Ordering::Acquire);
        match reader.next_chunk(raw) {
            Ok(true) => {
                self.issued.store(index + 1, Ordering::Release);
                Some(index)
            }
            Ok(false) => {
                self.halt();
                None
            }
            Err(e) => {
                self.halt();
                drop(reader);
                self.fail(index, e.into());
                None
            }
        }
    }

    fn halt(&self) {
        self.stop.store(true, Ordering::Release);
        // take the merge lock so that no reader misses the wake-up between its check
        // and its wait
        let _m = self.merged.lock().unwrap_or_else(|p| p.into_inner());
        self.progress.notify_all();
    }

    /// Records that chunk `index` failed: nothing more is read, and the earliest failing
    /// chunk's error is the one kept.
    fn fail(&self, index: u64, e: E) {
        let mut m = self.merged.lock().unwrap_or_else(|p| p.into_inner());
        if m.error.as_ref().is_none_or(|&(at, _)| index < at) {
            m.error = Some((index, e));
        }
        self.stop.store(true, Ordering::Release);
        m.pending.retain(|&k, _| k < index);
        self.progress.notify_all();
    }

    /// Hands chunk `index`'s result to the in-order merge.
    fn deliver(&self, index: u64, result: Result<T, E>) {
        let t = match result {
            Ok(t) => t,
            Err(e) => return self.fail(index, e),
        };
        let mut m = self.merged.lock().unwrap_or_else(|p| p.into_inner());
        if m.error.as_ref().is_some_and(|&(at, _)| at < index) {
            return; // after the first error: never merged
        }
        m.pending.insert(index, t);
        let mut moved = false;
        while let Some(t) = {
            let next = m.next;
            m.pending.remove(&next)
        } {
            (m.merge)(t);
            m.next += 1;
            moved = true;
        }
        if moved {
            self.progress.notify_all();
        }
    }
}
