//! Emitting the instrumentation's code: an expression appender ([`Emitter`]), the
//! code that writes one record (within the run's window, an `atomicAdd` for a slot,
//! then one store per word),
//! the entry point's prologue that initialises the per-invocation variables, and the
//! updates of the operation counter and of the first use of a loaded value.

use super::globals::FnVars;
use super::pass::{Count, FnCx, Pass};
use crate::record::{HEADER_WORDS, NO_USE, RECORD_WORDS, STEPS_WORD, WINDOW_WORD};
use naga::{
    AtomicFunction, BinaryOperator, Block, Expression, Function, Handle, Literal, MathFunction, Span,
    Statement,
};

/// Appends expressions to a function, emitting the ones that need it into a block.
pub(super) struct Emitter<'f> {
    pub(super) f: &'f mut Function,
}

impl Emitter<'_> {
    /// Appends `e`, and an `Emit` of it to `out` unless naga forbids emitting it.
    pub(super) fn expr(&mut self, out: &mut Block, e: Expression) -> Handle<Expression> {
        let pre = e.needs_pre_emit();
        let h = self.f.expressions.append(e, Span::UNDEFINED);
        if !pre && !matches!(self.f.expressions[h], Expression::AtomicResult { .. }) {
            out.push(Statement::Emit(naga::Range::new_from_bounds(h, h)), Span::UNDEFINED);
        }
        h
    }

    /// A `u32` literal (never emitted).
    pub(super) fn u32(&mut self, v: u32) -> Handle<Expression> {
        self.f.expressions.append(Expression::Literal(Literal::U32(v)), Span::UNDEFINED)
    }

    /// `left op right`, emitted into `out`.
    pub(super) fn binary(
        &mut self,
        out: &mut Block,
        op: BinaryOperator,
        left: Handle<Expression>,
        right: Handle<Expression>,
    ) -> Handle<Expression> {
        self.expr(out, Expression::Binary { op, left, right })
    }
}

/// The entry point's prologue: stores the linear workgroup id (from `wid`, the
/// `workgroup_id` built-in, and the dispatch size in the trace header) and `lid` (the
/// `local_invocation_index` built-in) into the private variables, and clears the first
/// use.
pub(super) fn prologue(f: &mut Function, vars: &FnVars, lid: Expression, wid: Expression) -> Block {
    let mut prologue = Block::new();
    let mut e = Emitter { f };
    let lid = e.expr(&mut prologue, lid);
    let wid = e.expr(&mut prologue, wid);
    let hdr = |e: &mut Emitter, out: &mut Block, i| {
        let p = e.expr(out, Expression::AccessIndex { base: vars.trace, index: i });
        e.expr(out, Expression::Load { pointer: p })
    };
    let gx = hdr(&mut e, &mut prologue, 2);
    let gy = hdr(&mut e, &mut prologue, 3);
    let c =
        |e: &mut Emitter, out: &mut Block, i| e.expr(out, Expression::AccessIndex { base: wid, index: i });
    let (x, y, z) = (c(&mut e, &mut prologue, 0), c(&mut e, &mut prologue, 1), c(&mut e, &mut prologue, 2));
    let zy = e.binary(&mut prologue, BinaryOperator::Multiply, z, gy);
    let yz = e.binary(&mut prologue, BinaryOperator::Add, y, zy);
    let yzx = e.binary(&mut prologue, BinaryOperator::Multiply, yz, gx);
    let lin = e.binary(&mut prologue, BinaryOperator::Add, x, yzx);
    prologue.push(Statement::Store { pointer: vars.wg, value: lin }, Span::UNDEFINED);
    prologue.push(Statement::Store { pointer: vars.lid, value: lid }, Span::UNDEFINED);
    let none = e.u32(NO_USE);
    prologue.push(Statement::Store { pointer: vars.first_use, value: none }, Span::UNDEFINED);
    prologue
}

impl Pass<'_> {
    /// Appends the record-writing code for `site` with `value` (address or iteration).
    /// An access or barrier record (`ends_gap`) also starts a new gap: the first use is
    /// looked for afresh after it.
    pub(super) fn record(
        &self,
        f: &mut Function,
        cx: &FnCx,
        out: &mut Block,
        site: u32,
        value: Handle<Expression>,
        ends_gap: bool,
    ) {
        let v = &cx.vars;
        let mut e = Emitter { f };
        let step = e.expr(out, Expression::Load { pointer: v.step });
        let first_use = e.expr(out, Expression::Load { pointer: v.first_use });
        let wg = e.expr(out, Expression::Load { pointer: v.wg });
        let one = e.u32(1);
        let next = e.binary(out, BinaryOperator::Add, step, one);
        // the steps: raised by the records that pass the largest step so far, so that
        // few records of a run take the atomic
        let steps = e.expr(out, Expression::AccessIndex { base: v.trace, index: STEPS_WORD });
        let seen = e.expr(out, Expression::Load { pointer: steps });
        let higher = e.binary(out, BinaryOperator::Greater, next, seen);
        let mut raise = Block::new();
        raise.push(
            Statement::Atomic { pointer: steps, fun: AtomicFunction::Max, value: next, result: None },
            Span::UNDEFINED,
        );
        out.push(Statement::If { condition: higher, accept: raise, reject: Block::new() }, Span::UNDEFINED);
        // the window: workgroup and step within their bounds
        let mut bound = |k: u32| {
            let p = e.expr(out, Expression::AccessIndex { base: v.trace, index: WINDOW_WORD + k });
            e.expr(out, Expression::Load { pointer: p })
        };
        let [b0, b1, s0, s1] = [0, 1, 2, 3].map(&mut bound);
        let mut within = e.binary(out, BinaryOperator::GreaterEqual, wg, b0);
        for (op, left, right) in [
            (BinaryOperator::Less, wg, b1),
            (BinaryOperator::GreaterEqual, step, s0),
            (BinaryOperator::Less, step, s1),
        ] {
            let test = e.binary(out, op, left, right);
            within = e.binary(out, BinaryOperator::LogicalAnd, within, test);
        }
        let mut counted = Block::new();
        let count = e.expr(&mut counted, Expression::AccessIndex { base: v.trace, index: 0 });
        let slot = e.expr(&mut counted, Expression::AtomicResult { ty: self.g.u32_ty, comparison: false });
        counted.push(
            Statement::Atomic { pointer: count, fun: AtomicFunction::Add, value: one, result: Some(slot) },
            Span::UNDEFINED,
        );
        let cap_ptr = e.expr(&mut counted, Expression::AccessIndex { base: v.trace, index: 1 });
        let cap = e.expr(&mut counted, Expression::Load { pointer: cap_ptr });
        let fits = e.binary(&mut counted, BinaryOperator::Less, slot, cap);
        let mut accept = Block::new();
        let words = e.u32(RECORD_WORDS);
        let first = e.binary(&mut accept, BinaryOperator::Multiply, slot, words);
        let data = e.expr(&mut accept, Expression::AccessIndex { base: v.trace, index: HEADER_WORDS });
        let lid = e.expr(&mut accept, Expression::Load { pointer: v.lid });
        let site = e.u32(site);
        let ops = e.expr(&mut accept, Expression::Load { pointer: v.ops });
        // the words in the order of `crate::record::RawRecord`
        for (k, word) in [wg, lid, step, site, value, ops, first_use].into_iter().enumerate() {
            let k = e.u32(k as u32);
            let index = e.binary(&mut accept, BinaryOperator::Add, first, k);
            let p = e.expr(&mut accept, Expression::Access { base: data, index });
            accept.push(Statement::Store { pointer: p, value: word }, Span::UNDEFINED);
        }
        counted.push(Statement::If { condition: fits, accept, reject: Block::new() }, Span::UNDEFINED);
        out.push(Statement::If { condition: within, accept: counted, reject: Block::new() }, Span::UNDEFINED);
        out.push(Statement::Store { pointer: v.step, value: next }, Span::UNDEFINED);
        if ends_gap {
            let none = e.u32(NO_USE);
            out.push(Statement::Store { pointer: v.first_use, value: none }, Span::UNDEFINED);
        }
    }

    /// Adds the operations counted so far in this block to the counter.
    pub(super) fn flush(f: &mut Function, cx: &FnCx, out: &mut Block, count: &mut Count) {
        if count.pending > 0 {
            out.extend_block(crate::ops::add(f, cx.vars.ops, count.pending));
            count.pending = 0;
        }
    }

    /// Marks a use of a loaded value here, if it is the first since the last record:
    /// `first_use = min(first_use, ops)` (after the operations before it are counted).
    pub(super) fn use_here(f: &mut Function, cx: &FnCx, out: &mut Block, count: &mut Count) {
        if !count.look_for_use {
            return;
        }
        Self::flush(f, cx, out, count);
        let mut e = Emitter { f };
        let ops = e.expr(out, Expression::Load { pointer: cx.vars.ops });
        let first = e.expr(out, Expression::Load { pointer: cx.vars.first_use });
        let min = e.expr(
            out,
            Expression::Math { fun: MathFunction::Min, arg: first, arg1: Some(ops), arg2: None, arg3: None },
        );
        out.push(Statement::Store { pointer: cx.vars.first_use, value: min }, Span::UNDEFINED);
        count.look_for_use = false;
    }
}
