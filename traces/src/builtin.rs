//! Built-in workloads with fixed shapes: the demo's tile transpose (`banksim demo`), the
//! wgpu stride sweep (`banksim stridebench`, `banksim bench`), and the strided loads,
//! independent loads and pointer chases of the engine's tests. The parametric generators
//! that `banksim gen` and studies name are in [`crate::generators`].

use crate::group::Requests;
use crate::record::{Record, Trace};
use sim_core::Op;

/// A block that transposes a `tile × tile` tile of `bytes`-byte elements through shared
/// memory: every thread stores its element row-wise (`sh[ty][tx]`), a barrier, then
/// loads column-wise (`sh[tx][ty]`); rows are `tile + pad` elements apart. One block of
/// `tile × tile` threads, thread = ty * tile + tx.
pub fn transpose(tile: u32, pad: u32, bytes: u8) -> Trace {
    let mut trace = Trace::new(format!("transpose {tile}x{tile} pad {pad} ({bytes}-byte)"));
    let pitch = tile + pad;
    for ty in 0..tile {
        for tx in 0..tile {
            let thread = ty * tile + tx;
            let rec = |step, op, elem: u32| Record {
                block: 0,
                thread,
                step,
                op,
                addr: elem * bytes as u32,
                bytes: if op == Op::Barrier { 0 } else { bytes },
                gap: 0,
                dep: None,
                wait: None,
                site: crate::NO_SITE,
            };
            trace.push(rec(0, Op::Store, ty * pitch + tx));
            trace.push(rec(1, Op::Barrier, 0));
            trace.push(rec(2, Op::Load, tx * pitch + ty));
        }
    }
    trace
}

/// One block of `threads` threads, each issuing one `op` of `bytes` bytes at element
/// `offset + thread × stride` (in elements of `bytes`).
pub fn strided(threads: u32, stride: u32, offset: u32, bytes: u8, op: Op) -> Trace {
    let mut trace = Trace::new(format!("stride {stride} ({bytes}-byte {op})"));
    for thread in 0..threads {
        trace.push(Record {
            block: 0,
            thread,
            step: 0,
            op,
            addr: (offset + thread * stride) * bytes as u32,
            bytes,
            gap: 0,
            dep: None,
            wait: None,
            site: crate::NO_SITE,
        });
    }
    trace
}

/// The dependent-load latency microbenchmark of `timing_cycles.txt`: one warp, lane `t`
/// chasing `sh[a] = a` from `elems[t]` (4-byte elements) `iters` times; every load
/// needs the previous one.
pub fn pointer_chase(elems: &[Option<u32>], iters: u32) -> Requests {
    let (lanes, addrs) = lanes_addrs(elems, 4);
    let mut out = Requests::new(elems.len() as u32);
    for step in 0..iters {
        out.push(0, 0, step, Op::Load, 4, 0, Some(step > 0), None, &lanes, &addrs);
    }
    out
}

/// The saturated-throughput microbenchmark of `timing_cycles.txt`: `warps` warps of one
/// block, each lane loading `elems[lane]` (4-byte elements) `loads` times, every load
/// independent of the others.
pub fn independent_loads(elems: &[Option<u32>], warps: u32, loads: u32) -> Requests {
    let (lanes, addrs) = lanes_addrs(elems, 4);
    let mut out = Requests::new(elems.len() as u32);
    for warp in 0..warps {
        for step in 0..loads {
            out.push(0, warp, step, Op::Load, 4, 0, Some(false), None, &lanes, &addrs);
        }
    }
    out
}

/// Lanes and byte addresses of the active elements.
pub fn lanes_addrs(elems: &[Option<u32>], bytes: u32) -> (Vec<u16>, Vec<u32>) {
    elems.iter().enumerate().filter_map(|(t, e)| e.map(|e| (t as u16, e * bytes))).unzip()
}

/// The wgpu stride sweep of `validate/probe/wgpu_stridebench.rs`, generated on
/// the fly (138 M requests at full size are never stored): `blocks` workgroups of
/// `threads` invocations; each invocation stores `sh[i] = i` for its share of the
/// 8192-word array, meets a barrier, then chases `v = sh[v]` `iters` times from
/// `(lane * stride) & 8191`, lane = index & 31. Every chase step but the first needs
/// the previous load; `gap` cycles of other work precede each step.
pub struct StrideBench {
    blocks: u32,
    warps: u32,
    iters: u32,
    gap: u32,
    stores: u32,
    lanes: Vec<u16>,
    /// Store addresses per (warp, store), then the chase addresses.
    store_addrs: Vec<u32>,
    chase_addrs: Vec<u32>,
}

impl StrideBench {
    /// Words in the workgroup array.
    pub const WORDS: u32 = 8192;

    /// The sweep's workload for one stride, 32-lane warps.
    pub fn new(blocks: u32, threads: u32, iters: u32, stride: u32, gap: u32) -> StrideBench {
        let warp = 32;
        let warps = threads.div_ceil(warp);
        let stores = Self::WORDS.div_ceil(threads);
        let lanes: Vec<u16> = (0..warp as u16).collect();
        let mut store_addrs = Vec::with_capacity((warps * stores * warp) as usize);
        for w in 0..warps {
            for k in 0..stores {
                for l in 0..warp {
                    store_addrs.push((k * threads + w * warp + l) * 4);
                }
            }
        }
        let chase_addrs = (0..warp).map(|l| (l.wrapping_mul(stride) & (Self::WORDS - 1)) * 4).collect();
        StrideBench { blocks, warps, iters, gap, stores, lanes, store_addrs, chase_addrs }
    }

    /// Requests of one warp: its stores, the barrier and its chase steps.
    fn per_warp(&self) -> u64 {
        self.stores as u64 + 1 + self.iters as u64
    }

    /// Warp requests of the sweep [`StrideBench::new`] would make with these
    /// arguments, without making it (saturated at `u64::MAX`).
    pub fn requests(blocks: u32, threads: u32, iters: u32) -> u64 {
        let per_warp = Self::WORDS.div_ceil(threads.max(1)) as u64 + 1 + iters as u64;
        (blocks as u64).saturating_mul(threads.div_ceil(32) as u64).saturating_mul(per_warp)
    }
}

impl sim_core::engine::Workload for StrideBench {
    fn len(&self) -> usize {
        // (a sweep too large for the address space has no requests to index: callers
        // check `StrideBench::requests` against their limit first)
        let n = (self.blocks as u64).saturating_mul(self.warps as u64).saturating_mul(self.per_warp());
        usize::try_from(n).unwrap_or(usize::MAX)
    }

    fn request(&self, i: usize) -> sim_core::engine::EngineRequest<'_> {
        let per_warp = self.per_warp() as usize;
        let per_block = per_warp * self.warps as usize;
        let block = (i / per_block) as u32;
        let warp = ((i % per_block) / per_warp) as u32;
        let (step, stores) = (i % per_warp, self.stores as usize);
        let all = &self.lanes[..];
        let (op, gap, dep, addrs) = if step < stores {
            let s = (warp as usize * stores + step) * 32;
            (Op::Store, 0, Some(false), &self.store_addrs[s..s + 32])
        } else if step == stores {
            (Op::Barrier, 0, Some(false), &self.chase_addrs[..0])
        } else {
            (Op::Load, self.gap, Some(step > stores + 1), &self.chase_addrs[..])
        };
        let lanes = if op == Op::Barrier { &all[..0] } else { all };
        sim_core::engine::EngineRequest {
            block,
            warp,
            op,
            bytes: 4,
            gap,
            dep,
            wait: None,
            lanes,
            addrs,
            cost: None,
        }
    }
}
