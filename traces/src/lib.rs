//! banksim's trace model: per-thread shared-memory records, their text format, and
//! their grouping into warp requests for a chosen warp size.
//!
//! A trace is per thread, so one trace can be replayed on machines with 16-, 32- or
//! 64-lane warps: grouping happens here, at read time, not when the trace is recorded.
//!
//! ```
//! use traces::{text, Requests};
//!
//! // two threads of block 0 store, then load; `#` starts a comment line
//! let csv = "block,thread,step,op,addr,bytes\n# a comment\n\
//!            0,0,0,st,0,4\n0,1,0,st,128,4\n0,0,1,ld,0x0,4\n0,1,1,ld,4,4\n";
//! let trace = text::parse(csv.as_bytes(), "example.csv").unwrap();
//! assert_eq!(trace.len(), 4);
//! let requests = Requests::group(&trace, 32).unwrap();
//! assert_eq!(requests.len(), 2); // (block 0, warp 0, step 0) and step 1
//! let first = requests.get(0);
//! assert_eq!(first.lanes, &[0, 1]);
//! assert_eq!(first.addrs, &[0, 128]);
//! ```
//!
//! Architecture invariant: this crate knows file formats and lanes, never banks.
#![warn(missing_docs)]

mod any_format;
pub mod binary;
pub mod builtin;
mod error;
pub mod generators;
mod group;
pub mod import;
pub mod input;
pub mod parallel;
mod record;
pub mod site;
pub mod sort;
pub mod text;
pub mod text_fold;
mod text_line;

pub use any_format::{read_any, read_input, ReadError};
pub use error::{GroupError, TraceError};
pub use group::{RequestRef, Requests};
pub use input::{Input, TraceFormat};
pub use record::{block_runs, blocks_in_order, Record, Trace};
pub use site::NO_SITE;
