//! [`Chunk`]: a decoded chunk's groups and, after [`Chunk::split`], its warp requests;
//! slice and masked-warp iteration, records, and the engine's `Workload`.

#[cfg(target_arch = "x86_64")]
use super::cpu::popcnt_available;
use super::error::BinaryError;
use super::format::{decode_code, dep_bits, is_run, PER_LANE, SLICE_LANES};
use crate::group::{merge_dep, merge_wait, RequestRef};
use crate::record::{Record, Trace};
// (lane numbers 0..64; requests with contiguous lanes borrow a slice of it)
use sim_core::LANE_NUMBERS as IOTA;
use sim_core::{LaneAddrs, MaskedRequest, Op};
use std::sync::Arc;

/// A decoded chunk: its groups, and (after [`Chunk::split`]) its warp requests for one
/// warp size. Reuse one `Chunk` for every chunk: the steady state allocates nothing.
#[derive(Clone, Debug, Default)]
pub struct Chunk {
    pub(super) name: Arc<str>,
    pub(super) offset: u64,
    // groups
    pub(super) g_block: Vec<u32>,
    pub(super) g_slice: Vec<u32>,
    pub(super) g_step: Vec<u32>,
    pub(super) g_mask: Vec<u64>,
    /// Attribute code, or `PER_LANE` (then `g_gap` is the start in `lane_code`).
    pub(super) g_code: Vec<u8>,
    pub(super) g_gap: Vec<u32>,
    /// Wait + 1, 0 for none (groups with one code): 64 bits, as the largest wait + 1
    /// is 2^32.
    pub(super) g_wait: Vec<u64>,
    /// Start of the group's lanes in `addrs`.
    pub(super) g_start: Vec<u32>,
    /// The group's addresses where a formula gives them (zero, affine, tile, or
    /// repeating such a group with the same mask), else `Form::Listed`.
    pub(super) g_form: Vec<Form>,
    /// The steps of the chunk's tile groups (`Form::Tile::at`).
    pub(super) g_tiles: Vec<[i32; 6]>,
    pub(super) addrs: Vec<u32>,
    /// Whether the addresses of groups with a formula are still to be written into
    /// `addrs` (`RawChunk::decode_lazy`).
    pub(super) lazy: bool,
    /// Whether some group has per-lane attributes.
    pub(super) per_lane: bool,
    pub(super) lane_code: Vec<u8>,
    pub(super) lane_gap: Vec<u32>,
    pub(super) lane_wait: Vec<u64>,
    /// Site + 1 (0 for none) per group with one code, and per lane of the others: in a
    /// file with sites only (else empty).
    pub(super) g_site: Vec<u32>,
    pub(super) lane_site: Vec<u32>,
    // requests
    warp_size: u32,
    reqs: Vec<Req>,
    /// `IOTA`, then the lanes of requests whose lanes are not contiguous.
    lanes: Vec<u16>,
}

/// How a group's addresses are given: listed in [`Chunk::addrs`], or by a formula
/// (the forms of [`LaneAddrs`]) whose addresses a lazy decode does not write out.
#[derive(Clone, Copy, Debug, Default)]
pub(super) enum Form {
    #[default]
    Listed,
    /// `first + stride × (lane − lowest lane)`.
    Affine { first: u32, stride: i64 },
    /// `origin + Σ_j bit j of lane × steps[j]`, the steps at `at` in [`Chunk::g_tiles`];
    /// every lane of 0..64 inside `0..2^32`. (An index keeps a form at 16 bytes: the
    /// steps in place would make every form larger, and strided and masked loads slower.)
    Tile { origin: u32, at: u32 },
}

impl Form {
    /// Writes the addresses of the active lanes of `mask` into `dst` (nothing for a
    /// listed group).
    #[inline]
    pub(super) fn fill(self, tiles: &[[i32; 6]], mask: u64, dst: &mut [u32]) {
        match self {
            Form::Listed => {}
            Form::Affine { first, stride } => sim_core::affine_addrs(first, stride as u32, mask, dst),
            Form::Tile { origin, at } => sim_core::tile_addrs(origin, &tiles[at as usize], mask, dst),
        }
    }

    /// The address of `lane` (of a group whose lowest lane is `l0`); `None` for a listed
    /// group.
    #[inline]
    fn lane(self, tiles: &[[i32; 6]], lane: u32, l0: u32) -> Option<u32> {
        match self {
            Form::Listed => None,
            Form::Affine { first, stride } => {
                Some(first.wrapping_add((stride as u32).wrapping_mul(lane - l0)))
            }
            Form::Tile { origin, at } => Some(sim_core::tile_lane(origin, &tiles[at as usize], lane)),
        }
    }
}

/// One warp request of a [`Chunk`] (one record, so that splitting pushes once).
#[derive(Clone, Copy, Debug, Default)]
struct Req {
    block: u32,
    warp: u32,
    step: u32,
    gap: u32,
    /// Wait + 1, 0 for none (the largest wait + 1 is 2^32).
    wait: u64,
    /// First address in `addrs`.
    start: u32,
    /// First lane in `lanes`.
    lanes: u32,
    code: u8,
    count: u8,
}

impl Chunk {
    /// Leaves no requests (and the lane list at `IOTA`).
    pub(super) fn clear_requests(&mut self) {
        self.reqs.clear();
        self.lanes.clear();
        self.lanes.extend_from_slice(&IOTA);
    }

    /// Leaves no groups and no requests (after a failed decode, which sized the group
    /// columns up front).
    pub(super) fn forget_groups(&mut self) {
        self.g_block.clear();
        self.g_start.clear();
        self.addrs.clear();
        self.clear_requests();
    }

    /// Groups in the chunk.
    pub fn groups(&self) -> usize {
        self.g_block.len()
    }

    /// Active lanes (records) in the chunk.
    pub fn records(&self) -> usize {
        self.addrs.len()
    }

    /// Writes out the addresses `RawChunk::decode_lazy` left affine.
    fn fill_lazy(&mut self) {
        if !self.lazy {
            return;
        }
        self.lazy = false;
        for g in 0..self.groups() {
            let (s, e) = (self.g_start[g] as usize, self.g_start[g + 1] as usize);
            self.g_form[g].fill(&self.g_tiles, self.g_mask[g], &mut self.addrs[s..e]);
        }
    }

    /// Calls `f` with every group of the chunk as one slice request: its 64-lane mask and
    /// either `first + stride × lane` (affine groups, whose addresses a lazy decode did
    /// not write out) or the list of its addresses, the form
    /// [`sim_core::BankModel::evaluate_slice`] takes ([`MaskedRequest::warps`] cuts it
    /// into warp requests). Slices come in (block, slice, step) order.
    ///
    /// Returns `Ok(false)`, calling `f` for nothing, where some group has per-lane
    /// attributes (whose lanes may disagree on op or width): then [`Chunk::split`] is the
    /// way. Stops at `f`'s first error.
    #[inline]
    pub fn for_each_slice<E>(&self, mut f: impl FnMut(&MaskedSlice<'_>) -> Result<(), E>) -> Result<bool, E> {
        if self.per_lane {
            return Ok(false);
        }
        for g in 0..self.groups() {
            let (mask, code) = (self.g_mask[g], self.g_code[g]);
            let (op, bytes, _) = decode_code(code).unwrap_or((Op::Barrier, 0, None));
            let addrs = match self.g_form[g] {
                Form::Listed => {
                    LaneAddrs::Listed(&self.addrs[self.g_start[g] as usize..self.g_start[g + 1] as usize])
                }
                Form::Affine { first, stride } => LaneAddrs::Affine { first, stride },
                Form::Tile { origin, at } => LaneAddrs::Tile { origin, steps: &self.g_tiles[at as usize] },
            };
            f(&MaskedSlice {
                block: self.g_block[g],
                slice: self.g_slice[g],
                step: self.g_step[g],
                request: MaskedRequest { op, bytes, mask, addrs },
            })?;
        }
        Ok(true)
    }

    /// Calls `f` with every warp request of `warp` lanes in the chunk, as a lane mask
    /// and either `first + stride × lane` (affine groups, whose addresses a lazy decode
    /// did not write out) or the list of addresses: the form
    /// [`sim_core::BankModel::evaluate_masked`] takes. Requests come in group order
    /// ((block, slice, step), then the warps of the slice), not in the (block, warp,
    /// step) order of [`Chunk::split`]; lane numbers are within the warp.
    ///
    /// Returns `Ok(false)`, calling `f` for nothing, where some group has per-lane
    /// attributes (whose lanes may disagree on op or width): then [`Chunk::split`] is the
    /// way. Stops at `f`'s first error.
    pub fn for_each_masked<E>(
        &self,
        warp: u32,
        mut f: impl FnMut(&MaskedWarp<'_>) -> Result<(), E>,
    ) -> Result<bool, E>
    where
        E: From<BinaryError>,
    {
        // (not compiled with POPCNT as the decoder is: `f`, inlined into such a copy,
        // runs the bank model about a quarter slower)
        check_warp(warp)?;
        let per = SLICE_LANES / warp;
        self.for_each_slice(|s| {
            s.request.warps(warp, |j, &request| {
                f(&MaskedWarp { block: s.block, warp: s.slice * per + j, step: s.step, request })
            })
        })
    }

    /// Cuts the groups into warp requests of `warp` lanes, in (block, warp, step) order.
    /// Lanes of one request must agree on op and width.
    pub fn split(&mut self, warp: u32) -> Result<(), BinaryError> {
        #[cfg(target_arch = "x86_64")]
        if popcnt_available() {
            // SAFETY: the CPU has POPCNT.
            return unsafe { self.split_popcnt(warp) };
        }
        self.split_with(warp)
    }

    /// [`Self::split_with`] with POPCNT (see `RawChunk::decode_any`).
    ///
    /// # Safety
    /// The CPU must have POPCNT.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "popcnt")]
    unsafe fn split_popcnt(&mut self, warp: u32) -> Result<(), BinaryError> {
        self.split_with(warp)
    }

    /// See [`Self::split`].
    #[inline(always)]
    fn split_with(&mut self, warp: u32) -> Result<(), BinaryError> {
        check_warp(warp)?;
        self.fill_lazy();
        self.clear_requests();
        self.warp_size = warp;
        let per = SLICE_LANES / warp;
        let kmask = u64::MAX >> (64 - warp);
        let n = self.groups();
        self.reqs.reserve(n * per as usize);
        if per == 1 {
            for g in 0..n {
                self.emit(g, 0, self.g_mask[g], self.g_slice[g])?;
            }
            return Ok(());
        }
        let mut g = 0;
        while g < n {
            let (block, slice) = (self.g_block[g], self.g_slice[g]);
            let mut e = g + 1;
            while e < n && self.g_block[e] == block && self.g_slice[e] == slice {
                e += 1;
            }
            for j in 0..per {
                let low = j * warp;
                for h in g..e {
                    let sub = (self.g_mask[h] >> low) & kmask;
                    if sub != 0 {
                        let skip = (self.g_mask[h] & ((1u64 << low) - 1)).count_ones();
                        self.emit(h, skip, sub, slice * per + j)?;
                    }
                }
            }
            g = e;
        }
        Ok(())
    }

    /// Appends the request of group `g`'s lanes `sub` (lane numbers within the warp),
    /// which start `skip` active lanes into the group.
    #[inline]
    fn emit(&mut self, g: usize, skip: u32, sub: u64, warp: u32) -> Result<(), BinaryError> {
        let count = sub.count_ones();
        let start = self.g_start[g] + skip;
        let tz = sub.trailing_zeros();
        let lanes_at = if is_run(sub) {
            tz
        } else {
            let at = self.lanes.len() as u32;
            let mut m = sub;
            while m != 0 {
                self.lanes.push(m.trailing_zeros() as u16);
                m &= m - 1;
            }
            at
        };
        let (code, gap, wait) = if self.g_code[g] == PER_LANE {
            let s = (self.g_gap[g] + skip) as usize;
            let codes = &self.lane_code[s..s + count as usize];
            let gaps = &self.lane_gap[s..s + count as usize];
            // the warp stalls at its earliest lane's first use (0: none, else wait + 1)
            let waits = &self.lane_wait[s..s + count as usize];
            let wait = waits
                .iter()
                .map(|&w| w.checked_sub(1).map(|w| w as u32))
                .fold(None, merge_wait)
                .map_or(0, |w| w as u64 + 1);
            let first = codes[0];
            let mut dep = decode_code(first).and_then(|(_, _, d)| d);
            for &c in &codes[1..] {
                if c & 0x3F != first & 0x3F {
                    let (a, b) = (decode_code(first), decode_code(c));
                    let problem = match (a, b) {
                        (Some((oa, _, _)), Some((ob, _, _))) if oa != ob => format!("ops: `{oa}` and `{ob}`"),
                        (Some((_, wa, _)), Some((_, wb, _))) => format!("widths: {wa} and {wb} bytes"),
                        _ => "attributes".into(),
                    };
                    return Err(BinaryError::Mixed {
                        file: self.name.to_string(),
                        offset: self.offset,
                        block: self.g_block[g],
                        warp,
                        step: self.g_step[g],
                        problem,
                    });
                }
                dep = merge_dep(dep, decode_code(c).and_then(|(_, _, d)| d));
            }
            (first & 0x3F | dep_bits(dep) << 6, gaps.iter().copied().max().unwrap_or(0), wait)
        } else {
            (self.g_code[g], self.g_gap[g], self.g_wait[g])
        };
        self.reqs.push(Req {
            block: self.g_block[g],
            warp,
            step: self.g_step[g],
            gap,
            wait,
            start,
            lanes: lanes_at,
            code,
            count: count as u8,
        });
        Ok(())
    }

    /// Warp requests after [`Chunk::split`].
    pub fn len(&self) -> usize {
        self.reqs.len()
    }

    /// Whether there are no warp requests.
    pub fn is_empty(&self) -> bool {
        self.reqs.is_empty()
    }

    /// The warp size of the last [`Chunk::split`].
    pub fn warp_size(&self) -> u32 {
        self.warp_size
    }

    /// Request `i` (its `line` is 0: binary traces have no lines).
    #[inline]
    pub fn get(&self, i: usize) -> RequestRef<'_> {
        let r = &self.reqs[i];
        let (op, bytes, dep) = decode_code(r.code).unwrap_or((Op::Barrier, 0, None));
        let n = r.count as usize;
        let s = r.start as usize;
        let l = r.lanes as usize;
        RequestRef {
            block: r.block,
            warp: r.warp,
            step: r.step,
            op,
            bytes,
            gap: r.gap,
            dep,
            wait: r.wait.checked_sub(1).map(|w| w as u32),
            line: 0,
            site: crate::NO_SITE,
            lanes: &self.lanes[l..l + n],
            addrs: &self.addrs[s..s + n],
        }
    }

    /// All requests in (block, warp, step) order.
    #[inline]
    pub fn iter(&self) -> ChunkRequests<'_> {
        ChunkRequests { chunk: self, next: 0 }
    }

    /// Appends the chunk's per-thread records to `trace` (in (block, slice, step, lane)
    /// order, with line 0).
    pub fn push_records(&self, trace: &mut Trace) {
        trace.records.reserve(self.records());
        trace.lines.reserve(self.records());
        for g in 0..self.groups() {
            let mut m = self.g_mask[g];
            let mut k = self.g_start[g] as usize;
            let per_lane = self.g_code[g] == PER_LANE;
            let mut p = self.g_gap[g] as usize;
            let (form, l0) = (self.g_form[g], m.trailing_zeros());
            while m != 0 {
                let lane = m.trailing_zeros();
                m &= m - 1;
                let (code, gap, wait, site) = if per_lane {
                    p += 1;
                    let site = self.lane_site.get(p - 1).copied().unwrap_or(0);
                    (self.lane_code[p - 1], self.lane_gap[p - 1], self.lane_wait[p - 1], site)
                } else {
                    (self.g_code[g], self.g_gap[g], self.g_wait[g], self.g_site.get(g).copied().unwrap_or(0))
                };
                let (op, bytes, dep) = decode_code(code).unwrap_or((Op::Barrier, 0, None));
                trace.records.push(Record {
                    block: self.g_block[g],
                    thread: self.g_slice[g] * SLICE_LANES + lane,
                    step: self.g_step[g],
                    op,
                    addr: match form.lane(&self.g_tiles, lane, l0) {
                        Some(a) if self.lazy => a,
                        _ => self.addrs[k],
                    },
                    bytes,
                    gap,
                    dep,
                    wait: wait.checked_sub(1).map(|w| w as u32),
                    site: site.checked_sub(1).unwrap_or(crate::NO_SITE),
                });
                trace.lines.push(0);
                k += 1;
            }
        }
    }
}

/// A warp size a chunk splits into: a power of two up to [`SLICE_LANES`].
fn check_warp(warp: u32) -> Result<(), BinaryError> {
    if warp.is_power_of_two() && warp <= SLICE_LANES {
        Ok(())
    } else {
        Err(BinaryError::WarpSize { warp })
    }
}

/// One group of [`Chunk::for_each_slice`]: the 64-thread slice `slice` of block `block`
/// at step `step`, as one request whose mask covers the slice's 64 lanes.
#[derive(Clone, Copy, Debug)]
pub struct MaskedSlice<'a> {
    /// Block.
    pub block: u32,
    /// Slice of the block (threads `64 × slice ..`).
    pub slice: u32,
    /// Step.
    pub step: u32,
    /// The slice's lanes and addresses.
    pub request: MaskedRequest<'a>,
}

/// One warp request of [`Chunk::for_each_masked`].
#[derive(Clone, Copy, Debug)]
pub struct MaskedWarp<'a> {
    /// Block.
    pub block: u32,
    /// Warp within the block.
    pub warp: u32,
    /// Step.
    pub step: u32,
    /// Op, width, lane mask (within the warp) and addresses.
    pub request: MaskedRequest<'a>,
}

/// The warp requests of a [`Chunk`], in order ([`Chunk::iter`]). A named type with an
/// inlined `next`, so that a caller's loop over requests compiles into one loop.
#[derive(Clone, Debug)]
pub struct ChunkRequests<'a> {
    chunk: &'a Chunk,
    next: usize,
}

impl<'a> Iterator for ChunkRequests<'a> {
    type Item = RequestRef<'a>;

    #[inline]
    fn next(&mut self) -> Option<RequestRef<'a>> {
        if self.next >= self.chunk.len() {
            return None;
        }
        self.next += 1;
        Some(self.chunk.get(self.next - 1))
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.chunk.len() - self.next;
        (left, Some(left))
    }
}

impl ExactSizeIterator for ChunkRequests<'_> {}

impl sim_core::engine::Workload for Chunk {
    #[inline]
    fn len(&self) -> usize {
        self.reqs.len()
    }

    #[inline]
    fn request(&self, i: usize) -> sim_core::engine::EngineRequest<'_> {
        self.get(i).engine_request()
    }
}
