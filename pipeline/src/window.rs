//! The cycle engine on a binary trace file held a window of blocks at a time
//! ([`sim_core::engine::run_window`]): one pass over the file finds where each block's
//! requests are and what a block needs ([`scan`]), and the run reads the file again,
//! holding only the blocks the dispatcher may launch next ([`FileWindow`]). Memory is
//! a few rounds' blocks, whatever the trace's size.

use super::error::{Error, Result};
use sim_core::engine::{Costed, EngineRequest, Layout, Window, Workload};
use sim_core::memory::Traffic;
use sim_core::{BankModel, Hardware};
use std::collections::VecDeque;
use std::path::Path;
use traces::binary::{Chunk, RawChunk, Reader};
use traces::{Input, RequestRef};

/// The requests of a binary trace file in order, read a chunk at a time.
struct Cursor {
    reader: Reader<Box<dyn std::io::Read + Send>>,
    raw: RawChunk,
    chunk: Chunk,
    warp: u32,
    /// The next request of `chunk`.
    at: usize,
}

impl Cursor {
    fn open(path: &Path, warp: u32) -> Result<Cursor> {
        let input =
            Input::open(path).map_err(|source| traces::TraceError::Io { path: path.into(), source })?;
        let reader = Reader::from_input(input)?;
        Ok(Cursor { reader, raw: RawChunk::default(), chunk: Chunk::default(), warp, at: 0 })
    }

    /// The next request, or `None` at the end of the file.
    fn next(&mut self) -> Result<Option<RequestRef<'_>>> {
        while self.at == self.chunk.len() {
            if !self.reader.next_chunk(&mut self.raw)? {
                return Ok(None);
            }
            self.raw.decode(&mut self.chunk)?;
            self.chunk.split(self.warp)?;
            self.at = 0;
        }
        self.at += 1;
        Ok(Some(self.chunk.get(self.at - 1)))
    }
}

/// The request with the longest gap or wait: its index, block and that gap.
pub type Longest = Option<(usize, u32, u32)>;

/// What a pass over the binary trace at `path` finds for a run of the cycle engine at
/// `warp` lanes: each block's request range, the threads and shared-memory bytes of a
/// block (the most any request needs, [`sim_core::engine::request_extent`], as the
/// engine's own pass finds them), the request with the longest gap or wait (for the
/// check of `--cycles-per-op`), and the global traffic (for the L2's share of it).
pub fn scan(path: &Path, warp: u32) -> Result<(Layout, Longest, Traffic)> {
    let mut cursor = Cursor::open(path, warp)?;
    let (mut layout, mut n, mut prev) = (Layout::default(), 0usize, None);
    let mut longest: Longest = None;
    let mut traffic = Traffic::default();
    while let Some(r) = cursor.next()? {
        traffic.add(r.op, r.addrs);
        if prev != Some(r.block) {
            if let Some(last) = layout.blocks.last_mut() {
                last.1 = n;
            }
            layout.blocks.push((n, n));
            prev = Some(r.block);
        }
        let (threads, smem) = sim_core::engine::request_extent(&r.engine_request(), warp);
        (layout.threads, layout.smem) = (layout.threads.max(threads), layout.smem.max(smem));
        let gap = r.gap.max(r.wait.unwrap_or(0));
        if longest.is_none_or(|(_, _, g)| gap > g) {
            longest = Some((n, r.block, gap));
        }
        n += 1;
    }
    if let Some(last) = layout.blocks.last_mut() {
        last.1 = n;
    }
    Ok((layout, longest, traffic))
}

/// A binary trace file's requests as the engine's workload, a window of blocks at a time
/// (see the module), each request costed by the bank model as it is read.
pub struct FileWindow {
    /// (in a mutex only for `Sync`: it is used through `&mut self`, never locked)
    reading: std::sync::Mutex<(Cursor, BankModel)>,
    warp: u32,
    /// The run's blocks (from [`scan`]).
    layout: Layout,
    /// Blocks held, from block `first` on: each block's requests, and blocks given
    /// back (their memory kept for the next ones).
    held: VecDeque<Costed>,
    spare: Vec<Costed>,
    first: usize,
}

impl FileWindow {
    /// The window over the binary trace at `path`, whose [`scan`] gave `layout`, for `hw`.
    pub fn open(path: &Path, hw: &Hardware, layout: Layout) -> Result<FileWindow> {
        let reading = std::sync::Mutex::new((Cursor::open(path, hw.warp)?, BankModel::new(hw)));
        Ok(FileWindow { reading, warp: hw.warp, layout, held: VecDeque::new(), spare: Vec::new(), first: 0 })
    }

    /// Reads the next block's requests.
    fn read_block(&mut self) -> Result<()> {
        let b = self.first + self.held.len();
        let (start, end) = self.layout.blocks[b];
        let mut block = self.spare.pop().unwrap_or_else(|| Costed::new(self.warp));
        block.clear();
        let (cursor, model) = self.reading.get_mut().unwrap_or_else(|p| p.into_inner());
        for _ in start..end {
            let r = cursor
                .next()?
                .ok_or_else(|| Error::Input("the trace changed since it was scanned".into()))?;
            block.push(&r.engine_request(), model);
        }
        self.held.push_back(block);
        Ok(())
    }
}

impl Workload for FileWindow {
    fn len(&self) -> usize {
        self.layout.blocks.last().map_or(0, |b| b.1)
    }

    fn request(&self, i: usize) -> EngineRequest<'_> {
        // the held block holding request i (a search among the held blocks only)
        let held = &self.layout.blocks[self.first..self.first + self.held.len()];
        let b = held
            .partition_point(|&(start, _)| start <= i)
            .checked_sub(1)
            .expect("a request the window holds");
        self.held[b].request(i - held[b].0)
    }
}

impl Window for FileWindow {
    fn hold(&mut self, blocks: std::ops::Range<usize>) -> std::result::Result<(), String> {
        while self.first + self.held.len() < blocks.end {
            self.read_block().map_err(|e| e.to_string())?;
        }
        while self.first < blocks.start {
            self.spare.extend(self.held.pop_front());
            self.first += 1;
        }
        Ok(())
    }
}
