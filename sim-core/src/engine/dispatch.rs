//! The dispatcher: which SM gets the next blocks, with speculation and rollback so that
//! results do not depend on the thread count ([`Dispatch`]).

use super::context::Ctx;
use super::parallel::run_sms;
use super::report::Cycle;
use super::sm::Sm;
use super::workload::Workload;

/// The dispatcher: hands blocks, in id order, to the SM whose slot frees first (ties:
/// lowest SM index first, one block each in turn).
///
/// Between rounds every SM with blocks left to run has paused at its first freed slot
/// (`waiting_since`). The SMs waiting earliest get the next blocks and run, in
/// parallel, to their next freed slot. Serially that is one group of tied SMs a round.
/// With several threads the dispatcher also *speculates*: it hands the following blocks
/// to the groups waiting up to `horizon` cycles later, as if none of the SMs it runs
/// would free a slot before them, and runs those too. Afterwards it checks, group by
/// group in dispatch order, that no SM run in this round paused before the group's
/// cycle; the first group where one did, and every later one, is rolled back to its
/// snapshot and its blocks go back to the queue. So results are those of the serial
/// order, whatever the thread count.
pub(super) struct Dispatch {
    speculate: bool,
    /// Cycles past the earliest waiting SM within which groups are speculated on: the
    /// shortest run (from a block's dispatch to the SM's next freed slot) seen in the
    /// last round.
    horizon: Cycle,
    /// Each SM's `waiting_since` and free slots after its last run, kept here in two
    /// small arrays so that a round's decisions read no SM (the SMs' own fields are
    /// lines that other cores have just written).
    waits: Vec<Option<Cycle>>,
    free: Vec<u32>,
    /// Per SM, during a round: the blocks handed to it (block, cycle), and the cycle it
    /// waited since if they are a speculation.
    given: Vec<Vec<(usize, Cycle)>>,
    speculated: Vec<Option<Cycle>>,
    /// A round's SMs waiting within the horizon, (cycle, SM) in dispatch order; its
    /// groups of tied SMs (cycle, range of `waiting`, first block); the SMs it runs, in
    /// index order. (Kept between rounds for their buffers.)
    waiting: Vec<(Cycle, usize)>,
    groups: Vec<(Cycle, std::ops::Range<usize>, usize)>,
    run: Vec<usize>,
}

impl Dispatch {
    /// The dispatcher after the initial fill: each SM's `waiting_since` and free slots.
    pub(super) fn new(waits: Vec<Option<Cycle>>, free: Vec<u32>) -> Dispatch {
        let sms = waits.len();
        Dispatch {
            speculate: rayon::current_num_threads() > 1,
            horizon: 1,
            waits,
            free,
            given: vec![Vec::new(); sms],
            speculated: vec![None; sms],
            waiting: Vec::new(),
            groups: Vec::new(),
            run: Vec::new(),
        }
    }

    /// One round; `false` if no SM waits for a block.
    pub(super) fn round<W: Workload + ?Sized>(
        &mut self,
        ctx: &Ctx<'_, W>,
        sms: &mut [Sm],
        next: &mut usize,
    ) -> bool {
        let waiting = &mut self.waiting;
        waiting.clear();
        waiting.extend(self.waits.iter().enumerate().filter_map(|(i, w)| Some(((*w)?, i))));
        let Some(&(t0, _)) = waiting.iter().min() else { return false };
        let limit = if self.speculate { t0.saturating_add(self.horizon) } else { t0 + 1 };
        waiting.retain(|&(t, _)| t < limit);
        waiting.sort_unstable();
        let groups = &mut self.groups;
        groups.clear();
        let mut i = 0;
        while i < waiting.len() && *next < ctx.blocks.len() {
            let t = waiting[i].0;
            let mut e = i;
            while e < waiting.len() && waiting[e].0 == t {
                e += 1;
            }
            let first = *next;
            for &(_, sm) in &waiting[i..e] {
                self.waits[sm] = None;
                // (the state before is saved in the parallel step, by the thread that
                // runs the SM)
                self.speculated[sm] = (!groups.is_empty()).then_some(t);
            }
            let mut gave = true;
            while gave && *next < ctx.blocks.len() {
                gave = false;
                for &(_, sm) in &waiting[i..e] {
                    if *next < ctx.blocks.len() && self.free[sm] > 0 {
                        self.given[sm].push((*next, t));
                        self.free[sm] -= 1;
                        *next += 1;
                        gave = true;
                    }
                }
            }
            groups.push((t, i..e, first));
            i = e;
        }
        let run = &mut self.run;
        run.clear();
        run.extend(waiting[..i].iter().map(|&(_, sm)| sm));
        run.sort_unstable();
        let (given, speculated) = (&self.given, &self.speculated);
        let results = run_sms(sms, run, |sm| {
            let i = sm.index as usize;
            sm.run.waiting_since = None;
            for &(block, at) in &given[i] {
                sm.assign(block, at);
            }
            match speculated[i] {
                Some(t) => sm.save(t),
                None => sm.saved_timings = None,
            }
            sm.advance(ctx, true);
            (sm.run.waiting_since, sm.run.free_slots)
        });
        for (&sm, &(w, f)) in run.iter().zip(&results) {
            (self.waits[sm], self.free[sm]) = (w, f);
            self.given[sm].clear();
        }
        // check the speculation: a group stands if every SM run before it paused later
        let mut earliest = Cycle::MAX;
        let mut shortest = Cycle::MAX;
        let mut wrong = None;
        for (g, (t, members, first)) in self.groups.iter().enumerate() {
            if g > 0 && *t >= earliest {
                wrong = Some((g, *first));
                break;
            }
            for &(_, sm) in &self.waiting[members.clone()] {
                if let Some(f) = self.waits[sm] {
                    earliest = earliest.min(f);
                    shortest = shortest.min(f - t);
                }
            }
        }
        if let Some((g, first)) = wrong {
            for (_, members, _) in &self.groups[g..] {
                for &(_, sm) in &self.waiting[members.clone()] {
                    sms[sm].restore();
                    (self.waits[sm], self.free[sm]) = (sms[sm].run.waiting_since, sms[sm].run.free_slots);
                }
            }
            *next = first;
        }
        if shortest != Cycle::MAX {
            self.horizon = shortest.max(1);
        }
        true
    }
}
