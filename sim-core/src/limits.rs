//! Limits on the sizes that arguments set: every allocation or run whose size scales
//! with an argument (a dispatch, a grid, paddings, blocks, shards, buffer sizes,
//! iterations) is estimated first and refused over its limit, before anything is
//! allocated, with an error that names the argument, the estimate and the limit
//! ([`LimitError`]). The limits are constants here, each a [`Limit`] in [`ALL`]
//! (docs/guide.md, "Limits", lists them), except the memory of a run, which is the
//! command's `--memory` where it has one and [`MEMORY`] otherwise.
//!
//! ```
//! use sim_core::limits::{self, SIMULATED_REQUESTS};
//! assert!(SIMULATED_REQUESTS.check(|| "--grid 1000".into(), 1000).is_ok());
//! let e = SIMULATED_REQUESTS.check(|| "--grid 4294967295".into(), u64::MAX).unwrap_err();
//! assert!(e.to_string().starts_with("--grid 4294967295: about 18446744073709551615 warp requests to simulate"));
//! assert!(e.to_string().contains("above the limit of 67108864 (SIMULATED_REQUESTS"));
//! ```

/// A limit: the most of something one argument may ask for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limit {
    /// The constant's name, as docs/guide.md lists it.
    pub name: &'static str,
    /// The most allowed.
    pub max: u64,
    /// What is counted, plural ("warp requests to simulate", "bytes").
    pub unit: &'static str,
    /// The arguments it applies to, for the documentation's table.
    pub applies_to: &'static str,
}

/// Why a size was refused: what asked for it, the estimate and the limit.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{what}: about {estimate} {unit}, above the limit of {max} ({limit}; see docs/guide.md, \"Limits\")")]
pub struct LimitError {
    /// The argument and its value (or the file and place) that asked for it.
    pub what: String,
    /// The estimate.
    pub estimate: u64,
    /// What is counted.
    pub unit: &'static str,
    /// The limit.
    pub max: u64,
    /// The limit's name, or the argument that set it (`--memory 1024`).
    pub limit: String,
}

impl Limit {
    /// `Ok` where `estimate` is at most the limit, else the error naming `what` (the
    /// argument and its value, made only on failure).
    pub fn check(&self, what: impl FnOnce() -> String, estimate: u64) -> Result<(), LimitError> {
        if estimate <= self.max {
            return Ok(());
        }
        Err(LimitError {
            what: what(),
            estimate,
            unit: self.unit,
            max: self.max,
            limit: self.name.to_string(),
        })
    }
}

/// The memory a run holds besides its input: `--memory` where the command has it, else
/// [`MEMORY`]. The estimate is checked before anything is allocated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemoryBound {
    /// Bytes.
    pub bytes: u64,
    /// What set it (`--memory 1024`), or [`MEMORY`]'s name.
    pub set_by: String,
}

impl Default for MemoryBound {
    fn default() -> MemoryBound {
        MemoryBound { bytes: MEMORY.max, set_by: MEMORY.name.into() }
    }
}

impl MemoryBound {
    /// The bound `--memory MIB` sets.
    pub fn mib(mib: u64) -> MemoryBound {
        MemoryBound { bytes: mib.saturating_mul(1 << 20), set_by: format!("--memory {mib}") }
    }

    /// `Ok` where `bytes` fit in the bound, else the error naming `what`.
    pub fn check(&self, what: impl FnOnce() -> String, bytes: u64) -> Result<(), LimitError> {
        if bytes <= self.bytes {
            return Ok(());
        }
        Err(LimitError {
            what: what(),
            estimate: bytes,
            unit: "bytes of memory",
            max: self.bytes,
            limit: self.set_by.clone(),
        })
    }
}

/// Warp requests one cycle-engine run may simulate where an argument multiplies the
/// workload (a grid, a dispatch, a stride sweep's blocks and iterations), after the
/// one-SM shortcut: about 20 seconds where one SM runs at 3.5 M requests a second
/// (`predict` launches at least twice: with and without bank conflicts).
pub const SIMULATED_REQUESTS: Limit = Limit {
    name: "SIMULATED_REQUESTS",
    max: 1 << 26,
    unit: "warp requests to simulate",
    applies_to: "`run --cycles --grid`, `predict --dispatch`, `stridebench --blocks --iters`, `bench --blocks --iters`",
};

/// Memory a run may hold for the tables that grow with an argument (a dispatch's
/// blocks, per-request timings), in commands without `--memory` (the same as
/// `--memory`'s default).
pub const MEMORY: Limit = Limit {
    name: "MEMORY",
    max: 1 << 30,
    unit: "bytes of memory",
    applies_to:
        "`predict --dispatch`, `stridebench --blocks`, `advise`; `run --cycles --grid` takes `--memory`",
};

/// Record evaluations of a layout search: candidate layouts times the trace's records.
pub const LAYOUT_WORK: Limit = Limit {
    name: "LAYOUT_WORK",
    max: 1 << 28,
    unit: "records to re-simulate (candidate layouts x records)",
    applies_to: "`advise --max-pad`",
};

/// Shards of a sweep.
pub const SHARDS: Limit =
    Limit { name: "SHARDS", max: 1 << 16, unit: "shards", applies_to: "`sweep --shard I/N`" };

/// Bytes of one buffer bound to a kernel (also at most the adapter's largest storage
/// binding and buffer).
pub const BUFFER_BYTES: Limit = Limit {
    name: "BUFFER_BYTES",
    max: 1 << 30,
    unit: "bytes",
    applies_to: "`--bind G.B=zeros:N|iota:N|u32:..|file:PATH`, and an unbound runtime-sized buffer (one element per invocation of `--dispatch`)",
};

/// Invocations of a dispatch that is captured (every invocation's records are read
/// back and decoded).
pub const CAPTURE_INVOCATIONS: Limit = Limit {
    name: "CAPTURE_INVOCATIONS",
    max: 1 << 26,
    unit: "invocations",
    applies_to: "`capture --dispatch`, `explain --dispatch`",
};

/// Records one capture may make (the trace buffer, 28 bytes a record, is also at most
/// the adapter's largest storage binding).
pub const CAPTURE_RECORDS: Limit = Limit {
    name: "CAPTURE_RECORDS",
    max: 1 << 24,
    unit: "records",
    applies_to: "`capture`, `explain`, `predict` (the kernel's loops and dispatch)",
};

/// Seconds one GPU dispatch may run before it is given up on (a loop that never ends):
/// the default of `--time-limit`.
pub const GPU_SECONDS: Limit = Limit {
    name: "GPU_SECONDS",
    max: 60,
    unit: "seconds",
    applies_to: "`capture`, `explain`, `predict`, `measure` (`--time-limit`)",
};

/// Timed runs of one measurement: warm-up and repetitions.
pub const MEASURE_RUNS: Limit =
    Limit { name: "MEASURE_RUNS", max: 1 << 20, unit: "runs", applies_to: "`measure --warmup --reps`" };

/// Bytes of a kernel source file named by a trace's site labels (`run --by-line`).
pub const SOURCE_BYTES: Limit = Limit {
    name: "SOURCE_BYTES",
    max: 16 << 20,
    unit: "bytes",
    applies_to: "the source files of a trace's `# site` labels (`run --by-line`, `explain`)",
};

/// Every limit, for the documentation's table.
pub const ALL: &[Limit] = &[
    SIMULATED_REQUESTS,
    MEMORY,
    LAYOUT_WORK,
    SHARDS,
    BUFFER_BYTES,
    CAPTURE_INVOCATIONS,
    CAPTURE_RECORDS,
    GPU_SECONDS,
    MEASURE_RUNS,
    SOURCE_BYTES,
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_limit_allows_its_maximum_and_refuses_one_more() {
        for l in ALL {
            assert!(l.check(|| "x".into(), l.max).is_ok(), "{}", l.name);
            let e = l.check(|| "--arg 7".into(), l.max + 1).unwrap_err();
            let text = e.to_string();
            assert!(text.starts_with("--arg 7: about"), "{text}");
            assert!(text.contains(&(l.max + 1).to_string()) && text.contains(l.name), "{text}");
        }
    }

    #[test]
    fn the_memory_bound_names_what_set_it() {
        let e = MemoryBound::mib(1).check(|| "--grid 9".into(), (1 << 20) + 1).unwrap_err();
        assert!(e.to_string().contains("above the limit of 1048576 (--memory 1;"), "{e}");
        assert!(MemoryBound::default().check(String::new, MEMORY.max).is_ok());
    }
}
