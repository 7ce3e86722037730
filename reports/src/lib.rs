//! PNG reports for banksim runs and sweeps.
//!
//! Placeholder crate: the reports (bank × lane heatmaps, conflict histograms, sweep
//! charts) arrive with the studies issue. Invariant already in force: this crate reads
//! statistics, never the engine.
