//! Work an optimizing compiler does once: an expression whose value an earlier one
//! already computed where both run (common subexpressions: `(ux + uy)` written twice,
//! `(1.0 / 9.0) * rho` in every line of a collision step, the same array index in a load
//! and a store), and an expression inside a loop whose operands do not change in it
//! (loop-invariant code, computed before the loop: `y * 32u + x` in a time-step loop).
//! The operation count ([`crate::ops`]) charges such expressions nothing.
//!
//! Values are numbered by their operation and their operands' numbers (literals by
//! value, commutative operations with their operands in order), so that two writings of
//! one value get one number; an expression is computed before where an earlier, live
//! expression of its number was emitted in its block or a block around it. Loads,
//! call results and atomics are never the same value as another: memory may change
//! between them. An expression is loop-invariant where every operand is emitted outside
//! the nearest loop around it, or is loop-invariant itself; loads never are. Its
//! one-time cost before the loop is not charged.

use naga::{BinaryOperator, Block, Expression, Function, Handle, Statement};
use std::collections::HashMap;

/// Where an emitted expression is: its block and its place in program order.
#[derive(Clone, Copy)]
struct Place {
    block: u32,
    order: u32,
}

/// The blocks of a function: each one's parent and the loop (the block of its body)
/// nearest around it.
#[derive(Default)]
struct Blocks {
    parent: Vec<Option<u32>>,
    in_loop: Vec<Option<u32>>,
    places: Vec<Option<Place>>,
    order: u32,
}

impl Blocks {
    fn walk(&mut self, block: &Block, parent: Option<u32>, in_loop: Option<u32>) -> u32 {
        let id = self.parent.len() as u32;
        self.parent.push(parent);
        self.in_loop.push(in_loop);
        for s in block.iter() {
            match s {
                Statement::Emit(range) => {
                    for h in range.clone() {
                        self.order += 1;
                        self.places[h.index()] = Some(Place { block: id, order: self.order });
                    }
                }
                Statement::Block(b) => {
                    self.walk(b, Some(id), in_loop);
                }
                Statement::If { accept, reject, .. } => {
                    self.walk(accept, Some(id), in_loop);
                    self.walk(reject, Some(id), in_loop);
                }
                Statement::Switch { cases, .. } => {
                    for c in cases {
                        self.walk(&c.body, Some(id), in_loop);
                    }
                }
                Statement::Loop { body, continuing, .. } => {
                    // the loop is known by its body's block; `continuing` is inside it
                    let loop_id = self.parent.len() as u32;
                    self.walk(body, Some(id), Some(loop_id));
                    self.walk(continuing, Some(loop_id), Some(loop_id));
                }
                _ => self.order += 1,
            }
        }
        id
    }

    /// Whether block `outer` is `inner` or a block around it.
    fn encloses(&self, outer: u32, mut inner: u32) -> bool {
        loop {
            if inner == outer {
                return true;
            }
            match self.parent[inner as usize] {
                Some(p) => inner = p,
                None => return false,
            }
        }
    }
}

/// The key of an expression's value from its operands' value numbers, or `None` for
/// one that is never the same value as another (loads, call results, atomics...).
fn value_key(e: &Expression, vn: &[u32]) -> Option<String> {
    use Expression as E;
    let v = |h: Handle<Expression>| vn[h.index()];
    Some(match *e {
        E::Literal(l) => match l {
            naga::Literal::F32(x) => format!("f32 {}", x.to_bits()),
            naga::Literal::F64(x) => format!("f64 {}", x.to_bits()),
            naga::Literal::F16(x) => format!("f16 {}", x.to_bits()),
            naga::Literal::AbstractFloat(x) => format!("af {}", x.to_bits()),
            other => format!("{other:?}"),
        },
        E::Binary { op, left, right } => {
            let (mut a, mut b) = (v(left), v(right));
            let commutes = matches!(
                op,
                BinaryOperator::Add
                    | BinaryOperator::Multiply
                    | BinaryOperator::And
                    | BinaryOperator::InclusiveOr
                    | BinaryOperator::ExclusiveOr
                    | BinaryOperator::Equal
                    | BinaryOperator::NotEqual
                    | BinaryOperator::LogicalAnd
                    | BinaryOperator::LogicalOr
            );
            if commutes && a > b {
                std::mem::swap(&mut a, &mut b);
            }
            format!("bin {op:?} {a} {b}")
        }
        E::Unary { op, expr } => format!("un {op:?} {}", v(expr)),
        E::As { expr, kind, convert } => format!("as {kind:?} {convert:?} {}", v(expr)),
        E::Splat { size, value } => format!("splat {size:?} {}", v(value)),
        E::Swizzle { size, vector, pattern } => format!("swz {size:?} {pattern:?} {}", v(vector)),
        E::Compose { ty, ref components } => {
            format!("compose {} {:?}", ty.index(), components.iter().map(|&c| v(c)).collect::<Vec<_>>())
        }
        E::Select { condition, accept, reject } => {
            format!("sel {} {} {}", v(condition), v(accept), v(reject))
        }
        E::Relational { fun, argument } => format!("rel {fun:?} {}", v(argument)),
        E::Math { fun, arg, arg1, arg2, arg3 } => {
            let o = |a: Option<Handle<Expression>>| a.map(v);
            format!("math {fun:?} {} {:?} {:?} {:?}", v(arg), o(arg1), o(arg2), o(arg3))
        }
        E::Access { base, index } => format!("acc {} {}", v(base), v(index)),
        E::AccessIndex { base, index } => format!("acci {} {index}", v(base)),
        // the same variable or argument is the same pointer or value
        E::GlobalVariable(g) => format!("global {}", g.index()),
        E::LocalVariable(l) => format!("local {}", l.index()),
        E::FunctionArgument(i) => format!("arg {i}"),
        E::Constant(c) => format!("const {}", c.index()),
        E::Override(o) => format!("override {}", o.index()),
        E::ZeroValue(ty) => format!("zero {}", ty.index()),
        _ => return None,
    })
}

/// For each of `f`'s expressions, whether an optimizing compiler computes it only once
/// elsewhere (see the module documentation); `live` says which expressions' values reach
/// anything the kernel does ([`crate::liveness`]).
pub fn computed_once(f: &Function, live: &[bool]) -> Vec<bool> {
    let n = f.expressions.len();
    let mut blocks = Blocks { places: vec![None; n], ..Blocks::default() };
    blocks.walk(&f.body, None, None);
    let is_live = |h: usize| live.get(h).copied().unwrap_or(true);
    // value numbers (the first expression of each value's index), and each value's live
    // emitted expressions so far
    let mut vn = vec![0u32; n];
    let mut keys: HashMap<String, u32> = HashMap::new();
    let mut seen: HashMap<u32, Vec<Place>> = HashMap::new();
    let mut once = vec![false; n];
    // loop-invariant: for expressions inside a loop, whether nothing they use changes in it
    let mut invariant = vec![false; n];
    for (h, e) in f.expressions.iter() {
        let i = h.index();
        let key = value_key(e, &vn);
        vn[i] = match &key {
            Some(k) => *keys.entry(k.clone()).or_insert(i as u32),
            None => i as u32,
        };
        let Some(place) = blocks.places[i] else { continue };
        if key.is_some() {
            let earlier = seen.entry(vn[i]).or_default();
            if earlier.iter().any(|p| p.order < place.order && blocks.encloses(p.block, place.block)) {
                once[i] = true;
            }
            if is_live(i) {
                earlier.push(place);
            }
        }
        if let (Some(looped), Some(ops), true) =
            (blocks.in_loop[place.block as usize], crate::liveness::operands_of(e), key.is_some())
        {
            let outside = |o: Handle<Expression>| match blocks.places[o.index()] {
                // not emitted: a literal, argument, variable, constant
                None => {
                    !matches!(f.expressions[o], Expression::CallResult(_) | Expression::AtomicResult { .. })
                }
                Some(p) => !blocks.encloses(looped, p.block) || invariant[o.index()],
            };
            invariant[i] = !matches!(e, Expression::Load { .. }) && ops.iter().all(|&o| outside(o));
            once[i] |= invariant[i];
        }
    }
    once
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The entry point's expressions computed once, as (WGSL-ish name, once) of its
    /// binary operations in arena order.
    fn binaries(src: &str) -> Vec<bool> {
        let module = naga::front::wgsl::parse_str(src).unwrap();
        let f = &module.entry_points[0].function;
        let live = crate::liveness::live(f, &module.global_variables);
        let once = computed_once(f, &live);
        f.expressions
            .iter()
            .filter(|(_, e)| matches!(e, Expression::Binary { .. }))
            .map(|(h, _)| once[h.index()])
            .collect()
    }

    #[test]
    fn a_value_written_twice_is_computed_once() {
        let b = binaries(
            "@group(0) @binding(0) var<storage, read_write> out: array<f32>;
            @compute @workgroup_size(1) fn main(@builtin(local_invocation_index) t: u32) {
                let ux = f32(t);
                let uy = ux * 2.0;
                out[0] = (ux + uy) * (uy + ux);
                if (t > 3u) { out[1] = ux + uy; }
            }",
        );
        // ux * 2.0, ux + uy, uy + ux (the same), their product, t > 3u, ux + uy in the if
        assert_eq!(b, [false, false, true, false, false, true]);
    }

    #[test]
    fn a_value_in_one_branch_is_not_computed_in_the_other() {
        let b = binaries(
            "@group(0) @binding(0) var<storage, read_write> out: array<u32>;
            @compute @workgroup_size(1) fn main(@builtin(local_invocation_index) t: u32) {
                if (t > 3u) { out[0] = t * 7u; } else { out[1] = t * 7u; }
            }",
        );
        assert_eq!(b, [false, false, false]);
    }

    #[test]
    fn loop_invariant_work_is_computed_before_the_loop() {
        let b = binaries(
            "@group(0) @binding(0) var<storage, read_write> out: array<u32>;
            @compute @workgroup_size(1) fn main(@builtin(local_invocation_index) t: u32) {
                var acc = 0u;
                for (var i = 0u; i < 8u; i++) {
                    acc += (t * 32u + 5u) ^ i;
                }
                out[t] = acc;
            }",
        );
        // i < 8u, t * 32u, + 5u (invariant), ^ i, acc + (changes), i + 1u
        assert_eq!(b, [false, true, true, false, false, false]);
    }
}
