//! Instrumenting whole functions: the entry point (a prologue that initialises the
//! per-invocation variables, then its body) and, for every call site of a function that
//! touches workgroup memory, a specialised copy (so a helper called twice gives two
//! sets of sites), where each `ptr<workgroup, T>` parameter gets its byte address as
//! an extra `u32` argument.

use super::emit;
use super::pass::{FnCx, Pass, MAX_SITES};
use super::scope::{is_recorded_ptr, is_workgroup_ptr};
use crate::error::InstrumentError;
use naga::valid::FunctionInfo;
use naga::{Binding, BuiltIn, Expression, Function, FunctionArgument, Handle, Span, Type, TypeInner};

impl Pass<'_> {
    /// Instruments the entry point `f` (named `name`, described by `info`) in place.
    pub(super) fn entry(
        &mut self,
        f: &mut Function,
        info: &FunctionInfo,
        name: &str,
    ) -> Result<(), InstrumentError> {
        // before anything is appended: `info` covers the original expressions only
        let tainted = self.taint(f, info, &[]);
        let facts = crate::ops::Facts::of(f, info, self.types, self.global_vars);
        let vars = self.g.in_function(f);
        // local_invocation_index and workgroup_id: reuse the entry point's, or add them
        let lid = self.builtin_arg(f, BuiltIn::LocalInvocationIndex, self.g.u32_ty);
        let wid = self.builtin_arg(f, BuiltIn::WorkGroupId, self.g.vec3_ty);
        let mut prologue = emit::prologue(f, &vars, lid, wid);
        let cx = FnCx {
            info,
            name: name.to_string(),
            arg_base: vec![None; f.arguments.len()],
            vars,
            tainted,
            facts,
        };
        let body = std::mem::take(&mut f.body);
        let body = self.block(f, &cx, body)?;
        prologue.extend_block(body);
        f.body = prologue;
        Ok(())
    }

    /// A copy of `function` for one call site, instrumented, appended to the module;
    /// `args` says which of the call's arguments are computed from a recorded load.
    pub(super) fn specialize(
        &mut self,
        function: Handle<Function>,
        args: &[bool],
    ) -> Result<Handle<Function>, InstrumentError> {
        self.clones += 1;
        if self.clones > MAX_SITES {
            return Err(InstrumentError::TooLarge {
                what: format!("more than {MAX_SITES} specialised function copies"),
            });
        }
        let mut g = self.originals[function].clone();
        let info = &self.info[function];
        let tainted = self.taint(&g, info, args);
        let facts = crate::ops::Facts::of(&g, info, self.types, self.global_vars);
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
        let vars = self.g.in_function(&mut g);
        let cx = FnCx { info, name: name.clone(), arg_base, vars, tainted, facts };
        let body = std::mem::take(&mut g.body);
        g.body = self.block(&mut g, &cx, body)?;
        g.name = Some(format!("{name}_banksim{}", self.clones));
        Ok(self.functions.append(g, Span::UNDEFINED))
    }

    /// Which of `f`'s expressions are computed from a recorded load's value (see
    /// [`crate::deps`]); call it before appending to `f`, as `info` describes the
    /// original expressions only.
    fn taint(&self, f: &Function, info: &FunctionInfo, args: &[bool]) -> Vec<bool> {
        let returns = |callee: Handle<Function>, args: &[bool]| {
            let key = (callee, args.to_vec());
            if let Some(&r) = self.returns.borrow().get(&key) {
                return r;
            }
            let t = self.taint(&self.originals[callee], &self.info[callee], args);
            let r = crate::deps::returned(&self.originals[callee], &t);
            self.returns.borrow_mut().insert(key, r);
            r
        };
        crate::deps::taint(
            f,
            self.global_vars,
            |p| is_recorded_ptr(info[p].ty.inner_with(self.types)),
            args,
            &returns,
        )
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
}
