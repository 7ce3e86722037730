//! Counting the other work: how many IR operations an invocation executes between two
//! workgroup-memory accesses.
//!
//! The cycle engine needs, before every warp request, the issue cycles of the work the
//! warp does that is not a shared-memory access (the trace's `gap`). It is measured
//! dynamically, on a per-invocation counter `banksim_ops` that every trace record
//! carries: in functions with records the instrumentation pass adds each stretch of a
//! block's cost before the next record, nested block or exit
//! (the `instrument` module, with [`statement_cost`] and [`expression_cost`]), so that a
//! record's gap is the work since the previous one; in functions without records,
//! [`count_function`] makes every block add its whole cost when entered. Loop bodies
//! count once per iteration. The decoder turns the differences between an invocation's
//! records into per-access gaps, in IR operations; calibration fits cycles per
//! operation.
//!
//! Cost of one IR item (an estimate of instructions, not a compiler):
//!
//! | item | ops |
//! | --- | --- |
//! | arithmetic, comparison, `select`, conversion, built-in math, derivative, `arrayLength` | 1 |
//! | dynamic index into an array, vector or matrix (address arithmetic) | 1 |
//! | load through a uniform buffer, atomic on a storage buffer | 1 |
//! | load or store through a storage buffer (the trace's `gld` / `gst` requests) | 0 |
//! | `if`, `switch`, barrier | 1 |
//! | loads and stores of locals, privates and workgroup memory (the latter are the trace's requests), constant indices, literals | 0 |
//! | anything computed from literals, constants and overrides alone, and `if` / `switch` on it (the compiler folds them) | 0 |
//! | a function call (compilers inline them; the callee's own work counts) | 0 |
//! | every loop iteration: the bound wgpu's shader translation (naga's SPIR-V writer, like Tint) adds to every loop so that none runs forever (a 64-bit iteration counter: compare, `all`, branch, decrement, carry compare, conversion, subtract) | [`LOOP_BOUNDING_OPS`] = 7 |
//!
//! | a loop with a trip count known at compile time, at most [`UNROLL_MAX`] (`for (var s = 1u; s < 512u; s *= 2u)`): the driver's compiler unrolls it, so its counter is a constant in each copy (its exit test, update and what is computed from the counter alone fold), and the loop bounding folds too | 0 per iteration |
//!
//! Where a block's cost is added when it is entered ([`count_function`]), a `break` or
//! `return` part-way through still counts the block's remainder: the count is per path,
//! not per instruction.

/// Operations per loop iteration of the loop bounding wgpu's shader translation adds
/// to every loop (see the module documentation).
pub const LOOP_BOUNDING_OPS: u32 = 7;

use naga::{
    AddressSpace, BinaryOperator, Block, Expression, Function, GlobalVariable, Handle, Literal, Span,
    Statement,
};

/// Adds the counting code to `f`: every block first adds its cost to the private
/// `counter` (a `u32`).
pub fn count_function(
    f: &mut Function,
    globals: &naga::Arena<GlobalVariable>,
    counter: Handle<GlobalVariable>,
) {
    let consts = constants(f);
    let ptr = f.expressions.append(Expression::GlobalVariable(counter), Span::UNDEFINED);
    let body = std::mem::take(&mut f.body);
    f.body = count_block(f, globals, &consts, ptr, body);
}

fn count_block(
    f: &mut Function,
    globals: &naga::Arena<GlobalVariable>,
    consts: &[bool],
    ptr: Handle<Expression>,
    block: Block,
) -> Block {
    let mut n = 0u32;
    let mut out = Block::with_capacity(block.len() + 4);
    for (stmt, span) in block.span_into_iter() {
        n += statement_cost(f, globals, consts, &stmt);
        let count = |f: &mut Function, b| count_block(f, globals, consts, ptr, b);
        let stmt = match stmt {
            Statement::Block(b) => Statement::Block(count(f, b)),
            Statement::If { condition, accept, reject } => {
                let accept = count(f, accept);
                let reject = count(f, reject);
                Statement::If { condition, accept, reject }
            }
            Statement::Switch { selector, cases } => {
                let cases = cases
                    .into_iter()
                    .map(|mut c| {
                        c.body = count(f, c.body);
                        c
                    })
                    .collect();
                Statement::Switch { selector, cases }
            }
            Statement::Loop { body, continuing, break_if } => {
                let per_iteration = if is_unrolled(f, &body, consts) { 0 } else { LOOP_BOUNDING_OPS };
                let mut bounded = if per_iteration > 0 { add(f, ptr, per_iteration) } else { Block::new() };
                bounded.extend_block(count(f, body));
                let continuing = count(f, continuing);
                Statement::Loop { body: bounded, continuing, break_if }
            }
            s => s,
        };
        out.push(stmt, span);
    }
    if n == 0 {
        return out;
    }
    let mut head = Block::with_capacity(out.len() + 4);
    head.extend_block(add(f, ptr, n));
    head.extend_block(out);
    head
}

/// Most iterations of a loop the compiler is taken to unroll fully (see
/// [`unrolled_loop`]).
pub const UNROLL_MAX: u32 = 16;

/// The counter of a loop with a trip count known when the shader is compiled, at most
/// [`UNROLL_MAX`]: `for (var i = A; i CMP B; i = i OP C)` with literals A, B, C and `i`
/// stored nowhere else in the function. The driver's compiler unrolls such a loop, so
/// neither its counter arithmetic, nor its exit test, nor the loop bounding wgpu adds
/// (a counter that is then constant too) cost anything at run time.
pub fn unrolled_loop(
    f: &Function,
    body: &Block,
    continuing: &Block,
    break_if: Option<Handle<Expression>>,
) -> Option<Handle<naga::LocalVariable>> {
    if break_if.is_some() {
        return None;
    }
    // the exit test: `if (cond) {} else { break; }` (or `if (cond) { break; }`)
    let (cond, exit_when) = exit_test(body)?;
    let local = |p: Handle<Expression>| match f.expressions[p] {
        Expression::LocalVariable(v) => Some(v),
        _ => None,
    };
    let Expression::Binary { op: cmp, left, right } = f.expressions[cond] else { return None };
    let Expression::Load { pointer } = f.expressions[left] else { return None };
    let v = local(pointer)?;
    let bound = literal(f, right)?;
    // the update: the continuing block's one store, `i = i OP C`
    let mut stores = continuing.iter().filter(|s| !matches!(s, Statement::Emit(_)));
    let (Some(Statement::Store { pointer: up, value }), None) = (stores.next(), stores.next()) else {
        return None;
    };
    if local(*up) != Some(v) {
        return None;
    }
    let Expression::Binary { op, left: l, right: r } = f.expressions[*value] else { return None };
    if !matches!(f.expressions[l], Expression::Load { pointer } if local(pointer) == Some(v)) {
        return None;
    }
    let step = literal(f, r)?;
    let start = literal(f, f.local_variables[v].init?)?;
    // `i` changes nowhere else
    let mut writes = 0;
    crate::deps::each_statement(&f.body, &mut |s| match s {
        Statement::Store { pointer, .. } if local(*pointer) == Some(v) => writes += 1,
        Statement::Call { arguments, .. } if arguments.iter().any(|&a| local(a) == Some(v)) => writes += 2,
        Statement::Atomic { pointer, .. } if local(*pointer) == Some(v) => writes += 2,
        _ => {}
    });
    if writes != 1 {
        return None;
    }
    // run the counter
    let mut i = start;
    for _ in 0..=UNROLL_MAX {
        let holds = match cmp {
            BinaryOperator::Less => i < bound,
            BinaryOperator::LessEqual => i <= bound,
            BinaryOperator::Greater => i > bound,
            BinaryOperator::GreaterEqual => i >= bound,
            BinaryOperator::NotEqual => i != bound,
            BinaryOperator::Equal => i == bound,
            _ => return None,
        };
        if holds == exit_when {
            return Some(v);
        }
        i = match op {
            BinaryOperator::Add => i.checked_add(step)?,
            BinaryOperator::Subtract => i.checked_sub(step)?,
            BinaryOperator::Multiply => i.checked_mul(step)?,
            BinaryOperator::Divide if step != 0 => i / step,
            BinaryOperator::ShiftLeft if (0..32).contains(&step) => i.checked_mul(1 << step)?,
            BinaryOperator::ShiftRight if (0..32).contains(&step) => i >> step,
            _ => return None,
        };
    }
    None
}

/// A loop body's exit test, `if (cond) {} else { break; }` (or `if (cond) { break; }`)
/// before anything but emits: the condition and the value that exits.
fn exit_test(body: &Block) -> Option<(Handle<Expression>, bool)> {
    let first = body.iter().find(|s| !matches!(s, Statement::Emit(_)))?;
    let Statement::If { condition, accept, reject } = first else { return None };
    let is_break = |b: &Block| b.len() == 1 && matches!(b[0], Statement::Break);
    if accept.is_empty() && is_break(reject) {
        Some((*condition, false))
    } else if is_break(accept) && reject.is_empty() {
        Some((*condition, true))
    } else {
        None
    }
}

/// Whether the loop with `body` is one [`unrolled_loop`] unrolls, given the function's
/// [`constants`] (which count the loads of such a loop's counter as constants): for
/// when the function's body has been taken apart and the loop can only be looked at
/// on its own.
pub fn is_unrolled(f: &Function, body: &Block, consts: &[bool]) -> bool {
    exit_test(body).is_some_and(|(cond, _)| match f.expressions[cond] {
        Expression::Binary { left, .. } => {
            matches!(f.expressions[left], Expression::Load { pointer }
                if matches!(f.expressions[pointer], Expression::LocalVariable(_)))
                && consts.get(left.index()).copied().unwrap_or(false)
        }
        _ => false,
    })
}

/// The value of an integer literal (`u32`, `i32` or abstract), widened.
fn literal(f: &Function, h: Handle<Expression>) -> Option<i64> {
    match f.expressions[h] {
        Expression::Literal(Literal::U32(x)) => Some(x as i64),
        Expression::Literal(Literal::I32(x)) => Some(x as i64),
        Expression::Literal(Literal::AbstractInt(x)) => Some(x),
        _ => None,
    }
}

/// The counters of every loop of `f` that [`unrolled_loop`] unrolls.
pub fn unrolled_counters(f: &Function) -> Vec<Handle<naga::LocalVariable>> {
    let mut out = Vec::new();
    crate::deps::each_statement(&f.body, &mut |s| {
        if let Statement::Loop { body, continuing, break_if } = s {
            out.extend(unrolled_loop(f, body, continuing, *break_if));
        }
    });
    out
}

/// Statements that add `n` to the counter `ptr` points at.
pub fn add(f: &mut Function, ptr: Handle<Expression>, n: u32) -> Block {
    let mut out = Block::with_capacity(3);
    let old = f.expressions.append(Expression::Load { pointer: ptr }, Span::UNDEFINED);
    out.push(Statement::Emit(naga::Range::new_from_bounds(old, old)), Span::UNDEFINED);
    let add = f.expressions.append(Expression::Literal(Literal::U32(n)), Span::UNDEFINED);
    let new = f
        .expressions
        .append(Expression::Binary { op: BinaryOperator::Add, left: old, right: add }, Span::UNDEFINED);
    out.push(Statement::Emit(naga::Range::new_from_bounds(new, new)), Span::UNDEFINED);
    out.push(Statement::Store { pointer: ptr, value: new }, Span::UNDEFINED);
    out
}

/// Cost of one statement itself: its emitted expressions, and the branch, barrier or
/// buffer access it makes; nested blocks not included. `consts` is [`constants`].
pub fn statement_cost(
    f: &Function,
    globals: &naga::Arena<GlobalVariable>,
    consts: &[bool],
    s: &Statement,
) -> u32 {
    let known = |h: Handle<Expression>| consts.get(h.index()).copied().unwrap_or(false);
    match *s {
        Statement::Emit(ref range) => range.clone().map(|h| expression_cost(f, globals, consts, h)).sum(),
        Statement::If { condition: c, .. } | Statement::Switch { selector: c, .. } => !known(c) as u32,
        Statement::ControlBarrier(_) | Statement::MemoryBarrier(_) => 1,
        // a store to a storage buffer is a trace record (`gst`), not other work
        Statement::Store { .. } => 0,
        Statement::Atomic { pointer, .. } => global_memory(f, globals, pointer),
        _ => 0,
    }
}

/// Per expression of `f` (by handle index): whether it is known when the shader is
/// compiled: a literal, constant, override or zero value, or an operation on such
/// values alone (a compiler folds it).
pub fn constants(f: &Function) -> Vec<bool> {
    let unrolled = unrolled_counters(f);
    let mut known = vec![false; f.expressions.len()];
    for (h, e) in f.expressions.iter() {
        let all = |hs: &[Handle<Expression>]| hs.iter().all(|x| known[x.index()]);
        known[h.index()] = match *e {
            // the counter of a loop the compiler unrolls is a constant in each copy
            Expression::Load { pointer } => {
                matches!(f.expressions[pointer], Expression::LocalVariable(v) if unrolled.contains(&v))
            }
            Expression::Literal(_)
            | Expression::Constant(_)
            | Expression::Override(_)
            | Expression::ZeroValue(_) => true,
            Expression::Binary { left, right, .. } => all(&[left, right]),
            Expression::Unary { expr, .. } | Expression::As { expr, .. } => known[expr.index()],
            Expression::Splat { value, .. } => known[value.index()],
            Expression::Swizzle { vector, .. } => known[vector.index()],
            Expression::Compose { ref components, .. } => all(components),
            Expression::Select { condition, accept, reject } => all(&[condition, accept, reject]),
            Expression::Relational { argument, .. } => known[argument.index()],
            Expression::Math { arg, arg1, arg2, arg3, .. } => {
                known[arg.index()] && [arg1, arg2, arg3].iter().flatten().all(|x| known[x.index()])
            }
            Expression::AccessIndex { base, .. } => known[base.index()],
            Expression::Access { base, index } => all(&[base, index]),
            _ => false,
        };
    }
    known
}

/// Cost of one emitted expression (`consts` is [`constants`]).
pub fn expression_cost(
    f: &Function,
    globals: &naga::Arena<GlobalVariable>,
    consts: &[bool],
    h: Handle<Expression>,
) -> u32 {
    if consts.get(h.index()).copied().unwrap_or(false) {
        return 0;
    }
    match f.expressions[h] {
        Expression::Binary { .. }
        | Expression::Unary { .. }
        | Expression::Math { .. }
        | Expression::Select { .. }
        | Expression::As { .. }
        | Expression::Relational { .. }
        | Expression::Derivative { .. }
        | Expression::ArrayLength(_)
        | Expression::Access { .. } => 1,
        // a load from a storage buffer is a trace record (`gld`), not other work
        Expression::Load { pointer } => {
            (buffer_space(f, globals, pointer) == Some(AddressSpace::Uniform)) as u32
        }
        _ => 0,
    }
}

/// The address space of the buffer `pointer` points into (storage or uniform), if any.
pub fn buffer_space(
    f: &Function,
    globals: &naga::Arena<GlobalVariable>,
    mut pointer: Handle<Expression>,
) -> Option<AddressSpace> {
    loop {
        match f.expressions[pointer] {
            Expression::Access { base, .. } | Expression::AccessIndex { base, .. } => pointer = base,
            Expression::GlobalVariable(g) => {
                let space = globals[g].space;
                return matches!(space, AddressSpace::Storage { .. } | AddressSpace::Uniform)
                    .then_some(space);
            }
            _ => return None,
        }
    }
}

/// 1 when `pointer` points into a storage or uniform buffer, else 0.
fn global_memory(
    f: &Function,
    globals: &naga::Arena<GlobalVariable>,
    mut pointer: Handle<Expression>,
) -> u32 {
    loop {
        match f.expressions[pointer] {
            Expression::Access { base, .. } | Expression::AccessIndex { base, .. } => pointer = base,
            Expression::GlobalVariable(g) => {
                return matches!(globals[g].space, AddressSpace::Storage { .. } | AddressSpace::Uniform)
                    as u32;
            }
            _ => return 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cost the pass adds at the top of each block of the entry point, outermost first.
    fn costs(src: &str) -> Vec<u32> {
        let mut module = naga::front::wgsl::parse_str(src).unwrap();
        let counter = module.global_variables.append(
            GlobalVariable {
                name: Some("ops".into()),
                space: AddressSpace::Private,
                binding: None,
                ty: module.types.insert(
                    naga::Type { name: None, inner: naga::TypeInner::Scalar(naga::Scalar::U32) },
                    Span::UNDEFINED,
                ),
                init: None,
                memory_decorations: naga::MemoryDecorations::empty(),
            },
            Span::UNDEFINED,
        );
        let mut f = std::mem::take(&mut module.entry_points[0].function);
        count_function(&mut f, &module.global_variables, counter);
        let mut out = Vec::new();
        walk(&f, &f.body, counter, &mut out);
        module.entry_points[0].function = f;
        naga::valid::Validator::new(naga::valid::ValidationFlags::all(), naga::valid::Capabilities::all())
            .validate(&module)
            .expect("the counted module validates");
        out
    }

    /// Every amount added to `counter`, in statement order (an `Add` whose left operand
    /// loads it).
    fn walk(f: &Function, b: &Block, counter: Handle<GlobalVariable>, out: &mut Vec<u32>) {
        for s in b.iter() {
            match s {
                Statement::Emit(r) => {
                    for h in r.clone() {
                        let Expression::Binary { op: BinaryOperator::Add, left, right } = f.expressions[h]
                        else {
                            continue;
                        };
                        let Expression::Load { pointer } = f.expressions[left] else { continue };
                        let adds_to_counter = f.expressions[pointer] == Expression::GlobalVariable(counter);
                        if let (true, Expression::Literal(Literal::U32(n))) =
                            (adds_to_counter, &f.expressions[right])
                        {
                            out.push(*n);
                        }
                    }
                }
                Statement::Block(b) => walk(f, b, counter, out),
                Statement::If { accept, reject, .. } => {
                    walk(f, accept, counter, out);
                    walk(f, reject, counter, out);
                }
                Statement::Loop { body, continuing, .. } => {
                    walk(f, body, counter, out);
                    walk(f, continuing, counter, out);
                }
                _ => {}
            }
        }
    }

    #[test]
    fn loop_work_counts_per_iteration_and_shared_accesses_are_free() {
        let src = "
            @group(0) @binding(0) var<storage, read_write> out: array<u32>;
            var<workgroup> sh: array<u32, 64>;
            @compute @workgroup_size(64)
            fn main(@builtin(local_invocation_index) li: u32) {
                var v = li;
                for (var k = 0u; k < li; k++) { v = sh[v] * 3u + 1u; }
                out[li] = v;
            }";
        // entry: dynamic index into out (1) (the store to a storage buffer is a `gst`
        // record, free like the shared accesses); loop body:
        // `k < li` (1) + the `if` that breaks (1), then the statement block of the `for`'s
        // body: sh[v] index (1) + `*` (1) + `+` (1) (the load itself is free);
        // continuing: k + 1 (1) — 6 per iteration, and the loop bounding's 7
        assert_eq!(costs(src), vec![1, LOOP_BOUNDING_OPS, 2, 3, 1]);
    }

    #[test]
    fn loops_with_a_known_short_trip_count_are_unrolled() {
        let body = |header: &str| {
            format!(
                "var<workgroup> sh: array<u32, 64>;
                @compute @workgroup_size(64)
                fn main(@builtin(local_invocation_index) li: u32) {{
                    var v = li;
                    {header} {{ v = sh[v] * 3u; }}
                    sh[li] = v;
                }}"
            )
        };
        // unrolled: no loop bounding, the exit test and the counter's update fold away
        // (`if` on a constant: 0, so the loop's blocks add nothing); the entry's store
        // index (1) and the body's index and `*` (2) remain
        for header in [
            "for (var k = 0u; k < 8u; k++)",
            "for (var s = 256u; s > 0u; s >>= 1u)",
            "for (var s = 1u; s < 512u; s *= 2u)",
            "for (var k = 16; k >= 1; k--)",
        ] {
            assert_eq!(costs(&body(header)), vec![1, 2], "{header}");
        }
        // not unrolled: too many iterations, a trip count known only at run time, or a
        // counter the body changes too
        for header in ["for (var k = 0u; k < 17u; k++)", "for (var k = 0u; k < li; k++)"] {
            assert_eq!(costs(&body(header))[1], LOOP_BOUNDING_OPS, "{header}");
        }
        let changed =
            body("for (var k = 0u; k < 8u; k++)").replace("v = sh[v] * 3u;", "v = sh[v] * 3u; k += v;");
        assert_eq!(costs(&changed)[1], LOOP_BOUNDING_OPS);
    }

    #[test]
    fn what_the_compiler_folds_or_inlines_costs_nothing() {
        let src = "
            override PADDED: bool = false;
            const K: u32 = 4u;
            @group(0) @binding(0) var<storage, read_write> out: array<u32>;
            fn twice(x: u32) -> u32 { return x * 2u; }
            @compute @workgroup_size(64)
            fn main(@builtin(local_invocation_index) li: u32) {
                if (PADDED) { out[li] = twice(li + K * 2u); }
            }";
        // entry: `if` on an override (0); accept: `K * 2u` (0), `li + ...` (1), the call
        // (0; twice's multiply counts in twice), the index into out (1), the store (0: a
        // `gst` record)
        assert_eq!(costs(src), vec![2]);
    }

    #[test]
    fn branches_and_buffer_loads_count_where_they_execute() {
        let src = "
            @group(0) @binding(0) var<uniform> p: vec4<u32>;
            @group(0) @binding(1) var<storage, read_write> out: array<f32>;
            @compute @workgroup_size(64)
            fn main(@builtin(local_invocation_index) li: u32) {
                if (li < p.x) { out[li] = f32(li) * 2.0; } else { out[li] = sqrt(f32(li)); }
            }";
        // entry: load p.x from the uniform buffer (1) + `<` (1) + `if` (1); accept: index
        // (1) + f32() (1) + `*` (1) + store (0: a `gst` record); reject: index (1) + f32()
        // (1) + sqrt (1) + store (0)
        assert_eq!(costs(src), vec![3, 3, 3]);
    }
}
