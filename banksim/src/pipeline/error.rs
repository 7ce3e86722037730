//! The pipeline's error type: a trace that cannot be read, grouped or simulated, or an
//! access the hardware cannot make.

/// What went wrong in the pipeline. The wrapped errors are shown as they are (their
/// messages name the file and the place).
#[derive(Debug, thiserror::Error)]
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
    Generate(#[from] traces::spec::GenError),
    /// The cycle engine could not run.
    #[error(transparent)]
    Engine(#[from] sim_core::engine::EngineError),
    /// A record or request the hardware cannot run, at a place in the trace.
    #[error("{at}: {problem}")]
    Check {
        /// Where: the file and line, or the chunk and request.
        at: String,
        /// What is wrong with it.
        problem: String,
    },
    /// A problem with the input that is not in a trace (a layout search's array, say).
    #[error("{0}")]
    Input(String),
}

/// The pipeline's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
