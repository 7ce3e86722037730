//! Errors of the validate crate: one enum per operation (instrumenting, decoding,
//! binding, the GPU, capture, measurement, calibration), each saying where and what.

/// A shader could not be loaded or instrumented.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum InstrumentError {
    /// The file could not be read.
    #[error("cannot read {file}: {source}")]
    Io {
        /// The path.
        file: String,
        /// The IO error.
        source: std::io::Error,
    },
    /// naga rejected the WGSL source (the message shows the line and column).
    #[error("{file}: WGSL does not parse:\n{message}")]
    Parse {
        /// The path.
        file: String,
        /// naga's message with the source excerpt.
        message: String,
    },
    /// The source parses but is not a valid module.
    #[error("{file}: the shader does not validate:\n{message}")]
    Invalid {
        /// The path.
        file: String,
        /// naga's message with the source excerpt.
        message: String,
    },
    /// No compute entry point to run, or several and none chosen.
    #[error(
        "{}: compute entry points in the shader: {}",
        match wanted { Some(w) => format!("no compute entry point `{w}`"), None => "choose the entry point with --entry".to_string() },
        if found.is_empty() { "none".to_string() } else { found.join(", ") }
    )]
    NoEntryPoint {
        /// The name asked for, if any.
        wanted: Option<String>,
        /// The compute entry points found.
        found: Vec<String>,
    },
    /// A pipeline-overridable constant could not be set.
    #[error("override constants: {message}")]
    Override {
        /// What went wrong (naga's message).
        message: String,
    },
    /// A construct the capture cannot instrument.
    #[error("{at}: cannot capture: {what}")]
    Unsupported {
        /// `file:line:col (in function)`.
        at: String,
        /// The construct.
        what: String,
    },
    /// The specialised program would be too large.
    #[error("cannot capture: {what}")]
    TooLarge {
        /// What overflowed.
        what: String,
    },
    /// A bug in banksim: the instrumented module is invalid.
    #[error("internal error (a bug in banksim): {message}")]
    Internal {
        /// What went wrong.
        message: String,
    },
}

/// Records read back from the GPU could not be turned into a trace.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DecodeError {
    /// A record with an impossible field (workgroup, invocation or site out of range).
    #[error("record {index}: {what}")]
    Corrupt {
        /// Record index in the buffer.
        index: usize,
        /// What is wrong.
        what: String,
    },
    /// An invocation's steps are not 0, 1, 2, ...: a record is missing or doubled.
    #[error("workgroup {block} invocation {thread}: expected its record of step {expected}, found step {found}: records were lost")]
    Lost {
        /// Workgroup.
        block: u32,
        /// Invocation.
        thread: u32,
        /// Step expected.
        expected: u32,
        /// Step found.
        found: u32,
    },
    /// An invocation's accesses do not follow program order (a bug in banksim).
    #[error("workgroup {block} invocation {thread}: step {step} ({what}) comes before an access that precedes it in program order (a bug in banksim)")]
    Order {
        /// Workgroup.
        block: u32,
        /// Invocation.
        thread: u32,
        /// The invocation's step.
        step: u32,
        /// The site.
        what: String,
    },
}

/// A buffer binding given on the command line is malformed or does not fit the shader.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BindError {
    /// A buffer larger than a limit allows (see `sim_core::limits`).
    #[error(transparent)]
    Limit(#[from] sim_core::limits::LimitError),
    /// `--bind` text that does not parse.
    #[error("--bind `{text}`: {expected}")]
    Syntax {
        /// The argument.
        text: String,
        /// What was expected.
        expected: String,
    },
    /// A data file could not be read.
    #[error("--bind {group}.{binding}: cannot read {file}: {source}")]
    Io {
        /// Group.
        group: u32,
        /// Binding.
        binding: u32,
        /// The path.
        file: String,
        /// The IO error.
        source: std::io::Error,
    },
    /// A binding the shader does not use.
    #[error("--bind {group}.{binding}: the entry point binds no buffer there; it binds {}", known.join(", "))]
    Unknown {
        /// Group.
        group: u32,
        /// Binding.
        binding: u32,
        /// The bindings it uses.
        known: Vec<String>,
    },
    /// Data smaller than the shader's type.
    #[error("--bind {group}.{binding}: {given} bytes given, the shader's `{name}` needs at least {needed}")]
    TooSmall {
        /// Group.
        group: u32,
        /// Binding.
        binding: u32,
        /// Variable name.
        name: String,
        /// Bytes given.
        given: u64,
        /// Bytes needed.
        needed: u64,
    },
    /// `--bind` for a texture or sampler.
    #[error("--bind {group}.{binding}: the shader's `{name}` is a texture or sampler, which capture fills itself (zeros, or a default sampler); --bind sets buffers only")]
    NotABuffer {
        /// Group.
        group: u32,
        /// Binding.
        binding: u32,
        /// Variable name.
        name: String,
    },
}

/// The GPU side failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GpuError {
    /// No adapter (no Vulkan driver, or none matching `--adapter`).
    #[error("no GPU adapter{}: found {}. On a machine without a GPU install lavapipe (Debian: `apt-get install mesa-vulkan-drivers libvulkan1`)",
        wanted.as_ref().map(|w| format!(" matching `{w}`")).unwrap_or_default(),
        if found.is_empty() { "none".to_string() } else { found.join("; ") })]
    NoAdapter {
        /// The `--adapter` filter, if any.
        wanted: Option<String>,
        /// Adapters seen.
        found: Vec<String>,
    },
    /// The device could not be created.
    #[error("cannot open {adapter}: {message}")]
    Device {
        /// Adapter name.
        adapter: String,
        /// wgpu's message.
        message: String,
    },
    /// wgpu rejected the shader, pipeline, buffers or dispatch.
    #[error("wgpu: {message}")]
    Wgpu {
        /// wgpu's message.
        message: String,
    },
    /// A limit of the device is too small.
    #[error("{what}: {requested} requested, the device allows {allowed}")]
    Limit {
        /// The limit.
        what: String,
        /// Requested.
        requested: u64,
        /// Allowed.
        allowed: u64,
    },
    /// A dispatch ran longer than the time limit.
    #[error("the dispatch ran longer than {seconds} s on {adapter} (--time-limit; GPU_SECONDS, see docs/guide.md, \"Limits\"): a loop that never ends, a dispatch too large for this adapter, or (on a CPU adapter) an instrumented shader of many access sites that its compiler takes long over")]
    TimeLimit {
        /// The limit, seconds.
        seconds: f64,
        /// The adapter.
        adapter: String,
    },
    /// Timestamp queries are needed but not supported.
    #[error("{adapter} does not support timestamp queries inside compute passes")]
    NoTimestamps {
        /// Adapter name.
        adapter: String,
    },
}

/// A capture failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CaptureError {
    /// Loading or instrumenting the shader.
    #[error(transparent)]
    Instrument(#[from] InstrumentError),
    /// Buffer bindings.
    #[error(transparent)]
    Bind(#[from] BindError),
    /// The GPU run.
    #[error(transparent)]
    Gpu(#[from] GpuError),
    /// Reading the records back.
    #[error(transparent)]
    Decode(#[from] DecodeError),
    /// The dispatch is invalid.
    #[error("--dispatch {dispatch:?}: {what}")]
    Dispatch {
        /// The dispatch.
        dispatch: [u32; 3],
        /// What is wrong.
        what: String,
    },
    /// More records in one step of one workgroup than one storage buffer binding can hold.
    #[error("one step of one workgroup of the kernel makes {records} records ({bytes} bytes), more than the device's largest storage binding holds ({max_bytes} bytes)")]
    TooManyRecords {
        /// Records the kernel made.
        records: u64,
        /// Bytes they need.
        bytes: u64,
        /// The limit.
        max_bytes: u64,
    },
    /// A size asked for is above its limit (see `sim_core::limits`).
    #[error(transparent)]
    Limit(#[from] sim_core::limits::LimitError),
    /// A loop ended without taking one of its exits: the adapter stopped it.
    #[error("the {what} ended without taking one of its exits (a `break`, its condition, a `return`): the adapter ({adapter}) stops loops it deems too long (lavapipe after 65535 iterations) or that never end, so the trace would be cut short; lower the trip count (an override), or capture on another adapter")]
    LoopCut {
        /// The loop: where it is.
        what: String,
        /// The adapter.
        adapter: String,
    },
    /// The record count changed between runs (nondeterministic control flow).
    #[error("the kernel made {first} records, then {second} on re-runs with room for all of them: its control flow is not deterministic, so no complete trace can be captured")]
    Unstable {
        /// First count.
        first: u64,
        /// Second count.
        second: u64,
    },
}

/// A measured run failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MeasureError {
    /// Loading the shader.
    #[error(transparent)]
    Instrument(#[from] InstrumentError),
    /// Buffer bindings.
    #[error(transparent)]
    Bind(#[from] BindError),
    /// The GPU run.
    #[error(transparent)]
    Gpu(#[from] GpuError),
    /// Bad options.
    #[error("{what}")]
    Options {
        /// What is wrong.
        what: String,
    },
}

/// Calibration could not be computed.
#[derive(Debug, thiserror::Error, PartialEq)]
#[non_exhaustive]
pub enum CalibrateError {
    /// Rows of different lengths, or no rows.
    #[error("{what}")]
    Shape {
        /// What is wrong.
        what: String,
    },
    /// No cost of an IR operation reproduces a measured time.
    #[error("`{label}`: {what}")]
    Unsolvable {
        /// The variant.
        label: String,
        /// Why.
        what: String,
    },
    /// The features are linearly dependent on the rows given: the parameters are not
    /// determined by the data.
    #[error("the features are linearly dependent (column {column}): the measurements do not determine every parameter")]
    Singular {
        /// The first dependent column.
        column: usize,
    },
}
