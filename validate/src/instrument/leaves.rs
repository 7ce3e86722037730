//! The pieces an access touches: a scalar or vector is one piece (or one per component
//! when its size is not a valid access width), a whole struct, array or matrix one per
//! leaf; of a loaded aggregate, only the pieces its uses read.

use super::address::{column_stride, Pointee};
use super::pass::{FnCx, Pass, MAX_LEAVES};
use crate::error::InstrumentError;
use naga::{Expression, Function, Handle, Scalar, Type, TypeInner};

/// Which pieces of its pointee an access touches.
#[derive(Clone, Copy)]
pub(super) enum Pieces {
    /// Every piece (a store, an atomic, a whole-value load).
    Whole,
    /// A load whose value is this expression: of a struct or array, only the pieces
    /// the kernel uses, as a compiler loads them (`let p = a[i]; p.x` reads one
    /// member); every piece where the whole value is used (stored, passed, indexed
    /// dynamically) or where no use is visible.
    UsedBy(Handle<Expression>),
}

/// A vector is one access when its size is a valid width (2, 4, 8, 16 bytes), else one
/// per component (`vec3<f32>`: three 4-byte accesses).
fn vector_leaves(size: Option<naga::VectorSize>, scalar: Scalar, offset: u32, out: &mut Vec<(u32, u8)>) {
    let n = size.map_or(1, |s| s as u32);
    let bytes = n * scalar.width as u32;
    if n != 3 && sim_core::is_valid_width(bytes as u8) && bytes <= 16 {
        out.push((offset, bytes as u8));
    } else {
        for i in 0..n {
            out.push((offset + i * scalar.width as u32, scalar.width));
        }
    }
}

impl Pass<'_> {
    /// The pieces, as (byte offset, width), that an access through `ptr` touches.
    pub(super) fn pieces(
        &self,
        f: &Function,
        cx: &FnCx,
        ptr: Handle<Expression>,
        pieces: Pieces,
    ) -> Result<Vec<(u32, u8)>, InstrumentError> {
        let mut leaves = self.leaves(f, cx, ptr)?;
        if let (Pieces::UsedBy(load), Pointee::Ty(ty)) = (pieces, self.pointee(cx, ptr)) {
            let mut used = Vec::new();
            if self.used_leaves(f, cx, load, ty, 0, &mut used) && !used.is_empty() {
                used.sort_unstable();
                used.dedup();
                leaves = used;
            }
        }
        Ok(leaves)
    }

    /// Every piece, as (byte offset, width), of what `ptr` points at.
    fn leaves(
        &self,
        f: &Function,
        cx: &FnCx,
        ptr: Handle<Expression>,
    ) -> Result<Vec<(u32, u8)>, InstrumentError> {
        let mut out = Vec::new();
        let ok = match self.pointee(cx, ptr) {
            Pointee::Ty(ty) => self.type_leaves(ty, 0, &mut out),
            Pointee::Value(size, scalar) => {
                vector_leaves(size, scalar, 0, &mut out);
                true
            }
            Pointee::NotPointer => false,
        };
        if !ok {
            return Err(InstrumentError::Unsupported {
                at: self.at(f, ptr, &cx.name),
                what: "access to a workgroup value of a type without a fixed layout".into(),
            });
        }
        if out.len() > MAX_LEAVES {
            return Err(InstrumentError::TooLarge {
                what: format!(
                    "{}: a whole-value copy of {} pieces (at most {MAX_LEAVES})",
                    self.at(f, ptr, &cx.name),
                    out.len()
                ),
            });
        }
        Ok(out)
    }

    /// Appends the pieces of a value of type `ty` at `offset`; `false` when the type
    /// has no fixed layout.
    fn type_leaves(&self, ty: Handle<Type>, offset: u32, out: &mut Vec<(u32, u8)>) -> bool {
        if out.len() > MAX_LEAVES {
            return true;
        }
        match self.types[ty].inner {
            TypeInner::Scalar(s) | TypeInner::Atomic(s) => out.push((offset, s.width)),
            TypeInner::Vector { size, scalar } => vector_leaves(Some(size), scalar, offset, out),
            TypeInner::Matrix { columns, rows, scalar } => {
                for c in 0..columns as u32 {
                    vector_leaves(Some(rows), scalar, offset + c * column_stride(rows, scalar), out);
                }
            }
            TypeInner::Array { base, size, stride } => {
                let Some(n) = self.length(size) else { return false };
                for i in 0..n {
                    if !self.type_leaves(base, offset + i * stride, out) {
                        return false;
                    }
                }
            }
            TypeInner::Struct { ref members, .. } => {
                for m in members {
                    if !self.type_leaves(m.ty, offset + m.offset, out) {
                        return false;
                    }
                }
            }
            _ => return false,
        }
        true
    }

    /// Collects into `out` the pieces of the value `h` (of type `ty`, at `offset` in the
    /// loaded value) that its uses read: a member or constant element taken with
    /// `AccessIndex` contributes its own used pieces (none where its value is dead), any
    /// other use the whole value.
    /// `false` when the value's type has no fixed layout.
    fn used_leaves(
        &self,
        f: &Function,
        cx: &FnCx,
        h: Handle<Expression>,
        ty: Handle<Type>,
        offset: u32,
        out: &mut Vec<(u32, u8)>,
    ) -> bool {
        let inner = &self.types[ty].inner;
        let prunable = matches!(inner, TypeInner::Struct { .. } | TypeInner::Array { .. });
        let refs = cx.info[h].ref_count;
        let mut partial = 0;
        if prunable {
            // only the function's own expressions (those `info` describes) are uses
            for (e, expr) in f.expressions.iter().take(cx.tainted.len()) {
                let Expression::AccessIndex { base, index } = *expr else { continue };
                if base != h {
                    continue;
                }
                let child = match *inner {
                    TypeInner::Struct { ref members, .. } => {
                        members.get(index as usize).map(|m| (m.ty, offset + m.offset))
                    }
                    TypeInner::Array { base, stride, .. } => Some((base, offset + index * stride)),
                    _ => None,
                };
                let Some((cty, coff)) = child else { return self.type_leaves(ty, offset, out) };
                partial += 1;
                // a piece whose value reaches nothing the kernel does is not loaded
                if !cx.facts.live(e) {
                    continue;
                }
                if !self.used_leaves(f, cx, e, cty, coff, out) {
                    return false;
                }
            }
        }
        if !prunable || partial < refs {
            return self.type_leaves(ty, offset, out);
        }
        true
    }
}
