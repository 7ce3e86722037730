//! `banksim`, the command-line tool's library: the simulation pipeline, the outputs, the
//! study machinery and one module per subcommand. The binary (`main.rs`) parses the
//! command line and calls [`commands`]; benchmarks and tests call [`pipeline`].

pub mod commands;
pub mod output;
pub mod pipeline;
pub mod study;
