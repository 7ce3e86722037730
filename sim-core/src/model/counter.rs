//! The fast path's count of one phase: per bank, the distinct words (multicast) or the
//! entries (serialize), and the busiest bank's count, with no clearing between phases.
//!
//! Per phase it keeps a bitmask of the banks used (at most 64) and, per bank, its count
//! and first [`SLOTS`] distinct words; further distinct words of a bank go to a small
//! open-addressing set, emptied by bumping a generation stamp. A bank's count and words
//! are only read when its bit is set, so nothing is cleared between phases.

/// Distinct words per bank kept in [`WordCounter::slots`] before the set is used.
const SLOTS: usize = 4;

/// Scratch of the per-phase count (see the module documentation).
#[derive(Clone, Debug)]
pub(super) struct WordCounter {
    /// Distinct words (multicast) or entries (serialize) per bank in this phase.
    count: [u32; 64],
    /// The first four distinct words of each bank in this phase.
    slots: [[u32; SLOTS]; 64],
    /// Open-addressing set of words: `keys[h]` is in the set iff `stamps[h] == gen`.
    keys: Vec<u32>,
    stamps: Vec<u32>,
    gen: u32,
    /// `32 - log2(keys.len())`: the hash keeps the top bits of a multiplicative hash.
    hash_shift: u32,
}

impl WordCounter {
    /// Scratch for phases of a warp of `warp` lanes on banks of `bank_bytes` bytes.
    pub(super) fn new(warp: u32, bank_bytes: u32) -> WordCounter {
        // Entries per phase are at most warp x words per lane; a 16-byte access at any
        // alignment touches at most 15 / bank_bytes + 2 words. The set is kept at most
        // half full.
        let max_entries = warp as usize * (15 / bank_bytes as usize + 2);
        let size = (2 * max_entries).next_power_of_two().max(64);
        WordCounter {
            count: [0; 64],
            slots: [[0; SLOTS]; 64],
            keys: vec![0; size],
            stamps: vec![0; size],
            gen: 1,
            hash_shift: 32 - size.trailing_zeros(),
        }
    }

    /// The cost of one phase whose entries are the (bank, word) pairs of `entries`
    /// (banks below 64): the busiest bank's distinct words (multicast) or entries
    /// (serialize). At least one entry.
    #[inline(always)]
    pub(super) fn count(&mut self, serialize: bool, entries: impl Iterator<Item = (u32, u32)>) -> u32 {
        let WordCounter { count, slots, keys, stamps, gen, hash_shift } = self;
        let (gen_now, hash_shift) = (*gen, *hash_shift);
        let mut used = 0u64;
        let mut max = 0u32;
        let mut inserted = false;
        for (bank, word) in entries {
            debug_assert!(bank < 64);
            let b = bank as usize & 63;
            let bit = 1u64 << b;
            // Branch-free in the common case (random data would mispredict every branch):
            // the bank's count so far (0 when unused), whether the word is new among the
            // kept words, and an unconditional write of the word into the next slot.
            let c = if used & bit != 0 { count[b] } else { 0 };
            used |= bit;
            if c as usize >= SLOTS {
                // a bank with more than four distinct words (or entries) so far
                if !serialize {
                    if slots[b].contains(&word) {
                        continue;
                    }
                    inserted = true;
                    if !insert(keys, stamps, gen_now, hash_shift, word) {
                        continue;
                    }
                }
                count[b] = c + 1;
                max = max.max(c + 1);
                continue;
            }
            let new = if serialize {
                1
            } else {
                let s = &slots[b];
                let seen = (s[0] == word && c > 0)
                    | (s[1] == word && c > 1)
                    | (s[2] == word && c > 2)
                    | (s[3] == word && c > 3);
                1 - seen as u32
            };
            slots[b][c as usize & (SLOTS - 1)] = word;
            count[b] = c + new;
            max = max.max(c + new);
        }
        if inserted {
            self.clear_set();
        }
        max
    }

    /// Empties the set.
    #[inline]
    fn clear_set(&mut self) {
        self.gen = self.gen.wrapping_add(1);
        if self.gen == 0 {
            self.stamps.iter_mut().for_each(|s| *s = 0);
            self.gen = 1;
        }
    }
}

/// Inserts `word` into the open-addressing set `keys` (slot `h` is in the set iff
/// `stamps[h] == gen`); whether it was new. The set is never more than half full.
#[inline]
fn insert(keys: &mut [u32], stamps: &mut [u32], gen: u32, hash_shift: u32, word: u32) -> bool {
    let mask = keys.len() - 1;
    let mut h = (word.wrapping_mul(0x9E37_79B9) >> hash_shift) as usize;
    loop {
        if stamps[h] != gen {
            stamps[h] = gen;
            keys[h] = word;
            return true;
        }
        if keys[h] == word {
            return false;
        }
        h = (h + 1) & mask;
    }
}
