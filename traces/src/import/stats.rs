//! What an import returns: the [`Imported`] trace, its [`ImportStats`] and the
//! [`Kernel`] it came from.

use crate::record::Trace;
use sim_core::Op;
use std::collections::BTreeMap;

/// A kernel launch, as far as the file describes it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Kernel {
    /// Launch id (Accel-Sim's `-kernel id`, `mem_trace`'s grid launch id or launch index).
    pub id: u64,
    /// Kernel name (empty when the file does not say).
    pub name: String,
    /// Grid dimensions in blocks, when known.
    pub grid: Option<[u32; 3]>,
    /// Block dimensions in threads, when known.
    pub block: Option<[u32; 3]>,
}

/// What an import kept and what it left out.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ImportStats {
    /// Lines read.
    pub lines: u64,
    /// Warp instructions read (Accel-Sim instruction lines, `mem_trace` memory records).
    pub instructions: u64,
    /// Warp instructions kept, by op (barriers included).
    pub kept: BTreeMap<Op, u64>,
    /// Warp instructions skipped, by opcode (the first `.` token, or `BAR.ARV`).
    pub skipped: BTreeMap<String, u64>,
    /// Shared-memory instructions skipped because no lane was active (for `LDSM`/`STSM`:
    /// no active lane that provides a row address).
    pub masked_off: u64,
    /// Addresses reduced modulo 16 MiB because no shared base was known.
    pub wrapped: u64,
    /// `mem_trace`: lanes taken as inactive (see the `nvbit` module).
    pub inactive_lanes: u64,
    /// `mem_trace`: lines that are not `mem_trace` output (the application's own
    /// output, NVBit's banner), ignored.
    pub other_lines: u64,
    /// The kernel imported.
    pub kernel: Option<Kernel>,
    /// The site table of the records (see [`crate::site`]): Accel-Sim's PCs, labelled
    /// `pc 0x0a30 LDS.U.32` (the PC as 4 hex digits or more, the first opcode seen there).
    pub sites: Vec<String>,
}

impl ImportStats {
    /// Warp instructions kept, all ops.
    pub fn kept_total(&self) -> u64 {
        self.kept.values().sum()
    }

    /// Warp instructions skipped, all opcodes.
    pub fn skipped_total(&self) -> u64 {
        self.skipped.values().sum()
    }
}

/// An imported trace and its statistics.
#[derive(Clone, Debug)]
pub struct Imported {
    /// The trace: one record per active lane of each kept instruction, in file order;
    /// `lines` are the input's line numbers.
    pub trace: Trace,
    /// What was kept and skipped.
    pub stats: ImportStats,
}

/// Counts one skipped instruction under `name`.
pub(crate) fn count_skipped(stats: &mut ImportStats, name: &str) {
    match stats.skipped.get_mut(name) {
        Some(n) => *n += 1,
        None => {
            stats.skipped.insert(name.to_string(), 1);
        }
    }
}
