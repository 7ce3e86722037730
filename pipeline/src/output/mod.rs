//! Files written complete or not at all: each result file is checked against the
//! command's [`Inputs`] ([`target`]), written under a temporary name and renamed into
//! place ([`atomic`]), its temporary file listed for removal on interruption
//! ([`cleanup`]); the CSV rows of the files ([`rows`]); traces written in either format,
//! whole or a set of blocks at a time ([`trace_file`]).

pub mod atomic;
pub mod cleanup;
pub mod rows;
pub mod target;
pub mod trace_file;

pub use atomic::{append, check_append, write_atomically, write_via_path, AtomicFile, OutputError};
pub use rows::write_csv;
pub use target::{check_distinct, is_stdio, Inputs, TargetError, STDIO};
pub use trace_file::{write_trace, write_trace_to, StreamedTrace};
