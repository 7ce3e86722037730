//! Trace capture from live wgpu kernels, and measured runs for calibrating the timing
//! model.
//!
//! Architecture invariant: this is the only crate that links wgpu and naga.
//!
//! **Capture** takes an unmodified WGSL compute shader, instruments it with a naga pass
//! ([`instrument`]) so that every access to `var<workgroup>` memory and every barrier
//! appends a record to a storage buffer (format: [`record`]), runs it with wgpu, and
//! decodes the records into a [`traces::Trace`] ([`decode`]) that `banksim run` replays:
//!
//! ```text
//!  kernel.wgsl ──naga──> IR ──instrument──> IR + trace buffer ──wgpu──> records ──decode──> Trace
//!                                (addresses from the            (wg, lid, step,   (block, thread,
//!                                 WGSL layout)                   site, address)    step, op, addr, bytes)
//! ```
//!
//! Instrumenting needs no GPU:
//!
//! ```
//! use validate::capture::{prepare, KernelOptions};
//! let src = "
//!     var<workgroup> tile: array<array<f32, 33>, 32>;
//!     @group(0) @binding(0) var<storage, read_write> out: array<f32>;
//!     @compute @workgroup_size(32, 32)
//!     fn main(@builtin(local_invocation_id) l: vec3<u32>) {
//!         tile[l.y][l.x] = f32(l.x);
//!         workgroupBarrier();
//!         out[l.y * 32u + l.x] = tile[l.x][l.y];
//!     }";
//! let (inst, wgsl, entry) = prepare(src, "transpose.wgsl", &KernelOptions::default()).unwrap();
//! assert_eq!(entry, "main");
//! assert_eq!(inst.shared_bytes, 32 * 33 * 4);
//! assert_eq!(inst.sites.len(), 4); // the shared store, the barrier, the shared load, the global store
//! assert!(wgsl.contains("atomicAdd"));
//! ```
//!
//! Running needs a Vulkan adapter (a GPU, or lavapipe on a machine without one):
//! [`gpu::Gpu::open`], then [`capture::capture`] or [`measure::measure`].
//!
//! **Measure** runs the uninstrumented kernel with timestamp queries, warm-up and
//! repetitions, and reports the median and spread with the adapter's name, driver and
//! limits ([`measure`]).
//!
//! **Probe** compiles `banksim probe`'s microbenchmark and times it one lane pattern at
//! a time ([`probe`]); what the patterns are and what the times say is
//! `pipeline::probe`'s.
#![warn(missing_docs)]

pub mod bind;
pub mod calibrate;
pub mod capture;
pub mod compiled;
pub mod dead_loops;
pub mod decode;
pub mod deps;
pub mod error;
pub mod gpu;
pub mod instrument;
pub mod kernel;
pub mod liveness;
pub mod measure;
pub mod ops;
pub mod probe;
pub mod record;
pub mod suite;
pub mod vectorize;

pub use error::{
    BindError, CalibrateError, CaptureError, DecodeError, GpuError, InstrumentError, MeasureError,
};
