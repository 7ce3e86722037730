//! The module-level variables the instrumented kernel writes its records with: the
//! trace buffer binding and the private per-invocation counters (step, workgroup id,
//! invocation index, operation count, first use), and their handles inside a function.

use naga::{
    AddressSpace, ArraySize, Expression, Function, GlobalVariable, Handle, Module, ResourceBinding, Scalar,
    Span, StorageAccess, StructMember, Type, TypeInner,
};

/// The module-level variables the records use, each as an `H`: the global variable,
/// or an expression naming it inside one function.
#[derive(Clone, Copy)]
pub(super) struct Vars<H> {
    /// The trace buffer.
    pub(super) trace: H,
    /// The invocation's step counter.
    pub(super) step: H,
    /// The linear workgroup id.
    pub(super) wg: H,
    /// `local_invocation_index`.
    pub(super) lid: H,
    /// IR operations executed so far.
    pub(super) ops: H,
    /// `ops` at the first use of a loaded value since the last record.
    pub(super) first_use: H,
}

impl<H: Copy> Vars<H> {
    /// Each variable through `f`, in field order.
    fn map<T>(self, mut f: impl FnMut(H) -> T) -> Vars<T> {
        Vars {
            trace: f(self.trace),
            step: f(self.step),
            wg: f(self.wg),
            lid: f(self.lid),
            ops: f(self.ops),
            first_use: f(self.first_use),
        }
    }
}

/// Per-function handles of the module-level variables the records use.
pub(super) type FnVars = Vars<Handle<Expression>>;

/// The variables [`add_globals`] adds, and the types the pass needs.
pub(super) struct Globals {
    pub(super) vars: Vars<Handle<GlobalVariable>>,
    pub(super) u32_ty: Handle<Type>,
    pub(super) vec3_ty: Handle<Type>,
}

impl Globals {
    /// Expressions in `f` naming each variable.
    pub(super) fn in_function(&self, f: &mut Function) -> FnVars {
        self.vars.map(|g| f.expressions.append(Expression::GlobalVariable(g), Span::UNDEFINED))
    }
}

/// Adds to `module` the trace buffer, bound at `group`/`binding` (layout: see
/// [`crate::record`]), and the private per-invocation variables the records read.
pub(super) fn add_globals(module: &mut Module, group: u32, binding: u32) -> Globals {
    let u32_ty =
        module.types.insert(Type { name: None, inner: TypeInner::Scalar(Scalar::U32) }, Span::UNDEFINED);
    let vec3_ty = module.types.insert(
        Type { name: None, inner: TypeInner::Vector { size: naga::VectorSize::Tri, scalar: Scalar::U32 } },
        Span::UNDEFINED,
    );
    let atomic_ty =
        module.types.insert(Type { name: None, inner: TypeInner::Atomic(Scalar::U32) }, Span::UNDEFINED);
    let data_ty = module.types.insert(
        Type { name: None, inner: TypeInner::Array { base: u32_ty, size: ArraySize::Dynamic, stride: 4 } },
        Span::UNDEFINED,
    );
    let member = |name: &str, ty, offset| StructMember { name: Some(name.into()), ty, binding: None, offset };
    let trace_ty = module.types.insert(
        Type {
            name: Some("BanksimTrace".into()),
            inner: TypeInner::Struct {
                members: vec![
                    member("count", atomic_ty, 0),
                    member("capacity", u32_ty, 4),
                    member("groups_x", u32_ty, 8),
                    member("groups_y", u32_ty, 12),
                    member("cut", atomic_ty, 16),
                    member("block_first", u32_ty, 20),
                    member("block_end", u32_ty, 24),
                    member("step_first", u32_ty, 28),
                    member("step_end", u32_ty, 32),
                    member("steps", atomic_ty, 36),
                    member("data", data_ty, 40),
                ],
                span: 44,
            },
        },
        Span::UNDEFINED,
    );
    let mut global = |name: &str, space, binding, ty| {
        module.global_variables.append(
            GlobalVariable {
                name: Some(name.into()),
                space,
                binding,
                ty,
                init: None,
                memory_decorations: naga::MemoryDecorations::empty(),
            },
            Span::UNDEFINED,
        )
    };
    let trace = global(
        "banksim_trace",
        AddressSpace::Storage { access: StorageAccess::LOAD | StorageAccess::STORE },
        Some(ResourceBinding { group, binding }),
        trace_ty,
    );
    let step = global("banksim_step", AddressSpace::Private, None, u32_ty);
    let wg = global("banksim_wg", AddressSpace::Private, None, u32_ty);
    let lid = global("banksim_lid", AddressSpace::Private, None, u32_ty);
    let ops = global("banksim_ops", AddressSpace::Private, None, u32_ty);
    let first_use = global("banksim_first_use", AddressSpace::Private, None, u32_ty);
    Globals { vars: Vars { trace, step, wg, lid, ops, first_use }, u32_ty, vec3_ty }
}
