//! Everything the command-line tool writes: result files (each checked by [`target`],
//! written under a temporary name and renamed into place, removed on interruption by
//! [`cleanup`]), CSV rows, and the text tables it prints.

pub mod atomic;
pub mod by_line;
pub mod cleanup;
pub mod progress;
pub mod rows;
pub mod tables;
pub mod target;
pub mod trace_file;

pub use atomic::{append, write_atomically, write_via_path, AtomicFile, OutputError};
pub use rows::write_csv;
pub use target::{check_target, declare_folder, declare_input, declare_inputs, is_stdio, STDIO};
pub use trace_file::{write_trace, write_trace_to, StreamedTrace, TraceFormat};
