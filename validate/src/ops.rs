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
//! | an expression whose value reaches nothing the kernel does ([`crate::liveness`]: the compiler deletes it, and a load of it is not recorded) | 0 |
//! | a workgroup atomic whose old value is used: the driver's code on the value, besides the atomic (its record) | [`WORKGROUP_ATOMIC_RESULT_OPS`] = 6 |
//! | integer division or remainder by a power of two known when compiled (a shift, a mask) | 1 |
//! | integer division by another constant (a multiply-high, its corrections and a shift; per component) | [`CONSTANT_DIVISION_OPS`] = 5 |
//! | integer remainder by another constant (and a multiply back and a subtract) | [`CONSTANT_REMAINDER_OPS`] = 7 |
//! | `u32` division or remainder by a value known only at run time (per component) | [`U32_DIVISION_OPS`] = 20 |
//! | `i32` division or remainder by a value known only at run time (per component) | [`I32_DIVISION_OPS`] = 38 |
//! | dynamic index into an array, vector or matrix (address arithmetic) | 1 |
//! | load through a uniform buffer, atomic on a storage buffer | 1 |
//! | load or store through a storage buffer (the trace's `gld` / `gst` requests) | 0 |
//! | `if`, `switch`, barrier | 1 |
//! | loads and stores of locals, privates and workgroup memory (the latter are the trace's requests), constant indices, literals | 0 |
//! | anything computed from literals, constants and overrides alone, and `if` / `switch` on it (the compiler folds them) | 0 |
//! | an integer operation with its identity, an override's value included (`x * 1`, `x + 0`, `x - 0`, `x / 1`, `x \| 0`, `x ^ 0`, `x << 0`, `x >> 0`, `x & 0xffffffff`: the compiler removes it) | 0 |
//! | a float add or subtract with a product as an operand (`a * b + c`: the compiler fuses the two into one multiply-add; the multiply counts) | 0 |
//! | an integer operation whose value its other operand decides alone (`x * 0`, `x & 0`, `x % 1`), and what follows from such values alone | 0 |
//! | a function call (compilers inline them; the callee's own work counts) | 0 |
//! | a loop whose first test leaves it on values known when compiled (`j < N` with `j = 0u`, `N = 0`): [`crate::dead_loops`] removes it before counting | 0 |
//! | every loop iteration: the bound wgpu's shader translation (naga's SPIR-V writer, like Tint) adds to every loop so that none runs forever (a 64-bit iteration counter: compare, `all`, branch, decrement, carry compare, conversion, subtract) | [`LOOP_BOUNDING_OPS`] = 7 |
//!
//! Integer division by a value known only at run time has no instruction on NVIDIA or
//! AMD GPUs: the compiler expands it into a sequence (a reciprocal estimate and
//! corrections). Measured on the H100 through Vulkan (`validate/kernels/op_cost.wgsl`,
//! `validate/run_micro.sh`): 19 issue cycles and 92 cycles of latency per dependent
//! `u32` division or remainder, 38 and 150 per `i32` one, where an operation of the
//! table costs about 1 and 4. Float division by a loop-invariant value became one
//! multiply-add there (the reciprocal is hoisted), so it stays 1.
//!
//! No loop is taken to be unrolled: on the H100 the driver's binary for a loop of 1,
//! 4, 16 or 64 iterations known when compiled is as large as for a trip count read at
//! run time (`banksim shader-stats` on `op_cost.wgsl --override TRIP=N`), so the
//! counter's arithmetic and wgpu's loop bounding run every iteration.
//!
//! Where a block's cost is added when it is entered ([`count_function`]), a `break` or
//! `return` part-way through still counts the block's remainder: the count is per path,
//! not per instruction.

/// Operations per loop iteration of the loop bounding wgpu's shader translation adds
/// to every loop (see the module documentation).
pub const LOOP_BOUNDING_OPS: u32 = 7;

/// Operations a `u32` division or remainder by a value known only at run time costs
/// (see the module documentation).
pub const U32_DIVISION_OPS: u32 = 20;

/// Operations an `i32` division or remainder by a value known only at run time costs.
pub const I32_DIVISION_OPS: u32 = 38;

/// Operations a workgroup atomic whose old value is used costs beyond its record, on its
/// value, right after it: what the Vulkan driver makes of it on the H100 besides the
/// atomic (with its value unused, nothing). Measured (`validate/kernels/atom_collide.wgsl`,
/// RET=1 against RET=0, rows atom_collide_l*_s1_r* of `validate/results/h100/micro.csv`):
/// a returning `atomicAdd` takes 12.9 cycles of the SM per atomic at 64 warps per SM
/// and 52 cycles of its warp at 8, where the atomic itself takes 1 and 33 (ATOMS.ADD
/// under CUDA, `fixtures/h100/atom_timing.csv`); 6 operations reproduce both within 2%
/// at 1 to 8 lanes on a word.
pub const WORKGROUP_ATOMIC_RESULT_OPS: u32 = 6;

/// Operations an integer division by a constant that is not a power of two costs: a
/// multiply-high by the constant's reciprocal, its corrections and a shift. Measured on
/// the H100 (`validate/kernels/op_cost.wgsl`, OP=5, C=7; `validate/results/h100/micro.csv`):
/// a dependent `x / 7u + 2^30` takes 25.8 cycles, 6.5 operations of about 4 (the
/// multiply-add's and the fused multiply-add's 3.6 to 4.0), one of them the add.
pub const CONSTANT_DIVISION_OPS: u32 = 5;

/// Operations an integer remainder by a constant that is not a power of two costs: the
/// division's, a multiply back and a subtract. Measured as the division (OP=6, C=7):
/// `x % 7u + 2^30 + k`, 35.7 cycles, 8.9 operations, two of them adds.
pub const CONSTANT_REMAINDER_OPS: u32 = 7;

/// What the cost of a function's expressions depends on beyond each expression itself,
/// by handle index: whether it is known when the shader is compiled ([`constants`]), and
/// the cost of an integer division or remainder by a run-time value (0 for any other
/// expression). Expressions appended after it was made are neither.
#[derive(Debug, Clone, Default)]
pub struct Facts {
    consts: Vec<bool>,
    /// Whether the value reaches anything the kernel does ([`crate::liveness`]).
    live: Vec<bool>,
    divisions: Vec<u32>,
    /// An operation with its identity (`x * 1`, `x + 0`, `x | 0`, `x << 0`...), which
    /// the compiler removes, and a float add of a product, which the product's fused
    /// multiply-add does.
    free: Vec<bool>,
}

impl Facts {
    /// The facts of `f`, whose validation info is `info` (types of its expressions), in a
    /// module whose global variables are `globals`.
    pub fn of(
        f: &Function,
        info: &naga::valid::FunctionInfo,
        types: &naga::UniqueArena<naga::Type>,
        globals: &naga::Arena<GlobalVariable>,
    ) -> Facts {
        let consts = constants(f);
        let divisions = f
            .expressions
            .iter()
            .map(|(h, e)| match *e {
                Expression::Binary {
                    op: op @ (BinaryOperator::Divide | BinaryOperator::Modulo),
                    right,
                    ..
                } => {
                    let ty = info[h].ty.inner_with(types);
                    match consts[right.index()] {
                        false => division_ops(ty),
                        true => constant_division_ops(op, int_literal(f, right), ty),
                    }
                }
                _ => 0,
            })
            .collect();
        let mut free: Vec<bool> = f
            .expressions
            .iter()
            .map(|(_, e)| match *e {
                Expression::Binary { op, left, right } => identity(f, op, left, right),
                _ => false,
            })
            .collect();
        // a float add or subtract of a product: the product's multiply-add does both
        let is_float = |h: Handle<Expression>| {
            matches!(
                *info[h].ty.inner_with(types),
                naga::TypeInner::Scalar(s) | naga::TypeInner::Vector { scalar: s, .. } if s.kind == naga::ScalarKind::Float
            )
        };
        let product = |h: Handle<Expression>, free: &[bool]| {
            matches!(f.expressions[h], Expression::Binary { op: BinaryOperator::Multiply, .. })
                && !consts[h.index()]
                && !free[h.index()]
        };
        for (h, e) in f.expressions.iter() {
            if let Expression::Binary { op: BinaryOperator::Add | BinaryOperator::Subtract, left, right } = *e
            {
                if is_float(h) && !consts[h.index()] && (product(left, &free) || product(right, &free)) {
                    free[h.index()] = true;
                }
            }
        }
        let live = crate::liveness::live(f, globals);
        Facts { consts, live, divisions, free }
    }

    /// Whether expression `h`'s value reaches anything the kernel does (appended
    /// expressions: yes).
    pub fn live(&self, h: Handle<Expression>) -> bool {
        self.live.get(h.index()).copied().unwrap_or(true)
    }

    /// Whether expression `h` is known when the shader is compiled.
    pub fn known(&self, h: Handle<Expression>) -> bool {
        self.consts.get(h.index()).copied().unwrap_or(false)
    }

    fn free(&self, h: Handle<Expression>) -> bool {
        self.free.get(h.index()).copied().unwrap_or(false)
    }

    fn division(&self, h: Handle<Expression>) -> u32 {
        self.divisions.get(h.index()).copied().unwrap_or(0)
    }
}

/// An integer literal's value (sign-extended), if `h` is one.
fn int_literal(f: &Function, h: Handle<Expression>) -> Option<i64> {
    match f.expressions[h] {
        Expression::Literal(Literal::U32(v)) => Some(v as i64),
        Expression::Literal(Literal::I32(v)) => Some(v as i64),
        Expression::Literal(Literal::U64(v)) => Some(v as i64),
        Expression::Literal(Literal::I64(v)) => Some(v),
        _ => None,
    }
}

/// Whether `left op right` is one operand unchanged: the other is the operation's
/// identity (`x + 0`, `x - 0`, `x * 1`, `x / 1`, `x | 0`, `x ^ 0`, `x << 0`, `x >> 0`,
/// `x & !0`), so the compiler removes it.
fn identity(f: &Function, op: BinaryOperator, left: Handle<Expression>, right: Handle<Expression>) -> bool {
    use BinaryOperator as B;
    let (l, r) = (int_literal(f, left), int_literal(f, right));
    // (every bit set in the literal's own width)
    let all_ones = |h: Handle<Expression>| {
        matches!(
            f.expressions[h],
            Expression::Literal(
                Literal::U32(u32::MAX) | Literal::I32(-1) | Literal::U64(u64::MAX) | Literal::I64(-1)
            )
        )
    };
    match op {
        B::Add | B::InclusiveOr | B::ExclusiveOr => l == Some(0) || r == Some(0),
        B::Subtract | B::ShiftLeft | B::ShiftRight => r == Some(0),
        B::Multiply => l == Some(1) || r == Some(1),
        B::Divide => r == Some(1),
        B::And => all_ones(left) || all_ones(right),
        _ => false,
    }
}

/// An operation whose value is known whatever its other operand (`x * 0`, `x & 0`,
/// `x % 1`).
fn annihilated(
    f: &Function,
    op: BinaryOperator,
    left: Handle<Expression>,
    right: Handle<Expression>,
) -> bool {
    use BinaryOperator as B;
    let (l, r) = (int_literal(f, left), int_literal(f, right));
    match op {
        B::Multiply | B::And => l == Some(0) || r == Some(0),
        B::Modulo => r == Some(1),
        _ => false,
    }
}

/// The cost of an integer division or remainder (`op`) of type `ty` by a value known when
/// compiled (`value`, where it is a literal): a shift or a mask by a power of two (the
/// ordinary 1), else a multiply-high and a shift ([`CONSTANT_DIVISION_OPS`]), and for a
/// remainder the multiply back and a subtract ([`CONSTANT_REMAINDER_OPS`]); per
/// component (0: not integer, or 1 where the ordinary cost applies).
fn constant_division_ops(op: BinaryOperator, value: Option<i64>, ty: &naga::TypeInner) -> u32 {
    let (scalar, n) = match *ty {
        naga::TypeInner::Scalar(s) => (s, 1),
        naga::TypeInner::Vector { size, scalar } => (scalar, size as u32),
        _ => return 0,
    };
    if !matches!(scalar.kind, naga::ScalarKind::Uint | naga::ScalarKind::Sint) {
        return 0;
    }
    let power_of_two = value.is_some_and(|v| v > 0 && (v as u64).is_power_of_two());
    match (power_of_two, op) {
        (true, _) => 0,
        (false, BinaryOperator::Modulo) => CONSTANT_REMAINDER_OPS * n,
        (false, _) => CONSTANT_DIVISION_OPS * n,
    }
}

/// The cost of an integer division of type `ty` by a run-time value (0: not integer).
fn division_ops(ty: &naga::TypeInner) -> u32 {
    let (scalar, n) = match *ty {
        naga::TypeInner::Scalar(s) => (s, 1),
        naga::TypeInner::Vector { size, scalar } => (scalar, size as u32),
        _ => return 0,
    };
    match scalar.kind {
        naga::ScalarKind::Uint => U32_DIVISION_OPS * n,
        naga::ScalarKind::Sint => I32_DIVISION_OPS * n,
        _ => 0,
    }
}

use naga::{
    AddressSpace, BinaryOperator, Block, Expression, Function, GlobalVariable, Handle, Literal, Span,
    Statement,
};

/// Adds the counting code to `f`: every block first adds its cost to the private
/// `counter` (a `u32`).
pub fn count_function(
    f: &mut Function,
    globals: &naga::Arena<GlobalVariable>,
    facts: &Facts,
    counter: Handle<GlobalVariable>,
) {
    let ptr = f.expressions.append(Expression::GlobalVariable(counter), Span::UNDEFINED);
    let body = std::mem::take(&mut f.body);
    f.body = count_block(f, globals, facts, ptr, body);
}

fn count_block(
    f: &mut Function,
    globals: &naga::Arena<GlobalVariable>,
    facts: &Facts,
    ptr: Handle<Expression>,
    block: Block,
) -> Block {
    let mut n = 0u32;
    let mut out = Block::with_capacity(block.len() + 4);
    for (stmt, span) in block.span_into_iter() {
        n += statement_cost(f, globals, facts, &stmt);
        let count = |f: &mut Function, b| count_block(f, globals, facts, ptr, b);
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
                let mut bounded = add(f, ptr, LOOP_BOUNDING_OPS);
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
/// buffer access it makes; nested blocks not included.
pub fn statement_cost(
    f: &Function,
    globals: &naga::Arena<GlobalVariable>,
    facts: &Facts,
    s: &Statement,
) -> u32 {
    let known = |h: Handle<Expression>| facts.known(h);
    match *s {
        Statement::Emit(ref range) => range.clone().map(|h| expression_cost(f, globals, facts, h)).sum(),
        Statement::If { condition: c, .. } | Statement::Switch { selector: c, .. } => !known(c) as u32,
        Statement::ControlBarrier(_) | Statement::MemoryBarrier(_) => 1,
        // a store to a storage buffer is a trace record (`gst`), not other work
        Statement::Store { .. } => 0,
        Statement::Atomic { pointer, result, .. } => match global_memory(f, globals, pointer) {
            // a workgroup atomic whose old value is used: the code the driver makes of it
            // beyond the atomic itself (the trace's record)
            0 if result.is_some_and(|r| facts.live(r)) => WORKGROUP_ATOMIC_RESULT_OPS,
            n => n,
        },
        _ => 0,
    }
}

/// Per expression of `f` (by handle index): whether it is known when the shader is
/// compiled: a literal, constant, override or zero value, or an operation on such
/// values alone (a compiler folds it).
pub fn constants(f: &Function) -> Vec<bool> {
    let mut known = vec![false; f.expressions.len()];
    for (h, e) in f.expressions.iter() {
        let all = |hs: &[Handle<Expression>]| hs.iter().all(|x| known[x.index()]);
        known[h.index()] = match *e {
            Expression::Literal(_)
            | Expression::Constant(_)
            | Expression::Override(_)
            | Expression::ZeroValue(_) => true,
            Expression::Binary { op, left, right } => all(&[left, right]) || annihilated(f, op, left, right),
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

/// Cost of one emitted expression.
pub fn expression_cost(
    f: &Function,
    globals: &naga::Arena<GlobalVariable>,
    facts: &Facts,
    h: Handle<Expression>,
) -> u32 {
    if facts.known(h) || facts.free(h) || !facts.live(h) {
        return 0;
    }
    let division = facts.division(h);
    if division > 0 {
        return division;
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
        let info = naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::all(),
        )
        .validate(&module)
        .expect("the module validates");
        let facts = Facts::of(
            &module.entry_points[0].function,
            info.get_entry_point(0),
            &module.types,
            &module.global_variables,
        );
        let mut f = std::mem::take(&mut module.entry_points[0].function);
        count_function(&mut f, &module.global_variables, &facts, counter);
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
    fn integer_division_by_a_run_time_value_costs_its_expansion() {
        let body = |expr: &str| {
            format!(
                "@group(0) @binding(0) var<uniform> p: vec4<u32>;
                @group(0) @binding(1) var<storage, read_write> out: array<u32>;
                @compute @workgroup_size(64)
                fn main(@builtin(local_invocation_index) li: u32) {{
                    let d = p.x;
                    out[li] = u32({expr});
                }}"
            )
        };
        // against `u32(li)`: the uniform load (kept live by `+ d * 0u`, whose add costs
        // 1 in both), out's index and the conversion
        let with_d = |expr: &str| format!("u32({expr}) + d * 0u");
        let cost = |expr: &str| costs(&body(&with_d(expr)))[0] - costs(&body(&with_d("li")))[0];
        assert_eq!(cost("li / d"), U32_DIVISION_OPS);
        assert_eq!(cost("li % d"), U32_DIVISION_OPS);
        assert_eq!(cost("i32(li) / i32(d)"), 2 + I32_DIVISION_OPS); // two conversions
        assert_eq!(cost("(vec2(li) / vec2(d, 1u)).x"), 2 * U32_DIVISION_OPS); // per component
                                                                              // by a constant: a multiply-high and a shift (and for a remainder a multiply back
                                                                              // and a subtract), by a power of two a shift or a mask; float division: 1
        assert_eq!(cost("li / 7u"), CONSTANT_DIVISION_OPS);
        assert_eq!(cost("li % 7u"), CONSTANT_REMAINDER_OPS);
        assert_eq!(cost("li / 8u"), 1);
        assert_eq!(cost("li % 8u"), 1);
        assert_eq!(cost("f32(li) / f32(d)"), 3); // two conversions
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
    fn an_operation_with_its_identity_costs_nothing() {
        let body = |expr: &str| {
            format!(
                "@group(0) @binding(0) var<storage, read_write> out: array<u32>;
                @compute @workgroup_size(64)
                fn main(@builtin(local_invocation_index) li: u32) {{
                    out[li] = {expr};
                }}"
            )
        };
        // against `li` alone: out's index
        let cost = |expr: &str| costs(&body(expr))[0] - costs(&body("li"))[0];
        let identities =
            ["li * 1u", "1u * li", "li + 0u", "0u + li", "li - 0u", "li / 1u", "li | 0u", "li ^ 0u"];
        for same in identities.into_iter().chain(["li << 0u", "li >> 0u", "li & 0xffffffffu"]) {
            assert_eq!(cost(same), 0, "{same}");
        }
        // not identities: one operation each
        for other in ["li * 2u", "li + 1u", "0u - li", "li & 1u", "1u << li"] {
            assert_eq!(cost(other), 1, "{other}");
        }
        // annihilated: known whatever `li` is, and so is what follows from it alone
        assert_eq!(cost("(li * 0u) * 5u + li"), 1, "only the last `+`");
        assert_eq!(cost("(li & 0u) + (li % 1u)"), 0);
    }

    #[test]
    fn a_float_add_of_a_product_is_one_multiply_add() {
        let body = |expr: &str| {
            format!(
                "@group(0) @binding(0) var<storage, read_write> out: array<f32>;
                @compute @workgroup_size(64)
                fn main(@builtin(local_invocation_index) li: u32) {{
                    let x = f32(li);
                    out[li] = {expr};
                }}"
            )
        };
        // against `x` alone: out's index and the conversion
        let cost = |expr: &str| costs(&body(expr))[0] - costs(&body("x"))[0];
        assert_eq!(cost("x * 3.0 + 1.0"), 1);
        assert_eq!(cost("1.0 - x * x"), 1);
        assert_eq!(cost("fma(x, 3.0, 1.0)"), 1);
        assert_eq!(cost("x * x + x * 3.0"), 2, "one multiply and one multiply-add");
        assert_eq!(cost("((x * 2.0 + 1.0) * x + 3.0) * x + 4.0"), 3, "Horner: a multiply-add a step");
        assert_eq!(cost("(vec2(x) * 2.0 + 1.0).y"), 1, "vectors too");
        // not fused: an add of no product, and integers (a multiply-add of integers
        // issues as two, measured)
        assert_eq!(cost("x + 3.0"), 1);
        assert_eq!(cost("f32(li * 3u + 1u)"), 2);
    }

    #[test]
    fn an_override_set_to_an_identity_is_seen_through() {
        let src = "
            override K: u32 = 2u;
            @group(0) @binding(0) var<storage, read_write> out: array<u32>;
            @compute @workgroup_size(64)
            fn main(@builtin(local_invocation_index) li: u32) {
                out[li] = li * K + 3u;
            }";
        let cost = |k: f64| {
            let kernel = crate::kernel::load(src, "k.wgsl", None, &[("K".to_string(), k)]).unwrap();
            let f = &kernel.module.entry_points[0].function;
            let facts = Facts::of(
                f,
                kernel.info.get_entry_point(0),
                &kernel.module.types,
                &kernel.module.global_variables,
            );
            f.body.iter().map(|s| statement_cost(f, &kernel.module.global_variables, &facts, s)).sum::<u32>()
        };
        // the index into out, `*` and `+`; with K = 1 the multiply goes, with K = 0 the
        // multiply's value is known (0) and `+ 3u` with it
        assert_eq!(cost(2.0), 3);
        assert_eq!(cost(1.0), 2);
        assert_eq!(cost(0.0), 1);
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
