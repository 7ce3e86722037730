//! Byte addresses from access chains: the WGSL memory layout of what a pointer points
//! at (array and matrix strides, struct member offsets, vector components), the code
//! that computes an access's address (dynamic indices cast to `u32` and clamped to the
//! array length, as wgpu's bounds-check policy does), and which storage pointers have
//! an address the capture follows.

use super::emit::Emitter;
use super::pass::{FnCx, Pass};
use super::scope::{is_storage_ptr, is_workgroup_ptr};
use crate::error::InstrumentError;
use naga::{
    AddressSpace, ArraySize, BinaryOperator, Block, Expression, Function, Handle, MathFunction, Scalar,
    ScalarKind, Type, TypeInner,
};

/// Where a byte address comes from: a constant plus an optional dynamic part.
#[derive(Clone, Copy)]
pub(super) struct Addr {
    pub(super) dynamic: Option<Handle<Expression>>,
    pub(super) constant: u32,
}

/// What a pointer points at: a type, or the vector or scalar of a value pointer.
pub(super) enum Pointee {
    Ty(Handle<Type>),
    Value(Option<naga::VectorSize>, Scalar),
    NotPointer,
}

/// Byte stride between matrix columns (a column is a vector with its alignment).
pub(super) fn column_stride(rows: naga::VectorSize, scalar: Scalar) -> u32 {
    let align = if rows == naga::VectorSize::Bi { 2 } else { 4 } * scalar.width as u32;
    (rows as u32 * scalar.width as u32).div_ceil(align) * align
}

/// The variant name of an expression, for messages.
fn expression_name(e: &Expression) -> String {
    let s = format!("{e:?}");
    let end = s.find([' ', '(', '{']).unwrap_or(s.len());
    format!("a `{}` expression", &s[..end])
}

impl Pass<'_> {
    /// The pointee type of a pointer expression, as (type handle) or a value pointer.
    pub(super) fn pointee(&self, cx: &FnCx, ptr: Handle<Expression>) -> Pointee {
        match *cx.info[ptr].ty.inner_with(self.types) {
            TypeInner::Pointer { base, .. } => Pointee::Ty(base),
            TypeInner::ValuePointer { size, scalar, .. } => Pointee::Value(size, scalar),
            _ => Pointee::NotPointer,
        }
    }

    /// Whether `ptr` points into workgroup memory.
    pub(super) fn is_shared(&self, cx: &FnCx, ptr: Handle<Expression>) -> bool {
        is_workgroup_ptr(cx.info[ptr].ty.inner_with(self.types))
    }

    /// Whether `ptr` points into a storage buffer along an access chain whose byte
    /// offset the capture computes (its accesses are `gld` / `gst`). A storage pointer
    /// passed as an argument, or into a binding array, is not followed: its accesses
    /// count as other work.
    pub(super) fn is_storage(&self, f: &Function, cx: &FnCx, ptr: Handle<Expression>) -> bool {
        if !is_storage_ptr(cx.info[ptr].ty.inner_with(self.types)) {
            return false;
        }
        let mut p = ptr;
        loop {
            match f.expressions[p] {
                Expression::GlobalVariable(g) => {
                    return !matches!(
                        self.types[self.global_vars[g].ty].inner,
                        TypeInner::BindingArray { .. }
                    )
                }
                Expression::AccessIndex { base, index } => {
                    if self.member_offset(f, cx, base, index).is_err() {
                        return false;
                    }
                    p = base;
                }
                Expression::Access { base, .. } => {
                    if self.indexing(f, cx, base).is_err() {
                        return false;
                    }
                    p = base;
                }
                _ => return false,
            }
        }
    }

    /// (stride, element count) of indexing into what `ptr` points at.
    pub(super) fn indexing(
        &self,
        f: &Function,
        cx: &FnCx,
        ptr: Handle<Expression>,
    ) -> Result<(u32, u32), InstrumentError> {
        let vector = |size: naga::VectorSize, scalar: Scalar| (scalar.width as u32, size as u32);
        let r = match self.pointee(cx, ptr) {
            Pointee::Ty(ty) => match self.types[ty].inner {
                TypeInner::Array { size: ArraySize::Dynamic, stride, .. } => Some((stride, u32::MAX)),
                TypeInner::Array { size, stride, .. } => self.length(size).map(|n| (stride, n)),
                TypeInner::Vector { size, scalar } => Some(vector(size, scalar)),
                TypeInner::Matrix { columns, rows, scalar } => {
                    Some((column_stride(rows, scalar), columns as u32))
                }
                _ => None,
            },
            Pointee::Value(Some(size), scalar) => Some(vector(size, scalar)),
            _ => None,
        };
        r.ok_or_else(|| InstrumentError::Unsupported {
            at: self.at(f, ptr, &cx.name),
            what: "dynamic index into a workgroup value whose size is not a constant (runtime-sized or unresolved override-sized array)".into(),
        })
    }

    /// Byte offset of member/component `index` of what `ptr` points at.
    pub(super) fn member_offset(
        &self,
        f: &Function,
        cx: &FnCx,
        ptr: Handle<Expression>,
        index: u32,
    ) -> Result<u32, InstrumentError> {
        let r = match self.pointee(cx, ptr) {
            Pointee::Ty(ty) => match self.types[ty].inner {
                TypeInner::Struct { ref members, .. } => members.get(index as usize).map(|m| m.offset),
                TypeInner::Array { stride, .. } => Some(index * stride),
                TypeInner::Vector { scalar, .. } => Some(index * scalar.width as u32),
                TypeInner::Matrix { rows, scalar, .. } => Some(index * column_stride(rows, scalar)),
                _ => None,
            },
            Pointee::Value(Some(_), scalar) => Some(index * scalar.width as u32),
            _ => None,
        };
        r.ok_or_else(|| InstrumentError::Unsupported {
            at: self.at(f, ptr, &cx.name),
            what: format!("constant index {index} into a workgroup value of unsupported type"),
        })
    }

    /// The byte offset of what `ptr` points at inside the struct, vector or matrix
    /// element around it that a compiler knows statically: the chain of constant
    /// member and component indices above `ptr`, up to an array's element, the
    /// variable or a pointer argument. `None` where `ptr` points at neither such an
    /// element nor into one (an array's scalar element, a component picked at run
    /// time). See [`crate::record::SiteKind::Access`]'s `member`.
    pub(super) fn within_element(&self, f: &Function, cx: &FnCx, ptr: Handle<Expression>) -> Option<u32> {
        let composite = |p: Handle<Expression>| match self.pointee(cx, p) {
            Pointee::Ty(ty) => matches!(
                self.types[ty].inner,
                TypeInner::Struct { .. } | TypeInner::Vector { .. } | TypeInner::Matrix { .. }
            ),
            Pointee::Value(size, _) => size.is_some(),
            Pointee::NotPointer => false,
        };
        let mut inside = composite(ptr);
        let (mut p, mut offset) = (ptr, 0);
        loop {
            let (base, index) = match f.expressions[p] {
                Expression::AccessIndex { base, index } => (base, index),
                Expression::Access { base, index } => match f.expressions[index] {
                    Expression::Literal(naga::Literal::U32(i)) => (base, i),
                    Expression::Literal(naga::Literal::I32(i)) if i >= 0 => (base, i as u32),
                    _ => break,
                },
                _ => break,
            };
            if !composite(base) {
                break;
            }
            offset += self.member_offset(f, cx, base, index).ok()?;
            inside = true;
            p = base;
        }
        inside.then_some(offset)
    }

    /// The byte address of workgroup pointer `ptr`, computed from its access chain.
    pub(super) fn address(
        &self,
        f: &mut Function,
        cx: &FnCx,
        out: &mut Block,
        ptr: Handle<Expression>,
    ) -> Result<Addr, InstrumentError> {
        match f.expressions[ptr].clone() {
            Expression::GlobalVariable(g) => match self.base.get(g.index()).copied().flatten() {
                Some(offset) => Ok(Addr { dynamic: None, constant: offset }),
                // a storage buffer: byte offsets within it (its lines are what counts)
                None if matches!(self.global_vars[g].space, AddressSpace::Storage { .. }) => {
                    Ok(Addr { dynamic: None, constant: 0 })
                }
                None => Err(InstrumentError::Unsupported {
                    at: self.at(f, ptr, &cx.name),
                    what: format!(
                        "global `{}` is not a workgroup variable of the entry point",
                        self.global_vars[g].name.as_deref().unwrap_or("?")
                    ),
                }),
            },
            Expression::FunctionArgument(i) => match cx.arg_base.get(i as usize).copied().flatten() {
                Some(h) => Ok(Addr { dynamic: Some(h), constant: 0 }),
                None => Err(InstrumentError::Unsupported {
                    at: self.at(f, ptr, &cx.name),
                    what: format!("workgroup pointer argument {i} without a known base"),
                }),
            },
            Expression::AccessIndex { base, index } => {
                let a = self.address(f, cx, out, base)?;
                let off = self.member_offset(f, cx, base, index)?;
                Ok(Addr { dynamic: a.dynamic, constant: a.constant + off })
            }
            Expression::Access { base, index } => {
                let a = self.address(f, cx, out, base)?;
                let (stride, len) = self.indexing(f, cx, base)?;
                let kind = match *cx.info[index].ty.inner_with(self.types) {
                    TypeInner::Scalar(s) => s.kind,
                    _ => ScalarKind::Bool,
                };
                let mut e = Emitter { f };
                let idx = match kind {
                    ScalarKind::Uint => index,
                    ScalarKind::Sint | ScalarKind::AbstractInt => {
                        e.expr(out, Expression::As { expr: index, kind: ScalarKind::Uint, convert: Some(4) })
                    }
                    _ => {
                        return Err(InstrumentError::Unsupported {
                            at: self.at(e.f, index, &cx.name),
                            what: "index of a workgroup access is not an integer scalar".into(),
                        })
                    }
                };
                let last = e.u32(len - 1);
                let clamped = e.expr(
                    out,
                    Expression::Math {
                        fun: MathFunction::Min,
                        arg: idx,
                        arg1: Some(last),
                        arg2: None,
                        arg3: None,
                    },
                );
                let stride = e.u32(stride);
                let scaled = e.binary(out, BinaryOperator::Multiply, clamped, stride);
                let dynamic = match a.dynamic {
                    Some(d) => e.binary(out, BinaryOperator::Add, d, scaled),
                    None => scaled,
                };
                Ok(Addr { dynamic: Some(dynamic), constant: a.constant })
            }
            other => Err(InstrumentError::Unsupported {
                at: self.at(f, ptr, &cx.name),
                what: format!("workgroup pointer built by {}", expression_name(&other)),
            }),
        }
    }

    /// The address as one `u32` expression.
    pub(super) fn materialize(f: &mut Function, out: &mut Block, a: Addr) -> Handle<Expression> {
        let mut e = Emitter { f };
        match (a.dynamic, a.constant) {
            (Some(d), 0) => d,
            (Some(d), c) => {
                let c = e.u32(c);
                e.binary(out, BinaryOperator::Add, d, c)
            }
            (None, c) => e.u32(c),
        }
    }
}
