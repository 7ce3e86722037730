//! The TMA's shared-memory swizzle modes (`CUtensorMapSwizzle` of the CUDA driver API:
//! `cuTensorMapEncodeTiled`'s `swizzle`), as XORs of byte-address bits.
//!
//! The driver API says what each mode swizzles: 16-byte chunks within a 32-, 64- or
//! 128-byte span, and since CUDA 12.8 32- or 64-byte chunks within a 128-byte span (one
//! of them also exchanging the two 8-byte halves of each 16-byte unit on alternate
//! rows). As bits of the byte address (a row being one span; CuTe's
//! `Swizzle<B, M, S>` XORs the `B` bits from `M + S` into the `B` bits from `M`):
//!
//! | mode | value | bits | CuTe on bytes |
//! | --- | --- | --- | --- |
//! | `SWIZZLE_NONE` | 0 | none | |
//! | `SWIZZLE_32B` | 1 | 4 ^= 7 | `Swizzle<1,4,3>` |
//! | `SWIZZLE_64B` | 2 | 4-5 ^= 7-8 | `Swizzle<2,4,3>` |
//! | `SWIZZLE_128B` | 3 | 4-6 ^= 7-9 | `Swizzle<3,4,3>` |
//! | `SWIZZLE_128B_ATOM_32B` | 4 | 5-6 ^= 7-8 | `Swizzle<2,5,2>` |
//! | `SWIZZLE_128B_ATOM_32B_FLIP_8B` | 5 | 5-6 ^= 7-8, 3 ^= 7 | `Swizzle<2,5,2>` and `Swizzle<1,3,4>` |
//! | `SWIZZLE_128B_ATOM_64B` | 6 | 6 ^= 7 | `Swizzle<1,6,1>` |
//!
//! The first four are CUTLASS's (`cute::detail::get_tma_swizzle_bits`: `Swizzle<B,4,3>`
//! is `SWIZZLE_32B`, `64B`, `128B` for `B` = 1, 2, 3) and `ATOM_32B`'s too
//! (`Swizzle<2,5,2>`, base 32 B). `ATOM_64B` is read from the driver's words (the one
//! bit of a 64-byte chunk in a 128-byte row, XORed with the row's lowest bit), and the
//! 8-byte flip of `FLIP_8B` likewise: neither is measured here.
//!
//! The TMA applies the swizzle to the shared-memory address itself, so a buffer starts
//! at a multiple of the pattern's period (1024 bytes for the 128-byte modes); an array
//! whose base is such a multiple has the same layout relative to its base.
//!
//! ```
//! use sim_core::layout::TmaSwizzle;
//! let m = TmaSwizzle::parse("SWIZZLE_128B").unwrap();
//! assert_eq!(m.value(), 3);
//! // row 1 (bytes 128..256): its 16-byte chunk 0 holds what chunk 1 would
//! assert_eq!(m.map(128), 128 + 16);
//! assert_eq!(TmaSwizzle::parse("CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B").unwrap().cute(), Some((2, 5, 2)));
//! ```

use std::fmt;

/// A TMA swizzle mode (`CUtensorMapSwizzle`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TmaSwizzle {
    /// `CU_TENSOR_MAP_SWIZZLE_NONE`.
    None,
    /// `CU_TENSOR_MAP_SWIZZLE_32B`: 16-byte chunks within a 32-byte span.
    B32,
    /// `CU_TENSOR_MAP_SWIZZLE_64B`: 16-byte chunks within a 64-byte span.
    B64,
    /// `CU_TENSOR_MAP_SWIZZLE_128B`: 16-byte chunks within a 128-byte span.
    B128,
    /// `CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B`: 32-byte chunks within a 128-byte span.
    B128Atom32B,
    /// `CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B_FLIP_8B`: as `B128Atom32B`, and the 8-byte
    /// halves of each 16-byte unit exchanged on alternate rows.
    B128Atom32BFlip8B,
    /// `CU_TENSOR_MAP_SWIZZLE_128B_ATOM_64B`: 64-byte chunks within a 128-byte span.
    B128Atom64B,
}

/// The XORs of each mode, as CuTe `Swizzle<B, M, S>` on byte addresses, in
/// [`TmaSwizzle::ALL`] order.
const XORS: [&[(u32, u32, u32)]; 7] =
    [&[], &[(1, 4, 3)], &[(2, 4, 3)], &[(3, 4, 3)], &[(2, 5, 2)], &[(2, 5, 2), (1, 3, 4)], &[(1, 6, 1)]];

/// The driver API's names, without the `CU_TENSOR_MAP_` prefix, in [`TmaSwizzle::ALL`] order.
const NAMES: [&str; 7] = [
    "SWIZZLE_NONE",
    "SWIZZLE_32B",
    "SWIZZLE_64B",
    "SWIZZLE_128B",
    "SWIZZLE_128B_ATOM_32B",
    "SWIZZLE_128B_ATOM_32B_FLIP_8B",
    "SWIZZLE_128B_ATOM_64B",
];

impl TmaSwizzle {
    /// Every mode, in the order of their `CUtensorMapSwizzle` values (0 to 6).
    pub const ALL: [TmaSwizzle; 7] = [
        TmaSwizzle::None,
        TmaSwizzle::B32,
        TmaSwizzle::B64,
        TmaSwizzle::B128,
        TmaSwizzle::B128Atom32B,
        TmaSwizzle::B128Atom32BFlip8B,
        TmaSwizzle::B128Atom64B,
    ];

    /// Its `CUtensorMapSwizzle` value.
    pub fn value(self) -> u32 {
        self as u32
    }

    /// The mode of a `CUtensorMapSwizzle` value.
    pub fn from_value(v: i64) -> Option<TmaSwizzle> {
        usize::try_from(v).ok().and_then(|i| TmaSwizzle::ALL.get(i).copied())
    }

    /// Its name in the driver API without the `CU_TENSOR_MAP_` prefix (`SWIZZLE_128B`).
    pub fn name(self) -> &'static str {
        NAMES[self as usize]
    }

    /// A mode by name, any case, with or without `CU_TENSOR_MAP_` or `SWIZZLE_`
    /// (`SWIZZLE_128B`, `cu_tensor_map_swizzle_128b`, `128B_ATOM_32B`, `none`).
    pub fn parse(s: &str) -> Option<TmaSwizzle> {
        let up = s.trim().to_ascii_uppercase();
        let bare = up.strip_prefix("CU_TENSOR_MAP_").unwrap_or(&up);
        let bare = bare.strip_prefix("SWIZZLE_").unwrap_or(bare);
        TmaSwizzle::ALL.into_iter().find(|m| &m.name()["SWIZZLE_".len()..] == bare)
    }

    /// Its XORs as CuTe `Swizzle<B, M, S>` on byte addresses (none for `SWIZZLE_NONE`;
    /// two for `FLIP_8B`).
    pub fn xors(self) -> &'static [(u32, u32, u32)] {
        XORS[self as usize]
    }

    /// The one CuTe `Swizzle<B, M, S>` on byte addresses that it is, where it is one.
    pub fn cute(self) -> Option<(u32, u32, u32)> {
        match self.xors() {
            [one] => Some(*one),
            _ => None,
        }
    }

    /// Bytes after which the pattern repeats: the alignment a buffer needs for the
    /// layout relative to its base to be the TMA's (1 for `SWIZZLE_NONE`).
    pub fn period(self) -> u32 {
        self.xors().iter().map(|&(b, m, s)| 1u32 << (b + m + s)).max().unwrap_or(1)
    }

    /// The span the driver API names (32, 64 or 128 bytes: a row of the pattern), the
    /// most bytes a box's inner dimension may have in this mode; `None` for
    /// `SWIZZLE_NONE`.
    pub fn span(self) -> Option<u32> {
        match self {
            TmaSwizzle::None => None,
            TmaSwizzle::B32 => Some(32),
            TmaSwizzle::B64 => Some(64),
            _ => Some(128),
        }
    }

    /// Bytes that stay together: accesses of up to this many bytes, aligned, stay whole.
    pub fn unit(self) -> u32 {
        self.xors().iter().map(|&(_, m, _)| 1u32 << m).min().unwrap_or(u32::MAX)
    }

    /// Where byte `offset` (from a buffer aligned to [`period`](Self::period)) is
    /// stored.
    pub fn map(self, offset: u32) -> u32 {
        self.xors().iter().fold(offset, |o, &(b, m, s)| o ^ ((offset >> s) & (((1 << b) - 1) << m)))
    }
}

impl fmt::Display for TmaSwizzle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TMA {}", self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_mode_is_a_permutation_of_its_period_that_keeps_its_units() {
        for m in TmaSwizzle::ALL {
            let p = m.period().max(1024);
            let mut seen = vec![false; p as usize];
            for o in 0..p {
                let n = m.map(o);
                assert!(n < p, "{m}: {o} -> {n}");
                assert!(!seen[n as usize], "{m}: {n} twice");
                seen[n as usize] = true;
                if m != TmaSwizzle::None {
                    assert_eq!(n / m.unit(), m.map(o - o % m.unit()) / m.unit(), "{m}: unit of {o} split");
                }
            }
            assert_eq!(TmaSwizzle::parse(m.name()), Some(m));
            assert_eq!(TmaSwizzle::from_value(m.value() as i64), Some(m));
        }
        assert_eq!(TmaSwizzle::parse("swizzle_96b"), None);
        assert_eq!(TmaSwizzle::from_value(7), None);
    }

    #[test]
    fn the_128b_modes_follow_the_chunk_formulas() {
        // chunk c of 16 bytes in row r (128 bytes a row) is stored at chunk c ^ (r % 8)
        // (SWIZZLE_128B), c ^ (2 * r % 8) (ATOM_32B: Transformer Engine's
        // swizzle_128B_atom_32B), c ^ (4 * (r % 2)) (ATOM_64B)
        for r in 0..16u32 {
            for c in 0..8u32 {
                let at = |c: u32| r * 128 + c * 16;
                assert_eq!(TmaSwizzle::B128.map(at(c)), at(c ^ (r % 8)));
                assert_eq!(TmaSwizzle::B128Atom32B.map(at(c)), at(c ^ (2 * r % 8)));
                assert_eq!(TmaSwizzle::B128Atom64B.map(at(c)), at(c ^ (4 * (r % 2))));
                // the flip: the two 8-byte halves exchanged on odd rows
                assert_eq!(
                    TmaSwizzle::B128Atom32BFlip8B.map(at(c) + 8),
                    at(c ^ (2 * r % 8)) + 8 * (1 - r % 2)
                );
            }
        }
        // 64B: 16-byte chunk c of the 4 in a 64-byte span, at c ^ (the row's 128-byte
        // line % 4); 32B: chunk c of 2 at c ^ (line % 2)
        for line in 0..8u32 {
            for c in 0..4u32 {
                assert_eq!(TmaSwizzle::B64.map(line * 128 + c * 16), line * 128 + (c ^ (line % 4)) * 16);
            }
            for c in 0..2u32 {
                assert_eq!(TmaSwizzle::B32.map(line * 128 + c * 16), line * 128 + (c ^ (line % 2)) * 16);
            }
        }
    }
}
