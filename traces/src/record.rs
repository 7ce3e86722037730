//! Per-thread records.

use sim_core::Op;

/// One thread's shared-memory instruction (or barrier).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Record {
    /// Linear block (workgroup) id.
    pub block: u32,
    /// Linear thread index within the block.
    pub thread: u32,
    /// The thread's dynamic shared-memory instruction index.
    pub step: u32,
    /// Operation.
    pub op: Op,
    /// Byte address in shared memory (0 for barriers).
    pub addr: u32,
    /// Access width in bytes (1, 2, 4, 8, 16; 0 for barriers).
    pub bytes: u8,
    /// Cycles of other work since the thread's previous record.
    pub gap: u32,
    /// Whether the access needs the result of the thread's previous load; `None` leaves
    /// it to the engine's policy.
    pub dep: Option<bool>,
    /// Cycles of `gap` (at most `gap`) before the thread first uses its previous load's
    /// value; `None` when the gap does not use it (then `dep` says whether the access
    /// does, and a dependent access waits for the data before its whole gap).
    pub wait: Option<u32>,
    /// The record's site: an index into its trace's [`Trace::sites`], or
    /// [`crate::site::NO_SITE`].
    pub site: u32,
}

/// A whole trace: records in file order, with the source line of each.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Trace {
    /// Where the trace came from (a path or a generator name), for messages.
    pub source: String,
    /// The records.
    pub records: Vec<Record>,
    /// Source line of each record (1-based; 0 for generated records).
    pub lines: Vec<u32>,
    /// Whether the source had the optional `gap` / `dep` columns.
    pub has_timing_columns: bool,
    /// The site table: the label of each site id (see [`crate::site`]); empty when the
    /// records have no sites.
    pub sites: Vec<String>,
}

impl Trace {
    /// An empty trace named `source`.
    pub fn new(source: impl Into<String>) -> Trace {
        Trace { source: source.into(), ..Trace::default() }
    }

    /// Appends a record that has no source line.
    pub fn push(&mut self, r: Record) {
        self.records.push(r);
        self.lines.push(0);
    }

    /// Number of records.
    pub fn len(&self) -> usize {
        self.records.len()
    }

    /// Whether the records carry sites (the trace has a site table).
    pub fn has_sites(&self) -> bool {
        !self.sites.is_empty()
    }

    /// The label of site `id`, if the table has it.
    pub fn site_label(&self, id: u32) -> Option<&str> {
        self.sites.get(id as usize).map(String::as_str)
    }

    /// Whether the trace has no records.
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }
}

/// Whether `records` come block by block: block ids never go down (any order within a
/// block). Grouping sorts such records one block at a time, and a reader can take a
/// block as whole once a later block begins. Checked side by side on the threads of the
/// current rayon pool, in pieces of at least 16 384 records (a reader checks every record
/// it reads, and on one thread that was a serial part that showed on many cores).
pub fn blocks_in_order(records: &[Record]) -> bool {
    use rayon::prelude::*;
    records.par_windows(2).with_min_len(1 << 14).all(|w| w[0].block <= w[1].block)
}

/// `records` (block ids never going down, see [`blocks_in_order`]) cut into runs of
/// whole blocks of at least `size` records each (the last one may be shorter); with
/// `size` 0, one run per block.
pub fn block_runs(records: &[Record], size: usize) -> Vec<std::ops::Range<usize>> {
    let mut runs = Vec::new();
    let mut start = 0;
    while start < records.len() {
        let at = (start + size).min(records.len() - 1);
        let block = records[at].block;
        // the end of the block holding record `at`
        let end = at + records[at..].partition_point(|r| r.block == block);
        runs.push(start..end);
        start = end;
    }
    runs
}
