//! The bank model: one warp request in, wavefronts out.
//!
//! ```text
//!  lanes  0  1  2  3 ...        phase splitting: lanes per phase by width
//!         |  |  |  |            (H100: 32 lanes for <= 4 B, 16 for 8 B, 8 for 16 B;
//!         v  v  v  v             doubled for loads whose lanes pair up)
//!  words  addr / bank_bytes     a lane touches ceil(bytes / bank_bytes) words
//!  banks  mapping(word)         linear or XOR swizzle
//!  cost   per phase: the busiest bank's number of distinct words (multicast),
//!         lanes (serialize), or the CC 1.x broadcast-word schedule
//! ```
//! A request's wavefronts are the sum over its phases; its ideal is the number of
//! phases with an active lane; conflicts = max(0, wavefronts - ideal).

use crate::hardware::{Hardware, SameWord};
use crate::mapping::BankMapping;
use crate::op::Op;

/// One warp request: the active lanes of one warp at one step, all with the same op and
/// width. Lanes are ascending and unique; `addrs[i]` is the byte address of `lanes[i]`.
#[derive(Clone, Copy, Debug)]
pub struct WarpRequest<'a> {
    /// Operation.
    pub op: Op,
    /// Access width in bytes (1, 2, 4, 8 or 16).
    pub bytes: u8,
    /// Active lanes, ascending, each below the warp size.
    pub lanes: &'a [u16],
    /// Byte address of each active lane in shared memory.
    pub addrs: &'a [u32],
}

/// The cost of one warp request.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Wavefronts (bank-conflict-free passes) the request needs.
    pub wavefronts: u32,
    /// Wavefronts it would need without conflicts: its phases with an active lane.
    pub ideal: u32,
}

impl Outcome {
    /// Bank conflicts as Nsight Compute counts them: `max(0, wavefronts - ideal)`.
    pub fn conflicts(&self) -> u32 {
        self.wavefronts.saturating_sub(self.ideal)
    }
}

/// One lane's use of one bank in one wavefront: a cell of the bank × lane picture.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Cell {
    /// Wavefront index within the request (phases in order, wavefronts within a phase).
    pub wavefront: u32,
    /// Bank.
    pub bank: u32,
    /// Lane.
    pub lane: u16,
    /// Bank word (byte address / bank width).
    pub word: u32,
}

const NONE: u32 = u32::MAX;

/// Evaluates warp requests against one [`Hardware`]. Holds scratch space that is reused
/// from request to request, so the steady state allocates nothing.
#[derive(Clone, Debug)]
pub struct BankModel {
    hw: Hardware,
    /// Address per lane of the warp, `NONE` where inactive (pair-merge check).
    dense: Vec<u32>,
    /// (bank, word, lane) of every word touched in the current phase.
    entries: Vec<(u32, u32, u16)>,
    /// Per-bank counters.
    per_bank: Vec<u32>,
    /// Wavefront of each entry (picture only).
    slot: Vec<u32>,
    /// Distinct words seen per bank in the current phase (fast multicast count):
    /// `bank_words[bank * bank_cap ..][..per_bank[bank]]`.
    bank_words: Vec<u32>,
    bank_cap: usize,
}

impl BankModel {
    /// A model of `hw`. `hw` must have passed [`Hardware::validate`].
    pub fn new(hw: &Hardware) -> BankModel {
        debug_assert!(hw.validate().is_ok());
        BankModel {
            hw: hw.clone(),
            dense: vec![NONE; hw.warp as usize],
            entries: Vec::with_capacity(hw.warp as usize * 4),
            per_bank: vec![0; hw.banks as usize],
            slot: Vec::new(),
            bank_words: Vec::new(),
            bank_cap: 0,
        }
    }

    /// The hardware this model evaluates.
    pub fn hardware(&self) -> &Hardware {
        &self.hw
    }

    /// Lanes per phase for `req`, after the load pair-merge rule.
    pub fn phase_lanes(&mut self, req: &WarpRequest<'_>) -> u32 {
        let base = self.hw.phase_lanes.lanes(req.bytes).min(self.hw.warp);
        if req.op == Op::Load && base < self.hw.warp && self.pairs_merge(req) {
            (base * 2).min(self.hw.warp)
        } else {
            base
        }
    }

    fn pairs_merge(&mut self, req: &WarpRequest<'_>) -> bool {
        let Some(pm) = &self.hw.load_pair_merge else { return false };
        if !pm.widths.contains(&req.bytes) {
            return false;
        }
        for (&lane, &addr) in req.lanes.iter().zip(req.addrs) {
            self.dense[lane as usize] = addr;
        }
        let warp = self.hw.warp;
        let merged = pm.masks.iter().any(|&mask| {
            req.lanes.iter().zip(req.addrs).all(|(&lane, &addr)| {
                let partner = lane as u32 ^ mask;
                partner >= warp || {
                    let other = self.dense[partner as usize];
                    other == NONE || other == addr
                }
            })
        });
        for &lane in req.lanes {
            self.dense[lane as usize] = NONE;
        }
        merged
    }

    /// Wavefronts and ideal wavefronts of one request. Barriers cost nothing.
    pub fn evaluate(&mut self, req: &WarpRequest<'_>) -> Outcome {
        self.run_with(req, None)
    }

    /// The bank × lane picture of a request: which lane uses which bank in which
    /// wavefront, sorted by (wavefront, bank, lane).
    pub fn picture(&mut self, req: &WarpRequest<'_>) -> (Outcome, Vec<Cell>) {
        let mut cells = Vec::new();
        let outcome = self.run_with(req, Some(&mut cells));
        cells.sort_unstable();
        (outcome, cells)
    }

    fn run_with(&mut self, req: &WarpRequest<'_>, mut cells: Option<&mut Vec<Cell>>) -> Outcome {
        debug_assert_eq!(req.lanes.len(), req.addrs.len());
        if !req.op.is_memory() || req.lanes.is_empty() {
            return Outcome::default();
        }
        // phase sizes are powers of two (validated)
        let phase_shift = self.phase_lanes(req).trailing_zeros();
        let rule = self.hw.same_word(req.op);
        let mut out = Outcome::default();
        let mut start = 0;
        while start < req.lanes.len() {
            let p = req.lanes[start] >> phase_shift;
            let mut end = start + 1;
            while end < req.lanes.len() && req.lanes[end] >> phase_shift == p {
                end += 1;
            }
            self.fill_entries(req, start, end);
            let w = self.phase_cost(rule, cells.is_some());
            if let Some(cells) = cells.as_deref_mut() {
                for (i, &(bank, word, lane)) in self.entries.iter().enumerate() {
                    cells.push(Cell { wavefront: out.wavefronts + self.slot[i], bank, lane, word });
                }
            }
            out.wavefronts += w;
            out.ideal += 1;
            start = end;
        }
        out
    }

    /// Collects the (bank, word, lane) entries of lanes `start..end` of `req`.
    fn fill_entries(&mut self, req: &WarpRequest<'_>, start: usize, end: usize) {
        // bank_bytes is a power of two (validated): shifts, not divisions
        let shift = self.hw.bank_bytes.trailing_zeros();
        let n = self.hw.banks;
        let linear_pow2 = self.hw.mapping == BankMapping::Linear && n.is_power_of_two();
        self.entries.clear();
        for i in start..end {
            let addr = req.addrs[i];
            let first = addr >> shift;
            let last = (addr + req.bytes as u32 - 1) >> shift;
            for word in first..=last {
                let bank = if linear_pow2 { word & (n - 1) } else { self.hw.mapping.bank(word, n) };
                self.entries.push((bank, word, req.lanes[i]));
            }
        }
    }

    /// Wavefronts of the current phase's entries under `rule`. With `assign`, also
    /// records each entry's wavefront in `slot`.
    fn phase_cost(&mut self, rule: SameWord, assign: bool) -> u32 {
        match rule {
            SameWord::Multicast => self.cost_multicast(assign),
            SameWord::Serialize => self.cost_serialize(assign),
            SameWord::OneBroadcastWord => self.cost_broadcast_word(assign),
        }
    }

    /// The busiest bank's number of distinct words.
    fn cost_multicast(&mut self, assign: bool) -> u32 {
        if !assign {
            return self.count_multicast();
        }
        self.entries.sort_unstable();
        self.slot.clear();
        let mut max = 0;
        let mut prev: Option<(u32, u32)> = None;
        let mut rank = 0;
        for &(bank, word, _) in &self.entries {
            rank = match prev {
                Some((b, w)) if b == bank && w == word => rank,
                Some((b, _)) if b == bank => rank + 1,
                _ => 0,
            };
            prev = Some((bank, word));
            max = max.max(rank + 1);
            if assign {
                self.slot.push(rank);
            }
        }
        max
    }

    /// [`Self::cost_multicast`] without the picture: per bank, a short list of the
    /// distinct words seen so far (usually one), no sorting.
    fn count_multicast(&mut self) -> u32 {
        if self.bank_cap < self.entries.len() {
            self.bank_cap = self.entries.len().next_power_of_two();
            self.bank_words = vec![0; self.bank_cap * self.hw.banks as usize];
        }
        let cap = self.bank_cap;
        let mut max = 0;
        for &(bank, word, _) in &self.entries {
            let b = bank as usize;
            let n = self.per_bank[b] as usize;
            let list = &mut self.bank_words[b * cap..b * cap + n + 1];
            if !list[..n].contains(&word) {
                list[n] = word;
                self.per_bank[b] += 1;
                max = max.max(n as u32 + 1);
            }
        }
        for &(bank, _, _) in &self.entries {
            self.per_bank[bank as usize] = 0;
        }
        max
    }

    /// The busiest bank's number of lane accesses.
    fn cost_serialize(&mut self, assign: bool) -> u32 {
        self.entries.sort_unstable_by_key(|&(bank, _, lane)| (bank, lane));
        self.slot.clear();
        let mut max = 0;
        let mut prev = None;
        let mut rank = 0;
        for &(bank, _, _) in &self.entries {
            rank = if prev == Some(bank) { rank + 1 } else { 0 };
            prev = Some(bank);
            max = max.max(rank + 1);
            if assign {
                self.slot.push(rank);
            }
        }
        max
    }

    /// CC 1.x: each wavefront serves every waiting lane on one broadcast word plus one
    /// waiting lane in each other bank. The hardware leaves the choice of broadcast word
    /// open; we take the word with the most waiting lanes (lowest word on a tie), which
    /// makes the cost independent of lane order.
    fn cost_broadcast_word(&mut self, _assign: bool) -> u32 {
        self.entries.sort_unstable();
        self.slot.clear();
        self.slot.resize(self.entries.len(), NONE);
        let mut left = self.entries.len();
        let mut wave = 0;
        while left > 0 {
            let mut best = (0, 0, 0); // (waiting lanes, bank, word)
            let mut i = 0;
            while i < self.entries.len() {
                let (bank, word, _) = self.entries[i];
                let mut j = i;
                let mut waiting = 0;
                while j < self.entries.len() && self.entries[j].0 == bank && self.entries[j].1 == word {
                    waiting += (self.slot[j] == NONE) as u32;
                    j += 1;
                }
                if waiting > best.0 {
                    best = (waiting, bank, word);
                }
                i = j;
            }
            let (_, bcast_bank, bcast_word) = best;
            self.per_bank.iter_mut().for_each(|c| *c = 0);
            self.per_bank[bcast_bank as usize] = 1;
            for i in 0..self.entries.len() {
                if self.slot[i] != NONE {
                    continue;
                }
                let (bank, word, _) = self.entries[i];
                let take = if bank == bcast_bank {
                    word == bcast_word
                } else if self.per_bank[bank as usize] == 0 {
                    self.per_bank[bank as usize] = 1;
                    true
                } else {
                    false
                };
                if take {
                    self.slot[i] = wave;
                    left -= 1;
                }
            }
            wave += 1;
        }
        self.per_bank.iter_mut().for_each(|c| *c = 0);
        wave
    }
}
