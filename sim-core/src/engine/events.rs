//! An SM's pending events ([`Events`]): taken earliest cycle first and, within a cycle,
//! in push order, through a ring of per-cycle queues and a heap for far ones.

use super::report::Cycle;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum EventKind {
    /// A step may start (its gap, then issue).
    Ready,
    /// The part of a request's gap after its `wait`: the data it needs is back.
    Resume,
    Issue,
    /// Every warp expected at a barrier has arrived (`node`: the barrier).
    Release,
    BlockDone,
}

/// Event kinds by code (3 bits; codes 5 to 7 never occur).
const KINDS: [EventKind; 8] = [
    EventKind::Ready,
    EventKind::Resume,
    EventKind::Issue,
    EventKind::Release,
    EventKind::BlockDone,
    EventKind::BlockDone,
    EventKind::BlockDone,
    EventKind::BlockDone,
];

/// An event's kind, slot and node in one word.
fn payload(kind: EventKind, slot: u32, node: u32) -> u64 {
    debug_assert!(slot < 1 << 24);
    (kind as u64) << 56 | (slot as u64) << 32 | node as u64
}

/// (kind, slot, node) of an event's payload.
fn unpack(p: u64) -> (EventKind, u32, u32) {
    (KINDS[(p >> 56) as usize & 7], (p >> 32) as u32 & 0xFF_FFFF, p as u32)
}

/// Cycles ahead of the last event taken that [`Events`] keeps in its ring.
const WINDOW: usize = 64;

/// An SM's pending events, taken earliest cycle first and, within a cycle, in the order
/// they were pushed (every event is pushed at or after the cycle of the last one taken).
///
/// Events due within [`WINDOW`] cycles go to a ring of per-cycle queues (a bit per
/// non-empty one), later ones to a binary heap keyed by (cycle, sequence). An event in
/// the heap was pushed before any ring event of its cycle (that one was pushed when
/// the cycle had come within the window), so within a cycle the heap goes first.
pub(super) struct Events {
    /// Cycle of the last event taken: every pending event is due at or after it.
    now: Cycle,
    seq: u64,
    /// Per cycle mod [`WINDOW`]: payloads in push order, and how many are taken.
    ring: Vec<Vec<u64>>,
    taken: [u32; WINDOW],
    /// Bit `c mod WINDOW` set while the ring holds events for cycle `c`.
    occupied: u64,
    far: BinaryHeap<Reverse<(u128, u64)>>,
    /// Earliest cycle in `far` (`Cycle::MAX`: none).
    far_at: Cycle,
}

impl Clone for Events {
    fn clone(&self) -> Events {
        Events {
            now: self.now,
            seq: self.seq,
            ring: self.ring.clone(),
            taken: self.taken,
            occupied: self.occupied,
            far: self.far.clone(),
            far_at: self.far_at,
        }
    }

    /// (keeps this one's allocations, the ring's 64 queues among them)
    fn clone_from(&mut self, o: &Events) {
        let Events { now, seq, ring, taken, occupied, far, far_at } = o;
        (self.now, self.seq, self.taken, self.occupied, self.far_at) =
            (*now, *seq, *taken, *occupied, *far_at);
        self.ring.clone_from(ring);
        self.far.clone_from(far);
    }
}

impl Events {
    pub(super) fn new() -> Events {
        Events {
            now: 0,
            seq: 0,
            ring: vec![Vec::new(); WINDOW],
            taken: [0; WINDOW],
            occupied: 0,
            far: BinaryHeap::new(),
            far_at: Cycle::MAX,
        }
    }

    #[inline(always)]
    pub(super) fn push(&mut self, at: Cycle, kind: EventKind, slot: usize, node: u32) {
        debug_assert!(at >= self.now, "event at {at} pushed after {}", self.now);
        let p = payload(kind, slot as u32, node);
        self.seq += 1;
        if at < self.now + WINDOW as Cycle {
            let b = at as usize % WINDOW;
            self.ring[b].push(p);
            self.occupied |= 1 << b;
        } else {
            self.far.push(Reverse(((at as u128) << 64 | self.seq as u128, p)));
            self.far_at = self.far_at.min(at);
        }
    }

    /// Whether no event is pending at cycle `at` (at most `WINDOW` past the current one).
    pub(super) fn none_at(&self, at: Cycle) -> bool {
        self.occupied & 1 << (at as usize % WINDOW) == 0 && self.far_at > at
    }

    /// The cycle of the ring's next event (`Cycle::MAX`: none).
    fn near_at(&self) -> Cycle {
        if self.occupied == 0 {
            Cycle::MAX
        } else {
            let d = self.occupied.rotate_right((self.now % WINDOW as Cycle) as u32).trailing_zeros();
            self.now + d as Cycle
        }
    }

    /// The next event: (cycle, kind, slot, node).
    pub(super) fn peek(&self) -> Option<(Cycle, EventKind, u32, u32)> {
        let near = self.near_at();
        let (at, p) = if self.far_at <= near {
            let Reverse((key, p)) = *self.far.peek()?;
            ((key >> 64) as Cycle, p)
        } else {
            let b = near as usize % WINDOW;
            (near, self.ring[b][self.taken[b] as usize])
        };
        let (kind, slot, node) = unpack(p);
        Some((at, kind, slot, node))
    }

    #[inline(always)]
    pub(super) fn pop(&mut self) -> Option<(Cycle, EventKind, u32, u32)> {
        let near = self.near_at();
        let (at, p) = if self.far_at <= near {
            let Reverse((key, p)) = self.far.pop()?;
            self.far_at = self.far.peek().map_or(Cycle::MAX, |Reverse((k, _))| (k >> 64) as Cycle);
            ((key >> 64) as Cycle, p)
        } else {
            let b = near as usize % WINDOW;
            let q = &mut self.ring[b];
            let p = q[self.taken[b] as usize];
            self.taken[b] += 1;
            if self.taken[b] as usize == q.len() {
                q.clear();
                self.taken[b] = 0;
                self.occupied &= !(1 << b);
            }
            (near, p)
        };
        self.now = at;
        let (kind, slot, node) = unpack(p);
        Some((at, kind, slot, node))
    }
}
