//! The engine's results: per-SM statistics ([`SmStats`], [`Stalls`]), per-request
//! timings ([`RequestTiming`]) and the report of a run ([`EngineReport`]), in
//! [`Cycle`]s.

/// Cycles.
pub type Cycle = u64;

/// Stall cycles by cause, summed over requests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stalls {
    /// Waiting for the sub-partition's issue slot (other warps' issue and gap work).
    pub issue: Cycle,
    /// Waiting for a previous load's data (latency).
    pub latency: Cycle,
    /// Waiting in the pipe behind earlier requests.
    pub pipe_queue: Cycle,
    /// Pipe and latency cycles of wavefronts beyond the ideal (bank conflicts).
    pub bank_conflict: Cycle,
    /// Waiting at barriers for the block's other warps.
    pub barrier: Cycle,
    /// Global requests' lines passing through the SM's share of DRAM bandwidth (from the
    /// pipe to the last line, when the timing has `dram_bytes_per_cycle`).
    pub global: Cycle,
}

/// A cause of stall cycles: the fields of [`Stalls`], in their order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Stall {
    /// [`Stalls::issue`].
    Issue,
    /// [`Stalls::latency`].
    Latency,
    /// [`Stalls::pipe_queue`].
    PipeQueue,
    /// [`Stalls::bank_conflict`].
    BankConflict,
    /// [`Stalls::barrier`].
    Barrier,
    /// [`Stalls::global`].
    Global,
}

impl Stall {
    /// Every cause, in the order of [`Stalls`]' fields.
    pub const ALL: [Stall; 6] =
        [Stall::Issue, Stall::Latency, Stall::PipeQueue, Stall::BankConflict, Stall::Barrier, Stall::Global];

    /// Its name in tables: `issue`, `latency`, `pipe queue`, `bank conflict`, `barrier`,
    /// `global`.
    pub fn name(self) -> &'static str {
        match self {
            Stall::Issue => "issue",
            Stall::Latency => "latency",
            Stall::PipeQueue => "pipe queue",
            Stall::BankConflict => "bank conflict",
            Stall::Barrier => "barrier",
            Stall::Global => "global",
        }
    }

    /// Its name as a CSV column: `stall_issue`, ..., `stall_global`.
    pub fn column(self) -> &'static str {
        match self {
            Stall::Issue => "stall_issue",
            Stall::Latency => "stall_latency",
            Stall::PipeQueue => "stall_pipe_queue",
            Stall::BankConflict => "stall_bank_conflict",
            Stall::Barrier => "stall_barrier",
            Stall::Global => "stall_global",
        }
    }

    /// What a warp waits for, in words.
    pub fn describe(self) -> &'static str {
        match self {
            Stall::Issue => "issue (other work and issue slots)",
            Stall::Latency => "latency (waiting for loaded data)",
            Stall::PipeQueue => "shared-memory pipe queue",
            Stall::BankConflict => "bank-conflict wavefronts",
            Stall::Barrier => "barriers",
            Stall::Global => "global-memory bandwidth",
        }
    }
}

impl Stalls {
    pub(super) fn merge(&mut self, o: &Stalls) {
        for (c, n) in o.iter() {
            *self.get_mut(c) += n;
        }
    }

    /// The stall cycles of cause `c`.
    pub fn get(&self, c: Stall) -> Cycle {
        match c {
            Stall::Issue => self.issue,
            Stall::Latency => self.latency,
            Stall::PipeQueue => self.pipe_queue,
            Stall::BankConflict => self.bank_conflict,
            Stall::Barrier => self.barrier,
            Stall::Global => self.global,
        }
    }

    /// The stall cycles of cause `c`, to change.
    pub fn get_mut(&mut self, c: Stall) -> &mut Cycle {
        match c {
            Stall::Issue => &mut self.issue,
            Stall::Latency => &mut self.latency,
            Stall::PipeQueue => &mut self.pipe_queue,
            Stall::BankConflict => &mut self.bank_conflict,
            Stall::Barrier => &mut self.barrier,
            Stall::Global => &mut self.global,
        }
    }

    /// Every cause with its stall cycles, in [`Stall::ALL`]'s order: what every table,
    /// CSV and sum of stalls goes through, so that none leaves a cause out.
    pub fn iter(&self) -> impl Iterator<Item = (Stall, Cycle)> + '_ {
        Stall::ALL.into_iter().map(|c| (c, self.get(c)))
    }

    /// Stall cycles of every cause, summed.
    pub fn total(&self) -> Cycle {
        self.iter().map(|(_, n)| n).sum()
    }
}

/// Statistics of one SM.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SmStats {
    /// Cycle at which the SM's last block completed.
    pub cycles: Cycle,
    /// Cycles the shared-memory pipe was busy.
    pub pipe_busy: Cycle,
    /// Blocks run.
    pub blocks: u64,
    /// Memory requests run.
    pub requests: u64,
    /// Wavefronts.
    pub wavefronts: u64,
    /// Stall cycles by cause.
    pub stalls: Stalls,
}

impl SmStats {
    /// Fraction of the SM's cycles its pipe was busy.
    pub fn pipe_utilisation(&self) -> f64 {
        if self.cycles == 0 {
            0.0
        } else {
            self.pipe_busy as f64 / self.cycles as f64
        }
    }
}

/// Timing of one request (with `EngineOptions::per_request`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RequestTiming {
    /// Index of the request in the workload.
    pub index: u32,
    /// SM that ran it.
    pub sm: u32,
    /// Cycle it issued.
    pub issue: Cycle,
    /// Cycle it entered the pipe.
    pub pipe_start: Cycle,
    /// Cycle its data was available (loads) or the pipe was done with it.
    pub done: Cycle,
    /// Wavefronts.
    pub wavefronts: u32,
    /// Ideal wavefronts.
    pub ideal: u32,
    /// Its bank-conflict stall cycles: its share of [`Stalls::bank_conflict`] (the
    /// per-request values sum to it exactly).
    pub bank_conflict: Cycle,
}

/// Result of a run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EngineReport {
    /// Total cycles: the last SM's last cycle.
    pub cycles: Cycle,
    /// Resident blocks per SM (occupancy).
    pub blocks_per_sm: u32,
    /// Warps per block.
    pub warps_per_block: u32,
    /// Shared-memory bytes per block used for occupancy.
    pub smem_per_block: u32,
    /// Per-SM statistics, in SM order.
    pub sms: Vec<SmStats>,
    /// Totals over SMs.
    pub total: SmStats,
    /// Per-request timings in workload order (if asked for).
    pub requests: Vec<RequestTiming>,
}
