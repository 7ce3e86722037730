//! A captured workload stretched to a full dispatch, with its other work rescaled.
//!
//! A trace captured from a GPU kernel usually covers a few workgroups, while the kernel
//! is timed on thousands. When every workgroup makes the same shared-memory accesses
//! (true of most kernels: only global addresses depend on the workgroup id),
//! simulating the dispatch means repeating the captured blocks: block `b` of the
//! dispatch does what captured block `b mod B` did. [`Replicated`] is that view, without
//! copying anything.
//!
//! It also converts the trace's `gap` from *operations* (what `banksim capture` counts)
//! to issue *cycles* at `cycles_per_op`. The conversion keeps fractions: a warp's gaps
//! are the differences of its rounded running total, so 5 operations at 1.3 cycles
//! alternate 6 and 7 cycles and the total stays exact. A request's `wait` (operations
//! into its gap) is converted on the same running total, so it never exceeds the gap.

use crate::engine::{EngineRequest, Workload};

/// `template` repeated to `blocks` blocks, gaps scaled by a cycles-per-operation factor.
///
/// Generic over the template (a `&dyn Workload` works too) so that the engine, generic
/// over its workload, inlines the template's accessors; every lookup is O(1) (each
/// template request's block number and scaled gap are kept), and the replicated
/// workload's block starts are kept too, so the engine needs no pass over its requests
/// to find its blocks.
pub struct Replicated<'a, W: Workload + ?Sized = dyn Workload + 'a> {
    template: &'a W,
    /// Number of distinct template blocks.
    distinct: u32,
    /// Blocks of the replicated workload (numbered densely from 0).
    blocks: u32,
    /// Per template request: its gap and wait in cycles, and its block's number among
    /// the template's blocks.
    each: Vec<Each>,
    /// The first request of each block of the replicated workload.
    starts: Vec<usize>,
    /// The first request of each template block.
    template_starts: Vec<usize>,
    len: usize,
}

/// A template request's scaled gap and wait, and its template block's number.
#[derive(Clone, Copy)]
struct Each {
    gap: u32,
    wait: Option<u32>,
    block: u32,
}

impl<'a, W: Workload + ?Sized> Replicated<'a, W> {
    /// `template`'s blocks repeated to `blocks` blocks (`None`: as many as it has), its
    /// gaps multiplied by `cycles_per_op`.
    pub fn new(template: &'a W, blocks: Option<u32>, cycles_per_op: f64) -> Replicated<'a, W> {
        let n = template.len();
        // per warp, gaps are differences of the rounded running total of operations
        let mut each = Vec::with_capacity(n);
        let mut template_starts = Vec::new();
        let mut key = (u32::MAX, u32::MAX);
        let (mut ops, mut cycles) = (0u64, 0u64);
        for i in 0..n {
            let r = template.request(i);
            if i == 0 || r.block != key.0 {
                template_starts.push(i);
            }
            if (r.block, r.warp) != key {
                key = (r.block, r.warp);
                (ops, cycles) = (0, 0);
            }
            let at = |ops: u64| (ops as f64 * cycles_per_op).round() as u64;
            let cycles_of = |c: u64| u32::try_from(c).unwrap_or(u32::MAX);
            let wait = r.wait.map(|w| cycles_of(at(ops + w.min(r.gap) as u64) - cycles));
            ops += r.gap as u64;
            let total = at(ops);
            let block = template_starts.len() as u32 - 1;
            each.push(Each { gap: cycles_of(total - cycles), wait, block });
            cycles = total;
        }
        let distinct = template_starts.len() as u32;
        let blocks = blocks.unwrap_or(distinct);
        // block b of the replicated workload is template block b mod B of replica b / B
        let starts: Vec<usize> = match distinct {
            0 => Vec::new(),
            _ => (0..blocks as usize)
                .map(|b| b / distinct as usize * n + template_starts[b % distinct as usize])
                .collect(),
        };
        let len = match (blocks.checked_div(distinct), blocks.checked_rem(distinct)) {
            (Some(full), Some(part)) => {
                full as usize * n + template_starts.get(part as usize).copied().unwrap_or(n)
            }
            _ => 0,
        };
        Replicated { template, distinct, blocks, each, starts, template_starts, len }
    }

    /// Requests of `blocks` blocks of the template repeated (block `b` doing what
    /// template block `b mod B` did), without making them.
    pub fn requests_of(&self, blocks: u32) -> u64 {
        let n = self.each.len() as u64;
        match (blocks.checked_div(self.distinct), blocks.checked_rem(self.distinct)) {
            (Some(full), Some(part)) => (full as u64)
                .saturating_mul(n)
                .saturating_add(self.template_starts.get(part as usize).map_or(n, |&s| s as u64)),
            _ => 0,
        }
    }

    /// Blocks in the replicated workload.
    pub fn blocks(&self) -> u32 {
        self.blocks
    }

    /// Whether every template block is the same to the cycle engine as the first: the
    /// same warps making the same requests in the same order, with the same gaps and
    /// dependences, each costing the same wavefronts (`model` costs the requests whose
    /// lanes or addresses differ). Then each block of the dispatch runs as any other.
    pub fn identical_blocks(&self, model: &mut crate::BankModel) -> bool {
        let ts = &self.template_starts;
        let n = self.each.len();
        let end = |k: usize| ts.get(k + 1).copied().unwrap_or(n);
        let first = 0..end(0);
        (1..ts.len()).all(|k| {
            let other = ts[k]..end(k);
            other.len() == first.len()
                && first.clone().zip(other).all(|(i, j)| {
                    let (a, b) = (self.request(i), self.request(j));
                    let same_shape = a.warp == b.warp
                        && a.op == b.op
                        && a.bytes == b.bytes
                        && a.gap == b.gap
                        && a.dep == b.dep
                        && a.wait == b.wait;
                    let cost = |r: &EngineRequest<'_>, m: &mut crate::BankModel| {
                        r.cost.unwrap_or_else(|| {
                            m.evaluate(&crate::WarpRequest {
                                op: r.op,
                                bytes: r.bytes,
                                lanes: r.lanes,
                                addrs: r.addrs,
                            })
                        })
                    };
                    // (costed requests hold no lanes but for global ones: their costs
                    // decide)
                    let costed = a.cost.is_some() || b.cost.is_some();
                    same_shape
                        && (a.op == crate::Op::Barrier
                            || (!costed && a.lanes == b.lanes && a.addrs == b.addrs)
                            || cost(&a, model) == cost(&b, model))
                })
        })
    }
}

impl<W: Workload + ?Sized> Workload for Replicated<'_, W> {
    #[inline]
    fn len(&self) -> usize {
        self.len
    }

    #[inline]
    fn request(&self, i: usize) -> EngineRequest<'_> {
        let n = self.each.len();
        // (most runs are one replica: no division)
        let (replica, j) = if i < n { (0, i) } else { (i / n, i % n) };
        let mut r = self.template.request(j);
        // the template's k-th block (whatever its id) becomes block replica * B + k
        let e = self.each[j];
        r.block = replica as u32 * self.distinct + e.block;
        (r.gap, r.wait) = (e.gap, e.wait);
        r
    }

    #[inline]
    fn block(&self, i: usize) -> u32 {
        let n = self.each.len();
        (i / n) as u32 * self.distinct + self.each[i % n].block
    }

    fn extent(&self, warp: u32) -> Option<(u32, u32)> {
        self.template.extent(warp)
    }

    fn block_starts(&self) -> Option<&[usize]> {
        Some(&self.starts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::op::Op;

    /// (block, warp, gap) per request; a gap of more than 2 operations has its wait 2
    /// before its end.
    struct Fixed(Vec<(u32, u32, u32)>);

    impl Workload for Fixed {
        fn len(&self) -> usize {
            self.0.len()
        }
        fn request(&self, i: usize) -> EngineRequest<'_> {
            let (block, warp, gap) = self.0[i];
            EngineRequest {
                block,
                warp,
                op: Op::Load,
                bytes: 4,
                gap,
                dep: None,
                wait: (gap > 2).then(|| gap - 2),
                lanes: &[0],
                addrs: &[0],
                cost: None,
            }
        }
    }

    #[test]
    fn blocks_repeat_round_robin_and_ids_are_dense() {
        let t = Fixed(vec![(7, 0, 1), (7, 0, 1), (9, 0, 1)]);
        let r = Replicated::new(&t, Some(5), 1.0);
        let blocks: Vec<u32> = (0..r.len()).map(|i| r.request(i).block).collect();
        // blocks 0, 2, 4 are copies of template block 7 (two requests), 1 and 3 of block 9
        assert_eq!(blocks, vec![0, 0, 1, 2, 2, 3, 4, 4]);
        assert_eq!(Replicated::new(&t, None, 1.0).len(), 3);
    }

    #[test]
    fn scaled_gaps_keep_the_fraction_per_warp() {
        let t = Fixed(vec![(0, 0, 5), (0, 0, 5), (0, 0, 5), (0, 0, 5), (0, 1, 5)]);
        let r = Replicated::new(&t, None, 1.3);
        let gaps: Vec<u32> = (0..r.len()).map(|i| r.request(i).gap).collect();
        // running totals 6.5, 13, 19.5, 26 round to 7 (half away from zero), 13, 20, 26
        assert_eq!(gaps, vec![7, 6, 7, 6, 7]);
        assert_eq!(gaps[..4].iter().sum::<u32>(), 26);
        // waits 3 operations into each gap: running totals 3.9, 10.4, 16.9, 23.4 round to
        // 4, 10, 17, 23, i.e. 4, 3, 4, 3 cycles after the previous request's total
        let waits: Vec<Option<u32>> = (0..r.len()).map(|i| r.request(i).wait).collect();
        assert_eq!(waits, vec![Some(4), Some(3), Some(4), Some(3), Some(4)]);
    }
}
