//! Dead values: what an optimizing compiler removes before anything runs, so that the
//! operation count ([`crate::ops`]) does not charge it and the capture does not record
//! its loads.
//!
//! An expression is *live* when its value reaches something the kernel does: a store to
//! memory that outlives the invocation (a buffer, workgroup memory, a pointer argument),
//! an atomic, a call's argument, a returned value, or the condition of a branch, a
//! switch or a loop's `break if`, and a store to a private variable (other functions
//! may read it). Whatever a live expression uses is live. A store to a function-local
//! variable makes its value live only when the variable is read by a live expression or
//! passed to a call by pointer (flow-insensitive: any live load of the variable, anywhere
//! in the function, keeps every store to it). The rest is dead: its operations cost
//! nothing, and a load of a buffer or of workgroup memory whose value is dead is not
//! made at all (the GPU's compiler deletes it; `validate/kernels/dead_load.wgsl`
//! measures a storage load kept and deleted).
//!
//! Branches a constant decides are folded before this ([`crate::dead_loops`]), so a
//! value used only under `if (USE == 1u)` with `USE = 0` is dead.
//!
//! An expression of a kind the analysis does not know keeps the whole function live.

use naga::{AddressSpace, Expression, Function, GlobalVariable, Handle, Statement};
use std::collections::HashSet;

/// Per expression of `f` (by handle index): whether its value is live (see the module
/// documentation).
pub fn live(f: &Function, globals: &naga::Arena<GlobalVariable>) -> Vec<bool> {
    let n = f.expressions.len();
    let all = || vec![true; n];
    // the operands of every expression, or a kind we do not know
    let mut operands: Vec<Vec<Handle<Expression>>> = Vec::with_capacity(n);
    for (_, e) in f.expressions.iter() {
        match operands_of(e) {
            Some(ops) => operands.push(ops),
            None => return all(),
        }
    }
    // roots from the statements, and the stores to local or private variables
    let mut roots = Vec::new();
    let mut local_stores: Vec<(Var, Handle<Expression>, Handle<Expression>)> = Vec::new();
    let mut unknown = false;
    // variables a callee may read through a pointer argument
    let mut passed: Vec<Var> = Vec::new();
    crate::deps::each_statement(&f.body, &mut |s| match *s {
        Statement::Store { pointer, value } => match root(f, globals, pointer) {
            Some(v @ Var::Local(_)) => local_stores.push((v, pointer, value)),
            // a private variable lives on after the function: other functions read it
            Some(Var::Private(_)) | None => roots.extend([pointer, value]),
        },
        Statement::Atomic { pointer, ref fun, value, .. } => {
            roots.extend([pointer, value]);
            if let naga::AtomicFunction::Exchange { compare: Some(c) } = *fun {
                roots.push(c);
            }
        }
        Statement::WorkGroupUniformLoad { pointer, .. } => roots.push(pointer),
        Statement::Call { ref arguments, .. } => {
            roots.extend(arguments.iter().copied());
            passed.extend(arguments.iter().filter_map(|&a| root(f, globals, a)));
        }
        Statement::Return { value: Some(v) } => roots.push(v),
        Statement::If { condition, .. } => roots.push(condition),
        Statement::Switch { selector, .. } => roots.push(selector),
        Statement::Loop { break_if: Some(b), .. } => roots.push(b),
        Statement::ImageStore { image, coordinate, array_index, value } => {
            roots.extend([image, coordinate, value]);
            roots.extend(array_index);
        }
        Statement::Emit(_)
        | Statement::Block(_)
        | Statement::Loop { .. }
        | Statement::Break
        | Statement::Continue
        | Statement::Return { value: None }
        | Statement::Kill
        | Statement::ControlBarrier(_)
        | Statement::MemoryBarrier(_) => {}
        _ => unknown = true,
    });
    if unknown {
        return all();
    }
    let mut live = vec![false; n];
    let mut read: HashSet<Var> = passed.into_iter().collect();
    let mut work: Vec<Handle<Expression>> = roots;
    loop {
        while let Some(h) = work.pop() {
            if std::mem::replace(&mut live[h.index()], true) {
                continue;
            }
            work.extend(operands[h.index()].iter().copied());
            if let Expression::Load { pointer } = f.expressions[h] {
                if let Some(v) = root(f, globals, pointer) {
                    read.insert(v);
                }
            }
        }
        // the stores to a variable that is read now keep their values
        for &(v, pointer, value) in &local_stores {
            if read.contains(&v) && !live[value.index()] {
                work.extend([pointer, value]);
            }
        }
        if work.is_empty() {
            return live;
        }
    }
}

/// A function-local or private variable.
#[derive(Clone, Copy, Hash, PartialEq, Eq)]
enum Var {
    Local(Handle<naga::LocalVariable>),
    Private(Handle<GlobalVariable>),
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

/// The expressions `e` uses; `None` for a kind the analysis does not know.
fn operands_of(e: &Expression) -> Option<Vec<Handle<Expression>>> {
    use Expression as E;
    Some(match *e {
        E::Literal(_)
        | E::Constant(_)
        | E::Override(_)
        | E::ZeroValue(_)
        | E::FunctionArgument(_)
        | E::GlobalVariable(_)
        | E::LocalVariable(_)
        | E::CallResult(_)
        | E::AtomicResult { .. }
        | E::WorkGroupUniformLoadResult { .. }
        | E::SubgroupBallotResult
        | E::SubgroupOperationResult { .. } => Vec::new(),
        E::Access { base, index } => vec![base, index],
        E::AccessIndex { base, .. } => vec![base],
        E::Splat { value, .. } => vec![value],
        E::Swizzle { vector, .. } => vec![vector],
        E::Compose { ref components, .. } => components.clone(),
        E::Load { pointer } => vec![pointer],
        E::Unary { expr, .. } | E::As { expr, .. } | E::Derivative { expr, .. } => vec![expr],
        E::Binary { left, right, .. } => vec![left, right],
        E::Select { condition, accept, reject } => vec![condition, accept, reject],
        E::Relational { argument, .. } => vec![argument],
        E::Math { arg, arg1, arg2, arg3, .. } => {
            std::iter::once(arg).chain([arg1, arg2, arg3].into_iter().flatten()).collect()
        }
        E::ArrayLength(a) => vec![a],
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Liveness of the entry point's loads, in arena order: (the loaded variable's name,
    /// live).
    fn loads(src: &str) -> Vec<(String, bool)> {
        let module = naga::front::wgsl::parse_str(src).unwrap();
        let f = &module.entry_points[0].function;
        let live = live(f, &module.global_variables);
        f.expressions
            .iter()
            .filter_map(|(h, e)| match *e {
                Expression::Load { pointer } => {
                    let mut p = pointer;
                    let name = loop {
                        match f.expressions[p] {
                            Expression::Access { base, .. } | Expression::AccessIndex { base, .. } => {
                                p = base
                            }
                            Expression::GlobalVariable(g) => break module.global_variables[g].name.clone(),
                            Expression::LocalVariable(l) => break f.local_variables[l].name.clone(),
                            _ => break None,
                        }
                    };
                    Some((name.unwrap_or_default(), live[h.index()]))
                }
                _ => None,
            })
            .collect()
    }

    const HEAD: &str = "
        var<workgroup> sh: array<u32, 256>;
        @group(0) @binding(0) var<storage, read> src: array<u32>;
        @group(0) @binding(1) var<storage, read_write> dst: array<u32>;";

    #[test]
    fn a_load_that_feeds_nothing_is_dead_and_one_that_feeds_a_store_is_live() {
        let src = format!(
            "{HEAD}
            @compute @workgroup_size(64)
            fn main(@builtin(local_invocation_index) li: u32) {{
                let unused = src[li] * 3u;
                let kept = sh[li];
                dst[li] = kept + 1u;
            }}"
        );
        assert_eq!(loads(&src), vec![("src".into(), false), ("sh".into(), true)]);
    }

    #[test]
    fn a_local_keeps_its_stores_only_where_it_is_read() {
        let src = format!(
            "{HEAD}
            @compute @workgroup_size(64)
            fn main(@builtin(local_invocation_index) li: u32) {{
                var acc = 0u;
                var never = 0u;
                for (var k = 0u; k < 4u; k++) {{
                    acc += sh[(li + k) & 255u];
                    never += src[li + k];
                }}
                dst[li] = acc;
            }}"
        );
        let l = loads(&src);
        // the loop counter's loads are live (the loop's test); `acc`'s chain is live;
        // `never` is written but never read: its loads of `src` are dead
        assert!(l.contains(&("src".into(), false)), "{l:?}");
        assert!(l.contains(&("sh".into(), true)), "{l:?}");
        assert!(!l.contains(&("src".into(), true)), "{l:?}");
        assert!(l.contains(&("never".into(), false)), "{l:?}");
    }

    #[test]
    fn values_that_leave_through_a_private_variable_or_a_pointer_argument_are_live() {
        // a private variable another function reads; a local passed by pointer
        let src = format!(
            "{HEAD}
            var<private> carry: u32;
            fn read_ptr(p: ptr<function, u32>) -> u32 {{ return *p; }}
            @compute @workgroup_size(64)
            fn main(@builtin(local_invocation_index) li: u32) {{
                carry = sh[li];
                var loc = src[li];
                dst[li] = read_ptr(&loc);
            }}"
        );
        assert_eq!(loads(&src), vec![("sh".into(), true), ("src".into(), true)]);
    }

    #[test]
    fn a_branch_condition_and_what_it_reads_are_live() {
        let src = format!(
            "{HEAD}
            @compute @workgroup_size(64)
            fn main(@builtin(local_invocation_index) li: u32) {{
                if (src[li] > 3u) {{ dst[li] = 1u; }}
            }}"
        );
        assert_eq!(loads(&src), vec![("src".into(), true)]);
    }
}
