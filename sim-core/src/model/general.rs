//! The general path of the bank model: every rule (`OneBroadcastWord` included), any
//! bank count and mapping, explicit lane groups, bank ports, and the bank × lane
//! picture. Per phase it lists the (bank, word, lane) of every word the phase's lanes
//! touch and costs the list under the op's same-word rule and the banks' ports.

use super::global::global_lines;
use super::pair_merge::{pairs_merge, NONE};
use crate::hardware::{Hardware, OpRule, SameWord};
use crate::mapping::BankMapping;
use crate::op::Op;
use crate::request::{Cell, Outcome, WarpRequest};

/// A wavefront not yet given to an entry (broadcast-word schedule).
const UNASSIGNED: u32 = u32::MAX;

/// Lanes per phase for `req` on `hw`, after the load pair-merge rule (`dense`: see
/// [`pairs_merge`]); a tensor-core op's own phases where its rule has them.
pub(super) fn phase_lanes(hw: &Hardware, dense: &mut [u32], req: &WarpRequest<'_>) -> u32 {
    if let Some(OpRule::Phases { lanes, .. }) = hw.op_rule(req.op) {
        return lanes.map_or(hw.phase_lanes(req.bytes), |l| l.min(hw.warp));
    }
    let base = hw.phase_lanes(req.bytes);
    if req.op == Op::Load && base < hw.warp && pairs_merge(hw, dense, req) {
        (base * 2).min(hw.warp)
    } else {
        base
    }
}

/// Phases of `phase` consecutive lanes (a power of two) that hold one of `lanes`
/// (ascending): a tensor-core op's ideal where its rule has phases of its own.
pub(super) fn ideal_phases(lanes: &[u16], phase: u32) -> u32 {
    let shift = phase.trailing_zeros();
    let mut n = 0;
    let mut prev = u32::MAX;
    for &l in lanes {
        let p = l as u32 >> shift;
        n += (p != prev) as u32;
        prev = p;
    }
    n
}

/// Scratch of the general path, reused from request to request.
#[derive(Clone, Debug)]
pub(super) struct General {
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

impl General {
    /// Scratch for `hw`.
    pub(super) fn new(hw: &Hardware) -> General {
        General {
            entries: Vec::with_capacity(hw.warp as usize * 4),
            per_bank: vec![0; hw.banks as usize],
            slot: Vec::new(),
            bank_words: Vec::new(),
            bank_cap: 0,
        }
    }

    /// The outcome of `req` on `hw`, lane by lane; with `cells`, also the bank × lane
    /// picture (unsorted). `dense` is the pair-merge rule's table (see [`pairs_merge`]).
    pub(super) fn run(
        &mut self,
        hw: &Hardware,
        dense: &mut [u32],
        req: &WarpRequest<'_>,
        mut cells: Option<&mut Vec<Cell>>,
    ) -> Outcome {
        debug_assert_eq!(req.lanes.len(), req.addrs.len());
        if req.op.is_global() {
            return global_lines(req.addrs);
        }
        if !req.op.is_memory() || req.lanes.is_empty() {
            return Outcome::default();
        }
        // a tensor-core op: phases of its own (ideal: the crossbar's phases of the
        // width), none, or those of the load or store it is served as
        let own_phases = match hw.op_rule(req.op) {
            Some(OpRule::Bypass) => return Outcome::default(),
            Some(OpRule::Phases { .. }) => true,
            Some(OpRule::Crossbar) | None => false,
        };
        let rule = hw.same_word(req.op);
        let ports = hw.crossbar.ports;
        let mut out = Outcome::default();
        let groups = hw.crossbar.groups_for(Hardware::served_as(req.op), req.bytes);
        if let Some(groups) = groups.filter(|_| !own_phases) {
            // explicit lane groups: `dense` holds each active lane's index in `req`
            for (i, &lane) in req.lanes.iter().enumerate() {
                dense[lane as usize] = i as u32;
            }
            for group in groups {
                self.entries.clear();
                for &lane in group {
                    // (lanes past the warp are left out)
                    let i = dense.get(lane as usize).copied().unwrap_or(NONE);
                    if i != NONE {
                        self.push_lane(hw, req, i as usize);
                    }
                }
                if !self.entries.is_empty() {
                    self.serve_phase(rule, ports, &mut out, cells.as_deref_mut());
                }
            }
            for &lane in req.lanes {
                dense[lane as usize] = NONE;
            }
            return out;
        }
        // phase sizes are powers of two (validated)
        let phase_shift = phase_lanes(hw, dense, req).trailing_zeros();
        let mut start = 0;
        while start < req.lanes.len() {
            let p = req.lanes[start] >> phase_shift;
            let mut end = start + 1;
            while end < req.lanes.len() && req.lanes[end] >> phase_shift == p {
                end += 1;
            }
            self.entries.clear();
            for i in start..end {
                self.push_lane(hw, req, i);
            }
            self.serve_phase(rule, ports, &mut out, cells.as_deref_mut());
            start = end;
        }
        if own_phases {
            out.ideal = ideal_phases(req.lanes, hw.phase_lanes(req.bytes));
        }
        out
    }

    /// Costs the current phase's entries, adds them to `out` and, with `cells`, to the
    /// picture.
    fn serve_phase(&mut self, rule: SameWord, ports: u32, out: &mut Outcome, cells: Option<&mut Vec<Cell>>) {
        let w = self.phase_cost(rule, ports, cells.is_some());
        if let Some(cells) = cells {
            for (i, &(bank, word, lane)) in self.entries.iter().enumerate() {
                cells.push(Cell { wavefront: out.wavefronts + self.slot[i], bank, lane, word });
            }
        }
        out.wavefronts += w;
        out.ideal += 1;
    }

    /// Adds the (bank, word, lane) entries of lane `i` of `req` to the current phase.
    fn push_lane(&mut self, hw: &Hardware, req: &WarpRequest<'_>, i: usize) {
        // bank_bytes is a power of two (validated): shifts, not divisions
        let shift = hw.bank_bytes.trailing_zeros();
        let n = hw.banks;
        let linear_pow2 = hw.mapping == BankMapping::Linear && n.is_power_of_two();
        let addr = req.addrs[i];
        let first = addr >> shift;
        let last = (addr + (req.bytes as u32 - 1)) >> shift;
        for word in first..=last {
            let bank = if linear_pow2 { word & (n - 1) } else { hw.mapping.bank(word, n) };
            self.entries.push((bank, word, req.lanes[i]));
        }
    }

    /// Wavefronts of the current phase's entries under `rule`, on banks of `ports` ports.
    /// With `assign`, also records each entry's wavefront in `slot`.
    fn phase_cost(&mut self, rule: SameWord, ports: u32, assign: bool) -> u32 {
        match rule {
            SameWord::Multicast => {
                let w = self.cost_multicast(assign);
                self.share_ports(ports, w)
            }
            SameWord::Serialize => {
                let w = self.cost_serialize(assign);
                self.share_ports(ports, w)
            }
            SameWord::OneBroadcastWord => self.cost_broadcast_word(ports, assign),
        }
    }

    /// A bank of `ports` ports serves `ports` of its words (or lane accesses) per
    /// wavefront: the `r`-th (from 0) goes in wavefront `r / ports`, and `w` ranks cost
    /// `ceil(w / ports)`.
    fn share_ports(&mut self, ports: u32, w: u32) -> u32 {
        if ports == 1 {
            return w;
        }
        self.slot.iter_mut().for_each(|s| *s /= ports);
        w.div_ceil(ports)
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
            self.bank_words = vec![0; self.bank_cap * self.per_bank.len()];
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
    /// waiting lane in each other bank (`ports` lanes per bank, the broadcast word taking
    /// one of its bank's). The hardware leaves the choice of broadcast word open; we take
    /// the word with the most waiting lanes (lowest word on a tie), which makes the cost
    /// independent of lane order.
    fn cost_broadcast_word(&mut self, ports: u32, _assign: bool) -> u32 {
        self.entries.sort_unstable();
        self.slot.clear();
        self.slot.resize(self.entries.len(), UNASSIGNED);
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
                    waiting += (self.slot[j] == UNASSIGNED) as u32;
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
                if self.slot[i] != UNASSIGNED {
                    continue;
                }
                let (bank, word, _) = self.entries[i];
                let take = if bank == bcast_bank && word == bcast_word {
                    true
                } else if self.per_bank[bank as usize] < ports {
                    self.per_bank[bank as usize] += 1;
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
