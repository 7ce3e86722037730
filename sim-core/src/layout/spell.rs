//! A layout in the words of the libraries that lay out shared memory: CuTe's
//! `Swizzle<B,M,S>` (on element offsets, and on bytes, as CuTe's swizzled shared-memory
//! pointers apply it), Triton's swizzled shared layout (`vec`, `perPhase`, `maxPhase`)
//! and the TMA swizzle mode it is.
//!
//! ```
//! use sim_core::layout::{spell, ArrayShape, Layout, TmaSwizzle};
//! // a 64 x 64 fp16 tile: rows of 128 bytes
//! let tile = ArrayShape { base: 0, rows: 64, cols: 64, elem: 2 };
//! let s = Layout::Swizzle { bits: 3, base: 3, shift: 3 };
//! assert_eq!(spell::tma(&s, &tile), Some(TmaSwizzle::B128));
//! assert_eq!(spell::on_bytes(&s, &tile), Some(vec![(3, 4, 3)]));
//! assert_eq!(spell::triton(&s, &tile).unwrap().to_string(), "Triton vec=8 perPhase=1 maxPhase=8 order=[1,0]");
//! // the transpose's swizzle on a 32 x 32 float tile: column ^= row
//! let t = ArrayShape { base: 0, rows: 32, cols: 32, elem: 4 };
//! let x = Layout::Swizzle { bits: 5, base: 0, shift: 5 };
//! assert_eq!(spell::triton(&x, &t).unwrap().to_string(), "Triton vec=1 perPhase=1 maxPhase=32 order=[1,0]");
//! ```

use super::{ArrayShape, Layout, TmaSwizzle};
use std::fmt;

/// Triton's swizzled shared layout (`#ttg.swizzled_shared`, Gluon's
/// `SwizzledSharedLayout`) of a row-major 2-D tile (`order = [1, 0]`): element (r, c) is
/// stored in row r at column `((c / vec) ^ ((r / perPhase) % maxPhase)) * vec + c % vec`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Triton {
    /// Elements that stay together.
    pub vec: u32,
    /// Rows that share a phase.
    pub per_phase: u32,
    /// Phases before the pattern repeats.
    pub max_phase: u32,
}

impl fmt::Display for Triton {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Triton vec={} perPhase={} maxPhase={} order=[1,0]",
            self.vec, self.per_phase, self.max_phase
        )
    }
}

/// log2 of `n` where it is a power of two.
fn log2(n: u32) -> Option<u32> {
    n.is_power_of_two().then(|| n.trailing_zeros())
}

/// The layout's XORs as CuTe `Swizzle<B, M, S>` on byte offsets from the array's base
/// (none for the identity), where it is made of them.
pub fn on_bytes(layout: &Layout, shape: &ArrayShape) -> Option<Vec<(u32, u32, u32)>> {
    match *layout {
        Layout::Identity => Some(Vec::new()),
        Layout::Swizzle { bits, base, shift } => Some(vec![(bits, base + log2(shape.elem)?, shift)]),
        Layout::Tma(m) => Some(m.xors().to_vec()),
        _ => None,
    }
}

/// The layout as one CuTe `Swizzle<B, M, S>` on element offsets, where it is one.
pub fn on_elements(layout: &Layout, shape: &ArrayShape) -> Option<(u32, u32, u32)> {
    let j = log2(shape.elem)?;
    match on_bytes(layout, shape)?[..] {
        [(b, m, s)] if m >= j => Some((b, m - j, s)),
        _ => None,
    }
}

/// The TMA swizzle mode that stores the array as `layout` does (its base a multiple of
/// the mode's period, a row within its span), other than `SWIZZLE_NONE`.
pub fn tma(layout: &Layout, shape: &ArrayShape) -> Option<TmaSwizzle> {
    let xors = on_bytes(layout, shape)?;
    TmaSwizzle::ALL[1..]
        .iter()
        .copied()
        .find(|m| m.xors() == xors.as_slice() && Layout::Tma(*m).valid_for(shape, shape.elem))
}

/// The layout as Triton's swizzled shared layout of the array's rows, where it is one:
/// one XOR that takes its bits from the row index and changes only the column (rows of
/// a power of two elements).
pub fn triton(layout: &Layout, shape: &ArrayShape) -> Option<Triton> {
    let (b, m, s) = on_elements(layout, shape)?;
    let k = log2(shape.cols)?;
    (m + s >= k && m + b <= k).then(|| Triton { vec: 1 << m, per_phase: 1 << (m + s - k), max_phase: 1 << b })
}

/// The layout in the other libraries' words, one phrase each: the TMA mode it is and its
/// CuTe swizzle on bytes, or its swizzle on bytes (or elements, for a TMA mode); Triton's
/// parameters; a padded or transposed array as a CuTe layout of its rows and columns.
pub fn also(layout: &Layout, shape: &ArrayShape) -> Vec<String> {
    let swz = |(b, m, s): (u32, u32, u32)| format!("Swizzle<{b},{m},{s}>");
    let mut out = Vec::new();
    match *layout {
        Layout::Swizzle { .. } => match (tma(layout, shape), on_bytes(layout, shape)) {
            (Some(m), _) => out.push(format!("{m} = {} on bytes", swz(m.xors()[0]))),
            (None, Some(x)) if shape.elem > 1 => out.push(format!("{} on bytes", swz(x[0]))),
            _ => {}
        },
        Layout::Tma(m) => {
            let bytes: Vec<String> = m.xors().iter().map(|&x| swz(x)).collect();
            if !bytes.is_empty() {
                out.push(format!("{} on bytes", bytes.join(" and ")));
            }
            if let (Some(x), true) = (on_elements(layout, shape), shape.elem > 1) {
                out.push(format!("{} on {}-byte elements", swz(x), shape.elem));
            }
        }
        Layout::Pad { elems } => out.push(format!(
            "CuTe Layout<Shape<_{},_{}>,Stride<_{},_1>>",
            shape.rows,
            shape.cols,
            shape.cols + elems
        )),
        Layout::Transpose => out
            .push(format!("CuTe Layout<Shape<_{},_{}>,Stride<_1,_{}>>", shape.rows, shape.cols, shape.rows)),
        Layout::Identity => {}
    }
    if let Some(t) = triton(layout, shape) {
        out.push(t.to_string());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Triton's formula, as its docs write it, for element (r, c).
    fn triton_at(t: Triton, r: u32, c: u32, cols: u32) -> u32 {
        let phase = (r / t.per_phase) % t.max_phase;
        r * cols + ((c / t.vec) ^ phase) * t.vec + c % t.vec
    }

    #[test]
    fn triton_parameters_store_every_element_where_the_swizzle_does() {
        let mut checked = 0;
        for (rows, cols, elem) in [(64, 64, 2), (32, 32, 4), (64, 32, 2), (16, 128, 1), (128, 16, 8)] {
            let shape = ArrayShape { base: 0, rows, cols, elem };
            for bits in 1..=5 {
                for base in 0..=4 {
                    for shift in bits..=8 {
                        let l = Layout::Swizzle { bits, base, shift };
                        if !l.valid_for(&shape, elem) {
                            continue;
                        }
                        let Some(t) = triton(&l, &shape) else { continue };
                        for r in 0..rows {
                            for c in 0..cols {
                                let addr = (r * cols + c) * elem;
                                assert_eq!(l.map(&shape, addr), triton_at(t, r, c, cols) * elem, "{l} {t}");
                            }
                        }
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 20, "{checked}");
    }

    #[test]
    fn a_swizzle_on_elements_is_named_as_the_tma_mode_it_equals() {
        for m in &TmaSwizzle::ALL[1..] {
            // fp16 rows as wide as the mode's span
            let fp16 = ArrayShape { base: 0, rows: 64, cols: m.span().unwrap() / 2, elem: 2 };
            let as_tma = Layout::Tma(*m);
            if let Some((b, e, s)) = on_elements(&as_tma, &fp16) {
                let l = Layout::Swizzle { bits: b, base: e, shift: s };
                assert_eq!(tma(&l, &fp16), Some(*m));
                for a in (0..fp16.bytes()).step_by(2) {
                    assert_eq!(l.map(&fp16, a), as_tma.map(&fp16, a), "{m} at {a}");
                }
            }
        }
        let fp16 = ArrayShape { base: 0, rows: 64, cols: 64, elem: 2 };
        // rows wider than the span are no TMA layout
        assert_eq!(tma(&Layout::Swizzle { bits: 2, base: 3, shift: 3 }, &fp16), None);
        // FLIP_8B is two XORs: no one swizzle
        assert_eq!(on_elements(&Layout::Tma(TmaSwizzle::B128Atom32BFlip8B), &fp16), None);
        // a base off the period is not the TMA's layout
        let off = ArrayShape { base: 512, ..fp16 };
        assert_eq!(tma(&Layout::Swizzle { bits: 3, base: 3, shift: 3 }, &off), None);
    }

    #[test]
    fn layouts_read_back_what_they_write() {
        let all = [
            Layout::Identity,
            Layout::Pad { elems: 3 },
            Layout::Swizzle { bits: 3, base: 4, shift: 3 },
            Layout::Transpose,
            Layout::Tma(TmaSwizzle::B128Atom32B),
        ];
        for l in all {
            assert_eq!(l.to_string().parse::<Layout>(), Ok(l));
        }
        assert_eq!("SWIZZLE_64B".parse::<Layout>(), Ok(Layout::Tma(TmaSwizzle::B64)));
        assert_eq!("tma 128b".parse::<Layout>(), Ok(Layout::Tma(TmaSwizzle::B128)));
        assert!("Swizzle<3,4,2>".parse::<Layout>().is_err());
        assert!("pad 0".parse::<Layout>().is_err());
        assert!("SWIZZLE_96B".parse::<Layout>().unwrap_err().to_string().contains("SWIZZLE_128B_ATOM_64B"));
    }
}
