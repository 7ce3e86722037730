//! Calls with constant arguments, as the GPU's compiler sees them: it inlines every
//! function, so an argument that is a literal at the call (`fi(c, 3u)`) is a constant in
//! the callee's code there, and what it decides folds (`q * 256u` is a constant, an
//! `if (q == 0u)` takes one side). Before the operation count, each call whose arguments
//! include literals goes to a copy of its callee with those arguments replaced by their
//! values (one copy per callee and tuple of literal values), so that the count
//! ([`crate::ops`]), the branches a constant decides ([`crate::dead_loops`]) and the
//! capture's addresses see what the compiler does. Copies are made again inside copies
//! (a literal passed on is a literal again), up to [`MAX_COPIES`].

use naga::{Arena, Block, Expression, Function, Handle, Literal, Module, Span, Statement};
use std::collections::HashMap;

/// Most copies one module gets; past it, calls stay as they are.
pub const MAX_COPIES: usize = 1024;

/// A function of the rebuilt module: one of the module's, or a copy.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Target {
    Original(usize),
    Copy(usize),
}

/// A literal as a key (floats by their bits).
fn key(l: &Literal) -> String {
    match *l {
        Literal::F64(v) => format!("f64:{}", v.to_bits()),
        Literal::F32(v) => format!("f32:{}", v.to_bits()),
        Literal::F16(v) => format!("f16:{}", v.to_bits()),
        Literal::AbstractFloat(v) => format!("af:{}", v.to_bits()),
        ref other => format!("{other:?}"),
    }
}

/// Calls `visit` on every call statement of `block`, in a fixed order (the order of the
/// statements, nested blocks where they stand).
fn each_call(block: &mut Block, visit: &mut impl FnMut(&mut Statement)) {
    for s in block.iter_mut() {
        match s {
            Statement::Call { .. } => visit(s),
            Statement::Block(b) => each_call(b, visit),
            Statement::If { accept, reject, .. } => {
                each_call(accept, visit);
                each_call(reject, visit);
            }
            Statement::Switch { cases, .. } => {
                for c in cases {
                    each_call(&mut c.body, visit);
                }
            }
            Statement::Loop { body, continuing, .. } => {
                each_call(body, visit);
                each_call(continuing, visit);
            }
            _ => {}
        }
    }
}

/// The copies a module's calls need, and where each call goes.
struct Plan {
    /// The module's functions as they were.
    originals: Vec<Function>,
    /// Each copy: the function it copies and its body with the literals in.
    copies: Vec<(usize, Function)>,
    by_key: HashMap<(usize, Vec<Option<String>>), usize>,
}

impl Plan {
    /// Where each call of `f` goes, in [`each_call`]'s order; makes the copies they need.
    fn targets(&mut self, f: &mut Function) -> Vec<Target> {
        let mut body = std::mem::take(&mut f.body);
        let mut targets = Vec::new();
        each_call(&mut body, &mut |s| {
            let Statement::Call { function, ref arguments, .. } = *s else { return };
            let literals: Vec<Option<Literal>> = arguments
                .iter()
                .map(|&a| match f.expressions[a] {
                    Expression::Literal(l) => Some(l),
                    _ => None,
                })
                .collect();
            targets.push(self.target(function.index(), &literals));
        });
        f.body = body;
        targets
    }

    /// The function a call of `callee` with `literals` goes to.
    fn target(&mut self, callee: usize, literals: &[Option<Literal>]) -> Target {
        if literals.iter().all(Option::is_none) {
            return Target::Original(callee);
        }
        let k = (callee, literals.iter().map(|l| l.as_ref().map(key)).collect());
        if let Some(&j) = self.by_key.get(&k) {
            return Target::Copy(j);
        }
        if self.copies.len() >= MAX_COPIES {
            return Target::Original(callee);
        }
        let mut copy = self.originals[callee].clone();
        for (_, e) in copy.expressions.iter_mut() {
            if let Expression::FunctionArgument(i) = *e {
                if let Some(Some(l)) = literals.get(i as usize) {
                    *e = Expression::Literal(*l);
                }
            }
        }
        let j = self.copies.len();
        self.by_key.insert(k, j);
        self.copies.push((callee, copy));
        Target::Copy(j)
    }
}

/// Sends `f`'s calls to `targets` (in [`each_call`]'s order), with `handle` the new
/// module's function of each target.
fn redirect(f: &mut Function, targets: &[Target], handle: &HashMap<Target, Handle<Function>>) {
    let mut body = std::mem::take(&mut f.body);
    let mut next = targets.iter();
    each_call(&mut body, &mut |s| {
        let Statement::Call { function, result, .. } = s else { return };
        let Some(t) = next.next() else { return };
        *function = handle[t];
        if let Some(r) = *result {
            *f.expressions.get_mut(r) = Expression::CallResult(*function);
        }
    });
    f.body = body;
}

/// Sends every call with literal arguments in `module` to a copy of its callee with
/// those arguments in (see the module documentation); whether any was.
pub fn specialize(module: &mut Module) -> bool {
    let n = module.functions.len();
    let mut plan = Plan {
        originals: module.functions.iter().map(|(_, f)| f.clone()).collect(),
        copies: Vec::new(),
        by_key: HashMap::new(),
    };
    let spans: Vec<Span> = module.functions.iter().map(|(h, _)| module.functions.get_span(h)).collect();
    // where the calls of the functions, the entry points and the copies go (copies made
    // along the way are planned in turn)
    // (a function's own body is out while it is planned: no function calls itself)
    let mut targets = Vec::with_capacity(n);
    for i in 0..n {
        let mut f = std::mem::take(&mut plan.originals[i]);
        targets.push(plan.targets(&mut f));
        plan.originals[i] = f;
    }
    let entry_targets: Vec<Vec<Target>> =
        module.entry_points.iter_mut().map(|e| plan.targets(&mut e.function)).collect();
    let mut copy_targets = Vec::new();
    while copy_targets.len() < plan.copies.len() {
        let j = copy_targets.len();
        let mut f = std::mem::take(&mut plan.copies[j].1);
        copy_targets.push(plan.targets(&mut f));
        plan.copies[j].1 = f;
    }
    if plan.copies.is_empty() {
        return false;
    }
    // the new arena: each function, then its copies (a function's callees come before it)
    let mut functions = Arena::new();
    let mut handle: HashMap<Target, Handle<Function>> = HashMap::new();
    let mut copies: Vec<Option<(usize, Function)>> = plan.copies.into_iter().map(Some).collect();
    for (i, mut f) in plan.originals.into_iter().enumerate() {
        redirect(&mut f, &targets[i], &handle);
        handle.insert(Target::Original(i), functions.append(f, spans[i]));
        for j in 0..copies.len() {
            if copies[j].as_ref().is_some_and(|(c, _)| *c == i) {
                let (_, mut f) = copies[j].take().expect("checked");
                redirect(&mut f, &copy_targets[j], &handle);
                handle.insert(Target::Copy(j), functions.append(f, spans[i]));
            }
        }
    }
    debug_assert_eq!(functions.len(), n + copy_targets.len());
    module.functions = functions;
    for (e, t) in module.entry_points.iter_mut().zip(&entry_targets) {
        redirect(&mut e.function, t, &handle);
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn module(src: &str) -> Module {
        let mut m = naga::front::wgsl::parse_str(src).unwrap();
        assert!(specialize(&mut m), "some call has a literal argument");
        crate::kernel::validator().validate(&m).unwrap();
        m
    }

    #[test]
    fn a_call_with_a_literal_goes_to_a_copy_with_the_literal_in() {
        let m = module(
            "fn fi(c: u32, q: u32) -> u32 { return q * 256u + c; }
            fn twice(c: u32, q: u32) -> u32 { return fi(c, q) + fi(c, 1u); }
            @group(0) @binding(0) var<storage, read_write> out: array<u32>;
            @compute @workgroup_size(1) fn main(@builtin(local_invocation_index) t: u32) {
                out[0] = fi(t, 3u) + fi(t, 3u) + fi(t, 4u) + twice(t, 5u) + fi(t, t);
            }",
        );
        // fi, its copies for 3, 4, 5 and 1; twice and its copy for 5
        assert_eq!(m.functions.len(), 7);
        let literal_args = |f: &Function| {
            f.expressions
                .iter()
                .filter(|(_, e)| matches!(e, Expression::Literal(Literal::U32(3 | 4 | 5 | 1))))
                .count()
        };
        let copies = m.functions.iter().filter(|(_, f)| literal_args(f) > 0).count();
        assert!(copies >= 5, "every copy holds its literal");
        // every call reaches a function before its caller
        for (h, f) in m.functions.iter() {
            crate::deps::each_statement(&f.body, &mut |s| {
                if let Statement::Call { function, .. } = s {
                    assert!(function.index() < h.index());
                }
            });
        }
    }
}
