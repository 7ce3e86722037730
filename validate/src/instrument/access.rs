//! Recording one access or barrier: a new site for it, and the code that writes its
//! record (the access's address, or 0 for a barrier) where it happens.

use super::emit::Emitter;
use super::leaves::Pieces;
use super::pass::{location, FnCx, Pass};
use crate::error::InstrumentError;
use crate::record::SiteKind;
use naga::{Block, Expression, Function, Handle, Span};
use sim_core::Op;

impl Pass<'_> {
    /// Records an access through `ptr` of kind `op` (appending the code to `out`):
    /// `value` is the value it stores, if any, and `pieces` says which of the pointee's
    /// pieces it touches.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn access(
        &mut self,
        f: &mut Function,
        cx: &FnCx,
        out: &mut Block,
        ptr: Handle<Expression>,
        op: Op,
        value: Option<Handle<Expression>>,
        pieces: Pieces,
    ) -> Result<(), InstrumentError> {
        let leaves = self.pieces(f, cx, ptr, pieces)?;
        let dep = cx.tainted(ptr) || value.is_some_and(|v| cx.tainted(v));
        let member = self.within_element(f, cx, ptr);
        let addr = self.address(f, cx, out, ptr)?;
        let value = Self::materialize(f, out, addr);
        let what = format!("{} {}", op, self.at(f, ptr, &cx.name));
        let location = location(self.source, self.file, f.expressions.get_span(ptr));
        let site = self.new_site(SiteKind::Access { op, leaves, dep, member }, what, location)?;
        self.record(f, cx, out, site, value, true);
        Ok(())
    }

    /// Records a barrier described by `what`, at `span` of the source.
    pub(super) fn barrier(
        &mut self,
        f: &mut Function,
        cx: &FnCx,
        out: &mut Block,
        what: String,
        span: Span,
    ) -> Result<(), InstrumentError> {
        let location = location(self.source, self.file, span);
        let site = self.new_site(SiteKind::Barrier, what, location)?;
        let zero = Emitter { f }.u32(0);
        self.record(f, cx, out, site, zero, true);
        Ok(())
    }
}
