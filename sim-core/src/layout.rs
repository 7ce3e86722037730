//! Layout transformations of one shared array, for the fix advisor: row padding,
//! CuTe-style XOR swizzles, the TMA's swizzle modes ([`TmaSwizzle`]), and the AoS ↔ SoA
//! transpose. Each maps byte addresses of the old layout to the new one; addresses past
//! the array move by the bytes it grows. [`spell`] writes a layout as CuTe and Triton
//! do, and names the TMA mode it is.
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

pub mod spell;
pub mod tma;

pub use tma::TmaSwizzle;

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
    /// A TMA swizzle mode on the array's byte offsets (the TMA's own layout where the
    /// array's base is a multiple of the mode's period and a row fits the mode's span).
    Tma(TmaSwizzle),
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
            Layout::Tma(m) => {
                let block = m.xors().iter().map(|&(b, lo, _)| 1u32 << (b + lo)).max().unwrap_or(1);
                shape.base.is_multiple_of(m.period())
                    && shape.bytes().is_multiple_of(block)
                    && m.unit() >= width.max(shape.elem)
                    && m.span().is_none_or(|s| shape.cols * shape.elem <= s)
            }
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
        if let Layout::Tma(m) = *self {
            return shape.base + m.map(off);
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
            Layout::Tma(_) => unreachable!("mapped on bytes above"),
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
            Layout::Tma(m) => write!(f, "{m}"),
        }
    }
}

/// A layout's text is not one [`Layout`] writes.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "layout `{0}`: expected `as is`, `pad N`, `Swizzle<B,M,S>` (on element offsets), `transpose`, or a TMA \
     swizzle mode (SWIZZLE_NONE, SWIZZLE_32B, SWIZZLE_64B, SWIZZLE_128B, SWIZZLE_128B_ATOM_32B, \
     SWIZZLE_128B_ATOM_32B_FLIP_8B, SWIZZLE_128B_ATOM_64B)"
)]
pub struct ParseLayoutError(pub String);

impl std::str::FromStr for Layout {
    type Err = ParseLayoutError;

    /// What [`Layout`]'s `Display` writes, read back; also `none`, `identity`,
    /// `transpose`, `pad N`, and a TMA mode by its driver API name with or without
    /// `TMA `, `CU_TENSOR_MAP_` or `SWIZZLE_` (`SWIZZLE_128B`, `tma 128b`).
    fn from_str(s: &str) -> Result<Layout, ParseLayoutError> {
        let bad = || ParseLayoutError(s.to_string());
        let t = s.trim();
        let lower = t.to_ascii_lowercase();
        if ["as is", "none", "identity"].contains(&lower.as_str()) {
            return Ok(Layout::Identity);
        }
        if lower == "transpose" || lower == "transpose (aos<->soa)" {
            return Ok(Layout::Transpose);
        }
        if let Some(n) = lower.strip_prefix("pad ") {
            return n
                .trim()
                .parse()
                .ok()
                .filter(|&e| e > 0)
                .map(|elems| Layout::Pad { elems })
                .ok_or_else(bad);
        }
        if let Some(args) = t.strip_prefix("Swizzle<").and_then(|r| r.strip_suffix('>')) {
            let v: Vec<u32> =
                args.split(',').map(|x| x.trim().parse()).collect::<Result<_, _>>().map_err(|_| bad())?;
            return match v[..] {
                [bits, base, shift] if bits > 0 && shift >= bits && base + bits + shift <= 31 => {
                    Ok(Layout::Swizzle { bits, base, shift })
                }
                _ => Err(bad()),
            };
        }
        let mode = lower.strip_prefix("tma").map_or(t, |_| t[3..].trim_start_matches(['-', ' ', '_']));
        TmaSwizzle::parse(mode).map(Layout::Tma).ok_or_else(bad)
    }
}
