//! What an import is told: the file's [`Format`] and the [`Options`] it cannot infer.

/// Which tool wrote the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Accel-Sim's NVBit tracer after post-processing: `kernel-N.traceg` (see the `accelsim` module).
    AccelSim,
    /// The stdout of NVBit's `mem_trace` example tool (see the `nvbit` module).
    NvbitMemtrace,
}

/// Choices the file cannot make for itself.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// Base of the shared-memory window in the generic address space; overrides the
    /// Accel-Sim header's `-shmem base_addr`.
    pub shmem_base: Option<u64>,
    /// `mem_trace` only: the kernel launch to import (its `grid_launch_id`, or its index
    /// among the file's launches when the output has no ids). Needed when several
    /// launches touch shared memory.
    pub kernel: Option<u64>,
}
