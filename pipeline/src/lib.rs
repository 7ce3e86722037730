//! banksim as a library: what the command-line tool, the Python package, the fuzz
//! targets and the benchmarks share. A trace is checked against the hardware
//! ([`check`]), read into warp requests or streamed through the bank model ([`stream`],
//! [`simulate`]), run through the cycle engine a window of blocks at a time
//! ([`window`]), added up per source line ([`by_line`]), and searched for a better
//! layout ([`layout`]); studies expand into cells whose metrics are journalled and
//! written as results ([`study`]); every file is written complete or not at all
//! ([`output`]). With the `gpu` feature, [`kernel`] predicts the time of a captured WGSL
//! kernel's dispatch. [`probe`] finds a GPU's bank structure from timed microbenchmarks
//! (timing them on a GPU needs the `gpu` feature; inferring from the times does not).
//!
//! ```
//! use pipeline::{check, simulate};
//! let hw = configs::preset("h100").unwrap();
//! let trace = traces::builtin::transpose(32, 0, 4);
//! check::check_records(&trace, &hw, None).unwrap();
//! let (requests, summary) = simulate::summarize_trace(&hw, &trace).unwrap();
//! assert_eq!(requests.len(), 96);
//! assert_eq!(summary.memory_total().conflicts, 992); // the column reads: 32-way
//! ```
//!
//! Architecture invariant: the library tier never prints, never exits and never reads
//! the environment. Long work reports to a [`Progress`] the caller gives (the tool draws
//! bars from it, Python passes [`progress::Silent`]); problems are [`Error`] values,
//! never messages on standard error; a file a command must not overwrite is in the
//! command's own [`output::Inputs`], not in a global list.
#![warn(missing_docs)]

pub mod by_line;
pub mod check;
pub mod error;
pub mod files;
#[cfg(feature = "gpu")]
pub mod kernel;
pub mod layout;
pub mod output;
pub mod probe;
pub mod progress;
pub mod simulate;
pub mod stream;
pub mod stridebench;
pub mod study;
pub mod window;

pub use error::{Error, Result};
pub use progress::Progress;
