//! Layout transformations of one shared array, for the fix advisor: row padding,
//! CuTe-style XOR swizzles, and the AoS ↔ SoA transpose. Each maps byte addresses of
//! the old layout to the new one; addresses past the array move by the bytes it grows.
//!
//! ```
//! use sim_core::layout::{ArrayShape, Layout};
//! let tile = ArrayShape { base: 0, rows: 32, cols: 32, elem: 4 };
//! // element [1][0] moves from byte 128 to 132 with one float of padding per row
//! assert_eq!(Layout::Pad { elems: 1 }.map(&tile, 128), 132);
//! assert_eq!(Layout::Pad { elems: 1 }.extra_bytes(&tile), 128);
//! // Swizzle<5,0,5>: column ^= row (the classic transpose swizzle)
//! let s = Layout::Swizzle { bits: 5, base: 0, shift: 5 };
//! assert_eq!(s.map(&tile, (3 * 32 + 1) * 4), (3 * 32 + (1 ^ 3)) * 4);
//! ```

use std::fmt;

/// A 2-D array in shared memory: `rows` rows of `cols` elements of `elem` bytes, row
/// after row from byte `base`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArrayShape {
    /// First byte of the array.
    pub base: u32,
    /// Rows.
    pub rows: u32,
    /// Elements per row (the current row pitch).
    pub cols: u32,
    /// Bytes per element.
    pub elem: u32,
}

impl ArrayShape {
    /// Bytes the array occupies.
    pub fn bytes(&self) -> u32 {
        self.rows * self.cols * self.elem
    }
}

/// A new layout for an array.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// Unchanged.
    Identity,
    /// `elems` elements of padding at the end of every row.
    Pad {
        /// Padding per row, in elements.
        elems: u32,
    },
    /// CuTe's `Swizzle<bits, base, shift>` on element offsets:
    /// `o ^ ((o & (((1 << bits) - 1) << (base + shift))) >> shift)`.
    Swizzle {
        /// Bits XORed.
        bits: u32,
        /// Lowest bit that changes (units of 2^base elements stay together).
        base: u32,
        /// Distance from the source bits to the changed bits.
        shift: u32,
    },
    /// Element (r, c) stored at (c, r): array of structs ↔ structure of arrays.
    Transpose,
}

impl Layout {
    /// Whether this layout is a bijection on `shape`'s elements that keeps accesses of
    /// `width` bytes aligned and contiguous.
    pub fn valid_for(&self, shape: &ArrayShape, width: u32) -> bool {
        let elems = shape.rows * shape.cols;
        match *self {
            Layout::Identity => true,
            Layout::Pad { elems: p } => (p * shape.elem).is_multiple_of(width.max(shape.elem)),
            Layout::Swizzle { bits, base, shift } => {
                bits > 0
                    && shift >= bits
                    && base + bits + shift <= 31
                    && elems.is_multiple_of(1 << (base + bits))
                    && elems >= 1 << (base + bits + shift)
                    && (1 << base) * shape.elem >= width
            }
            Layout::Transpose => shape.elem >= width,
        }
    }

    /// Bytes the array grows by.
    pub fn extra_bytes(&self, shape: &ArrayShape) -> u32 {
        match *self {
            Layout::Pad { elems } => shape.rows * elems * shape.elem,
            _ => 0,
        }
    }

    /// The new byte address of `addr`.
    pub fn map(&self, shape: &ArrayShape, addr: u32) -> u32 {
        if addr < shape.base {
            return addr;
        }
        let off = addr - shape.base;
        if off >= shape.bytes() {
            return addr + self.extra_bytes(shape);
        }
        let (e, byte) = (off / shape.elem, off % shape.elem);
        let (r, c) = (e / shape.cols, e % shape.cols);
        let new = match *self {
            Layout::Identity => e,
            Layout::Pad { elems } => r * (shape.cols + elems) + c,
            Layout::Swizzle { bits, base, shift } => {
                let mask = ((1u32 << bits) - 1) << (base + shift);
                e ^ ((e & mask) >> shift)
            }
            Layout::Transpose => c * shape.rows + r,
        };
        shape.base + new * shape.elem + byte
    }
}

impl fmt::Display for Layout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Layout::Identity => write!(f, "as is"),
            Layout::Pad { elems } => write!(f, "pad {elems}"),
            Layout::Swizzle { bits, base, shift } => write!(f, "Swizzle<{bits},{base},{shift}>"),
            Layout::Transpose => write!(f, "transpose (AoS<->SoA)"),
        }
    }
}
