//! The errors of reading ([`BinaryError`]) and writing ([`WriteError`]) a binary trace.

use super::format::VERSION;

/// Reading a binary trace failed. Every variant names the file and, where it applies,
/// the byte offset.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BinaryError {
    /// The file could not be opened or read.
    #[error("{file}: cannot read at byte {offset}: {source}")]
    Io {
        /// The file.
        file: String,
        /// Byte offset of the failed read.
        offset: u64,
        /// The cause.
        source: std::io::Error,
    },
    /// The file does not start with [`MAGIC`](super::format::MAGIC).
    #[error("{file}: not a banksim binary trace (the first 8 bytes are not the magic \\x89BNKSIM\\n)")]
    Magic {
        /// The file.
        file: String,
    },
    /// The header names a version or flags this reader does not know.
    #[error(
        "{file}: byte {offset}: unsupported {what} {found} (this banksim reads versions 1 to {VERSION})"
    )]
    Unsupported {
        /// The file.
        file: String,
        /// Byte offset of the field.
        offset: u64,
        /// Which field.
        what: &'static str,
        /// The value found.
        found: u64,
    },
    /// The file ends early.
    #[error("{file}: truncated: the file ends at byte {offset} inside {inside}")]
    Truncated {
        /// The file.
        file: String,
        /// The file's length.
        offset: u64,
        /// What was being read.
        inside: String,
    },
    /// The bytes at `offset` are not a valid binary trace.
    #[error("{file}: corrupt at byte {offset}: {problem}")]
    Corrupt {
        /// The file.
        file: String,
        /// Byte offset of the bad field (for a checksum, of the chunk).
        offset: u64,
        /// What is wrong.
        problem: String,
    },
    /// Lanes of one warp request disagree on the op or width (warp sizes above the
    /// trace's own can merge threads that ran different instructions).
    #[error("{file}: chunk at byte {offset}: block {block} warp {warp} step {step} mixes {problem}; all lanes of a warp at one step must run the same instruction")]
    Mixed {
        /// The file.
        file: String,
        /// Byte offset of the chunk.
        offset: u64,
        /// Block id.
        block: u32,
        /// Warp index in the block.
        warp: u32,
        /// Step.
        step: u32,
        /// What differs.
        problem: String,
    },
    /// The warp size is not usable.
    #[error("warp size {warp} is not supported: expected a power of two from 1 to 64")]
    WarpSize {
        /// The warp size asked for.
        warp: u32,
    },
}

/// Writing a binary trace failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WriteError {
    /// The output could not be written.
    #[error("cannot write: {0}")]
    Io(#[from] std::io::Error),
    /// Two records of one thread share a step.
    #[error(
        "{file}: block {block} thread {thread} step {step} has two records (lines {first_line} and {line})"
    )]
    Duplicate {
        /// The trace's source.
        file: String,
        /// Block id.
        block: u32,
        /// Thread id.
        thread: u32,
        /// Step.
        step: u32,
        /// Line of one record (0 if generated).
        first_line: u32,
        /// Line of the other.
        line: u32,
    },
    /// A record or group the format cannot hold.
    #[error("{file}: block {block} slice {slice} step {step}: {problem}")]
    Invalid {
        /// The trace's source.
        file: String,
        /// Block id.
        block: u32,
        /// 64-thread slice.
        slice: u32,
        /// Step.
        step: u32,
        /// What is wrong.
        problem: String,
    },
}
