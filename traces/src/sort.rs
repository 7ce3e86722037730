//! Records in block order with bounded memory: an external merge sort.
//!
//! A trace whose blocks are not in order (block ids go down somewhere) cannot be
//! grouped block by block as it is read. [`BlockSorter`] takes its records in file
//! order and hands them back block by block, in block order, each block's records in
//! file order (with their lines). Records are kept in memory up to a bound; past it,
//! each full buffer is sorted and written to a temporary file (a *run*), and the runs
//! are merged at the end, a small buffer per run. Memory is the bound plus one block
//! and a read buffer per run, whatever the trace's size.
//!
//! The temporary files live in one folder under the system's temporary directory
//! (`TMPDIR`), removed when the sorter is dropped, also on an error; a program that
//! removes temporary files on a signal learns of the folder through
//! [`BlockSorter::track_folder`].

use crate::error::TraceError;
use crate::record::{Record, Trace};
use sim_core::Op;
use std::collections::BinaryHeap;
use std::io::{BufReader, BufWriter, Read, Write};

/// Bytes of one record in a run file.
const RECORD_BYTES: usize = 36;

/// Bytes a record takes in memory while buffered (the record and its line).
pub const BUFFERED_BYTES: usize = std::mem::size_of::<(Record, u32)>();

/// Read buffer of each run while merging.
const RUN_BUFFER: usize = 64 << 10;

/// Records handed on at once: whole blocks, at least this many records (fewer at the end).
const BATCH: usize = 1 << 16;

/// Sorts records into block order with about `memory` bytes of buffer (see the module).
/// Records of one block keep their order (a stable sort, and runs merged in the order
/// they were written).
pub struct BlockSorter {
    source: String,
    /// Records buffered, with their lines.
    buffer: Vec<(Record, u32)>,
    /// The most records buffered before a run is written.
    capacity: usize,
    /// The folder of the run files (made at the first run) and the runs written.
    dir: Option<RunFolder>,
    /// What makes the folder and is told when it is gone.
    hook: Option<FolderHooks>,
    runs: Vec<std::path::PathBuf>,
    /// Whether the records so far came in block order (then no sort is needed).
    in_order: bool,
}

impl BlockSorter {
    /// A sorter of the records of the trace `source` that buffers about `memory` bytes
    /// (at least a few thousand records) before it writes a sorted run to disk.
    pub fn new(source: &str, memory: usize) -> BlockSorter {
        BlockSorter {
            source: source.to_string(),
            buffer: Vec::new(),
            // (a stable sort takes scratch memory of up to half the buffer)
            capacity: (memory / (BUFFERED_BYTES * 3 / 2)).max(4096),
            dir: None,
            hook: None,
            runs: Vec::new(),
            in_order: true,
        }
    }

    /// Makes the folder of runs with `hooks.make` (given its name's prefix) and calls
    /// `hooks.gone` once it has removed it: a program registers the folder for removal
    /// on a signal as it is made (`pipeline::files::SORT_FOLDERS`).
    pub fn track_folder(mut self, hooks: FolderHooks) -> BlockSorter {
        self.hook = Some(hooks);
        self
    }

    /// Takes records in file order, with their lines.
    pub fn push(&mut self, records: &[Record], lines: &[u32]) -> Result<(), TraceError> {
        let mut at = 0;
        while at < records.len() {
            let take = (self.capacity - self.buffer.len()).min(records.len() - at);
            let (r, l) = (&records[at..at + take], &lines[at..at + take]);
            let floor = self.buffer.last().map(|(r, _)| r.block);
            if floor.is_some_and(|f| r.first().is_some_and(|r| r.block < f)) || !crate::blocks_in_order(r) {
                self.in_order = false;
            }
            self.buffer.extend(r.iter().copied().zip(l.iter().copied()));
            at += take;
            if self.buffer.len() == self.capacity {
                self.spill()?;
            }
        }
        Ok(())
    }

    /// Runs written to disk so far.
    pub fn runs(&self) -> usize {
        self.runs.len()
    }

    /// Sorts the buffer by block, in place (file order within a block).
    fn sort_buffer(&mut self) {
        if !self.in_order {
            // (stable: records of one line, as an import makes, keep their order)
            self.buffer.sort_by_key(|(r, _)| r.block);
        }
    }

    /// Writes the buffer, sorted, as a run.
    fn spill(&mut self) -> Result<(), TraceError> {
        self.sort_buffer();
        let io = |e: std::io::Error| TraceError::Csv {
            file: self.source.clone(),
            line: 0,
            message: format!("cannot write a sorted run to the temporary directory: {e}"),
        };
        if self.dir.is_none() {
            const PREFIX: &str = "banksim-sort-";
            let dir = match self.hook {
                Some(hooks) => (hooks.make)(PREFIX),
                None => tempfile::Builder::new().prefix(PREFIX).tempdir(),
            }
            .map_err(io)?;
            self.dir = Some(RunFolder { dir: Some(dir), gone: self.hook.map(|h| h.gone) });
        }
        let path = self.dir.as_ref().expect("made above").path().join(format!("run-{}", self.runs.len()));
        let mut w = BufWriter::with_capacity(1 << 20, std::fs::File::create(&path).map_err(io)?);
        for (r, line) in &self.buffer {
            w.write_all(&encode(r, *line)).map_err(io)?;
        }
        w.flush().map_err(io)?;
        self.runs.push(path);
        self.buffer.clear();
        // (the next run starts a fresh order check: runs are merged anyway)
        self.in_order = true;
        Ok(())
    }

    /// Hands every record on, whole blocks at a time in block order (each block's
    /// records in file order), as traces named after the source; `f`'s first error
    /// stops it.
    pub fn finish<E: From<TraceError>>(mut self, mut f: impl FnMut(Trace) -> Result<(), E>) -> Result<(), E> {
        let source = self.source.clone();
        let mut batch = Trace::new(source.as_str());
        let mut take = |batch: &mut Trace, (r, line): (Record, u32)| -> Result<(), E> {
            if batch.len() >= BATCH && batch.records.last().is_some_and(|l| l.block != r.block) {
                f(std::mem::replace(batch, Trace::new(source.as_str())))?;
            }
            batch.records.push(r);
            batch.lines.push(line);
            Ok(())
        };
        if self.runs.is_empty() {
            self.sort_buffer();
            for &rl in &self.buffer {
                take(&mut batch, rl)?;
            }
        } else {
            if !self.buffer.is_empty() {
                self.spill()?;
            }
            let mut merge = Merge::open(&self.runs, &self.source)?;
            while let Some(rl) = merge.next()? {
                take(&mut batch, rl)?;
            }
        }
        if !batch.is_empty() {
            f(batch)?;
        }
        Ok(())
    }
}

/// How a sorter makes its temporary folder and says it is gone
/// ([`BlockSorter::track_folder`]).
#[derive(Clone, Copy, Debug)]
pub struct FolderHooks {
    /// Makes a temporary folder whose name starts with the prefix given.
    pub make: fn(&str) -> std::io::Result<tempfile::TempDir>,
    /// Called with the folder's path once it is removed.
    pub gone: fn(&std::path::Path),
}

/// The folder of a sorter's runs: removed when dropped, then `gone` told.
struct RunFolder {
    dir: Option<tempfile::TempDir>,
    gone: Option<fn(&std::path::Path)>,
}

impl RunFolder {
    fn path(&self) -> &std::path::Path {
        self.dir.as_ref().expect("held until dropped").path()
    }
}

impl Drop for RunFolder {
    fn drop(&mut self) {
        if let Some(dir) = self.dir.take() {
            let path = dir.path().to_path_buf();
            drop(dir);
            if let Some(gone) = self.gone {
                gone(&path);
            }
        }
    }
}

/// The k-way merge of sorted runs: the next record by (block, run); runs were written
/// in file order, each sorted stably, so records of one block come in file order.
struct Merge {
    readers: Vec<BufReader<std::fs::File>>,
    /// The head of each run that has one: (block, run), smallest first.
    heads: BinaryHeap<std::cmp::Reverse<(u32, usize)>>,
    /// The line of the record at the head of each run.
    head_lines: Vec<u32>,
    /// The record at the head of each run.
    next: Vec<Option<Record>>,
    source: String,
}

impl Merge {
    fn open(runs: &[std::path::PathBuf], source: &str) -> Result<Merge, TraceError> {
        let mut m = Merge {
            readers: Vec::new(),
            heads: BinaryHeap::new(),
            head_lines: Vec::new(),
            next: Vec::new(),
            source: source.into(),
        };
        for path in runs {
            let file = std::fs::File::open(path).map_err(|e| m.error(e))?;
            m.readers.push(BufReader::with_capacity(RUN_BUFFER, file));
            m.next.push(None);
            m.head_lines.push(0);
            m.advance(m.readers.len() - 1)?;
        }
        Ok(m)
    }

    fn error(&self, e: std::io::Error) -> TraceError {
        TraceError::Csv {
            file: self.source.clone(),
            line: 0,
            message: format!("cannot read a sorted run back from the temporary directory: {e}"),
        }
    }

    /// Reads run `i`'s next record into its head.
    fn advance(&mut self, i: usize) -> Result<(), TraceError> {
        let mut buf = [0u8; RECORD_BYTES];
        match self.readers[i].read_exact(&mut buf) {
            Ok(()) => {
                let (r, line) = decode(&buf);
                self.heads.push(std::cmp::Reverse((r.block, i)));
                self.next[i] = Some(r);
                self.head_lines[i] = line;
                Ok(())
            }
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
                self.next[i] = None;
                Ok(())
            }
            Err(e) => Err(self.error(e)),
        }
    }

    fn next(&mut self) -> Result<Option<(Record, u32)>, TraceError> {
        let Some(std::cmp::Reverse((_, i))) = self.heads.pop() else { return Ok(None) };
        let r = self.next[i].take().expect("a run in the heap has a head");
        let line = self.head_lines[i];
        self.advance(i)?;
        Ok(Some((r, line)))
    }
}

fn encode(r: &Record, line: u32) -> [u8; RECORD_BYTES] {
    let mut b = [0u8; RECORD_BYTES];
    for (i, v) in
        [r.block, r.thread, r.step, r.addr, r.gap, r.wait.unwrap_or(0), line, r.site].into_iter().enumerate()
    {
        b[i * 4..i * 4 + 4].copy_from_slice(&v.to_le_bytes());
    }
    b[32] = r.op as u8;
    b[33] = r.bytes;
    b[34] = match r.dep {
        None => 0,
        Some(false) => 1,
        Some(true) => 2,
    };
    b[35] = r.wait.is_some() as u8;
    b
}

fn decode(b: &[u8; RECORD_BYTES]) -> (Record, u32) {
    let word = |i: usize| u32::from_le_bytes(b[i * 4..i * 4 + 4].try_into().expect("4 bytes"));
    let r = Record {
        block: word(0),
        thread: word(1),
        step: word(2),
        op: Op::ALL[b[32] as usize],
        addr: word(3),
        bytes: b[33],
        gap: word(4),
        dep: [None, Some(false), Some(true)][b[34] as usize],
        wait: (b[35] != 0).then(|| word(5)),
        site: word(7),
    };
    (r, word(6))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(block: u32, thread: u32, i: u32) -> Record {
        Record {
            block,
            thread,
            step: i,
            op: Op::ALL[(i % 7) as usize],
            addr: i * 4,
            bytes: 4,
            gap: i,
            dep: [None, Some(false), Some(true)][(i % 3) as usize],
            wait: i.is_multiple_of(2).then_some(i / 2),
            site: crate::NO_SITE,
        }
    }

    #[test]
    fn a_record_round_trips_through_a_run() {
        for i in 0..21 {
            let r = record(i * 7, i * 3, i);
            assert_eq!(decode(&encode(&r, i + 100)), (r, i + 100));
        }
    }

    /// Records of shuffled blocks come back in block order, file order within a block,
    /// with and without runs on disk, however the input is cut.
    #[test]
    fn blocks_come_back_in_order_with_their_lines() {
        let blocks = [5u32, 1, 9, 1, 0, 5, 3, 9, 2, 2, 7, 0];
        let mut records = Vec::new();
        for (n, &b) in blocks.iter().cycle().take(5000).enumerate() {
            records.push(record(b, n as u32, n as u32));
        }
        // (several records to a line, as an import makes)
        let lines: Vec<u32> = (0..records.len() as u32).map(|i| i / 40 + 3).collect();
        let mut want: Vec<(Record, u32)> = records.iter().copied().zip(lines.iter().copied()).collect();
        want.sort_by_key(|(r, _)| r.block);
        for (memory, cut) in [(1 << 30, 5000), (1 << 30, 7), (0, 333), (4096 * BUFFERED_BYTES / 3, 1000)] {
            let mut s = BlockSorter::new("t.csv", memory);
            for (r, l) in records.chunks(cut).zip(lines.chunks(cut)) {
                s.push(r, l).unwrap();
            }
            let spilled = s.runs() > 0;
            assert_eq!(spilled, memory < 1 << 30, "memory {memory}");
            let mut got = Vec::new();
            s.finish(|t| {
                assert!(t.records.windows(2).all(|w| w[0].block <= w[1].block));
                assert_eq!(t.source, "t.csv");
                got.extend(t.records.into_iter().zip(t.lines));
                Ok::<_, TraceError>(())
            })
            .unwrap();
            assert_eq!(got, want, "memory {memory} cut {cut}");
        }
    }

    #[test]
    fn the_run_folder_goes_when_the_sorter_does() {
        let mut s = BlockSorter::new("t.csv", 0);
        let records: Vec<Record> = (0..10_000).map(|i| record(10_000 - i, 0, i)).collect();
        s.push(&records, &vec![1; records.len()]).unwrap();
        assert!(s.runs() >= 2);
        let dir = s.dir.as_ref().unwrap().path().to_path_buf();
        assert!(dir.exists());
        let mut n = 0;
        let stopped = s.finish(|t| {
            n += t.len();
            Err(TraceError::Empty { file: "stop".into() })
        });
        assert!(stopped.is_err() && n > 0);
        assert!(!dir.exists());
    }
}
