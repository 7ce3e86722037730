//! The period `P` of a hardware's bank mapping: moving every address of a request by a
//! multiple of `P` bytes keeps every lane's bank, which words are equal, and which
//! 128-byte global lines are equal, so the memos of outcomes key requests by their
//! addresses modulo `P`.
//!
//! ```text
//! P = lcm(W × bank_bytes, 128)   W = banks (linear) or lcm(banks, 2^(shift + bits(mask))) (XOR)
//! ```

use super::global::GLOBAL_LINE_BYTES;
use crate::hardware::Hardware;
use crate::mapping::BankMapping;
use crate::op::Op;

/// The period `P` as the memos (of affine requests, of slices) use it.
#[derive(Clone, Copy, Debug)]
pub(super) struct Period {
    /// `P`, or 0 where it does not fit in 31 bits (no memo).
    bytes: u32,
    /// `P - 1` where `P` is a power of two, else 0.
    pow2_mask: u32,
}

impl Period {
    pub(super) fn of(hw: &Hardware) -> Period {
        let bytes = period_bytes(hw).unwrap_or(0);
        Period { bytes, pow2_mask: if bytes.is_power_of_two() { bytes - 1 } else { 0 } }
    }

    /// Whether there is none (then there is no memo).
    #[inline]
    pub(super) fn is_none(self) -> bool {
        self.bytes == 0
    }

    /// `a mod P` (`P` must exist).
    #[inline]
    pub(super) fn modulo(self, a: u32) -> u32 {
        if self.pow2_mask != 0 {
            a & self.pow2_mask
        } else {
            a % self.bytes
        }
    }
}

/// An op and a width as one word of a memo's key; 0 is left for an empty entry.
#[inline]
pub(super) fn kind_key(op: Op, bytes: u8) -> u32 {
    (op as u32 + 1) << 8 | bytes as u32
}

/// Bytes `P` by which every address of a request can move without changing its
/// outcome on `hw`, if it fits in 31 bits.
pub(super) fn period_bytes(hw: &Hardware) -> Option<u32> {
    let banks = hw.banks as u64;
    let words = match hw.mapping {
        BankMapping::Linear => banks,
        BankMapping::Xor { shift, mask } => {
            let bits = 32 - mask.leading_zeros();
            if mask == 0 || shift >= 32 {
                banks
            } else if shift + bits >= 32 {
                return None;
            } else {
                lcm(banks, 1 << (shift + bits))
            }
        }
    };
    let p = lcm(words.checked_mul(hw.bank_bytes as u64)?, GLOBAL_LINE_BYTES as u64);
    (p < 1 << 31).then_some(p as u32)
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

fn lcm(a: u64, b: u64) -> u64 {
    a / gcd(a, b) * b
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::presets_for_tests::h100_like;

    #[test]
    fn periods() {
        let mut hw = h100_like();
        assert_eq!(period_bytes(&hw), Some(128));
        hw.bank_bytes = 8;
        assert_eq!(period_bytes(&hw), Some(256));
        hw.banks = 24;
        assert_eq!(period_bytes(&hw), Some(384));
        hw.banks = 32;
        hw.bank_bytes = 4;
        hw.mapping = BankMapping::Xor { shift: 5, mask: 7 };
        assert_eq!(period_bytes(&hw), Some(1024));
        hw.mapping = BankMapping::Xor { shift: 30, mask: 7 };
        assert_eq!(period_bytes(&hw), None);
    }
}
