//! Where the capture places things: the workgroup variables the entry point uses, laid
//! out one after another in declaration order, each at its alignment; the buffers,
//! textures and samplers it binds; and the binding of the trace buffer after them.

use super::pass::location;
use super::types::{HandleKind, Resource, SharedVar};
use crate::error::InstrumentError;
use naga::proc::Layouter;
use naga::valid::FunctionInfo;
use naga::{AddressSpace, ArraySize, Handle, Module, StorageAccess, Type, TypeInner};
use std::collections::HashMap;

/// The capture layout of an entry point's globals.
pub(super) struct Layout {
    /// Byte offset of each workgroup variable the entry point uses, by global handle.
    pub(super) base: Vec<Option<u32>>,
    /// Those variables, in declaration order.
    pub(super) shared: Vec<SharedVar>,
    /// Bytes of workgroup memory per workgroup (the layout's end).
    pub(super) shared_bytes: u32,
    /// The resources the entry point binds, sorted by group and binding.
    pub(super) resources: Vec<Resource>,
    /// Where the trace buffer goes: in the highest group used, at its first free binding.
    pub(super) trace_binding: (u32, u32),
}

/// (Re)computes the WGSL layout of `module`'s types.
pub(super) fn update_layouter(
    layouter: &mut Layouter,
    module: &Module,
    file: &str,
) -> Result<(), InstrumentError> {
    layouter
        .update(module.to_ctx())
        .map_err(|e| InstrumentError::Unsupported { at: file.to_string(), what: format!("type layout: {e}") })
}

/// Lengths of the module's override-sized arrays (overrides are resolved before the
/// pass, so every one is known).
pub(super) fn override_lengths(module: &Module) -> HashMap<Handle<naga::Override>, u32> {
    module
        .types
        .iter()
        .filter_map(|(_, t)| match t.inner {
            TypeInner::Array { size: size @ ArraySize::Pending(h), .. } => {
                match size.resolve(module.to_ctx()) {
                    Ok(naga::proc::IndexableLength::Known(n)) => Some((h, n)),
                    _ => None,
                }
            }
            _ => None,
        })
        .collect()
}

/// Lays out the globals of `module` that the entry point described by `ep_info` uses.
/// `source` and `file` are used for error locations.
pub(super) fn layout(
    module: &Module,
    ep_info: &FunctionInfo,
    layouter: &Layouter,
    source: &str,
    file: &str,
) -> Result<Layout, InstrumentError> {
    let mut base = vec![None; module.global_variables.len()];
    let mut shared = Vec::new();
    let mut end = 0u32;
    let mut resources = Vec::new();
    for (h, gv) in module.global_variables.iter() {
        if ep_info[h].is_empty() {
            continue;
        }
        let layout = layouter[gv.ty];
        let name = gv.name.clone().unwrap_or_else(|| format!("global{}", h.index()));
        match gv.space {
            AddressSpace::WorkGroup => {
                let offset = layout.alignment.round_up(end);
                base[h.index()] = Some(offset);
                shared.push(SharedVar { name, offset, size: layout.size });
                end = offset + layout.size;
            }
            AddressSpace::Uniform | AddressSpace::Storage { .. } => {
                let Some(rb) = gv.binding else { continue };
                let (fixed_size, runtime_stride) = buffer_size(&module.types, layouter, gv.ty);
                let writable = matches!(gv.space, AddressSpace::Storage { access } if access.contains(StorageAccess::STORE));
                resources.push(Resource {
                    group: rb.group,
                    binding: rb.binding,
                    name,
                    uniform: gv.space == AddressSpace::Uniform,
                    writable,
                    fixed_size,
                    runtime_stride,
                    handle: None,
                });
            }
            AddressSpace::Handle => {
                let kind = handle_kind(&module.types[gv.ty].inner);
                if let (Some(kind), Some(rb)) = (kind, gv.binding) {
                    resources.push(Resource {
                        group: rb.group,
                        binding: rb.binding,
                        name,
                        uniform: false,
                        writable: matches!(kind, HandleKind::Storage { access, .. } if access.contains(StorageAccess::STORE)),
                        fixed_size: 0,
                        runtime_stride: None,
                        handle: Some(kind),
                    });
                    continue;
                }
                let at = gv
                    .binding
                    .map(|b| format!("@group({}) @binding({})", b.group, b.binding))
                    .unwrap_or_default();
                return Err(InstrumentError::Unsupported {
                    at: location(source, file, module.global_variables.get_span(h)),
                    what: format!(
                        "resource `{name}` {at} is a multisampled texture, an external texture or an acceleration structure: capture binds buffers, textures and samplers only"
                    ),
                });
            }
            _ => {}
        }
    }
    resources.sort_by_key(|r| (r.group, r.binding));
    let trace_group = resources.iter().map(|r| r.group).max().unwrap_or(0);
    // the first binding free in that group: past the highest one, the binding could be
    // over the device's largest (a kernel at @binding(1023))
    let used: Vec<u32> = resources.iter().filter(|r| r.group == trace_group).map(|r| r.binding).collect();
    let trace_binding = (0..).find(|b| !used.contains(b)).unwrap_or(0);
    Ok(Layout { base, shared, shared_bytes: end, resources, trace_binding: (trace_group, trace_binding) })
}

/// Bytes of a buffer's fixed part and the stride of its trailing runtime-sized array.
fn buffer_size(types: &naga::UniqueArena<Type>, layouter: &Layouter, ty: Handle<Type>) -> (u32, Option<u32>) {
    match types[ty].inner {
        TypeInner::Array { size: ArraySize::Dynamic, stride, .. } => (0, Some(stride)),
        TypeInner::Struct { ref members, span } => match members.last() {
            Some(last) => match types[last.ty].inner {
                TypeInner::Array { size: ArraySize::Dynamic, stride, .. } => (last.offset, Some(stride)),
                _ => (span, None),
            },
            None => (span, None),
        },
        _ => (layouter[ty].size, None),
    }
}

/// What a texture or sampler type is, if capture can bind it (not a multisampled or
/// external texture, a cube storage texture, or an acceleration structure).
fn handle_kind(inner: &TypeInner) -> Option<HandleKind> {
    match *inner {
        TypeInner::Image { dim, arrayed, class } => match class {
            naga::ImageClass::Sampled { kind, multi: false } => {
                Some(HandleKind::Sampled { dim, arrayed, kind, depth: false })
            }
            naga::ImageClass::Depth { multi: false } => {
                Some(HandleKind::Sampled { dim, arrayed, kind: naga::ScalarKind::Float, depth: true })
            }
            naga::ImageClass::Storage { format, access } if dim != naga::ImageDimension::Cube => {
                Some(HandleKind::Storage { dim, arrayed, format, access })
            }
            _ => None,
        },
        TypeInner::Sampler { comparison } => Some(HandleKind::Sampler { comparison }),
        _ => None,
    }
}
