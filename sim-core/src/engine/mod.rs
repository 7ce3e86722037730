//! The cycle engine: SMs with resident blocks, warps issuing requests in program order,
//! barriers, and one shared-memory pipe per SM.
//!
//! ```text
//!            dispatcher: blocks in id order, to the SM whose slot frees first
//!                 │            (ties: lowest SM index), round-robin at launch
//!   ┌─────────────┴───────────────┐
//!   SM 0                        SM n          simulated in parallel (rayon) between
//!   resident blocks ≤ occupancy                dispatch decisions; each SM orders its
//!   per block: a dependence DAG (warp          events by (cycle, sequence)
//!     chains in program order, data
//!     edges, barrier joins), kept as warp
//!     cursors and barrier counters
//!   schedulers: issue slots shared by the warps of a sub-partition (gap work + issue)
//!   pipe: W wavefronts busy W × pipe_cycles_per_wavefront; a load completes
//!         latency_base + latency_per_wavefront × W after it enters the pipe
//! ```
//!
//! Results depend only on the workload and the hardware, never on the thread count:
//! every SM runs its own events in (cycle, sequence) order, and dispatch decisions are
//! taken in (cycle, SM index) order between parallel steps. With several threads the
//! dispatcher speculates on the next decisions and rolls back the ones that turn out
//! wrong (`dispatch`), so that many SMs run in each parallel step.
//!
//! The parts, each building on those listed before it:
//! - [`workload`], [`options`], [`report`]: what a run takes, is asked and gives;
//! - [`costed`]: a workload held with each request's bank-model outcome;
//! - [`occupancy`]: blocks' request ranges, and how many blocks an SM holds;
//! - [`context`]: what every SM of a run reads;
//! - [`parallel`]: the parallel step over a set of SMs;
//! - [`events`]: an SM's event queue;
//! - [`plan`]: a block's requests, costed by the bank model at launch;
//! - [`resident`]: a resident block's warp cursors and barrier counters;
//! - [`sm`]: one SM and its event handlers;
//! - [`dispatch`]: the dispatcher, with speculation and rollback;
//! - [`driver`]: a whole run.

mod context;
mod costed;
mod dispatch;
mod driver;
mod events;
mod occupancy;
mod options;
mod parallel;
mod plan;
mod report;
mod resident;
mod sm;
mod workload;

pub use costed::Costed;
pub use driver::{run, run_window, Layout, Window};
pub use occupancy::request_extent;
pub use options::{DepPolicy, EngineError, EngineOptions};
pub use report::{Cycle, EngineReport, RequestTiming, SmStats, Stall, Stalls};
pub use workload::{EngineRequest, Workload};
