//! The naga pass that makes a compute shader record its own workgroup-memory accesses.
//!
//! Every `Load` / `Store` / `Atomic` / `WorkGroupUniformLoad` whose pointer lies in
//! `var<workgroup>` memory, and every control barrier, becomes an *access site*; before
//! it the pass inserts code that allocates a slot in a storage buffer with `atomicAdd`
//! and writes one record:
//!
//! ```text
//! word 0: linear workgroup id   word 1: local_invocation_index   word 2: the invocation's step
//! word 3: site id               word 4: byte address (or loop iteration, for loop sites)
//! word 5: IR operations the invocation has executed so far (see [`crate::ops`])
//! word 6: the value word 5 had at the invocation's first use of a workgroup load's
//!         value since its previous access or barrier record (u32::MAX: none)
//! ```
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

use crate::error::InstrumentError;
use naga::proc::Layouter;
use naga::valid::{FunctionInfo, ModuleInfo};
use naga::{
    AddressSpace, ArraySize, AtomicFunction, BinaryOperator, Binding, Block, BuiltIn, Expression, Function,
    FunctionArgument, GlobalVariable, Handle, Literal, LocalVariable, MathFunction, Module, ResourceBinding,
    Scalar, ScalarKind, Span, Statement, StorageAccess, StructMember, Type, TypeInner,
};
use sim_core::Op;

/// Words per record in the trace buffer.
pub const RECORD_WORDS: u32 = 7;
/// Words of the trace buffer's header: record count (atomic), capacity in records,
/// workgroups in x, workgroups in y.
pub const HEADER_WORDS: u32 = 4;
/// Most sites (accesses, barriers, loops) one specialised program may have.
pub const MAX_SITES: usize = 1 << 16;
/// Most leaves (scalar or vector pieces) one whole-value copy may be split into.
pub const MAX_LEAVES: usize = 1 << 16;

/// What happens at an access site.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SiteKind {
    /// A workgroup-memory access: its op and the pieces it touches, as (byte offset
    /// from the recorded address, width) — one piece for a scalar or vector, several for
    /// a whole struct, array or matrix (each becomes its own trace record).
    Access {
        /// `ld`, `st`, `atom` or `red`.
        op: Op,
        /// (offset, bytes) of every piece, in order.
        leaves: Vec<(u32, u8)>,
        /// Whether its address (or stored value) depends on an earlier workgroup load's
        /// value (see [`crate::deps`]): the trace's `dep` column.
        dep: bool,
    },
    /// A control barrier (`workgroupBarrier`, `storageBarrier`, ...).
    Barrier,
    /// The top of an iteration of a loop that contains sites; the record's value is
    /// the iteration number.
    Loop,
}

/// One static site of the instrumented program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Site {
    /// What it does.
    pub kind: SiteKind,
    /// Its position in program order (call sites inlined): sites and loops are numbered
    /// as a walk of the specialised program meets them.
    pub order: u32,
    /// The loop sites that enclose it, outermost first.
    pub loops: Vec<u32>,
    /// Where it is, for messages: `file:line:col` and the function.
    pub what: String,
}

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

/// The result of [`instrument`].
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

/// Where a byte address comes from: a constant plus an optional dynamic part.
#[derive(Clone, Copy)]
struct Addr {
    dynamic: Option<Handle<Expression>>,
    constant: u32,
}

/// Appends expressions to a function, emitting the ones that need it into a block.
struct Emitter<'f> {
    f: &'f mut Function,
}

impl Emitter<'_> {
    fn expr(&mut self, out: &mut Block, e: Expression) -> Handle<Expression> {
        let pre = e.needs_pre_emit();
        let h = self.f.expressions.append(e, Span::UNDEFINED);
        if !pre && !matches!(self.f.expressions[h], Expression::AtomicResult { .. }) {
            out.push(Statement::Emit(naga::Range::new_from_bounds(h, h)), Span::UNDEFINED);
        }
        h
    }

    fn u32(&mut self, v: u32) -> Handle<Expression> {
        self.f.expressions.append(Expression::Literal(Literal::U32(v)), Span::UNDEFINED)
    }

    fn binary(
        &mut self,
        out: &mut Block,
        op: BinaryOperator,
        left: Handle<Expression>,
        right: Handle<Expression>,
    ) -> Handle<Expression> {
        self.expr(out, Expression::Binary { op, left, right })
    }
}

/// Per-function handles of the module-level variables the records use.
struct FnVars {
    trace: Handle<Expression>,
    step: Handle<Expression>,
    wg: Handle<Expression>,
    lid: Handle<Expression>,
    ops: Handle<Expression>,
    first_use: Handle<Expression>,
}

/// The function being rewritten: its original info and its extra arguments.
struct FnCx<'i> {
    info: &'i FunctionInfo,
    name: String,
    /// For each original argument: the expression holding its byte address when it is
    /// a `ptr<workgroup, ...>`.
    arg_base: Vec<Option<Handle<Expression>>>,
    vars: FnVars,
    /// Per original expression: computed from a workgroup load's value.
    tainted: Vec<bool>,
    /// Per original expression: known at compile time (costs nothing, see [`crate::ops`]).
    consts: Vec<bool>,
}

impl FnCx<'_> {
    fn tainted(&self, h: Handle<Expression>) -> bool {
        self.tainted.get(h.index()).copied().unwrap_or(false)
    }
}

struct Globals {
    trace: Handle<GlobalVariable>,
    step: Handle<GlobalVariable>,
    wg: Handle<GlobalVariable>,
    lid: Handle<GlobalVariable>,
    ops: Handle<GlobalVariable>,
    first_use: Handle<GlobalVariable>,
    u32_ty: Handle<Type>,
    vec3_ty: Handle<Type>,
}

struct Pass<'a> {
    types: &'a naga::UniqueArena<Type>,
    /// Lengths of override-sized arrays (overrides are resolved before the pass).
    pending: std::collections::HashMap<Handle<naga::Override>, u32>,
    info: &'a ModuleInfo,
    originals: &'a naga::Arena<Function>,
    global_vars: &'a naga::Arena<GlobalVariable>,
    functions: &'a mut naga::Arena<Function>,
    source: &'a str,
    file: &'a str,
    /// Byte offset of each workgroup variable the entry point uses.
    base: Vec<Option<u32>>,
    /// Functions (original handles) that touch workgroup memory or barriers.
    needs: Vec<bool>,
    g: Globals,
    sites: Vec<Site>,
    loop_stack: Vec<u32>,
    next_order: u32,
    clones: usize,
}

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
    layouter.update(module.to_ctx()).map_err(|e| InstrumentError::Unsupported {
        at: file.to_string(),
        what: format!("type layout: {e}"),
    })?;

    // workgroup variables the entry point uses, laid out in declaration order
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
                let (fixed_size, runtime_stride) = buffer_size(&module.types, &layouter, gv.ty);
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
                let kind = match module.types[gv.ty].inner {
                    TypeInner::Image { dim, arrayed, class } => match class {
                        naga::ImageClass::Sampled { kind, multi: false } => {
                            Some(HandleKind::Sampled { dim, arrayed, kind, depth: false })
                        }
                        naga::ImageClass::Depth { multi: false } => Some(HandleKind::Sampled {
                            dim,
                            arrayed,
                            kind: naga::ScalarKind::Float,
                            depth: true,
                        }),
                        naga::ImageClass::Storage { format, access } if dim != naga::ImageDimension::Cube => {
                            Some(HandleKind::Storage { dim, arrayed, format, access })
                        }
                        _ => None,
                    },
                    TypeInner::Sampler { comparison } => Some(HandleKind::Sampler { comparison }),
                    _ => None,
                };
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

    // the trace buffer goes in the highest group used, after its highest binding
    let trace_group = resources.iter().map(|r| r.group).max().unwrap_or(0);
    let trace_binding =
        resources.iter().filter(|r| r.group == trace_group).map(|r| r.binding + 1).max().unwrap_or(0);

    let g = add_globals(&mut module, trace_group, trace_binding);
    layouter.update(module.to_ctx()).map_err(|e| InstrumentError::Unsupported {
        at: file.to_string(),
        what: format!("type layout: {e}"),
    })?;

    // count the other work of functions without sites here (before the access pass, so
    // that its code is not counted); the access pass counts the others where it records
    // (then validate again: the access pass reads the types of the counted functions)
    let needs = functions_needing(&module, info, &base);
    for (h, f) in module.functions.iter_mut() {
        if !needs[h.index()] {
            crate::ops::count_function(f, &module.global_variables, g.ops);
        }
    }
    let counted_info =
        naga::valid::Validator::new(naga::valid::ValidationFlags::all(), naga::valid::Capabilities::all())
            .validate(&module)
            .map_err(|e| InstrumentError::Internal {
                message: format!("the op-counted module does not validate: {}", e.emit_to_string("")),
            })?;
    let info = &counted_info;
    let ep_info = info.get_entry_point(ep_index);

    let originals = module.functions.clone();
    let mut entry_fn = std::mem::take(&mut module.entry_points[ep_index].function);
    let workgroup_size = module.entry_points[ep_index].workgroup_size;

    let pending = module
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
        .collect();
    let sites = {
        let Module { types, functions, global_variables, .. } = &mut module;
        let mut pass = Pass {
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
        };
        pass.entry(&mut entry_fn, ep_info, entry)?;
        pass.sites
    };
    module.entry_points[ep_index].function = entry_fn;
    // only the instrumented entry point stays
    module.entry_points.retain(|ep| ep.stage == naga::ShaderStage::Compute && ep.name == entry);

    let mut validator =
        naga::valid::Validator::new(naga::valid::ValidationFlags::all(), naga::valid::Capabilities::all());
    let new_info = validator.validate(&module).map_err(|e| InstrumentError::Internal {
        message: format!("the instrumented module does not validate: {}", e.emit_to_string("")),
    })?;
    Ok(Instrumented {
        module,
        info: new_info,
        entry: entry.to_string(),
        workgroup_size,
        trace_binding: (trace_group, trace_binding),
        sites,
        shared,
        shared_bytes: end,
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

/// `file:line:col` of a span, or the file alone when the span is unknown.
fn location(source: &str, file: &str, span: Span) -> String {
    if span.is_defined() && !source.is_empty() {
        let loc = span.location(source);
        format!("{file}:{}:{}", loc.line_number, loc.line_position)
    } else {
        file.to_string()
    }
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

fn add_globals(module: &mut Module, group: u32, binding: u32) -> Globals {
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
                    member("data", data_ty, 16),
                ],
                span: 20,
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
    Globals { trace, step, wg, lid, ops, first_use, u32_ty, vec3_ty }
}

/// Whether the pointer type lies in workgroup memory.
fn is_storage_ptr(inner: &TypeInner) -> bool {
    matches!(
        inner,
        TypeInner::Pointer { space: AddressSpace::Storage { .. }, .. }
            | TypeInner::ValuePointer { space: AddressSpace::Storage { .. }, .. }
    )
}

/// Whether a load through `inner` returns a value the trace follows (taint): a
/// workgroup or storage pointer.
fn is_recorded_ptr(inner: &TypeInner) -> bool {
    is_workgroup_ptr(inner) || is_storage_ptr(inner)
}

fn is_workgroup_ptr(inner: &TypeInner) -> bool {
    matches!(
        inner,
        TypeInner::Pointer { space: AddressSpace::WorkGroup, .. }
            | TypeInner::ValuePointer { space: AddressSpace::WorkGroup, .. }
    )
}

/// Functions (by original handle) that access workgroup memory, meet a barrier, or
/// call one that does.
fn functions_needing(module: &Module, info: &ModuleInfo, base: &[Option<u32>]) -> Vec<bool> {
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

impl Pass<'_> {
    /// Elements of an array of constant or (resolved) override size.
    fn length(&self, size: ArraySize) -> Option<u32> {
        match size {
            ArraySize::Constant(n) => Some(n.get()),
            ArraySize::Pending(h) => self.pending.get(&h).copied(),
            ArraySize::Dynamic => None,
        }
    }

    fn vars(&self, f: &mut Function) -> FnVars {
        let mut gv = |g| f.expressions.append(Expression::GlobalVariable(g), Span::UNDEFINED);
        FnVars {
            trace: gv(self.g.trace),
            step: gv(self.g.step),
            wg: gv(self.g.wg),
            lid: gv(self.g.lid),
            ops: gv(self.g.ops),
            first_use: gv(self.g.first_use),
        }
    }

    fn at(&self, f: &Function, h: Handle<Expression>, fname: &str) -> String {
        format!("{} (in `{fname}`)", location(self.source, self.file, f.expressions.get_span(h)))
    }

    fn entry(&mut self, f: &mut Function, info: &FunctionInfo, name: &str) -> Result<(), InstrumentError> {
        // before anything is appended: `info` covers the original expressions only
        let tainted =
            crate::deps::taint(f, self.global_vars, |p| is_recorded_ptr(info[p].ty.inner_with(self.types)));
        let vars = self.vars(f);
        // local_invocation_index and workgroup_id: reuse the entry point's, or add them
        let lid = self.builtin_arg(f, BuiltIn::LocalInvocationIndex, self.g.u32_ty);
        let wid = self.builtin_arg(f, BuiltIn::WorkGroupId, self.g.vec3_ty);
        let mut prologue = Block::new();
        {
            let mut e = Emitter { f };
            let lid = e.expr(&mut prologue, lid);
            let wid = e.expr(&mut prologue, wid);
            let hdr = |e: &mut Emitter, out: &mut Block, i| {
                let p = e.expr(out, Expression::AccessIndex { base: vars.trace, index: i });
                e.expr(out, Expression::Load { pointer: p })
            };
            let gx = hdr(&mut e, &mut prologue, 2);
            let gy = hdr(&mut e, &mut prologue, 3);
            let c = |e: &mut Emitter, out: &mut Block, i| {
                e.expr(out, Expression::AccessIndex { base: wid, index: i })
            };
            let (x, y, z) =
                (c(&mut e, &mut prologue, 0), c(&mut e, &mut prologue, 1), c(&mut e, &mut prologue, 2));
            let zy = e.binary(&mut prologue, BinaryOperator::Multiply, z, gy);
            let yz = e.binary(&mut prologue, BinaryOperator::Add, y, zy);
            let yzx = e.binary(&mut prologue, BinaryOperator::Multiply, yz, gx);
            let lin = e.binary(&mut prologue, BinaryOperator::Add, x, yzx);
            prologue.push(Statement::Store { pointer: vars.wg, value: lin }, Span::UNDEFINED);
            prologue.push(Statement::Store { pointer: vars.lid, value: lid }, Span::UNDEFINED);
            let none = e.u32(crate::decode::NO_USE);
            prologue.push(Statement::Store { pointer: vars.first_use, value: none }, Span::UNDEFINED);
        }
        let consts = crate::ops::constants(f);
        let cx = FnCx {
            info,
            name: name.to_string(),
            arg_base: vec![None; f.arguments.len()],
            vars,
            tainted,
            consts,
        };
        let body = std::mem::take(&mut f.body);
        let body = self.block(f, &cx, body)?;
        prologue.extend_block(body);
        f.body = prologue;
        Ok(())
    }

    /// An expression (not yet appended) reading built-in `b`: an existing argument or
    /// struct member of the entry point, or a new argument.
    fn builtin_arg(&mut self, f: &mut Function, b: BuiltIn, ty: Handle<Type>) -> Expression {
        for (i, a) in f.arguments.iter().enumerate() {
            if a.binding == Some(Binding::BuiltIn(b)) {
                return Expression::FunctionArgument(i as u32);
            }
            if let TypeInner::Struct { ref members, .. } = self.types[a.ty].inner {
                if let Some(m) = members.iter().position(|m| m.binding == Some(Binding::BuiltIn(b))) {
                    let arg = f.expressions.append(Expression::FunctionArgument(i as u32), Span::UNDEFINED);
                    return Expression::AccessIndex { base: arg, index: m as u32 };
                }
            }
        }
        f.arguments.push(FunctionArgument {
            name: Some(format!("banksim_{b:?}").to_lowercase()),
            ty,
            binding: Some(Binding::BuiltIn(b)),
        });
        Expression::FunctionArgument(f.arguments.len() as u32 - 1)
    }

    fn new_site(&mut self, kind: SiteKind, what: String) -> Result<u32, InstrumentError> {
        if self.sites.len() >= MAX_SITES {
            return Err(InstrumentError::TooLarge {
                what: format!(
                    "more than {MAX_SITES} access sites after specialising functions per call site"
                ),
            });
        }
        let id = self.sites.len() as u32;
        self.sites.push(Site { kind, order: self.next_order, loops: self.loop_stack.clone(), what });
        self.next_order += 1;
        Ok(id)
    }

    /// Appends the record-writing code for `site` with `value` (address or iteration).
    /// An access or barrier record (`ends_gap`) also starts a new gap: the first use is
    /// looked for afresh after it.
    fn record(
        &self,
        f: &mut Function,
        cx: &FnCx,
        out: &mut Block,
        site: u32,
        value: Handle<Expression>,
        ends_gap: bool,
    ) {
        let v = &cx.vars;
        let mut e = Emitter { f };
        let step = e.expr(out, Expression::Load { pointer: v.step });
        let first_use = e.expr(out, Expression::Load { pointer: v.first_use });
        let count = e.expr(out, Expression::AccessIndex { base: v.trace, index: 0 });
        let one = e.u32(1);
        let slot = e.expr(out, Expression::AtomicResult { ty: self.g.u32_ty, comparison: false });
        out.push(
            Statement::Atomic { pointer: count, fun: AtomicFunction::Add, value: one, result: Some(slot) },
            Span::UNDEFINED,
        );
        let cap_ptr = e.expr(out, Expression::AccessIndex { base: v.trace, index: 1 });
        let cap = e.expr(out, Expression::Load { pointer: cap_ptr });
        let fits = e.binary(out, BinaryOperator::Less, slot, cap);
        let mut accept = Block::new();
        let words = e.u32(RECORD_WORDS);
        let first = e.binary(&mut accept, BinaryOperator::Multiply, slot, words);
        let data = e.expr(&mut accept, Expression::AccessIndex { base: v.trace, index: 4 });
        let wg = e.expr(&mut accept, Expression::Load { pointer: v.wg });
        let lid = e.expr(&mut accept, Expression::Load { pointer: v.lid });
        let site = e.u32(site);
        let ops = e.expr(&mut accept, Expression::Load { pointer: v.ops });
        for (k, word) in [wg, lid, step, site, value, ops, first_use].into_iter().enumerate() {
            let k = e.u32(k as u32);
            let index = e.binary(&mut accept, BinaryOperator::Add, first, k);
            let p = e.expr(&mut accept, Expression::Access { base: data, index });
            accept.push(Statement::Store { pointer: p, value: word }, Span::UNDEFINED);
        }
        out.push(Statement::If { condition: fits, accept, reject: Block::new() }, Span::UNDEFINED);
        let next = e.binary(out, BinaryOperator::Add, step, one);
        out.push(Statement::Store { pointer: v.step, value: next }, Span::UNDEFINED);
        if ends_gap {
            let none = e.u32(crate::decode::NO_USE);
            out.push(Statement::Store { pointer: v.first_use, value: none }, Span::UNDEFINED);
        }
    }

    /// Adds the operations counted so far in this block to the counter.
    fn flush(f: &mut Function, cx: &FnCx, out: &mut Block, count: &mut Count) {
        if count.pending > 0 {
            out.extend_block(crate::ops::add(f, cx.vars.ops, count.pending));
            count.pending = 0;
        }
    }

    /// Marks a use of a loaded value here, if it is the first since the last record:
    /// `first_use = min(first_use, ops)` (after the operations before it are counted).
    fn use_here(f: &mut Function, cx: &FnCx, out: &mut Block, count: &mut Count) {
        if !count.look_for_use {
            return;
        }
        Self::flush(f, cx, out, count);
        let mut e = Emitter { f };
        let ops = e.expr(out, Expression::Load { pointer: cx.vars.ops });
        let first = e.expr(out, Expression::Load { pointer: cx.vars.first_use });
        let min = e.expr(
            out,
            Expression::Math { fun: MathFunction::Min, arg: first, arg1: Some(ops), arg2: None, arg3: None },
        );
        out.push(Statement::Store { pointer: cx.vars.first_use, value: min }, Span::UNDEFINED);
        count.look_for_use = false;
    }

    /// The pointee type of a pointer expression, as (type handle) or a value pointer.
    fn pointee(&self, cx: &FnCx, ptr: Handle<Expression>) -> Pointee {
        match *cx.info[ptr].ty.inner_with(self.types) {
            TypeInner::Pointer { base, .. } => Pointee::Ty(base),
            TypeInner::ValuePointer { size, scalar, .. } => Pointee::Value(size, scalar),
            _ => Pointee::NotPointer,
        }
    }

    fn is_shared(&self, cx: &FnCx, ptr: Handle<Expression>) -> bool {
        is_workgroup_ptr(cx.info[ptr].ty.inner_with(self.types))
    }

    /// Whether `ptr` points into a storage buffer along an access chain whose byte
    /// offset the capture computes (its accesses are `gld` / `gst`). A storage pointer
    /// passed as an argument, or into a binding array, is not followed: its accesses
    /// count as other work, as before global accesses were recorded.
    fn is_storage(&self, f: &Function, cx: &FnCx, ptr: Handle<Expression>) -> bool {
        if !is_storage_ptr(cx.info[ptr].ty.inner_with(self.types)) {
            return false;
        }
        let mut p = ptr;
        loop {
            match f.expressions[p] {
                Expression::GlobalVariable(g) => {
                    return !matches!(
                        self.types[self.global_vars[g].ty].inner,
                        TypeInner::BindingArray { .. }
                    )
                }
                Expression::AccessIndex { base, index } => {
                    if self.member_offset(f, cx, base, index).is_err() {
                        return false;
                    }
                    p = base;
                }
                Expression::Access { base, .. } => {
                    if self.indexing(f, cx, base).is_err() {
                        return false;
                    }
                    p = base;
                }
                _ => return false,
            }
        }
    }

    /// (stride, element count) of indexing into what `ptr` points at.
    fn indexing(
        &self,
        f: &Function,
        cx: &FnCx,
        ptr: Handle<Expression>,
    ) -> Result<(u32, u32), InstrumentError> {
        let vector = |size: naga::VectorSize, scalar: Scalar| (scalar.width as u32, size as u32);
        let r = match self.pointee(cx, ptr) {
            Pointee::Ty(ty) => match self.types[ty].inner {
                TypeInner::Array { size: ArraySize::Dynamic, stride, .. } => Some((stride, u32::MAX)),
                TypeInner::Array { size, stride, .. } => self.length(size).map(|n| (stride, n)),
                TypeInner::Vector { size, scalar } => Some(vector(size, scalar)),
                TypeInner::Matrix { columns, rows, scalar } => {
                    Some((column_stride(rows, scalar), columns as u32))
                }
                _ => None,
            },
            Pointee::Value(Some(size), scalar) => Some(vector(size, scalar)),
            _ => None,
        };
        r.ok_or_else(|| InstrumentError::Unsupported {
            at: self.at(f, ptr, &cx.name),
            what: "dynamic index into a workgroup value whose size is not a constant (runtime-sized or unresolved override-sized array)".into(),
        })
    }

    /// Byte offset of member/component `index` of what `ptr` points at.
    fn member_offset(
        &self,
        f: &Function,
        cx: &FnCx,
        ptr: Handle<Expression>,
        index: u32,
    ) -> Result<u32, InstrumentError> {
        let r = match self.pointee(cx, ptr) {
            Pointee::Ty(ty) => match self.types[ty].inner {
                TypeInner::Struct { ref members, .. } => members.get(index as usize).map(|m| m.offset),
                TypeInner::Array { stride, .. } => Some(index * stride),
                TypeInner::Vector { scalar, .. } => Some(index * scalar.width as u32),
                TypeInner::Matrix { rows, scalar, .. } => Some(index * column_stride(rows, scalar)),
                _ => None,
            },
            Pointee::Value(Some(_), scalar) => Some(index * scalar.width as u32),
            _ => None,
        };
        r.ok_or_else(|| InstrumentError::Unsupported {
            at: self.at(f, ptr, &cx.name),
            what: format!("constant index {index} into a workgroup value of unsupported type"),
        })
    }

    /// The byte address of workgroup pointer `ptr`, computed from its access chain.
    fn address(
        &self,
        f: &mut Function,
        cx: &FnCx,
        out: &mut Block,
        ptr: Handle<Expression>,
    ) -> Result<Addr, InstrumentError> {
        match f.expressions[ptr].clone() {
            Expression::GlobalVariable(g) => match self.base.get(g.index()).copied().flatten() {
                Some(offset) => Ok(Addr { dynamic: None, constant: offset }),
                // a storage buffer: byte offsets within it (its lines are what counts)
                None if matches!(self.global_vars[g].space, AddressSpace::Storage { .. }) => {
                    Ok(Addr { dynamic: None, constant: 0 })
                }
                None => Err(InstrumentError::Unsupported {
                    at: self.at(f, ptr, &cx.name),
                    what: format!(
                        "global `{}` is not a workgroup variable of the entry point",
                        self.global_vars[g].name.as_deref().unwrap_or("?")
                    ),
                }),
            },
            Expression::FunctionArgument(i) => match cx.arg_base.get(i as usize).copied().flatten() {
                Some(h) => Ok(Addr { dynamic: Some(h), constant: 0 }),
                None => Err(InstrumentError::Unsupported {
                    at: self.at(f, ptr, &cx.name),
                    what: format!("workgroup pointer argument {i} without a known base"),
                }),
            },
            Expression::AccessIndex { base, index } => {
                let a = self.address(f, cx, out, base)?;
                let off = self.member_offset(f, cx, base, index)?;
                Ok(Addr { dynamic: a.dynamic, constant: a.constant + off })
            }
            Expression::Access { base, index } => {
                let a = self.address(f, cx, out, base)?;
                let (stride, len) = self.indexing(f, cx, base)?;
                let kind = match *cx.info[index].ty.inner_with(self.types) {
                    TypeInner::Scalar(s) => s.kind,
                    _ => ScalarKind::Bool,
                };
                let mut e = Emitter { f };
                let idx = match kind {
                    ScalarKind::Uint => index,
                    ScalarKind::Sint | ScalarKind::AbstractInt => {
                        e.expr(out, Expression::As { expr: index, kind: ScalarKind::Uint, convert: Some(4) })
                    }
                    _ => {
                        return Err(InstrumentError::Unsupported {
                            at: self.at(e.f, index, &cx.name),
                            what: "index of a workgroup access is not an integer scalar".into(),
                        })
                    }
                };
                let last = e.u32(len - 1);
                let clamped = e.expr(
                    out,
                    Expression::Math {
                        fun: MathFunction::Min,
                        arg: idx,
                        arg1: Some(last),
                        arg2: None,
                        arg3: None,
                    },
                );
                let stride = e.u32(stride);
                let scaled = e.binary(out, BinaryOperator::Multiply, clamped, stride);
                let dynamic = match a.dynamic {
                    Some(d) => e.binary(out, BinaryOperator::Add, d, scaled),
                    None => scaled,
                };
                Ok(Addr { dynamic: Some(dynamic), constant: a.constant })
            }
            other => Err(InstrumentError::Unsupported {
                at: self.at(f, ptr, &cx.name),
                what: format!("workgroup pointer built by {}", expression_name(&other)),
            }),
        }
    }

    /// The address as one `u32` expression.
    fn materialize(f: &mut Function, out: &mut Block, a: Addr) -> Handle<Expression> {
        let mut e = Emitter { f };
        match (a.dynamic, a.constant) {
            (Some(d), 0) => d,
            (Some(d), c) => {
                let c = e.u32(c);
                e.binary(out, BinaryOperator::Add, d, c)
            }
            (None, c) => e.u32(c),
        }
    }

    fn leaves(
        &self,
        f: &Function,
        cx: &FnCx,
        ptr: Handle<Expression>,
    ) -> Result<Vec<(u32, u8)>, InstrumentError> {
        let mut out = Vec::new();
        let ok = match self.pointee(cx, ptr) {
            Pointee::Ty(ty) => self.type_leaves(ty, 0, &mut out),
            Pointee::Value(size, scalar) => {
                vector_leaves(size, scalar, 0, &mut out);
                true
            }
            Pointee::NotPointer => false,
        };
        if !ok {
            return Err(InstrumentError::Unsupported {
                at: self.at(f, ptr, &cx.name),
                what: "access to a workgroup value of a type without a fixed layout".into(),
            });
        }
        if out.len() > MAX_LEAVES {
            return Err(InstrumentError::TooLarge {
                what: format!(
                    "{}: a whole-value copy of {} pieces (at most {MAX_LEAVES})",
                    self.at(f, ptr, &cx.name),
                    out.len()
                ),
            });
        }
        Ok(out)
    }

    fn type_leaves(&self, ty: Handle<Type>, offset: u32, out: &mut Vec<(u32, u8)>) -> bool {
        if out.len() > MAX_LEAVES {
            return true;
        }
        match self.types[ty].inner {
            TypeInner::Scalar(s) | TypeInner::Atomic(s) => out.push((offset, s.width)),
            TypeInner::Vector { size, scalar } => vector_leaves(Some(size), scalar, offset, out),
            TypeInner::Matrix { columns, rows, scalar } => {
                for c in 0..columns as u32 {
                    vector_leaves(Some(rows), scalar, offset + c * column_stride(rows, scalar), out);
                }
            }
            TypeInner::Array { base, size, stride } => {
                let Some(n) = self.length(size) else { return false };
                for i in 0..n {
                    if !self.type_leaves(base, offset + i * stride, out) {
                        return false;
                    }
                }
            }
            TypeInner::Struct { ref members, .. } => {
                for m in members {
                    if !self.type_leaves(m.ty, offset + m.offset, out) {
                        return false;
                    }
                }
            }
            _ => return false,
        }
        true
    }

    /// Records a load through `ptr` whose value is the expression `load`: of a struct or
    /// array, only the pieces the kernel uses, as a compiler loads them (`let p = a[i];
    /// p.x` reads one member); every piece where the whole value is used (stored,
    /// passed, indexed dynamically) or where no use is visible.
    fn access_load(
        &mut self,
        f: &mut Function,
        cx: &FnCx,
        out: &mut Block,
        ptr: Handle<Expression>,
        load: Handle<Expression>,
        op: Op,
    ) -> Result<(), InstrumentError> {
        let mut leaves = self.leaves(f, cx, ptr)?;
        if let Pointee::Ty(ty) = self.pointee(cx, ptr) {
            let mut used = Vec::new();
            if self.used_leaves(f, cx, load, ty, 0, &mut used) && !used.is_empty() {
                used.sort_unstable();
                used.dedup();
                leaves = used;
            }
        }
        self.access_leaves(f, cx, out, ptr, op, None, leaves)
    }

    /// Collects into `out` the pieces of the value `h` (of type `ty`, at `offset` in the
    /// loaded value) that its uses read: a member or constant element taken with
    /// `AccessIndex` contributes its own used pieces, any other use the whole value.
    /// `false` when the value's type has no fixed layout.
    fn used_leaves(
        &self,
        f: &Function,
        cx: &FnCx,
        h: Handle<Expression>,
        ty: Handle<Type>,
        offset: u32,
        out: &mut Vec<(u32, u8)>,
    ) -> bool {
        let inner = &self.types[ty].inner;
        let prunable = matches!(inner, TypeInner::Struct { .. } | TypeInner::Array { .. });
        let refs = cx.info[h].ref_count;
        let mut partial = 0;
        if prunable {
            // only the function's own expressions (those `info` describes) are uses
            for (e, expr) in f.expressions.iter().take(cx.tainted.len()) {
                let Expression::AccessIndex { base, index } = *expr else { continue };
                if base != h {
                    continue;
                }
                let child = match *inner {
                    TypeInner::Struct { ref members, .. } => {
                        members.get(index as usize).map(|m| (m.ty, offset + m.offset))
                    }
                    TypeInner::Array { base, stride, .. } => Some((base, offset + index * stride)),
                    _ => None,
                };
                let Some((cty, coff)) = child else { return self.type_leaves(ty, offset, out) };
                partial += 1;
                if !self.used_leaves(f, cx, e, cty, coff, out) {
                    return false;
                }
            }
        }
        if !prunable || partial < refs {
            return self.type_leaves(ty, offset, out);
        }
        true
    }

    /// Records an access through `ptr` (appending the code to `out`).
    fn access(
        &mut self,
        f: &mut Function,
        cx: &FnCx,
        out: &mut Block,
        ptr: Handle<Expression>,
        op: Op,
        value: Option<Handle<Expression>>,
    ) -> Result<(), InstrumentError> {
        let leaves = self.leaves(f, cx, ptr)?;
        self.access_leaves(f, cx, out, ptr, op, value, leaves)
    }

    /// Records an access through `ptr` of the pieces `leaves`.
    #[allow(clippy::too_many_arguments)]
    fn access_leaves(
        &mut self,
        f: &mut Function,
        cx: &FnCx,
        out: &mut Block,
        ptr: Handle<Expression>,
        op: Op,
        value: Option<Handle<Expression>>,
        leaves: Vec<(u32, u8)>,
    ) -> Result<(), InstrumentError> {
        let dep = cx.tainted(ptr) || value.is_some_and(|v| cx.tainted(v));
        let addr = self.address(f, cx, out, ptr)?;
        let value = Self::materialize(f, out, addr);
        let what = format!("{} {}", op, self.at(f, ptr, &cx.name));
        let site = self.new_site(SiteKind::Access { op, leaves, dep }, what)?;
        self.record(f, cx, out, site, value, true);
        Ok(())
    }

    fn barrier(
        &mut self,
        f: &mut Function,
        cx: &FnCx,
        out: &mut Block,
        what: String,
    ) -> Result<(), InstrumentError> {
        let site = self.new_site(SiteKind::Barrier, what)?;
        let zero = Emitter { f }.u32(0);
        self.record(f, cx, out, site, zero, true);
        Ok(())
    }

    fn block(&mut self, f: &mut Function, cx: &FnCx, block: Block) -> Result<Block, InstrumentError> {
        let mut out = Block::with_capacity(block.len());
        let mut count = Count { pending: 0, look_for_use: true };
        for (stmt, span) in block.span_into_iter() {
            let cost = crate::ops::statement_cost(f, self.global_vars, &cx.consts, &stmt);
            match stmt {
                Statement::Emit(range) => {
                    let mut pending: Option<(Handle<Expression>, Handle<Expression>)> = None;
                    for h in range {
                        let cost = crate::ops::expression_cost(f, self.global_vars, &cx.consts, h);
                        // the pointer of a workgroup load
                        let shared_load = match f.expressions[h] {
                            Expression::Load { pointer } if self.is_shared(cx, pointer) => {
                                Some((pointer, Op::Load))
                            }
                            Expression::Load { pointer } if self.is_storage(f, cx, pointer) => {
                                Some((pointer, Op::GlobalLoad))
                            }
                            _ => None,
                        };
                        let uses = cost > 0 && cx.tainted(h) && count.look_for_use;
                        if let Expression::CooperativeLoad { ref data, .. } = f.expressions[h] {
                            if self.is_shared(cx, data.pointer) {
                                return Err(InstrumentError::Unsupported {
                                    at: self.at(f, h, &cx.name),
                                    what: "cooperative-matrix load from workgroup memory".into(),
                                });
                            }
                        }
                        if shared_load.is_some() || uses {
                            if let Some((a, b)) = pending.take() {
                                out.push(Statement::Emit(naga::Range::new_from_bounds(a, b)), span);
                            }
                        }
                        if let Some((pointer, op)) = shared_load {
                            Self::flush(f, cx, &mut out, &mut count);
                            self.access_load(f, cx, &mut out, pointer, h, op)?;
                            count.look_for_use = true;
                        }
                        if uses {
                            Self::use_here(f, cx, &mut out, &mut count);
                        }
                        count.pending += cost;
                        pending = Some(match pending {
                            Some((a, _)) => (a, h),
                            None => (h, h),
                        });
                    }
                    if let Some((a, b)) = pending {
                        out.push(Statement::Emit(naga::Range::new_from_bounds(a, b)), span);
                    }
                    continue;
                }
                Statement::Store { pointer, value } if self.is_shared(cx, pointer) => {
                    Self::flush(f, cx, &mut out, &mut count);
                    self.access(f, cx, &mut out, pointer, Op::Store, Some(value))?;
                    count.look_for_use = true;
                }
                Statement::Store { pointer, value } if self.is_storage(f, cx, pointer) => {
                    Self::flush(f, cx, &mut out, &mut count);
                    self.access(f, cx, &mut out, pointer, Op::GlobalStore, Some(value))?;
                    count.look_for_use = true;
                }
                Statement::Atomic { pointer, ref fun, result, value } if self.is_shared(cx, pointer) => {
                    let used = result.is_some_and(|r| cx.info[r].ref_count > 0);
                    let op = if used || matches!(fun, AtomicFunction::Exchange { compare: Some(_) }) {
                        Op::Atomic
                    } else {
                        Op::Reduction
                    };
                    Self::flush(f, cx, &mut out, &mut count);
                    self.access(f, cx, &mut out, pointer, op, Some(value))?;
                    count.look_for_use = true;
                }
                Statement::WorkGroupUniformLoad { pointer, .. } => {
                    // a barrier, the load by every invocation, a barrier
                    let what = format!("workgroupUniformLoad {}", self.at(f, pointer, &cx.name));
                    Self::flush(f, cx, &mut out, &mut count);
                    self.barrier(f, cx, &mut out, what.clone())?;
                    self.access(f, cx, &mut out, pointer, Op::Load, None)?;
                    self.barrier(f, cx, &mut out, what)?;
                    count.look_for_use = true;
                }
                Statement::ControlBarrier(_) => {
                    let what = format!("barrier in `{}`", cx.name);
                    count.pending += cost;
                    Self::flush(f, cx, &mut out, &mut count);
                    self.barrier(f, cx, &mut out, what)?;
                    count.look_for_use = true;
                }
                Statement::CooperativeStore { target, .. } if self.is_shared(cx, target) => {
                    return Err(InstrumentError::Unsupported {
                        at: self.at(f, target, &cx.name),
                        what: "cooperative-matrix store to workgroup memory".into(),
                    });
                }
                Statement::Block(b) => {
                    Self::flush(f, cx, &mut out, &mut count);
                    let b = self.block(f, cx, b)?;
                    out.push(Statement::Block(b), span);
                    count.look_for_use = true;
                    continue;
                }
                Statement::If { condition, accept, reject } => {
                    if cx.tainted(condition) {
                        Self::use_here(f, cx, &mut out, &mut count);
                    }
                    count.pending += cost;
                    Self::flush(f, cx, &mut out, &mut count);
                    let accept = self.block(f, cx, accept)?;
                    let reject = self.block(f, cx, reject)?;
                    out.push(Statement::If { condition, accept, reject }, span);
                    count.look_for_use = true;
                    continue;
                }
                Statement::Switch { selector, cases } => {
                    if cx.tainted(selector) {
                        Self::use_here(f, cx, &mut out, &mut count);
                    }
                    count.pending += cost;
                    Self::flush(f, cx, &mut out, &mut count);
                    let mut new_cases = Vec::with_capacity(cases.len());
                    for mut c in cases {
                        c.body = self.block(f, cx, c.body)?;
                        new_cases.push(c);
                    }
                    out.push(Statement::Switch { selector, cases: new_cases }, span);
                    count.look_for_use = true;
                    continue;
                }
                Statement::Loop { body, continuing, break_if } => {
                    let unrolled = crate::ops::is_unrolled(f, &body, &cx.consts);
                    Self::flush(f, cx, &mut out, &mut count);
                    let what = format!("loop in `{}`", cx.name);
                    let site = self.new_site(SiteKind::Loop, what)?;
                    let before = self.sites.len();
                    self.loop_stack.push(site);
                    let body = self.block(f, cx, body);
                    let continuing = body.and_then(|b| Ok((b, self.block(f, cx, continuing)?)));
                    self.loop_stack.pop();
                    let (body, continuing) = continuing?;
                    let mut bounded = if unrolled {
                        Block::new()
                    } else {
                        crate::ops::add(f, cx.vars.ops, crate::ops::LOOP_BOUNDING_OPS)
                    };
                    bounded.extend_block(body);
                    let body = bounded;
                    let body = if self.sites.len() > before {
                        let counter = f.local_variables.append(
                            LocalVariable {
                                name: Some("banksim_iter".into()),
                                ty: self.g.u32_ty,
                                init: None,
                            },
                            Span::UNDEFINED,
                        );
                        let mut e = Emitter { f };
                        let var = e.expr(&mut out, Expression::LocalVariable(counter));
                        let zero = e.u32(0);
                        out.push(Statement::Store { pointer: var, value: zero }, Span::UNDEFINED);
                        let mut head = Block::new();
                        let it = e.expr(&mut head, Expression::Load { pointer: var });
                        let one = e.u32(1);
                        let next = e.binary(&mut head, BinaryOperator::Add, it, one);
                        head.push(Statement::Store { pointer: var, value: next }, Span::UNDEFINED);
                        self.record(f, cx, &mut head, site, it, false);
                        head.extend_block(body);
                        head
                    } else {
                        body
                    };
                    out.push(Statement::Loop { body, continuing, break_if }, span);
                    count.look_for_use = true;
                    continue;
                }
                Statement::Call { function, mut arguments, result } if self.needs[function.index()] => {
                    if arguments.iter().any(|&a| cx.tainted(a)) {
                        Self::use_here(f, cx, &mut out, &mut count);
                    }
                    count.pending += cost;
                    Self::flush(f, cx, &mut out, &mut count);
                    let callee = &self.originals[function];
                    let mut extra = Vec::new();
                    for (i, &a) in arguments.iter().enumerate() {
                        if is_workgroup_ptr(&self.types[callee.arguments[i].ty].inner) {
                            let addr = self.address(f, cx, &mut out, a)?;
                            extra.push(Self::materialize(f, &mut out, addr));
                        }
                    }
                    let new_fn = self.specialize(function)?;
                    arguments.extend(extra);
                    if let Some(r) = result {
                        *f.expressions.get_mut(r) = Expression::CallResult(new_fn);
                    }
                    out.push(Statement::Call { function: new_fn, arguments, result }, span);
                    count.look_for_use = true;
                    continue;
                }
                Statement::Call { ref arguments, .. } => {
                    if arguments.iter().any(|&a| cx.tainted(a)) {
                        Self::use_here(f, cx, &mut out, &mut count);
                    }
                    count.pending += cost;
                }
                Statement::Store { pointer, value } | Statement::Atomic { pointer, value, .. } => {
                    // a buffer store or atomic (cost 1) of a loaded value uses it
                    if cost > 0 && (cx.tainted(value) || cx.tainted(pointer)) {
                        Self::use_here(f, cx, &mut out, &mut count);
                    }
                    count.pending += cost;
                }
                Statement::Break | Statement::Continue | Statement::Return { .. } | Statement::Kill => {
                    count.pending += cost;
                    Self::flush(f, cx, &mut out, &mut count);
                }
                _ => count.pending += cost,
            }
            out.push(stmt, span);
        }
        Self::flush(f, cx, &mut out, &mut count);
        Ok(out)
    }

    /// A copy of `function` for one call site, instrumented, appended to the module.
    fn specialize(&mut self, function: Handle<Function>) -> Result<Handle<Function>, InstrumentError> {
        self.clones += 1;
        if self.clones > MAX_SITES {
            return Err(InstrumentError::TooLarge {
                what: format!("more than {MAX_SITES} specialised function copies"),
            });
        }
        let mut g = self.originals[function].clone();
        let info = &self.info[function];
        let tainted =
            crate::deps::taint(&g, self.global_vars, |p| is_recorded_ptr(info[p].ty.inner_with(self.types)));
        let name = g.name.clone().unwrap_or_else(|| format!("function{}", function.index()));
        let shared_args: Vec<bool> =
            g.arguments.iter().map(|a| is_workgroup_ptr(&self.types[a.ty].inner)).collect();
        let mut arg_base = Vec::with_capacity(shared_args.len());
        for (i, shared) in shared_args.into_iter().enumerate() {
            arg_base.push(shared.then(|| {
                g.arguments.push(FunctionArgument {
                    name: Some(format!("banksim_base{i}")),
                    ty: self.g.u32_ty,
                    binding: None,
                });
                let idx = g.arguments.len() as u32 - 1;
                g.expressions.append(Expression::FunctionArgument(idx), Span::UNDEFINED)
            }));
        }
        let vars = self.vars(&mut g);
        let consts = crate::ops::constants(&g);
        let cx = FnCx { info, name: name.clone(), arg_base, vars, tainted, consts };
        let body = std::mem::take(&mut g.body);
        g.body = self.block(&mut g, &cx, body)?;
        g.name = Some(format!("{name}_banksim{}", self.clones));
        Ok(self.functions.append(g, Span::UNDEFINED))
    }
}

/// Operations of the current block not yet added to the counter, and whether the next
/// use of a loaded value may be the first since the last record.
struct Count {
    pending: u32,
    look_for_use: bool,
}

enum Pointee {
    Ty(Handle<Type>),
    Value(Option<naga::VectorSize>, Scalar),
    NotPointer,
}

/// Byte stride between matrix columns (a column is a vector with its alignment).
fn column_stride(rows: naga::VectorSize, scalar: Scalar) -> u32 {
    let align = if rows == naga::VectorSize::Bi { 2 } else { 4 } * scalar.width as u32;
    (rows as u32 * scalar.width as u32).div_ceil(align) * align
}

/// A vector is one access when its size is a valid width (2, 4, 8, 16 bytes), else one
/// per component (`vec3<f32>`: three 4-byte accesses).
fn vector_leaves(size: Option<naga::VectorSize>, scalar: Scalar, offset: u32, out: &mut Vec<(u32, u8)>) {
    let n = size.map_or(1, |s| s as u32);
    let bytes = n * scalar.width as u32;
    if n != 3 && sim_core::is_valid_width(bytes as u8) && bytes <= 16 {
        out.push((offset, bytes as u8));
    } else {
        for i in 0..n {
            out.push((offset + i * scalar.width as u32, scalar.width));
        }
    }
}

/// The variant name of an expression, for messages.
fn expression_name(e: &Expression) -> String {
    let s = format!("{e:?}");
    let end = s.find([' ', '(', '{']).unwrap_or(s.len());
    format!("a `{}` expression", &s[..end])
}
