//! The library's error type: a trace that cannot be read, grouped or simulated, an access
//! the hardware cannot make, a config or study that does not hold, a file that cannot be
//! read or written.

use std::path::PathBuf;

/// What went wrong. The wrapped errors are shown as they are (their messages name the
/// file and the place).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A text trace could not be read.
    #[error(transparent)]
    Trace(#[from] traces::TraceError),
    /// A binary trace could not be read.
    #[error(transparent)]
    Binary(#[from] traces::binary::BinaryError),
    /// A trace of either format could not be read.
    #[error(transparent)]
    Read(#[from] traces::ReadError),
    /// Records could not be grouped into warp requests.
    #[error(transparent)]
    Group(#[from] traces::GroupError),
    /// A generator could not build its trace.
    #[error(transparent)]
    Generate(#[from] traces::generators::GenError),
    /// The cycle engine could not run.
    #[error(transparent)]
    Engine(#[from] sim_core::engine::EngineError),
    /// A size an argument asks for is above its limit (see `sim_core::limits`).
    #[error(transparent)]
    Limit(#[from] sim_core::limits::LimitError),
    /// A hardware config or a study file is not valid.
    #[error(transparent)]
    Config(#[from] configs::ConfigError),
    /// An output file could not be written.
    #[error(transparent)]
    Output(#[from] crate::output::OutputError),
    /// A file could not be read, written or made.
    #[error("{}: {what}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What could not be done ("cannot read", "cannot write", ...).
        what: &'static str,
        /// Why.
        source: std::io::Error,
    },
    /// A trace could not be written in the binary format.
    #[error("{}: cannot write", path.display())]
    WriteTrace {
        /// The file.
        path: PathBuf,
        /// Why.
        source: traces::binary::WriteError,
    },
    /// A CSV file could not be written or read.
    #[error("{}: {source}", path.display())]
    Csv {
        /// The file.
        path: PathBuf,
        /// Why.
        source: csv::Error,
    },
    /// A JSON file could not be written or read.
    #[error("{}: {source}", path.display())]
    Json {
        /// The file.
        path: PathBuf,
        /// Why.
        source: serde_json::Error,
    },
    /// A WGSL kernel could not be instrumented.
    #[cfg(feature = "gpu")]
    #[error(transparent)]
    Instrument(#[from] validate::InstrumentError),
    /// No GPU could be opened, or it failed.
    #[cfg(feature = "gpu")]
    #[error(transparent)]
    Gpu(#[from] validate::GpuError),
    /// A capture of a WGSL kernel failed.
    #[cfg(feature = "gpu")]
    #[error(transparent)]
    Capture(#[from] validate::CaptureError),
    /// The timing model could not be solved or run.
    #[cfg(feature = "gpu")]
    #[error(transparent)]
    Calibrate(#[from] validate::CalibrateError),
    /// A record or request the hardware cannot run, at a place in the trace.
    #[error("{at}: {problem}")]
    Check {
        /// Where: the file and line, or the chunk and request.
        at: String,
        /// What is wrong with it.
        problem: String,
    },
    /// A problem with the input that is not in a trace (a layout search's array, a
    /// study's results, say), in words.
    #[error("{0}")]
    Input(String),
}

impl Error {
    /// An [`Error::Io`] of the file `path`.
    pub fn io(path: impl Into<PathBuf>, what: &'static str, source: std::io::Error) -> Error {
        Error::Io { path: path.into(), what, source }
    }
}

/// The library's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
