//! Bank mapping: which bank a bank word lives in.
//!
//! Contract: `bank(word)` is in `0..banks` for every word, and depends on nothing but
//! the word and the mapping's parameters.

use serde::{Deserialize, Serialize};

/// How a bank word (byte address / bank width) maps to a bank.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum BankMapping {
    /// `bank = word mod banks`: consecutive words in consecutive banks.
    Linear,
    /// `bank = ((word mod banks) XOR ((word >> shift) & mask)) mod banks`: an XOR swizzle
    /// of the bank index by higher address bits (e.g. the row of a tile when
    /// `shift = log2(banks)`), as hardware hashing or a layout swizzle does.
    Xor {
        /// Right shift (in words) of the bits that are XORed into the bank index.
        shift: u32,
        /// Mask applied to the shifted bits; must be below the bank count.
        mask: u32,
    },
}

impl BankMapping {
    /// The bank of `word` among `banks` banks.
    #[inline]
    pub fn bank(&self, word: u32, banks: u32) -> u32 {
        match *self {
            BankMapping::Linear => word % banks,
            BankMapping::Xor { shift, mask } => {
                let high = word.checked_shr(shift).unwrap_or(0) & mask;
                ((word % banks) ^ high) % banks
            }
        }
    }
}
