//! Which workgroup-memory accesses depend on an earlier shared load's value.
//!
//! The cycle engine makes a request with `dep = 1` wait for the warp's previous load
//! (a pointer chase `v = sh[v]`, or `sh[i] += sh[j]`'s store), and lets one with
//! `dep = 0` go as soon as program order allows (a sum of `sh[i + 32 k]`). The capture
//! decides it per access site from the IR, by taint: a value is *tainted* when it is
//! computed from the result of a workgroup-memory load (or atomic); a function-local
//! or private variable is tainted when a tainted value is ever stored into it
//! (flow-insensitive, so a loop-carried `v` is tainted everywhere in the function). An
//! access depends on earlier loads when its address — or, for a store or atomic, its
//! value — is tainted.
//!
//! Across calls: a called function is analysed with the taint of its arguments at the
//! call site (its copy for that call site is instrumented with it), and a call's result
//! is tainted when the callee returns a tainted value (one computed from a tainted
//! argument or from its own workgroup loads). A private variable that a callee taints is
//! not seen by its caller.

use naga::{AddressSpace, Block, Expression, Function, GlobalVariable, Handle, Statement};
use std::collections::HashSet;

/// A function-local or private variable.
#[derive(Clone, Copy, Hash, PartialEq, Eq)]
enum Var {
    Local(Handle<naga::LocalVariable>),
    Private(Handle<GlobalVariable>),
}

/// Whether a call of a function with arguments of this taint returns a tainted value.
pub type Returns<'a> = dyn Fn(Handle<Function>, &[bool]) -> bool + 'a;

/// Per-expression taint of `f` (indexed by handle). `is_shared(pointer)` says whether a
/// pointer expression points into workgroup memory, `args` which of `f`'s arguments are
/// tainted, and `returns` whether a call returns a tainted value.
pub fn taint(
    f: &Function,
    globals: &naga::Arena<GlobalVariable>,
    is_shared: impl Fn(Handle<Expression>) -> bool,
    args: &[bool],
    returns: &Returns,
) -> Vec<bool> {
    let mut vars: HashSet<Var> = HashSet::new();
    let mut stores = Vec::new(); // (pointer, value) of every store
    each_statement(&f.body, &mut |s| {
        if let Statement::Store { pointer, value } = *s {
            stores.push((pointer, value));
        }
    });
    loop {
        let t = pass(f, globals, &is_shared, &vars, args, returns);
        let before = vars.len();
        for &(pointer, value) in &stores {
            if t[value.index()] {
                if let Some(v) = root(f, globals, pointer) {
                    vars.insert(v);
                }
            }
        }
        if vars.len() == before {
            return t;
        }
    }
}

/// Whether `f`, with expression taint `t`, returns a tainted value.
pub fn returned(f: &Function, t: &[bool]) -> bool {
    let mut any = false;
    each_statement(&f.body, &mut |s| {
        if let Statement::Return { value: Some(v) } = *s {
            any |= t[v.index()];
        }
    });
    any
}

/// The local or private variable a pointer expression is rooted at.
fn root(f: &Function, globals: &naga::Arena<GlobalVariable>, mut p: Handle<Expression>) -> Option<Var> {
    loop {
        match f.expressions[p] {
            Expression::Access { base, .. } | Expression::AccessIndex { base, .. } => p = base,
            Expression::LocalVariable(l) => return Some(Var::Local(l)),
            Expression::GlobalVariable(g) if globals[g].space == AddressSpace::Private => {
                return Some(Var::Private(g))
            }
            _ => return None,
        }
    }
}

/// Calls `f` on every statement of `block`, nested blocks included.
pub(crate) fn each_statement(block: &Block, f: &mut impl FnMut(&Statement)) {
    for s in block.iter() {
        f(s);
        match s {
            Statement::Block(b) => each_statement(b, f),
            Statement::If { accept, reject, .. } => {
                each_statement(accept, f);
                each_statement(reject, f);
            }
            Statement::Switch { cases, .. } => cases.iter().for_each(|c| each_statement(&c.body, f)),
            Statement::Loop { body, continuing, .. } => {
                each_statement(body, f);
                each_statement(continuing, f);
            }
            _ => {}
        }
    }
}

/// One pass over the expressions (operands come before their users in the arena).
fn pass(
    f: &Function,
    globals: &naga::Arena<GlobalVariable>,
    is_shared: &impl Fn(Handle<Expression>) -> bool,
    vars: &HashSet<Var>,
    args: &[bool],
    returns: &Returns,
) -> Vec<bool> {
    let mut t = vec![false; f.expressions.len()];
    // call results and atomic results: from the statements (a call's arguments come
    // before its result in the arena)
    let mut results = std::collections::HashMap::new();
    each_statement(&f.body, &mut |s| match s {
        Statement::Call { function, arguments, result: Some(r) } => {
            results.insert(*r, Some((*function, arguments.clone())));
        }
        // an atomic's old value, from whatever memory: conservatively tainted
        Statement::Atomic { result: Some(r), .. } => {
            results.insert(*r, None);
        }
        _ => {}
    });
    for (h, e) in f.expressions.iter() {
        let any = |hs: &[Handle<Expression>]| hs.iter().any(|x| t[x.index()]);
        t[h.index()] = match *e {
            Expression::Load { pointer } => {
                is_shared(pointer)
                    || t[pointer.index()]
                    || root(f, globals, pointer).is_some_and(|v| vars.contains(&v))
            }
            Expression::Access { base, index } => any(&[base, index]),
            Expression::AccessIndex { base, .. } => t[base.index()],
            Expression::Splat { value, .. } => t[value.index()],
            Expression::Swizzle { vector, .. } => t[vector.index()],
            Expression::Compose { ref components, .. } => any(components),
            Expression::Unary { expr, .. }
            | Expression::As { expr, .. }
            | Expression::Derivative { expr, .. } => t[expr.index()],
            Expression::Binary { left, right, .. } => any(&[left, right]),
            Expression::Select { condition, accept, reject } => any(&[condition, accept, reject]),
            Expression::Relational { argument, .. } => t[argument.index()],
            Expression::Math { arg, arg1, arg2, arg3, .. } => {
                t[arg.index()] || [arg1, arg2, arg3].iter().flatten().any(|x| t[x.index()])
            }
            Expression::WorkGroupUniformLoadResult { .. } => true,
            Expression::CallResult(_) | Expression::AtomicResult { .. } => match results.get(&h) {
                Some(Some((function, arguments))) => {
                    let a: Vec<bool> = arguments.iter().map(|a| t[a.index()]).collect();
                    returns(*function, &a)
                }
                Some(None) => true,
                None => false,
            },
            Expression::FunctionArgument(i) => args.get(i as usize).copied().unwrap_or(false),
            _ => false,
        };
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Taint of every shared access of the entry point, in statement order: (is a store, tainted).
    fn accesses(src: &str) -> Vec<(bool, bool)> {
        let module = naga::front::wgsl::parse_str(src).unwrap();
        let info = naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::all(),
        )
        .validate(&module)
        .unwrap();
        let f = &module.entry_points[0].function;
        let fi = info.get_entry_point(0);
        let shared = |p: Handle<Expression>| is_workgroup(&module, fi, p);
        let t = taint(f, &module.global_variables, shared, &[], &|c, a| call_returns(&module, &info, c, a));
        let mut out = Vec::new();
        walk(f, &f.body, &t, &shared, &mut out);
        out
    }

    fn is_workgroup(module: &naga::Module, fi: &naga::valid::FunctionInfo, p: Handle<Expression>) -> bool {
        matches!(
            *fi[p].ty.inner_with(&module.types),
            naga::TypeInner::Pointer { space: AddressSpace::WorkGroup, .. }
                | naga::TypeInner::ValuePointer { space: AddressSpace::WorkGroup, .. }
        )
    }

    /// Whether `callee` with arguments of this taint returns a tainted value.
    fn call_returns(
        module: &naga::Module,
        info: &naga::valid::ModuleInfo,
        callee: Handle<Function>,
        args: &[bool],
    ) -> bool {
        let (g, fi) = (&module.functions[callee], &info[callee]);
        let shared = |p: Handle<Expression>| is_workgroup(module, fi, p);
        let t = taint(g, &module.global_variables, shared, args, &|c, a| call_returns(module, info, c, a));
        returned(g, &t)
    }

    fn walk(
        f: &Function,
        b: &Block,
        t: &[bool],
        shared: &impl Fn(Handle<Expression>) -> bool,
        out: &mut Vec<(bool, bool)>,
    ) {
        for s in b.iter() {
            match s {
                Statement::Emit(r) => {
                    for h in r.clone() {
                        if let Expression::Load { pointer } = f.expressions[h] {
                            if shared(pointer) {
                                out.push((false, t[pointer.index()]));
                            }
                        }
                    }
                }
                Statement::Store { pointer, value } if shared(*pointer) => {
                    out.push((true, t[pointer.index()] || t[value.index()]))
                }
                Statement::Block(b) => walk(f, b, t, shared, out),
                Statement::If { accept, reject, .. } => {
                    walk(f, accept, t, shared, out);
                    walk(f, reject, t, shared, out);
                }
                Statement::Loop { body, continuing, .. } => {
                    walk(f, body, t, shared, out);
                    walk(f, continuing, t, shared, out);
                }
                _ => {}
            }
        }
    }

    const HEAD: &str = "
        var<workgroup> sh: array<u32, 256>;
        @group(0) @binding(0) var<storage, read_write> out: array<u32>;";

    #[test]
    fn a_pointer_chase_depends_through_its_loop_variable() {
        let src = format!(
            "{HEAD}
            @compute @workgroup_size(64)
            fn main(@builtin(local_invocation_index) li: u32) {{
                sh[li] = li;
                var v = li;
                for (var k = 0u; k < 4u; k++) {{ v = sh[v & 255u]; }}
                out[li] = v;
            }}"
        );
        // the store of `li` depends on nothing; the chase's load on the previous load
        assert_eq!(accesses(&src), vec![(true, false), (false, true)]);
    }

    #[test]
    fn a_sum_of_loads_is_independent_and_a_read_modify_write_store_is_not() {
        let src = format!(
            "{HEAD}
            @compute @workgroup_size(64)
            fn main(@builtin(local_invocation_index) li: u32) {{
                var acc = 0u;
                for (var k = 0u; k < 4u; k++) {{ acc += sh[(li + 32u * k) & 255u]; }}
                sh[li] = sh[li] + sh[li + 64u];
                out[li] = acc;
            }}"
        );
        // the summed loads' addresses never use a loaded value; the final store's value does
        assert_eq!(accesses(&src), vec![(false, false), (false, false), (false, false), (true, true)]);
    }

    #[test]
    fn a_helper_returning_a_load_taints_its_result() {
        // the chase through a helper: the helper's load is in another function, so the
        // entry point sees only the call's result, which the next address uses
        let src = format!(
            "{HEAD}
            fn nx(v: u32) -> u32 {{ return sh[v & 255u]; }}
            fn twice(v: u32) -> u32 {{ return v * 2u; }}
            @compute @workgroup_size(64)
            fn main(@builtin(local_invocation_index) li: u32) {{
                let a = nx(li);
                sh[twice(a) & 255u] = 1u;
                sh[twice(li) & 255u] = 2u;
            }}"
        );
        assert_eq!(accesses(&src), vec![(true, true), (true, false)]);
    }
}
