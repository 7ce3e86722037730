//! The critical path of the other work: how long an invocation's work between two
//! records takes when its independent operations overlap.
//!
//! [`crate::ops`] counts the operations a stretch of code executes (its issue slots).
//! A GPU issues a warp's independent operations back to back and waits only where one
//! needs the result of another, so the time the work takes its warp is the longest
//! chain of dependent operations in it (each operation's latency being its cost), or its
//! issue slots where those are more. [`Chains`] follows the chains of one *stretch* —
//! the straight-line code the instrumentation counts between two records, nested blocks
//! or exits — and gives its longest; the capture adds it to a second counter as it adds
//! the operations to the first, and the decoder turns the two into the trace's `gap`
//! and `path`.
//!
//! A value computed before the stretch is taken as ready when the stretch starts (its
//! chain was charged to the stretch that computed it), and so is a value loaded from
//! memory (a load's latency is the engine's: the trace's `wait`). Inside the stretch a
//! function-local or private variable carries the depth of the value last stored into
//! it. An `if` or `switch` is one operation after its condition; a loop iteration's
//! bounding arithmetic (wgpu's 64-bit counter) runs beside the body, as a chain of
//! [`LOOP_BOUNDING_PATH`] operations.

use crate::liveness::{operands_of, root, Var};
use naga::{Expression, Function, GlobalVariable, Handle};
use std::collections::HashMap;

/// The longest chain of the operations wgpu's loop bounding adds to every loop
/// iteration ([`crate::ops::LOOP_BOUNDING_OPS`] of them): the counter's decrement, the
/// borrow's compare and the subtract from the high word; the exit test (a compare, an
/// `all` and the branch) runs beside it.
pub const LOOP_BOUNDING_PATH: u32 = 3;

/// The chains of dependent operations of one stretch of code (see the module).
#[derive(Debug, Default)]
pub struct Chains {
    /// Depth of each expression computed in the stretch (its chain's operations, its own
    /// cost included), by handle index.
    depth: HashMap<usize, u32>,
    /// Depth of the value last stored into each local or private variable.
    vars: HashMap<Var, u32>,
    /// The longest chain so far.
    longest: u32,
}

impl Chains {
    /// No stretch yet.
    pub fn new() -> Chains {
        Chains::default()
    }

    /// The depth of `h`'s value: 0 unless computed in this stretch.
    fn depth_of(&self, h: Handle<Expression>) -> u32 {
        self.depth.get(&h.index()).copied().unwrap_or(0)
    }

    /// Adds expression `h` of `f`, which costs `cost` operations ([`crate::ops`]): its
    /// chain is its operands' longest plus its cost; a load of a local or private
    /// variable continues the chain of the value stored into it.
    pub fn expression(
        &mut self,
        f: &Function,
        globals: &naga::Arena<GlobalVariable>,
        h: Handle<Expression>,
        cost: u32,
    ) {
        let e = &f.expressions[h];
        let before = match *e {
            Expression::Load { pointer } => match root(f, globals, pointer) {
                Some(v) => self.vars.get(&v).copied().unwrap_or(0).max(self.depth_of(pointer)),
                None => self.depth_of(pointer),
            },
            _ => operands_of(e).map_or(0, |ops| ops.iter().map(|&o| self.depth_of(o)).max().unwrap_or(0)),
        };
        let depth = before + cost;
        if depth > 0 {
            self.depth.insert(h.index(), depth);
        }
        self.longest = self.longest.max(depth);
    }

    /// A store of `value` through `pointer`: a local or private variable now holds a value
    /// of `value`'s depth.
    pub fn store(
        &mut self,
        f: &Function,
        globals: &naga::Arena<GlobalVariable>,
        pointer: Handle<Expression>,
        value: Handle<Expression>,
    ) {
        if let Some(v) = root(f, globals, pointer) {
            let d = self.depth_of(value);
            // (a store into part of a composite keeps the deeper of the two)
            let slot = self.vars.entry(v).or_insert(0);
            *slot = (*slot).max(d);
        }
    }

    /// A statement's own operations (a branch, a barrier, the driver's code on an
    /// atomic's value) after the value `after` (if any): `cost` more on its chain.
    pub fn statement(&mut self, after: Option<Handle<Expression>>, cost: u32) {
        let d = after.map_or(0, |h| self.depth_of(h)) + cost;
        self.longest = self.longest.max(d);
    }

    /// An expression whose value is ready `depth` operations into the stretch (an
    /// atomic's result, after the driver's code on it).
    pub fn result(&mut self, h: Handle<Expression>, depth: u32) {
        if depth > 0 {
            self.depth.insert(h.index(), depth);
        }
        self.longest = self.longest.max(depth);
    }

    /// A chain of `depth` operations beside the others (a loop iteration's bounding).
    pub fn beside(&mut self, depth: u32) {
        self.longest = self.longest.max(depth);
    }

    /// The stretch's longest chain so far, in operations.
    pub fn longest(&self) -> u32 {
        self.longest
    }

    /// The longest chain, and a new stretch: the values computed so far are ready.
    pub fn take(&mut self) -> u32 {
        self.depth.clear();
        self.vars.clear();
        std::mem::take(&mut self.longest)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use naga::Statement;

    /// The longest chain of the entry point's first block, every live operation costing
    /// what [`crate::ops`] charges.
    fn longest(src: &str) -> (u32, u32) {
        let module = naga::front::wgsl::parse_str(src).unwrap();
        let info = naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::all(),
        )
        .validate(&module)
        .unwrap();
        let f = &module.entry_points[0].function;
        let g = &module.global_variables;
        let facts = crate::ops::Facts::of(f, info.get_entry_point(0), &module.types, g);
        let mut chains = Chains::new();
        let mut ops = 0;
        for s in f.body.iter() {
            match *s {
                Statement::Emit(ref r) => {
                    for h in r.clone() {
                        let cost = crate::ops::expression_cost(f, g, &facts, h);
                        ops += cost;
                        chains.expression(f, g, h, cost);
                    }
                }
                Statement::Store { pointer, value } => chains.store(f, g, pointer, value),
                _ => {}
            }
        }
        (ops, chains.take())
    }

    const HEAD: &str = "@group(0) @binding(0) var<storage, read_write> out: array<f32>;
        @compute @workgroup_size(64)
        fn main(@builtin(local_invocation_index) li: u32) {
            let x = f32(li);";

    #[test]
    fn independent_operations_are_one_deep_and_a_chain_is_as_deep_as_it_is_long() {
        // three independent products of x (each 1 after the conversion), summed by a
        // chain of two adds, stored at a dynamic index (1, beside)
        let (ops, path) = longest(&format!("{HEAD} out[li] = x * 2.0 + x * 3.0 + x * 4.0; }}"));
        assert_eq!((ops, path), (7, 4), "f32(li), the products, the adds: 1 + 1 + 2");
        let (ops, path) = longest(&format!("{HEAD} out[li] = ((x * 2.0 + 1.0) * 3.0 + 1.0) * 4.0; }}"));
        assert_eq!((ops, path), (7, 6), "every operation waits for the one before");
    }

    #[test]
    fn a_local_variable_carries_its_value_s_chain() {
        let (ops, path) = longest(&format!(
            "{HEAD} var a = x * 2.0; var b = x * 3.0; a = a * a; b = b * b; out[li] = a + b; }}"
        ));
        // f32(li) 1, then a: 2 deep, 3 with its square; b beside it; the add 4
        assert_eq!((ops, path), (7, 4));
    }

    #[test]
    fn a_new_stretch_starts_with_every_value_ready() {
        let mut chains = Chains::new();
        chains.beside(LOOP_BOUNDING_PATH);
        chains.statement(None, 1);
        assert_eq!(chains.take(), LOOP_BOUNDING_PATH);
        assert_eq!(chains.take(), 0);
    }
}
