//! The simulation pipeline as a library: checking a trace against the hardware, loading
//! it into warp requests, streaming it through the bank model, and searching layouts.
//! Every subcommand, benchmark and test runs the same code from here.

pub mod by_line;
pub mod check;
pub mod error;
pub mod layout;
pub mod simulate;
pub mod stream;
pub mod window;

pub use error::{Error, Result};
