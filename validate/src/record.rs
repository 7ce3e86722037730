//! The trace buffer's format: the contract between the instrumented kernel, which
//! writes records (see the `instrument` module), and the decoder, which reads them (see
//! the `decode` module). It owns the header and record layout, the raw record as read
//! back, and the static site table that a record's site id indexes.
//!
//! The buffer holds a header of [`HEADER_WORDS`] words (record count, incremented
//! atomically; capacity in records; workgroups in x; workgroups in y; the cut loop:
//! 0, or 1 + the site of a loop that ended without taking an exit, set atomically,
//! see [`CUT_WORD`]; the window: first and end workgroup, first and end step; the
//! steps: 1 + the largest step of any record, in the window or not, see [`STEPS_WORD`])
//! followed by records of [`RECORD_WORDS`] words each. Only records of the window (a
//! workgroup and a per-invocation step within its bounds) are counted and written, so
//! a kernel that makes more records than one buffer holds is captured in several runs,
//! one window each:
//!
//! ```text
//! word 0: linear workgroup id   word 1: local_invocation_index   word 2: the invocation's step
//! word 3: site id               word 4: byte address (or loop iteration, for loop sites)
//! word 5: IR operations the invocation has executed so far (see the `ops` module)
//! word 6: the value word 5 had at the invocation's first use of a workgroup load's
//!         value since its previous access or barrier record ([`NO_USE`]: none)
//! ```

use sim_core::Op;

/// Words per record in the trace buffer.
pub const RECORD_WORDS: u32 = 7;
/// Words of the trace buffer's header: record count (atomic), capacity in records,
/// workgroups in x, workgroups in y, the cut loop ([`CUT_WORD`]), the window
/// ([`WINDOW_WORD`]) and the steps ([`STEPS_WORD`]).
pub const HEADER_WORDS: u32 = 10;
/// The header word where a loop that ended without taking one of its exits (a `break`,
/// its `break if`, a `return`) leaves 1 + its site (the largest such, `atomicMax`): an
/// adapter that stops long loops (lavapipe after 65535 iterations) ended it, so the
/// trace would be cut short. 0: none.
pub const CUT_WORD: u32 = 4;
/// The first of the window's four header words: first workgroup, end workgroup (one
/// past the last), first step, end step. A record is counted and written only when its
/// linear workgroup id and its invocation's step are within them.
pub const WINDOW_WORD: u32 = 5;
/// The header word that ends up 1 + the largest step of any record the kernel made
/// (`atomicMax`), whether in the window or not: the steps a window can split.
pub const STEPS_WORD: u32 = 9;
/// The window that holds every record: workgroups and steps `0..u32::MAX`.
pub const WHOLE: Window = Window { blocks: (0, u32::MAX), steps: (0, u32::MAX) };

/// The records one run of the instrumented kernel writes: those of workgroups
/// `blocks.0..blocks.1` whose invocation's step is in `steps.0..steps.1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    /// First workgroup, and one past the last (linear ids).
    pub blocks: (u32, u32),
    /// First step, and one past the last (each invocation's own step counter).
    pub steps: (u32, u32),
}

impl Window {
    /// The window's four header words, in order from [`WINDOW_WORD`].
    pub fn words(self) -> [u32; 4] {
        [self.blocks.0, self.blocks.1, self.steps.0, self.steps.1]
    }
}

/// `first_use` of a record whose gap used no loaded value.
pub const NO_USE: u32 = u32::MAX;

/// One raw record.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct RawRecord {
    /// Linear workgroup id.
    pub block: u32,
    /// `local_invocation_index`.
    pub thread: u32,
    /// The invocation's step counter.
    pub step: u32,
    /// Site id.
    pub site: u32,
    /// Byte address (accesses), iteration (loops), 0 (barriers).
    pub value: u32,
    /// IR operations the invocation had executed when it wrote the record.
    pub ops: u32,
    /// IR operations it had executed at its first use of a workgroup load's value since
    /// its previous access or barrier record ([`NO_USE`] if none).
    pub first_use: u32,
}

/// Little-endian word `i` of `bytes` (the trace buffer as read back).
pub fn word_at(bytes: &[u8], i: usize) -> u32 {
    u32::from_le_bytes([bytes[4 * i], bytes[4 * i + 1], bytes[4 * i + 2], bytes[4 * i + 3]])
}

/// Splits the trace buffer's data bytes (little-endian words) into records.
pub fn raw_records_from_bytes(bytes: &[u8]) -> Vec<RawRecord> {
    bytes
        .chunks_exact(RECORD_WORDS as usize * 4)
        .map(|c| RawRecord {
            block: word_at(c, 0),
            thread: word_at(c, 1),
            step: word_at(c, 2),
            site: word_at(c, 3),
            value: word_at(c, 4),
            ops: word_at(c, 5),
            first_use: word_at(c, 6),
        })
        .collect()
}

/// What happens at an access site.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SiteKind {
    /// A workgroup-memory access: its op and the pieces it touches, as (byte offset
    /// from the recorded address, width) — one piece for a scalar or vector, several for
    /// a whole struct, array or matrix (each becomes its own trace record).
    Access {
        /// `ld`, `st`, `atom` or `red`.
        op: Op,
        /// (offset, bytes) of every piece, in order.
        leaves: Vec<(u32, u8)>,
        /// Whether its address (or stored value) depends on an earlier workgroup load's
        /// value (see the `deps` module): the trace's `dep` column.
        dep: bool,
        /// Where what it points at lies inside one element, as a compiler sees it: the
        /// byte offset from the start of the struct or vector reached through constant
        /// members only (`a[i].f`, `v[j].y`, a whole `a[i]` of struct type: 0), or
        /// `None` for an element of an array indexed as such (`w[t]`) or a component
        /// picked at run time (`v[j][k]`). Accesses of one element are what the
        /// driver merges into wide accesses (see the `vectorize` module).
        member: Option<u32>,
    },
    /// A control barrier (`workgroupBarrier`, `storageBarrier`, ...).
    Barrier,
    /// The top of an iteration of a loop that contains sites; the record's value is
    /// the iteration number.
    Loop,
}

/// One static site of the instrumented program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Site {
    /// What it does.
    pub kind: SiteKind,
    /// Its position in program order (call sites inlined): sites and loops are numbered
    /// as a walk of the specialised program meets them.
    pub order: u32,
    /// The loop sites that enclose it, outermost first.
    pub loops: Vec<u32>,
    /// Where it is, for messages: `file:line:col` and the function.
    pub what: String,
    /// Where it is in the source: `file:line:col` (the file alone where the span is
    /// unknown), the trace's site label.
    pub location: String,
}
