//! Code a constant decides, removed before the operation count: loops that run no
//! iteration, and the side of a branch (or the cases of a switch) that a constant does
//! not take.
//!
//! `for (var j = 0u; j < ALU; j++) { ... }` with `ALU = 0` never enters its body, and
//! the GPU's compiler removes it, loop bounding and counter included. The operation
//! count ([`crate::ops`]) would charge it its first test and wgpu's loop bounding on
//! every pass, so a loop whose first test leaves it, with values known when the shader
//! is compiled, is taken out of the module first. The test is the one a `for` or
//! `while` becomes in naga's IR: the loop body begins with an `if` whose one branch is
//! `break` and the other empty. Its condition is evaluated with literals (constants and
//! overrides are literals by now: `kernel::load`) and the values the loop's variables
//! were given just before it, in the same block (`var j = 0u` is such a store). A loop
//! whose first test depends on anything else stays.

use naga::{BinaryOperator, Block, Expression, Function, Handle, Literal, Statement, UnaryOperator};

/// A value the first test can be decided on.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Value {
    Int(i64),
    Bool(bool),
}

/// Removes every loop of `module` whose first test leaves it, and replaces every `if`
/// and `switch` a constant decides by the block it takes (see the module
/// documentation); whether any was.
pub fn remove(module: &mut naga::Module) -> bool {
    let mut any = false;
    let results: Vec<Option<Handle<naga::Type>>> =
        module.functions.iter().map(|(_, f)| f.result.as_ref().map(|r| r.ty)).collect();
    let functions = module.functions.iter_mut().map(|(_, f)| f);
    for f in functions.chain(module.entry_points.iter_mut().map(|e| &mut e.function)) {
        let body = std::mem::take(&mut f.body);
        // on entry, every local holds its initial value
        let entry = f.local_variables.iter().filter_map(|(v, l)| Some((v, eval(f, l.init?, &[])?))).collect();
        let (body, removed) = in_block(f, body, entry);
        f.body = body;
        if removed {
            orphans_to_zero(f, &results);
        }
        any |= removed;
    }
    any
}

/// The results of calls, atomics and uniform loads whose statement went with removed
/// code, made zero values of their types: nothing uses them any more, but the validator
/// wants every such expression made by its statement.
fn orphans_to_zero(f: &mut Function, results: &[Option<Handle<naga::Type>>]) {
    let mut made = std::collections::HashSet::new();
    crate::deps::each_statement(&f.body, &mut |s| match *s {
        Statement::Call { result: Some(r), .. }
        | Statement::Atomic { result: Some(r), .. }
        | Statement::WorkGroupUniformLoad { result: r, .. } => {
            made.insert(r);
        }
        _ => {}
    });
    let orphans: Vec<(Handle<Expression>, Handle<naga::Type>)> = f
        .expressions
        .iter()
        .filter(|(h, _)| !made.contains(h))
        .filter_map(|(h, e)| match *e {
            Expression::CallResult(fun) => Some((h, results.get(fun.index()).copied().flatten()?)),
            Expression::AtomicResult { ty, .. } | Expression::WorkGroupUniformLoadResult { ty } => {
                Some((h, ty))
            }
            _ => None,
        })
        .collect();
    for (h, ty) in orphans {
        *f.expressions.get_mut(h) = Expression::ZeroValue(ty);
    }
}

/// `block` with its loops that leave at once removed; `locals`: the values local
/// variables are known to hold when it begins.
fn in_block(
    f: &Function,
    block: Block,
    mut locals: Vec<(Handle<naga::LocalVariable>, Value)>,
) -> (Block, bool) {
    let mut out = Block::with_capacity(block.len());
    let (mut removed, mut folded) = (false, false);
    for (stmt, span) in block.span_into_iter() {
        // a block, a branch or a case begins with the values known here; a loop's body
        // and continuing run again after changes
        let mut nested = |b: Block, known: &Vec<_>| {
            let (b, r) = in_block(f, b, known.clone());
            removed |= r;
            b
        };
        let stmt = match stmt {
            Statement::Loop { body, continuing, break_if } => {
                if leaves_at_once(f, &body, &locals) {
                    removed = true;
                    continue;
                }
                let none = Vec::new();
                Statement::Loop { body: nested(body, &none), continuing: nested(continuing, &none), break_if }
            }
            Statement::Block(b) => Statement::Block(nested(b, &locals)),
            // a branch a constant decides: the taken side alone, as a block
            Statement::If { condition, accept, reject } => match eval(f, condition, &locals) {
                Some(Value::Bool(c)) => {
                    folded = true;
                    Statement::Block(nested(if c { accept } else { reject }, &locals))
                }
                _ => Statement::If {
                    condition,
                    accept: nested(accept, &locals),
                    reject: nested(reject, &locals),
                },
            },
            Statement::Switch { selector, cases } => match taken_case(f, selector, &cases, &locals) {
                Some(k) => {
                    folded = true;
                    let body = cases.into_iter().nth(k).expect("a case of the switch").body;
                    Statement::Block(nested(body, &locals))
                }
                None => Statement::Switch {
                    selector,
                    cases: cases
                        .into_iter()
                        .map(|mut c| {
                            c.body = nested(c.body, &locals);
                            c
                        })
                        .collect(),
                },
            },
            s => s,
        };
        match (&stmt, stored_local(f, &stmt)) {
            (Statement::Emit(_), _) => {}
            (&Statement::Store { value, .. }, Some(v)) => {
                let known = eval(f, value, &locals);
                locals.retain(|&(l, _)| l != v);
                locals.extend(known.map(|x| (v, x)));
            }
            // a loop, a branch or a block forgets what it may store to; a store through
            // a pointer or a call (which may be given one) everything
            (other, _) => match stored(f, other) {
                Some(vars) => locals.retain(|(l, _)| !vars.contains(l)),
                None => locals.clear(),
            },
        }
        out.push(stmt, span);
    }
    (out, removed || folded)
}

/// The local variable `stmt` stores to, where it is a store to a whole local.
fn stored_local(f: &Function, stmt: &Statement) -> Option<Handle<naga::LocalVariable>> {
    match *stmt {
        Statement::Store { pointer, .. } => match f.expressions[pointer] {
            Expression::LocalVariable(v) => Some(v),
            _ => None,
        },
        _ => None,
    }
}

/// The local variables `stmt` may store to, nested statements included; `None` where
/// it may store to any (through a pointer, or in a call).
fn stored(f: &Function, stmt: &Statement) -> Option<Vec<Handle<naga::LocalVariable>>> {
    fn one<'a>(
        f: &Function,
        s: &'a Statement,
        vars: &mut Vec<Handle<naga::LocalVariable>>,
        blocks: &mut Vec<&'a Block>,
    ) -> Option<()> {
        match s {
            Statement::Store { .. } => vars.push(stored_local(f, s)?),
            Statement::Call { .. } | Statement::Atomic { .. } => return None,
            Statement::Block(b) => blocks.push(b),
            Statement::If { accept, reject, .. } => blocks.extend([accept, reject]),
            Statement::Switch { cases, .. } => blocks.extend(cases.iter().map(|c| &c.body)),
            Statement::Loop { body, continuing, .. } => blocks.extend([body, continuing]),
            _ => {}
        }
        Some(())
    }
    let (mut vars, mut blocks) = (Vec::new(), Vec::new());
    one(f, stmt, &mut vars, &mut blocks)?;
    while let Some(b) = blocks.pop() {
        for s in b.iter() {
            one(f, s, &mut vars, &mut blocks)?;
        }
    }
    Some(vars)
}

/// The case a switch on a selector known here takes, where it does not fall through.
fn taken_case(
    f: &Function,
    selector: Handle<Expression>,
    cases: &[naga::SwitchCase],
    locals: &[(Handle<naga::LocalVariable>, Value)],
) -> Option<usize> {
    let Value::Int(v) = eval(f, selector, locals)? else { return None };
    let k = cases
        .iter()
        .position(|c| match c.value {
            naga::SwitchValue::I32(x) => x as i64 == v,
            naga::SwitchValue::U32(x) => x as i64 == v,
            naga::SwitchValue::Default => false,
        })
        .or_else(|| cases.iter().position(|c| c.value == naga::SwitchValue::Default))?;
    (!cases[k].fall_through).then_some(k)
}

/// Whether a loop with this body leaves at its first test: an `if` on a condition known
/// here, whose taken branch is `break` and the other empty, before anything else is done.
fn leaves_at_once(f: &Function, body: &Block, locals: &[(Handle<naga::LocalVariable>, Value)]) -> bool {
    for stmt in body.iter() {
        match stmt {
            Statement::Emit(_) => continue,
            Statement::If { condition, accept, reject } => {
                let is_break = |b: &Block| matches!(b.iter().as_slice(), [Statement::Break]);
                let Some(Value::Bool(c)) = eval(f, *condition, locals) else { return false };
                let (taken, other) = if c { (accept, reject) } else { (reject, accept) };
                return is_break(taken) && other.is_empty();
            }
            _ => return false,
        }
    }
    false
}

/// The value of `h`, from literals and the locals' known values alone.
fn eval(
    f: &Function,
    h: Handle<Expression>,
    locals: &[(Handle<naga::LocalVariable>, Value)],
) -> Option<Value> {
    use Value::{Bool, Int};
    Some(match f.expressions[h] {
        Expression::Literal(l) => match l {
            Literal::U32(x) => Int(x as i64),
            Literal::I32(x) => Int(x as i64),
            Literal::Bool(b) => Bool(b),
            _ => return None,
        },
        Expression::Load { pointer } => {
            let Expression::LocalVariable(v) = f.expressions[pointer] else { return None };
            locals.iter().find(|&&(l, _)| l == v)?.1
        }
        Expression::Unary { op: UnaryOperator::LogicalNot, expr } => match eval(f, expr, locals)? {
            Bool(b) => Bool(!b),
            Int(_) => return None,
        },
        Expression::Binary { op, left, right } => {
            let (a, b) = (eval(f, left, locals)?, eval(f, right, locals)?);
            match (a, b) {
                (Int(a), Int(b)) => match op {
                    // arithmetic only where both the operands and the result stay within
                    // the non-negative `i32` range, which `u32` and `i32` read alike
                    BinaryOperator::Add
                    | BinaryOperator::Subtract
                    | BinaryOperator::Multiply
                    | BinaryOperator::Divide
                    | BinaryOperator::Modulo
                    | BinaryOperator::And
                    | BinaryOperator::InclusiveOr
                    | BinaryOperator::ExclusiveOr
                    | BinaryOperator::ShiftLeft
                    | BinaryOperator::ShiftRight => {
                        let small = |x: i64| (0..1 << 31).contains(&x);
                        if !small(a) || !small(b) {
                            return None;
                        }
                        let r = match op {
                            BinaryOperator::Add => a + b,
                            BinaryOperator::Subtract => a - b,
                            BinaryOperator::Multiply => a * b,
                            BinaryOperator::Divide if b > 0 => a / b,
                            BinaryOperator::Modulo if b > 0 => a % b,
                            BinaryOperator::And => a & b,
                            BinaryOperator::InclusiveOr => a | b,
                            BinaryOperator::ExclusiveOr => a ^ b,
                            BinaryOperator::ShiftLeft if b < 31 => a << b,
                            BinaryOperator::ShiftRight if b < 31 => a >> b,
                            _ => return None,
                        };
                        if !small(r) {
                            return None;
                        }
                        Int(r)
                    }
                    BinaryOperator::Less => Bool(a < b),
                    BinaryOperator::LessEqual => Bool(a <= b),
                    BinaryOperator::Greater => Bool(a > b),
                    BinaryOperator::GreaterEqual => Bool(a >= b),
                    BinaryOperator::Equal => Bool(a == b),
                    BinaryOperator::NotEqual => Bool(a != b),
                    _ => return None,
                },
                (Bool(a), Bool(b)) => match op {
                    BinaryOperator::LogicalAnd => Bool(a && b),
                    BinaryOperator::LogicalOr => Bool(a || b),
                    BinaryOperator::Equal => Bool(a == b),
                    BinaryOperator::NotEqual => Bool(a != b),
                    _ => return None,
                },
                _ => return None,
            }
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    /// How many loops `main` has left once loaded as a capture loads it
    /// ([`crate::kernel::load`]: overrides set, constants as literals, these loops
    /// removed, the module validated again).
    fn loops_left(src: &str, overrides: &[(&str, f64)]) -> usize {
        let overrides: Vec<(String, f64)> = overrides.iter().map(|&(k, v)| (k.to_string(), v)).collect();
        let module = crate::kernel::load(src, "loops.wgsl", None, &overrides).unwrap().module;
        fn count(b: &naga::Block) -> usize {
            b.iter()
                .map(|s| match s {
                    naga::Statement::Loop { body, continuing, .. } => 1 + count(body) + count(continuing),
                    naga::Statement::Block(b) => count(b),
                    naga::Statement::If { accept, reject, .. } => count(accept) + count(reject),
                    _ => 0,
                })
                .sum()
        }
        count(&module.entry_points[0].function.body)
    }

    const SRC: &str = "
        override N: u32 = 0;
        override M: i32 = 0;
        @group(0) @binding(0) var<storage, read_write> out: array<u32>;
        @compute @workgroup_size(64)
        fn main(@builtin(local_invocation_index) li: u32) {
            var acc = li;
            for (var k = 0u; k < li; k++) {
                for (var j = 0u; j < N; j++) { acc = acc * 3u + 1u; }
            }
            var i = 5;
            while (i < M) { acc += 1u; i++; }
            out[li] = acc;
        }";

    #[test]
    fn a_loop_whose_first_test_leaves_it_is_removed() {
        // N = 0: `0 < 0` is false, the inner `for` goes; M = 5: `5 < 5`, the `while` goes
        assert_eq!(loops_left(SRC, &[("N", 0.0), ("M", 5.0)]), 1);
        assert_eq!(loops_left(SRC, &[("N", 0.0), ("M", -3.0)]), 1);
    }

    #[test]
    fn a_loop_that_runs_or_may_run_stays() {
        // N = 1, M = 6: both run once (an outer loop on `li` is unknown when compiled)
        assert_eq!(loops_left(SRC, &[("N", 1.0), ("M", 6.0)]), 3);
        // a counter given a value only known at run time
        let src = "
            @group(0) @binding(0) var<storage, read_write> out: array<u32>;
            @compute @workgroup_size(64)
            fn main(@builtin(local_invocation_index) li: u32) {
                var j = li;
                loop { if j >= 0u { break; } j++; }
                var k = 0u;
                j = 3u;
                while (k < 1u) { k++; }
                out[li] = j;
            }";
        // the first loop's test needs `li`; the second runs (0 < 1)
        assert_eq!(loops_left(src, &[]), 2);
    }

    #[test]
    fn a_branch_or_a_switch_a_constant_decides_keeps_its_taken_side_alone() {
        let src = "
            override USE: u32 = 0;
            override MODE: u32 = 0;
            @group(0) @binding(0) var<storage, read> src: array<u32>;
            @group(0) @binding(1) var<storage, read_write> dst: array<u32>;
            @compute @workgroup_size(64)
            fn main(@builtin(local_invocation_index) li: u32) {
                let v = src[li];
                var r = li;
                if (USE % 2u == 1u) { r = v; }
                switch MODE { case 1u: { r += 3u; } default: { r += 5u; } }
                dst[li] = r;
            }";
        let branches = |overrides: &[(&str, f64)]| {
            let o: Vec<(String, f64)> = overrides.iter().map(|&(k, v)| (k.to_string(), v)).collect();
            let module = crate::kernel::load(src, "k.wgsl", None, &o).unwrap().module;
            let f = &module.entry_points[0].function;
            let mut n = 0;
            crate::deps::each_statement(&f.body, &mut |s| {
                n += matches!(s, naga::Statement::If { .. } | naga::Statement::Switch { .. }) as usize
            });
            // and whether the load of `src` is live
            let live = crate::liveness::live(f, &module.global_variables);
            let src_load =
                f.expressions.iter().find(|(_, e)| matches!(e, naga::Expression::Load { .. })).unwrap().0;
            (n, live[src_load.index()])
        };
        // USE = 0: the branch goes and `v` is dead; USE = 3: the branch is taken, `v` live
        assert_eq!(branches(&[("USE", 0.0), ("MODE", 1.0)]), (0, false));
        assert_eq!(branches(&[("USE", 3.0), ("MODE", 7.0)]), (0, true));
    }
}
