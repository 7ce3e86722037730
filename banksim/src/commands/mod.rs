//! The subcommands, one module each, named as the command: its clap arguments and its
//! `run`. Argument groups that several commands share are in [`args`].

pub mod advise;
pub mod args;
pub mod bench;
pub mod calibrate;
pub mod capture;
pub mod convert;
pub mod demo;
pub mod explain;
pub mod gen;
pub mod import;
#[cfg(feature = "gpu")]
pub mod kernel;
pub mod measure;
pub mod merge;
pub mod predict;
pub mod presets;
pub mod report;
pub mod run;
pub mod shader_stats;
pub mod slurm;
pub mod stridebench;
pub mod sweep;
