//! Errors of reading and grouping traces. Each names the file, the line and what was
//! expected.

use sim_core::Op;
use std::path::PathBuf;

/// Reading a trace failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TraceError {
    /// The file could not be opened or read.
    #[error("{path}: cannot read: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The file has no header line (or nothing at all).
    #[error(
        "{file}: empty trace: expected a header line `block,thread,step,op,addr,bytes[,gap[,dep[,wait[,site]]]]`"
    )]
    Empty {
        /// The file.
        file: String,
    },
    /// The header line is not the expected one.
    #[error("{file}:{line}: bad header `{found}`: expected `block,thread,step,op,addr,bytes` optionally followed by `,gap`, `,dep`, `,wait` and `,site`")]
    Header {
        /// The file.
        file: String,
        /// Line number.
        line: u64,
        /// The header as found.
        found: String,
    },
    /// A line has the wrong number of fields.
    #[error("{file}:{line}: expected {expected} fields (as in the header), found {found}")]
    FieldCount {
        /// The file.
        file: String,
        /// Line number.
        line: u64,
        /// Fields the header announced.
        expected: usize,
        /// Fields on the line.
        found: usize,
    },
    /// A field does not parse or is out of range.
    #[error("{file}:{line}: column {column} `{field}`: {problem}, found `{value}`")]
    Field {
        /// The file.
        file: String,
        /// Line number.
        line: u64,
        /// Column number (1-based).
        column: usize,
        /// Field name.
        field: &'static str,
        /// The text found.
        value: String,
        /// What was expected.
        problem: String,
    },
    /// A line of the site table (`# site ID LABEL`, before the header) is malformed.
    #[error("{file}:{line}: site table: {problem}")]
    Site {
        /// The file.
        file: String,
        /// Line number.
        line: u64,
        /// What is wrong.
        problem: String,
    },
    /// The CSV layer failed (e.g. invalid UTF-8).
    #[error("{file}:{line}: {message}")]
    Csv {
        /// The file.
        file: String,
        /// Line number (0 if unknown).
        line: u64,
        /// The CSV reader's message.
        message: String,
    },
    /// Records that cannot form requests, found while reading (a thread's second record
    /// for one step on the next line), before the rest of the file is read.
    #[error(transparent)]
    Group(#[from] GroupError),
}

/// `site N`, or `no site`.
fn site_name(site: u32) -> String {
    match site {
        crate::NO_SITE => "no site".into(),
        s => format!("site {s}"),
    }
}

/// Grouping records into warp requests failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GroupError {
    /// Lanes of one request use different operations.
    #[error("{file}:{line}: block {block} warp {warp} step {step} mixes ops: `{op}` here, `{first_op}` at line {first_line}; all lanes of a warp at one step must run the same instruction")]
    MixedOp {
        /// The file.
        file: String,
        /// Line of the disagreeing record.
        line: u32,
        /// Line of the request's first record.
        first_line: u32,
        /// Block id.
        block: u32,
        /// Warp index in the block.
        warp: u32,
        /// Step.
        step: u32,
        /// Op of the first record.
        first_op: Op,
        /// Op of the disagreeing record.
        op: Op,
    },
    /// Lanes of one request use different access widths.
    #[error("{file}:{line}: block {block} warp {warp} step {step} mixes widths: {bytes} bytes here, {first_bytes} at line {first_line}; all lanes of a warp at one step must use the same width")]
    MixedWidth {
        /// The file.
        file: String,
        /// Line of the disagreeing record.
        line: u32,
        /// Line of the request's first record.
        first_line: u32,
        /// Block id.
        block: u32,
        /// Warp index in the block.
        warp: u32,
        /// Step.
        step: u32,
        /// Width of the first record.
        first_bytes: u8,
        /// Width of the disagreeing record.
        bytes: u8,
    },
    /// Lanes of one request come from different sites.
    #[error("{file}:{line}: block {block} warp {warp} step {step} mixes sites: {} here, {} at line {first_line}; all lanes of a warp at one step must run the same instruction", site_name(*site), site_name(*first_site))]
    MixedSite {
        /// The file.
        file: String,
        /// Line of the disagreeing record.
        line: u32,
        /// Line of the request's first record.
        first_line: u32,
        /// Block id.
        block: u32,
        /// Warp index in the block.
        warp: u32,
        /// Step.
        step: u32,
        /// Site of the first record.
        first_site: u32,
        /// Site of the disagreeing record.
        site: u32,
    },
    /// The same thread has two records for one step.
    #[error(
        "{file}:{line}: block {block} thread {thread} step {step} already has a record (line {first_line})"
    )]
    Duplicate {
        /// The file.
        file: String,
        /// Line of the second record.
        line: u32,
        /// Line of the first record.
        first_line: u32,
        /// Block id.
        block: u32,
        /// Thread id.
        thread: u32,
        /// Step.
        step: u32,
    },
    /// The warp size is not usable.
    #[error("warp size {warp} is not supported: expected a power of two from 1 to 64")]
    WarpSize {
        /// The warp size asked for.
        warp: u32,
    },
}
