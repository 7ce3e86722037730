//! A text trace file whose blocks come in order, worked through on every thread at
//! once, for results that add up the same in any order (totals).
//!
//! [`crate::text::for_each_batch`] hands its batches on in file order: the parse of one
//! batch, the caller's work on the last one and the read of the next run side by side,
//! but each waits for the slowest of the three, and the records are copied from the
//! parse into the caller's blocks. On many cores that keeps about half of them busy.
//! Here every worker instead takes the next stretch of the file (about a megabyte, cut
//! at line ends), reads it by position, parses it, and works on the blocks that lie
//! wholly inside it at once, from its own buffers. Only the two ends of a stretch,
//! parts of blocks that go on into the stretches beside it, go to a short in-order
//! step that joins them into whole blocks, which the worker that completed them then
//! works on. Nothing waits for a batch, and the records are copied only at the ends.
//!
//! It is a fast path, and it gives up rather than decide anything hard: on a line that
//! is not plainly a record (a parse error, a quote, a lone `\r`...), a site id not in
//! the table, blocks out of order, or an error from the caller's work, it returns
//! `None`, and the caller reads the file the ordinary way, which finds the same records
//! or names the first problem with its line. The line numbers handed to the caller's
//! work are not the file's for that reason: they count from 1 in each stretch, and only
//! an error would show them.

use crate::record::Record;
use crate::text::{
    check_sites, key, parse_block, parse_block_into, refuse_repeats_in, Block, Preamble, SiteTable,
};
use crate::text_line;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Condvar, Mutex};

/// Records of whole blocks handed to the work at a time (at least, where blocks are
/// larger).
const RUN_RECORDS: usize = 1 << 14;

/// Stretches a worker may take ahead of the oldest one not yet joined, per thread.
const AHEAD_PER_THREAD: u64 = 4;

/// The bytes of a stretch: about this much, cut at line ends...
const STRETCH_MAX: u64 = 4 << 20;
/// ... at least this much...
const STRETCH_MIN: u64 = 256 << 10;
/// ... and this many stretches per thread where the file is large enough.
const STRETCHES_PER_THREAD: u64 = 16;

/// Works through the records of the text trace `file` (a regular file of `len` bytes,
/// named `name` in messages) on every thread of the current rayon pool, where its
/// blocks come in order: `work` gets runs of whole blocks (their records and lines) in
/// no particular order, with a state `init` makes for each thread, and `add` sums its
/// results. Returns the sum (`None` for a trace of no records) and the preamble, or
/// `None` where the caller must read the file the ordinary way (see the module's notes;
/// `work` giving `None` is one such case). `read` is told the bytes of each stretch as
/// it is done, for a progress bar.
pub fn fold_whole_blocks<S, T: Send>(
    file: &std::fs::File,
    len: u64,
    name: &str,
    init: impl Fn() -> S + Sync,
    work: impl Fn(&mut S, &[Record], &[u32]) -> Option<T> + Sync,
    add: impl Fn(&mut T, T) + Sync,
    read: impl Fn(u64) + Sync,
) -> Option<(Option<T>, Preamble)> {
    fold_whole_blocks_in(file, len, name, None, init, work, add, read)
}

/// [`fold_whole_blocks`] with stretches of `stretch` bytes (tests use tiny ones: every
/// case of a block across stretches in a few lines).
#[doc(hidden)]
#[allow(clippy::too_many_arguments)]
pub fn fold_whole_blocks_in<S, T: Send>(
    file: &std::fs::File,
    len: u64,
    name: &str,
    stretch: Option<u64>,
    init: impl Fn() -> S + Sync,
    work: impl Fn(&mut S, &[Record], &[u32]) -> Option<T> + Sync,
    add: impl Fn(&mut T, T) + Sync,
    read: impl Fn(u64) + Sync,
) -> Option<(Option<T>, Preamble)> {
    #[cfg(not(unix))]
    {
        let _ = (file, len, name, stretch, init, work, add, read);
        return None;
    }
    #[cfg(unix)]
    {
        let (preamble, data) = preamble(file, len, name)?;
        read(data);
        let threads = rayon::current_num_threads().max(1) as u64;
        let stretch = stretch.unwrap_or_else(|| {
            ((len - data) / (threads * STRETCHES_PER_THREAD)).clamp(STRETCH_MIN, STRETCH_MAX)
        });
        assert!(stretch > 0);
        let fold = Fold {
            file,
            len,
            data,
            stretch,
            name,
            preamble: &preamble,
            taken: AtomicU64::new(0),
            failed: AtomicBool::new(false),
            joins: Mutex::new(Joins::default()),
            joined: Condvar::new(),
            spare: Mutex::new(Vec::new()),
            ahead: AHEAD_PER_THREAD * threads,
        };
        let total = crate::parallel::sum_on_every_thread(&add, |sink| {
            let mut state = init();
            let mut on = |records: &[Record], lines: &[u32]| match work(&mut state, records, lines) {
                Some(t) => {
                    sink(t);
                    true
                }
                None => false,
            };
            if !fold.worker(&mut on, &read) {
                fold.fail();
            }
        });
        if fold.failed.load(Ordering::Acquire) {
            return None;
        }
        // the last block, joined from the ends of the stretches it spans
        let joins = fold.joins.into_inner().unwrap_or_else(|p| p.into_inner());
        let total = match (total, joins.open) {
            (total, None) => total,
            (None, Some(last)) => Some(work(&mut init(), &last.records, &last.lines)?),
            (Some(mut total), Some(last)) => {
                add(&mut total, work(&mut init(), &last.records, &last.lines)?);
                Some(total)
            }
        };
        Some((total, preamble))
    }
}

/// The file's preamble (the site table and the header, read the ordinary way) and the
/// byte where its records start; `None` where there is no header or anything in it
/// is wrong (the ordinary reader names the problem).
#[cfg(unix)]
fn preamble(file: &std::fs::File, len: u64, name: &str) -> Option<(Preamble, u64)> {
    let mut head = vec![0u8; len.min(64 << 10) as usize];
    loop {
        let got = crate::binary::read_full_at(file, &mut head, 0).ok()?;
        head.truncate(got);
        // the header: the first line that is neither empty nor a comment
        let whole = head.len() as u64 >= len;
        let mut at = 0;
        while at < head.len() {
            // (a last line without its line end, where the head is the whole file)
            let end = match memchr::memchr(b'\n', &head[at..]) {
                Some(n) => at + n + 1,
                None if whole => head.len(),
                None => break,
            };
            let line = text_line::strip_end(&head[at..end]);
            at = end;
            if !line.trim_ascii().is_empty() && line.first() != Some(&b'#') {
                let text = &head[..at];
                let mut table = SiteTable::default();
                table.read(text, 1, name).ok()?;
                let mut columns = 0;
                let block = parse_block(text, 1, name, &mut columns);
                if block.error.is_some() || columns == 0 || !block.records.is_empty() {
                    return None;
                }
                return Some((Preamble { columns, sites: table.labels }, at as u64));
            }
        }
        // no header yet: a longer site table, or no header at all
        if whole || head.len() >= 64 << 20 {
            return None;
        }
        head.resize(head.len() * 4, 0);
    }
}

/// What the workers share.
struct Fold<'a> {
    file: &'a std::fs::File,
    len: u64,
    /// The byte where the records start.
    data: u64,
    /// The bytes of a stretch.
    stretch: u64,
    name: &'a str,
    preamble: &'a Preamble,
    /// Stretches taken so far (the next one's index).
    taken: AtomicU64,
    /// Set when the fast path gives up: nothing more is taken.
    failed: AtomicBool,
    joins: Mutex<Joins>,
    /// Signalled when the joins move on or the fast path gives up.
    joined: Condvar,
    /// How many stretches past the oldest one not joined may be taken.
    ahead: u64,
    /// Pieces worked on, whose memory the next ends reuse (fresh memory costs more
    /// than the copy into it, on many cores).
    spare: Mutex<Vec<Piece>>,
}

/// The in-order step: the ends of stretches joined into whole blocks.
#[derive(Default)]
struct Joins {
    /// Index of the next stretch to join.
    next: u64,
    /// Ends of later stretches, waiting for the earlier ones.
    pending: BTreeMap<u64, Ends>,
    /// The block the last joined stretch ended in, not whole yet.
    open: Option<Piece>,
}

/// Records of one block (part of it, or all), with their lines.
#[derive(Default)]
struct Piece {
    block: u32,
    records: Vec<Record>,
    lines: Vec<u32>,
}

/// The records at the ends of a stretch, which may belong to blocks that go on into
/// the stretches beside it.
enum Ends {
    /// No records (no line starts in the stretch, or only comments).
    None,
    /// Every record is of one block.
    One(Piece),
    /// The records of its first block and of its last block; the blocks between went
    /// to the caller's work.
    Two(Piece, Piece),
}

#[cfg(unix)]
impl Fold<'_> {
    /// Takes stretches until there are none left, handing whole blocks to `on`; `false`
    /// where the fast path must give up.
    fn worker(&self, on: &mut impl FnMut(&[Record], &[u32]) -> bool, read: &impl Fn(u64)) -> bool {
        // (the text and its records, their memory reused from stretch to stretch)
        let mut buf = Vec::new();
        let mut block = Block::with_capacity(0);
        loop {
            if self.failed.load(Ordering::Acquire) {
                return true;
            }
            let index = self.taken.fetch_add(1, Ordering::AcqRel);
            let from = self.data + index * self.stretch;
            if from >= self.len {
                return true;
            }
            let to = (from + self.stretch).min(self.len);
            if !self.wait_for_turn(index) {
                return true;
            }
            let Some(text) = self.read_lines(&mut buf, from, to) else { return false };
            parse_block_into(text, 1, self.name, &mut { self.preamble.columns }, &mut block);
            check_sites(&mut block, self.preamble, self.name);
            refuse_repeats_in(&mut block, self.name);
            if block.error.is_some() || !block.records.windows(2).all(|w| w[0].block <= w[1].block) {
                return false;
            }
            let (records, lines) = (&block.records[..], &block.lines[..]);
            let ends = match (records.first(), records.last()) {
                (Some(first), Some(last)) if first.block == last.block => {
                    Ends::One(self.piece(records, lines))
                }
                (Some(first), Some(last)) => {
                    let head = records.partition_point(|r| r.block == first.block);
                    let tail = records.partition_point(|r| r.block < last.block);
                    // (in runs of whole blocks of some 16 000 records: the work's memory
                    // stays in the core's cache and is reused from run to run)
                    for run in crate::record::block_runs(&records[head..tail], RUN_RECORDS) {
                        let run = head + run.start..head + run.end;
                        if !on(&records[run.clone()], &lines[run]) {
                            return false;
                        }
                    }
                    Ends::Two(
                        self.piece(&records[..head], &lines[..head]),
                        self.piece(&records[tail..], &lines[tail..]),
                    )
                }
                _ => Ends::None,
            };
            let Some(whole) = self.join(index, ends) else { return false };
            for piece in whole {
                if !on(&piece.records, &piece.lines) {
                    return false;
                }
                self.recycle(piece);
            }
            read(to - from);
        }
    }

    /// Waits until stretch `index` is near enough to the oldest one not joined;
    /// `false` where the fast path gave up meanwhile.
    fn wait_for_turn(&self, index: u64) -> bool {
        let mut j = self.joins.lock().unwrap_or_else(|p| p.into_inner());
        while index >= j.next + self.ahead {
            if self.failed.load(Ordering::Acquire) {
                return false;
            }
            j = self.joined.wait(j).unwrap_or_else(|p| p.into_inner());
        }
        !self.failed.load(Ordering::Acquire)
    }

    /// The whole lines that start in bytes `from..to` of the file (the last one read to
    /// its end), read into `buf`; `None` on a read error.
    fn read_lines<'b>(&self, buf: &'b mut Vec<u8>, from: u64, to: u64) -> Option<&'b [u8]> {
        // (from the byte before: whether a line starts at `from`)
        let at = if from > self.data { from - 1 } else { from };
        let own = (to - at) as usize;
        let mut want = (to - at + 4096).min(self.len - at) as usize;
        let lines = loop {
            // (the buffer only grows: no bytes zeroed for every stretch)
            if buf.len() < want {
                buf.resize(want, 0);
            }
            let got = crate::binary::read_full_at(self.file, &mut buf[..want], at).ok()?;
            let text = &buf[..got];
            if got < own {
                return None; // (the file became shorter)
            }
            let eof = at + got as u64 >= self.len;
            // the first line that starts in the stretch
            let start = match at == from {
                true => 0,
                false => memchr::memchr(b'\n', &text[..own]).map_or(own, |i| i + 1),
            };
            if start >= own {
                break 0..0;
            }
            // the end of the last line that starts in the stretch
            match memchr::memchr(b'\n', &text[own - 1..]) {
                Some(i) => break start..own + i,
                None if eof => break start..got,
                None => want = (want * 2).min((self.len - at) as usize),
            }
        };
        Some(&buf[lines])
    }

    /// Joins the ends of stretch `index` in file order; the blocks made whole, or
    /// `None` where a block comes after a later one.
    fn join(&self, index: u64, ends: Ends) -> Option<Vec<Piece>> {
        let mut j = self.joins.lock().unwrap_or_else(|p| p.into_inner());
        j.pending.insert(index, ends);
        let mut whole = Vec::new();
        let mut moved = false;
        while let Some(ends) = {
            let next = j.next;
            j.pending.remove(&next)
        } {
            j.next += 1;
            moved = true;
            let (first, last) = match ends {
                Ends::None => continue,
                Ends::One(p) => (p, None),
                Ends::Two(first, last) => (first, Some(last)),
            };
            match j.open.take() {
                // (a record that repeats the one before it, across stretches: the
                // ordinary reader refuses it)
                Some(open) if open.records.last().map(key) == first.records.first().map(key) => {
                    drop(j);
                    self.fail();
                    return None;
                }
                Some(mut open) if open.block == first.block => {
                    open.records.extend_from_slice(&first.records);
                    open.lines.extend_from_slice(&first.lines);
                    j.open = Some(open);
                    self.recycle(first);
                }
                Some(open) if open.block > first.block => {
                    drop(j);
                    self.fail();
                    return None;
                }
                Some(open) => {
                    whole.push(open);
                    j.open = Some(first);
                }
                None => j.open = Some(first),
            }
            if let Some(last) = last {
                whole.extend(j.open.take());
                j.open = Some(last);
            }
        }
        if moved {
            self.joined.notify_all();
        }
        Some(whole)
    }

    /// A piece of `records` (of one block) and their `lines`, in reused memory.
    fn piece(&self, records: &[Record], lines: &[u32]) -> Piece {
        let mut p = self.spare.lock().unwrap_or_else(|p| p.into_inner()).pop().unwrap_or_default();
        p.block = records[0].block;
        p.records.clear();
        p.records.extend_from_slice(records);
        p.lines.clear();
        p.lines.extend_from_slice(lines);
        p
    }

    /// Keeps `piece`'s memory for [`Fold::piece`] (as many pieces as the stretches that
    /// may be in flight have ends, at most).
    fn recycle(&self, piece: Piece) {
        let mut spare = self.spare.lock().unwrap_or_else(|p| p.into_inner());
        if (spare.len() as u64) < 2 * self.ahead {
            spare.push(piece);
        }
    }

    /// Gives up: nothing more is taken, and a worker waiting for its turn stops.
    fn fail(&self) {
        self.failed.store(true, Ordering::Release);
        let _j = self.joins.lock().unwrap_or_else(|p| p.into_inner());
        self.joined.notify_all();
    }
}
