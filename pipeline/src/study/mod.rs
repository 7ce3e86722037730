//! Studies (`banksim sweep`): a study file expanded into cells, each cell's metrics, the
//! journal of finished cells, the output folder, and the results files. Shared by
//! `sweep`, `slurm` and `merge`.

pub mod expanded;
pub mod folder;
pub mod journal;
pub mod metrics;
pub mod results;

pub use expanded::Expanded;
pub use folder::SweepFolder;
