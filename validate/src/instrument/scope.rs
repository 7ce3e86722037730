//! What the pass instruments: the pointer address spaces whose accesses are recorded,
//! and the functions that need instrumenting (those that touch workgroup memory or a
//! barrier, directly or through a call).

use naga::valid::ModuleInfo;
use naga::{AddressSpace, Block, GlobalVariable, Handle, Module, Statement, TypeInner};

/// Whether the pointer type lies in a storage buffer.
pub(super) fn is_storage_ptr(inner: &TypeInner) -> bool {
    matches!(
        inner,
        TypeInner::Pointer { space: AddressSpace::Storage { .. }, .. }
            | TypeInner::ValuePointer { space: AddressSpace::Storage { .. }, .. }
    )
}

/// Whether a load through `inner` returns a value the trace follows (taint): a
/// workgroup or storage pointer.
pub(super) fn is_recorded_ptr(inner: &TypeInner) -> bool {
    is_workgroup_ptr(inner) || is_storage_ptr(inner)
}

/// Whether the pointer type lies in workgroup memory.
pub(super) fn is_workgroup_ptr(inner: &TypeInner) -> bool {
    matches!(
        inner,
        TypeInner::Pointer { space: AddressSpace::WorkGroup, .. }
            | TypeInner::ValuePointer { space: AddressSpace::WorkGroup, .. }
    )
}

/// Functions (by original handle) that access workgroup memory, meet a barrier, or
/// call one that does.
pub(super) fn functions_needing(module: &Module, info: &ModuleInfo, base: &[Option<u32>]) -> Vec<bool> {
    let mut needs = vec![false; module.functions.len()];
    let shared: Vec<Handle<GlobalVariable>> = module
        .global_variables
        .iter()
        // the kernel's own globals (`base` has one entry each; the trace buffer came after)
        .filter(|(h, g)| {
            h.index() < base.len()
                && (base[h.index()].is_some() || matches!(g.space, AddressSpace::Storage { .. }))
        })
        .map(|(h, _)| h)
        .collect();
    for (h, f) in module.functions.iter() {
        let fi = &info[h];
        let uses_shared = shared.iter().any(|&g| !fi[g].is_empty());
        let ptr_arg = f.arguments.iter().any(|a| is_workgroup_ptr(&module.types[a.ty].inner));
        needs[h.index()] = uses_shared || ptr_arg || block_needs(&f.body, &needs);
    }
    needs
}

/// Whether `block` meets a barrier or calls a function that `needs` instrumenting.
fn block_needs(block: &Block, needs: &[bool]) -> bool {
    block.iter().any(|s| match s {
        Statement::ControlBarrier(_) | Statement::WorkGroupUniformLoad { .. } => true,
        Statement::Call { function, .. } => needs[function.index()],
        Statement::Block(b) => block_needs(b, needs),
        Statement::If { accept, reject, .. } => block_needs(accept, needs) || block_needs(reject, needs),
        Statement::Switch { cases, .. } => cases.iter().any(|c| block_needs(&c.body, needs)),
        Statement::Loop { body, continuing, .. } => {
            block_needs(body, needs) || block_needs(continuing, needs)
        }
        _ => false,
    })
}
