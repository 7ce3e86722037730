//! Everything the command-line tool writes: result files (each written under a temporary
//! name and renamed into place), CSV rows, and the text tables it prints.

pub mod atomic;
pub mod rows;
pub mod tables;

pub use atomic::{append, write_atomically, AtomicFile, OutputError};
pub use rows::write_csv;
