//! The statement walk: rewrites a block so that every access to workgroup memory (and
//! every storage access on a followed chain), every barrier and every loop with sites
//! records itself, splitting `Emit` ranges around the loads it records, and adds the
//! block's operation count to the counter before each record, nested block or exit.
//! Calls of functions that need instrumenting go to specialised copies (see the
//! `specialize` module, which walks their bodies with this walk).

use super::emit::Emitter;
use super::leaves::Pieces;
use super::pass::{Count, FnCx, Pass};
use super::scope::is_workgroup_ptr;
use crate::error::InstrumentError;
use crate::record::{SiteKind, CUT_WORD};
use naga::{
    AtomicFunction, BinaryOperator, Block, Expression, Function, Handle, LocalVariable, Span, Statement,
};
use sim_core::Op;

impl Pass<'_> {
    /// The instrumented copy of `block`, a block of `f`.
    pub(super) fn block(
        &mut self,
        f: &mut Function,
        cx: &FnCx,
        block: Block,
    ) -> Result<Block, InstrumentError> {
        let mut out = Block::with_capacity(block.len());
        let mut count = Count { pending: 0, look_for_use: true };
        for (stmt, span) in block.span_into_iter() {
            let cost = crate::ops::statement_cost(f, self.global_vars, &cx.facts, &stmt);
            match stmt {
                Statement::Emit(range) => {
                    self.emit_range(f, cx, &mut out, &mut count, range, span)?;
                    continue;
                }
                Statement::Store { pointer, value } if self.is_shared(cx, pointer) => {
                    Self::flush(f, cx, &mut out, &mut count);
                    self.access(f, cx, &mut out, pointer, Op::Store, Some(value), Pieces::Whole)?;
                    count.look_for_use = true;
                }
                Statement::Store { pointer, value } if self.is_storage(f, cx, pointer) => {
                    Self::flush(f, cx, &mut out, &mut count);
                    self.access(f, cx, &mut out, pointer, Op::GlobalStore, Some(value), Pieces::Whole)?;
                    count.look_for_use = true;
                }
                Statement::Atomic { pointer, ref fun, result, value } if self.is_shared(cx, pointer) => {
                    // an old value that reaches nothing the kernel does is not returned
                    let used = result.is_some_and(|r| cx.info[r].ref_count > 0 && cx.facts.live(r));
                    let op = if used || matches!(fun, AtomicFunction::Exchange { compare: Some(_) }) {
                        Op::Atomic
                    } else {
                        Op::Reduction
                    };
                    Self::flush(f, cx, &mut out, &mut count);
                    self.access(f, cx, &mut out, pointer, op, Some(value), Pieces::Whole)?;
                    count.look_for_use = true;
                    // the driver's code for a returning atomic: after it, on its value
                    if cost > 0 {
                        Self::use_here(f, cx, &mut out, &mut count);
                        count.pending += cost;
                    }
                }
                Statement::WorkGroupUniformLoad { pointer, .. } => {
                    // a barrier, the load by every invocation, a barrier
                    let what = format!("workgroupUniformLoad {}", self.at(f, pointer, &cx.name));
                    Self::flush(f, cx, &mut out, &mut count);
                    self.barrier(f, cx, &mut out, what.clone(), span)?;
                    self.access(f, cx, &mut out, pointer, Op::Load, None, Pieces::Whole)?;
                    self.barrier(f, cx, &mut out, what, span)?;
                    count.look_for_use = true;
                }
                Statement::ControlBarrier(_) => {
                    let what = format!("barrier in `{}`", cx.name);
                    Self::end_stretch(f, cx, &mut out, &mut count, false, cost);
                    self.barrier(f, cx, &mut out, what, span)?;
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
                    Self::end_stretch(f, cx, &mut out, &mut count, cx.tainted(condition), cost);
                    let accept = self.block(f, cx, accept)?;
                    let reject = self.block(f, cx, reject)?;
                    out.push(Statement::If { condition, accept, reject }, span);
                    count.look_for_use = true;
                    continue;
                }
                Statement::Switch { selector, cases } => {
                    Self::end_stretch(f, cx, &mut out, &mut count, cx.tainted(selector), cost);
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
                    self.instrument_loop(f, cx, &mut out, &mut count, (body, continuing, break_if), span)?;
                    count.look_for_use = true;
                    continue;
                }
                Statement::Call { function, mut arguments, result } if self.needs[function.index()] => {
                    let uses = arguments.iter().any(|&a| cx.tainted(a));
                    Self::end_stretch(f, cx, &mut out, &mut count, uses, cost);
                    let callee = &self.originals[function];
                    let mut extra = Vec::new();
                    for (i, &a) in arguments.iter().enumerate() {
                        if is_workgroup_ptr(&self.types[callee.arguments[i].ty].inner) {
                            let addr = self.address(f, cx, &mut out, a)?;
                            extra.push(Self::materialize(f, &mut out, addr));
                        }
                    }
                    let tainted: Vec<bool> = arguments.iter().map(|&a| cx.tainted(a)).collect();
                    let new_fn = self.specialize(function, &tainted)?;
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
                    Self::end_stretch(f, cx, &mut out, &mut count, false, cost);
                }
                _ => count.pending += cost,
            }
            out.push(stmt, span);
        }
        Self::flush(f, cx, &mut out, &mut count);
        Ok(out)
    }

    /// Before a statement that ends the block's straight-line stretch (a branch, call,
    /// barrier or exit) of `cost` operations: marks the first use of a loaded value
    /// there when it `uses` one, then adds the stretch and the statement to the counter.
    fn end_stretch(f: &mut Function, cx: &FnCx, out: &mut Block, count: &mut Count, uses: bool, cost: u32) {
        if uses {
            Self::use_here(f, cx, out, count);
        }
        count.pending += cost;
        Self::flush(f, cx, out, count);
    }

    /// Re-emits the expressions of `range` into `out`, split around the loads it records
    /// (each record goes between the expressions before the load and the load itself)
    /// and around the first use of a loaded value.
    fn emit_range(
        &mut self,
        f: &mut Function,
        cx: &FnCx,
        out: &mut Block,
        count: &mut Count,
        range: naga::Range<Expression>,
        span: Span,
    ) -> Result<(), InstrumentError> {
        let mut pending: Option<(Handle<Expression>, Handle<Expression>)> = None;
        for h in range {
            let cost = crate::ops::expression_cost(f, self.global_vars, &cx.facts, h);
            // the pointer of a recorded load (one whose value is dead is not made: the
            // compiler deletes it, `crate::liveness`)
            let recorded_load = match f.expressions[h] {
                _ if !cx.facts.live(h) => None,
                Expression::Load { pointer } if self.is_shared(cx, pointer) => Some((pointer, Op::Load)),
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
            if recorded_load.is_some() || uses {
                if let Some((a, b)) = pending.take() {
                    out.push(Statement::Emit(naga::Range::new_from_bounds(a, b)), span);
                }
            }
            if let Some((pointer, op)) = recorded_load {
                Self::flush(f, cx, out, count);
                self.access(f, cx, out, pointer, op, None, Pieces::UsedBy(h))?;
                count.look_for_use = true;
            }
            if uses {
                Self::use_here(f, cx, out, count);
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
        Ok(())
    }

    /// The instrumented loop, pushed to `out`: its body and continuing block walked
    /// inside a new loop site, the body charged the loop's bounding operations (unless
    /// the loop is one a compiler unrolls), and, when the loop contains sites, an
    /// iteration counter set up in `out` and recorded at the top of every iteration.
    /// The operations counted before it are flushed to `out` first. Every exit of the
    /// loop (a `break` of its own, its `break if`) sets a flag, and after the loop a flag
    /// still clear marks the trace buffer's cut word ([`crate::record::CUT_WORD`]): the
    /// adapter stopped the loop.
    fn instrument_loop(
        &mut self,
        f: &mut Function,
        cx: &FnCx,
        out: &mut Block,
        count: &mut Count,
        (body, continuing, break_if): (Block, Block, Option<Handle<Expression>>),
        span: Span,
    ) -> Result<(), InstrumentError> {
        Self::flush(f, cx, out, count);
        let what =
            format!("loop at {} (in `{}`)", super::pass::location(self.source, self.file, span), cx.name);
        let site = self.new_site(SiteKind::Loop, what, self.file.to_string())?;
        let before = self.sites.len();
        self.loop_stack.push(site);
        let body = self.block(f, cx, body);
        let continuing = body.and_then(|b| Ok((b, self.block(f, cx, continuing)?)));
        self.loop_stack.pop();
        let (body, mut continuing) = continuing?;
        let mut bounded = crate::ops::add(f, cx.vars.ops, crate::ops::LOOP_BOUNDING_OPS);
        bounded.extend_block(body);
        let body = bounded;
        let body = if self.sites.len() > before {
            let counter = f.local_variables.append(
                LocalVariable { name: Some("banksim_iter".into()), ty: self.g.u32_ty, init: None },
                Span::UNDEFINED,
            );
            let mut e = Emitter { f };
            let var = e.expr(out, Expression::LocalVariable(counter));
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
        // the exit flag: cleared before the loop, set by each of its exits
        let exited = f.local_variables.append(
            LocalVariable { name: Some("banksim_exited".into()), ty: self.g.u32_ty, init: None },
            Span::UNDEFINED,
        );
        let mut e = Emitter { f };
        let flag = e.expr(out, Expression::LocalVariable(exited));
        let (zero, one) = (e.u32(0), e.u32(1));
        out.push(Statement::Store { pointer: flag, value: zero }, Span::UNDEFINED);
        let body = flag_breaks(body, flag, one);
        if let Some(condition) = break_if {
            let taken = e.expr(&mut continuing, Expression::Select { condition, accept: one, reject: zero });
            continuing.push(Statement::Store { pointer: flag, value: taken }, Span::UNDEFINED);
        }
        out.push(Statement::Loop { body, continuing, break_if }, span);
        let left = e.expr(out, Expression::Load { pointer: flag });
        let cut = e.binary(out, BinaryOperator::Equal, left, zero);
        let mut mark = Block::new();
        let word = e.expr(&mut mark, Expression::AccessIndex { base: cx.vars.trace, index: CUT_WORD });
        let id = e.u32(site + 1);
        mark.push(
            Statement::Atomic { pointer: word, fun: AtomicFunction::Max, value: id, result: None },
            Span::UNDEFINED,
        );
        out.push(Statement::If { condition: cut, accept: mark, reject: Block::new() }, Span::UNDEFINED);
        Ok(())
    }
}

/// `block` with `flag = one` before every `break` that leaves the loop whose body it is:
/// not those of a nested loop or `switch` (a `break` there leaves that).
fn flag_breaks(block: Block, flag: Handle<Expression>, one: Handle<Expression>) -> Block {
    let mut out = Block::with_capacity(block.len());
    for (stmt, span) in block.span_into_iter() {
        let stmt = match stmt {
            Statement::Break => {
                out.push(Statement::Store { pointer: flag, value: one }, Span::UNDEFINED);
                Statement::Break
            }
            Statement::Block(b) => Statement::Block(flag_breaks(b, flag, one)),
            Statement::If { condition, accept, reject } => Statement::If {
                condition,
                accept: flag_breaks(accept, flag, one),
                reject: flag_breaks(reject, flag, one),
            },
            other => other,
        };
        out.push(stmt, span);
    }
    out
}
