//! [`ImportError`]: why an import failed, naming the file and line.

use std::path::PathBuf;

/// Importing a trace failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ImportError {
    /// The file could not be opened, read or decompressed.
    #[error("{path}: cannot read: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// What took the records (writing them out, say) failed.
    #[error(transparent)]
    Output(Box<dyn std::error::Error + Send + Sync>),
    /// A field of a line does not parse.
    #[error("{file}:{line}: {field}: expected {expected}, found `{found}`")]
    Malformed {
        /// The file.
        file: String,
        /// Line number (1-based).
        line: u64,
        /// The field, e.g. `mask` or `address mode`.
        field: &'static str,
        /// What was expected.
        expected: String,
        /// What was found (shortened when long).
        found: String,
    },
    /// Lines are in an order the format does not allow (e.g. an instruction outside a
    /// thread block, a file that ends inside one).
    #[error("{file}:{line}: {problem}")]
    Structure {
        /// The file.
        file: String,
        /// Line number (1-based).
        line: u64,
        /// What is wrong and what was expected.
        problem: String,
    },
    /// A warp's `insts = N` does not match its instruction lines.
    #[error("{file}:{line}: warp {warp} of thread block {block} declares insts = {declared} but has {found} instruction lines (truncated or edited file?)")]
    InstCount {
        /// The file.
        file: String,
        /// Line of the `insts =` line.
        line: u64,
        /// Block coordinates, `x,y,z`.
        block: String,
        /// Warp in the block.
        warp: u32,
        /// Instructions the header declared.
        declared: u64,
        /// Instruction lines found.
        found: u64,
    },
    /// A shared-memory instruction that banksim does not decode.
    #[error("{file}:{line}: `{opcode}`: {reason}")]
    Unsupported {
        /// The file.
        file: String,
        /// Line number (1-based).
        line: u64,
        /// The opcode as written.
        opcode: String,
        /// Why, and what is supported.
        reason: String,
    },
    /// A lane's address is not a shared-memory address banksim can represent.
    #[error("{file}:{line}: lane {lane}: address {addr:#x} {problem}")]
    Address {
        /// The file.
        file: String,
        /// Line number (1-based).
        line: u64,
        /// Lane.
        lane: u32,
        /// The address as written.
        addr: u64,
        /// What is wrong.
        problem: String,
    },
    /// Several kernel launches touch shared memory and none was chosen.
    #[error("{file}: {} kernel launches access shared memory: {}; choose one with --kernel ID", kernels.len(), list_kernels(kernels))]
    Kernels {
        /// The file.
        file: String,
        /// (launch id, name, shared-memory warp instructions) of each.
        kernels: Vec<(u64, String, u64)>,
    },
    /// The chosen kernel launch is not in the file.
    #[error("{file}: no kernel launch {kernel} with memory records; the file has {}", if known.is_empty() { "none".to_string() } else { known.iter().map(u64::to_string).collect::<Vec<_>>().join(", ") })]
    NoKernel {
        /// The file.
        file: String,
        /// The launch asked for.
        kernel: u64,
        /// Launches the file has.
        known: Vec<u64>,
    },
}

fn list_kernels(kernels: &[(u64, String, u64)]) -> String {
    kernels
        .iter()
        .map(|(id, name, n)| {
            let name = if name.is_empty() { String::new() } else { format!(" `{}`", shorten(name)) };
            format!("{id}{name} ({n} instructions)")
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// At most 60 characters of `s`, for messages.
pub(crate) fn shorten(s: &str) -> String {
    if s.chars().count() <= 60 {
        s.to_string()
    } else {
        s.chars().take(57).collect::<String>() + "..."
    }
}

impl ImportError {
    /// A [`ImportError::Malformed`] field at `line` of `file`, `found` shortened.
    pub(crate) fn malformed(
        file: &str,
        line: u64,
        field: &'static str,
        expected: &str,
        found: &str,
    ) -> ImportError {
        ImportError::Malformed {
            file: file.into(),
            line,
            field,
            expected: expected.into(),
            found: shorten(found),
        }
    }
}
