//! The pass's state: the module being rewritten, the sites found so far and the
//! limits on them, and the context of the function being walked. The work itself is
//! spread over the sibling modules as `impl Pass` blocks: `walk` (statements),
//! `access` and `emit` (records), `address` and `leaves` (what an access touches),
//! `specialize` (functions).

use super::globals::{FnVars, Globals};
use crate::error::InstrumentError;
use crate::record::{Site, SiteKind};
use naga::valid::{FunctionInfo, ModuleInfo};
use naga::{ArraySize, Expression, Function, GlobalVariable, Handle, Span, Type};
use std::collections::HashMap;

/// Most sites (accesses, barriers, loops) one specialised program may have.
pub const MAX_SITES: usize = 1 << 16;
/// Most leaves (scalar or vector pieces) one whole-value copy may be split into.
pub const MAX_LEAVES: usize = 1 << 16;

/// The instrumentation of one entry point and the functions it calls.
pub(super) struct Pass<'a> {
    pub(super) types: &'a naga::UniqueArena<Type>,
    /// Lengths of override-sized arrays (overrides are resolved before the pass).
    pub(super) pending: HashMap<Handle<naga::Override>, u32>,
    pub(super) info: &'a ModuleInfo,
    /// The module's functions before the pass (call sites are specialised from these).
    pub(super) originals: &'a naga::Arena<Function>,
    pub(super) global_vars: &'a naga::Arena<GlobalVariable>,
    /// The module's functions, where specialised copies are appended.
    pub(super) functions: &'a mut naga::Arena<Function>,
    pub(super) source: &'a str,
    pub(super) file: &'a str,
    /// Byte offset of each workgroup variable the entry point uses.
    pub(super) base: Vec<Option<u32>>,
    /// Functions (original handles) that touch workgroup memory or barriers.
    pub(super) needs: Vec<bool>,
    pub(super) g: Globals,
    /// Every site so far, indexed by site id.
    pub(super) sites: Vec<Site>,
    /// The loop sites enclosing the statement being walked, outermost first.
    pub(super) loop_stack: Vec<u32>,
    /// Program-order position of the next site.
    pub(super) next_order: u32,
    /// Specialised function copies so far.
    pub(super) clones: usize,
    /// Whether a function returns a tainted value, by its arguments' taint (see
    /// `specialize.rs`): each callee is analysed once per taint of its arguments.
    pub(super) returns: std::cell::RefCell<Returns>,
}

/// Whether a function returns a tainted value, by the function and its arguments' taint.
pub(super) type Returns = HashMap<(Handle<Function>, Vec<bool>), bool>;

/// The function being rewritten: its original info and its extra arguments.
pub(super) struct FnCx<'i> {
    pub(super) info: &'i FunctionInfo,
    pub(super) name: String,
    /// For each original argument: the expression holding its byte address when it is
    /// a `ptr<workgroup, ...>`.
    pub(super) arg_base: Vec<Option<Handle<Expression>>>,
    pub(super) vars: FnVars,
    /// Per original expression: computed from a workgroup load's value.
    pub(super) tainted: Vec<bool>,
    /// Per original expression: what its cost depends on (see [`crate::ops`]).
    pub(super) facts: crate::ops::Facts,
}

impl FnCx<'_> {
    /// Whether original expression `h` is computed from a loaded value.
    pub(super) fn tainted(&self, h: Handle<Expression>) -> bool {
        self.tainted.get(h.index()).copied().unwrap_or(false)
    }
}

/// Operations of the current block not yet added to the counter, and whether the next
/// use of a loaded value may be the first since the last record.
pub(super) struct Count {
    pub(super) pending: u32,
    pub(super) look_for_use: bool,
}

/// `file:line:col` of a span, or the file alone when the span is unknown.
pub(super) fn location(source: &str, file: &str, span: Span) -> String {
    if span.is_defined() && !source.is_empty() {
        let loc = span.location(source);
        format!("{file}:{}:{}", loc.line_number, loc.line_position)
    } else {
        file.to_string()
    }
}

impl Pass<'_> {
    /// Elements of an array of constant or (resolved) override size.
    pub(super) fn length(&self, size: ArraySize) -> Option<u32> {
        match size {
            ArraySize::Constant(n) => Some(n.get()),
            ArraySize::Pending(h) => self.pending.get(&h).copied(),
            ArraySize::Dynamic => None,
        }
    }

    /// Where expression `h` of function `fname` is, for messages: `file:line:col` and
    /// the function.
    pub(super) fn at(&self, f: &Function, h: Handle<Expression>, fname: &str) -> String {
        format!("{} (in `{fname}`)", location(self.source, self.file, f.expressions.get_span(h)))
    }

    /// A new site of `kind` at the current position in program order, inside the loops
    /// being walked; its id.
    pub(super) fn new_site(
        &mut self,
        kind: SiteKind,
        what: String,
        location: String,
    ) -> Result<u32, InstrumentError> {
        if self.sites.len() >= MAX_SITES {
            return Err(InstrumentError::TooLarge {
                what: format!(
                    "more than {MAX_SITES} access sites after specialising functions per call site"
                ),
            });
        }
        let id = self.sites.len() as u32;
        let loops = self.loop_stack.clone();
        self.sites.push(Site { kind, order: self.next_order, loops, what, location });
        self.next_order += 1;
        Ok(id)
    }
}
