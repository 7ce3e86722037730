//! The pass's public results: the instrumented module with its site table, the capture
//! layout of workgroup variables, and the resources (buffers, textures, samplers) the
//! entry point binds.

use crate::record::Site;
use naga::valid::ModuleInfo;
use naga::{Module, StorageAccess};

/// A workgroup variable and where the capture places it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SharedVar {
    /// Its name in the shader.
    pub name: String,
    /// First byte.
    pub offset: u32,
    /// Size in bytes.
    pub size: u32,
}

/// A shader resource (storage or uniform buffer) the entry point uses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resource {
    /// Bind group.
    pub group: u32,
    /// Binding in the group.
    pub binding: u32,
    /// Its name in the shader.
    pub name: String,
    /// `true` for `var<uniform>`, `false` for `var<storage>`.
    pub uniform: bool,
    /// Whether the shader may write it.
    pub writable: bool,
    /// Bytes of the fixed part (the whole type if it has no runtime-sized array).
    pub fixed_size: u32,
    /// Element stride of the trailing runtime-sized array, if the type ends in one.
    pub runtime_stride: Option<u32>,
    /// For a texture or sampler: what it is (then the buffer fields are unused).
    pub handle: Option<HandleKind>,
}

/// A texture or sampler binding; capture and measurement bind a zero-filled texture of
/// one texel per invocation of the dispatch along each dimension, or a default sampler.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HandleKind {
    /// `texture_*<T>` or `texture_depth_*`, read with `textureLoad` / `textureSample*`.
    Sampled {
        /// 1-D, 2-D, 3-D or cube.
        dim: naga::ImageDimension,
        /// An array texture.
        arrayed: bool,
        /// Float, unsigned or signed texels.
        kind: naga::ScalarKind,
        /// A depth texture.
        depth: bool,
    },
    /// `texture_storage_*<format, access>`.
    Storage {
        /// 1-D, 2-D, 3-D.
        dim: naga::ImageDimension,
        /// An array texture.
        arrayed: bool,
        /// Texel format.
        format: naga::StorageFormat,
        /// Read, write or both.
        access: StorageAccess,
    },
    /// `sampler` or `sampler_comparison`.
    Sampler {
        /// A comparison sampler.
        comparison: bool,
    },
}

/// The result of the `instrument` function.
#[derive(Debug)]
pub struct Instrumented {
    /// The instrumented module (validated).
    pub module: Module,
    /// Its validation info.
    pub info: ModuleInfo,
    /// Name of the compute entry point.
    pub entry: String,
    /// `@workgroup_size` after overrides.
    pub workgroup_size: [u32; 3],
    /// Where the trace buffer is bound.
    pub trace_binding: (u32, u32),
    /// Every site, indexed by the site id written in records.
    pub sites: Vec<Site>,
    /// The workgroup variables the entry point uses, with their capture layout.
    pub shared: Vec<SharedVar>,
    /// Bytes of workgroup memory per workgroup (the layout's end).
    pub shared_bytes: u32,
    /// The buffers the entry point binds, besides the trace buffer.
    pub resources: Vec<Resource>,
}
