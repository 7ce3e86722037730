//! The naga pass that makes a compute shader record its own workgroup-memory accesses.
//!
//! Every `Load` / `Store` / `Atomic` / `WorkGroupUniformLoad` whose pointer lies in
//! `var<workgroup>` memory, and every control barrier, becomes an *access site*; before
//! it the pass inserts code that allocates a slot in a storage buffer with `atomicAdd`
//! and writes one record (the format is in [`crate::record`]): which invocation, its
//! step, the site, the byte address, and the operation counts described below.
//!
//! The operations are counted where they run: the pass adds each stretch of a block's
//! cost to the counter before the next record, nested block or exit, and marks the
//! first operation after a record that uses a loaded value (an operation whose operand
//! is tainted, see [`crate::deps`]). A warp issues in order, so that first use is where
//! it waits for its load; the work before it runs under the load's latency (the
//! trace's `wait` column).
//!
//! The byte address is computed from the pointer's access chain with the WGSL memory
//! layout (naga's `Layouter`: array strides, struct member offsets, vector and matrix
//! components), the workgroup variables laid out one after another in declaration order,
//! each at its alignment. Dynamic indices are cast to `u32` and clamped to the array
//! length, as wgpu's bounds-check policy does.
//!
//! Loops that contain sites also record, at the top of each iteration, a *loop site*
//! with the iteration number: from those the decoder rebuilds, for every access, the
//! iteration vector of its enclosing loops, so that accesses of one warp that belong to
//! the same dynamic instruction get the same step even when lanes take different paths
//! (see [`crate::decode`]). Functions that touch workgroup memory are specialised per
//! call site (so a helper called twice gives two sites), and a `ptr<workgroup, T>`
//! parameter receives its byte address as an extra `u32` argument.
//!
//! The pass is split by responsibility:
//!
//! | module | owns |
//! | --- | --- |
//! | `types` | the public results ([`Instrumented`], [`Resource`], ...) |
//! | `layout` | where workgroup variables and resources go |
//! | `globals` | the trace buffer and the private per-invocation variables |
//! | `scope` | which pointers and functions are instrumented |
//! | `pass` | the pass's state, limits and per-function context |
//! | `walk` | the statement walk, `Emit` splitting, loops |
//! | `access` | one access or barrier: its site and record |
//! | `address`, `leaves` | an access's byte address and the pieces it touches |
//! | `emit` | the emitted code: records, the prologue, the counters |
//! | `specialize` | the entry point and per-call-site function copies |

mod access;
mod address;
mod emit;
mod globals;
mod layout;
mod leaves;
mod pass;
mod scope;
mod specialize;
mod types;
mod walk;

pub use crate::record::{Site, SiteKind, HEADER_WORDS, RECORD_WORDS};
pub use pass::{MAX_LEAVES, MAX_SITES};
pub use types::{HandleKind, Instrumented, Resource, SharedVar};

use crate::error::InstrumentError;
use naga::proc::Layouter;
use naga::valid::ModuleInfo;
use naga::Module;

/// Parses nothing, runs nothing: instruments `module` (already validated, overrides
/// already resolved, with `entry` among its compute entry points) so that it records
/// every workgroup-memory access of `entry` into a storage buffer. `source` and `file`
/// are used for error locations.
pub fn instrument(
    module: &Module,
    info: &ModuleInfo,
    entry: &str,
    source: &str,
    file: &str,
) -> Result<Instrumented, InstrumentError> {
    let ep_index = module
        .entry_points
        .iter()
        .position(|ep| ep.stage == naga::ShaderStage::Compute && ep.name == entry)
        .ok_or_else(|| InstrumentError::NoEntryPoint {
            wanted: Some(entry.to_string()),
            found: compute_entry_points(module),
        })?;
    let ep_info = info.get_entry_point(ep_index);
    let mut module = module.clone();

    let mut layouter = Layouter::default();
    layout::update_layouter(&mut layouter, &module, file)?;
    let layout::Layout { base, shared, shared_bytes, resources, trace_binding } =
        layout::layout(&module, ep_info, &layouter, source, file)?;
    let g = globals::add_globals(&mut module, trace_binding.0, trace_binding.1);

    // count the other work of functions without sites here (before the access pass, so
    // that its code is not counted); the access pass counts the others where it records
    // (then validate again: the access pass reads the types of the counted functions)
    let needs = scope::functions_needing(&module, info, &base);
    for (h, f) in module.functions.iter_mut() {
        if !needs[h.index()] {
            let facts = crate::ops::Facts::of(f, &info[h], &module.types, &module.global_variables);
            crate::ops::count_function(f, &module.global_variables, &facts, g.vars.ops);
        }
    }
    let counted_info = validate(&module, "the op-counted module")?;
    let info = &counted_info;
    let ep_info = info.get_entry_point(ep_index);

    let originals = module.functions.clone();
    let mut entry_fn = std::mem::take(&mut module.entry_points[ep_index].function);
    let workgroup_size = module.entry_points[ep_index].workgroup_size;

    let pending = layout::override_lengths(&module);
    let sites = {
        let Module { types, functions, global_variables, .. } = &mut module;
        let mut pass = pass::Pass {
            types,
            pending,
            info,
            originals: &originals,
            global_vars: global_variables,
            functions,
            source,
            file,
            base,
            needs,
            g,
            sites: Vec::new(),
            loop_stack: Vec::new(),
            next_order: 0,
            clones: 0,
            returns: Default::default(),
        };
        pass.entry(&mut entry_fn, ep_info, entry)?;
        pass.sites
    };
    module.entry_points[ep_index].function = entry_fn;
    // only the instrumented entry point stays
    module.entry_points.retain(|ep| ep.stage == naga::ShaderStage::Compute && ep.name == entry);

    let new_info = validate(&module, "the instrumented module")?;
    Ok(Instrumented {
        module,
        info: new_info,
        entry: entry.to_string(),
        workgroup_size,
        trace_binding,
        sites,
        shared,
        shared_bytes,
        resources,
    })
}

/// Names of the module's compute entry points.
pub fn compute_entry_points(module: &Module) -> Vec<String> {
    module
        .entry_points
        .iter()
        .filter(|ep| ep.stage == naga::ShaderStage::Compute)
        .map(|ep| ep.name.clone())
        .collect()
}

/// Validates a module the pass made (`what` names it); a failure is a bug in banksim.
fn validate(module: &Module, what: &str) -> Result<ModuleInfo, InstrumentError> {
    naga::valid::Validator::new(naga::valid::ValidationFlags::all(), naga::valid::Capabilities::all())
        .validate(module)
        .map_err(|e| InstrumentError::Internal {
            message: format!("{what} does not validate: {}", e.emit_to_string("")),
        })
}
