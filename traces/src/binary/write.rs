//! Writing binary traces: the [`Writer`] (group input, column encoding, chunking) and
//! [`write`] of a whole trace.

use super::error::WriteError;
use super::format::{
    dep_bits, is_run, op_width_bits, CHUNK_HEADER_LEN, CHUNK_LANES, CHUNK_TAG, COLUMNS, END_LEN, END_TAG,
    EXPLICIT_MASK, FLAG_SITES, FLAG_TIMING, FLAG_WAIT, HEADER_LEN, MAGIC, MAX_CHUNK_BYTES, MODE_AFFINE,
    MODE_DELTA, MODE_PACKED, MODE_REPEAT, MODE_TILE, MODE_ZERO, PER_LANE, SITES_TAG, SLICE_LANES,
    VERSION_NO_SITES, VERSION_SITES, VERSION_TENSOR_OPS,
};
use super::varint::{put_varint, varint_len, zigzag};
use crate::record::Trace;
use sim_core::Op;
use std::io::Write;

/// One thread's attributes: what it does and when.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaneAttr {
    /// Operation.
    pub op: Op,
    /// Access width (0 for barriers).
    pub bytes: u8,
    /// Cycles of other work since the thread's previous record.
    pub gap: u32,
    /// Dependence on the thread's previous load.
    pub dep: Option<bool>,
    /// Cycles of `gap` before the first use of the previous load's value (a file
    /// written with waits only, see [`Writer::with_waits`]).
    pub wait: Option<u32>,
    /// Its site ([`crate::NO_SITE`] for none; kept in a file written with a site table
    /// only, see [`Writer::with_sites`]).
    pub site: u32,
}

/// The attributes of a group's lanes.
#[derive(Clone, Copy, Debug)]
pub enum Attrs<'a> {
    /// Every active lane has these.
    Uniform(LaneAttr),
    /// One per active lane, in lane order.
    PerLane(&'a [LaneAttr]),
}

/// One group for [`Writer::push`]: the active threads of one 64-thread slice of a block
/// at one step.
#[derive(Clone, Copy, Debug)]
pub struct Group<'a> {
    /// Block id.
    pub block: u32,
    /// Slice: thread / 64.
    pub slice: u32,
    /// Step.
    pub step: u32,
    /// Active lanes (thread % 64), bit `l` for lane `l`; not zero.
    pub mask: u64,
    /// The lanes' attributes.
    pub attrs: Attrs<'a>,
    /// Byte address per active lane, in lane order.
    pub addrs: &'a [u32],
}

/// The attribute code of `a`; `None` for an op and width the format cannot hold.
fn attr_code(a: &LaneAttr) -> Option<u8> {
    Some(op_width_bits(a.op, a.bytes)? | dep_bits(a.dep) << 6)
}

/// Writes binary traces group by group, in (block, slice, step) order, closing a chunk
/// every [`CHUNK_LANES`] lanes at a (block, slice) boundary. Memory: one chunk.
pub struct Writer<W: Write> {
    out: W,
    name: String,
    cols: [Vec<u8>; COLUMNS],
    /// Groups and lanes in the open chunk.
    groups: u32,
    lanes: u32,
    first: (u32, u32, u32),
    /// Last group written (whole file), for ordering.
    last: Option<(u32, u32, u32)>,
    /// Previous group in the open chunk: its key, first address and addresses.
    prev_key: (u32, u32, u32),
    prev_first: u32,
    prev_addrs: Vec<u32>,
    chunks: u64,
    total_groups: u64,
    total_lanes: u64,
    chunk_lanes: u32,
    /// Whether the file stores a wait after every gap (flag bit 1).
    waits: bool,
    /// Sites in the file's table; `None` for a file without sites.
    sites: Option<u32>,
    /// The header (and site table), until the first chunk or the end writes it.
    head: Option<Vec<u8>>,
    /// Whether the header says version 4 (the tensor-core ops).
    tensor_ops: bool,
}

impl<W: Write> Writer<W> {
    /// Starts a binary trace on `out`; `name` is used in messages, `timing_columns`
    /// records whether the source had the gap/dep columns.
    pub fn new(out: W, name: &str, timing_columns: bool) -> Result<Writer<W>, WriteError> {
        Writer::start(out, name, timing_columns, false, None)
    }

    /// A writer that keeps records' sites, with the site table `sites` (the labels of
    /// site ids 0, 1, ...): format version 3, every gap stored with its wait and site.
    pub fn with_sites(out: W, name: &str, sites: &[String]) -> Result<Writer<W>, WriteError> {
        Writer::start(out, name, true, true, Some(sites))
    }

    /// [`Writer::new`] for records with waits (the text format's `wait` column): every
    /// gap is stored with its wait.
    pub fn with_waits(out: W, name: &str) -> Result<Writer<W>, WriteError> {
        Writer::start(out, name, true, true, None)
    }

    /// The writer for the records of a text trace of `columns` columns (6 to 9): the
    /// timing columns from 8 on, a wait with every gap at 9 (an empty one stored as none).
    pub fn for_text_columns(out: W, name: &str, columns: usize) -> Result<Writer<W>, WriteError> {
        Writer::start(out, name, columns > 6, columns > 8, None)
    }

    fn start(
        out: W,
        name: &str,
        timing_columns: bool,
        waits: bool,
        sites: Option<&[String]>,
    ) -> Result<Writer<W>, WriteError> {
        let mut header = [0u8; HEADER_LEN];
        header[..8].copy_from_slice(MAGIC);
        let version = if sites.is_some() { VERSION_SITES } else { VERSION_NO_SITES };
        header[8..10].copy_from_slice(&version.to_le_bytes());
        let flags = if timing_columns { FLAG_TIMING } else { 0 }
            | if waits { FLAG_WAIT } else { 0 }
            | if sites.is_some() { FLAG_SITES } else { 0 };
        header[10..12].copy_from_slice(&flags.to_le_bytes());
        header[12] = SLICE_LANES as u8;
        let crc = crc32fast::hash(&header[..16]);
        header[16..].copy_from_slice(&crc.to_le_bytes());
        let mut head = header.to_vec();
        if let Some(sites) = sites {
            // "SITE", count u32, each label as length u32 and its bytes, CRC-32
            let mut t = Vec::new();
            t.extend_from_slice(SITES_TAG);
            t.extend_from_slice(&(sites.len() as u32).to_le_bytes());
            for label in sites {
                let label = label.replace(['\n', '\r'], " ");
                t.extend_from_slice(&(label.len() as u32).to_le_bytes());
                t.extend_from_slice(label.as_bytes());
            }
            let crc = crc32fast::hash(&t);
            t.extend_from_slice(&crc.to_le_bytes());
            head.extend_from_slice(&t);
        }
        Ok(Writer {
            out,
            name: name.into(),
            cols: Default::default(),
            groups: 0,
            lanes: 0,
            first: (0, 0, 0),
            last: None,
            prev_key: (0, 0, 0),
            prev_first: 0,
            prev_addrs: Vec::new(),
            chunks: 0,
            total_groups: 0,
            total_lanes: 0,
            chunk_lanes: CHUNK_LANES,
            waits,
            sites: sites.map(|s| s.len() as u32),
            head: Some(head),
            tensor_ops: false,
        })
    }

    /// A writer whose file may hold the tensor-core ops (`ldsm`, `stsm`, `ldgsts`,
    /// `ldgsts.cg`): format version 4, which banksim before it does not read. A writer
    /// without it turns to version 4 by itself at the first such op pushed before its
    /// first chunk is written (the header goes out with that chunk); after that, such an
    /// op is an error.
    pub fn with_tensor_ops(mut self) -> Writer<W> {
        self.set_tensor_ops();
        self
    }

    fn set_tensor_ops(&mut self) {
        let Some(head) = &mut self.head else { return };
        self.tensor_ops = true;
        head[8..10].copy_from_slice(&VERSION_TENSOR_OPS.to_le_bytes());
        let crc = crc32fast::hash(&head[..16]);
        head[16..HEADER_LEN].copy_from_slice(&crc.to_le_bytes());
    }

    /// Writes the header and site table if they are not written yet.
    fn write_head(&mut self) -> Result<(), WriteError> {
        if let Some(head) = self.head.take() {
            self.out.write_all(&head)?;
        }
        Ok(())
    }

    /// Closes chunks at `lanes` lanes instead of [`CHUNK_LANES`] (tests use small chunks).
    pub fn with_chunk_lanes(mut self, lanes: u32) -> Writer<W> {
        self.chunk_lanes = lanes.max(1);
        self
    }

    /// The output written so far (the open chunk is still buffered, and the header with
    /// it until the first chunk is written).
    pub fn output(&self) -> &W {
        &self.out
    }

    /// Appends one group; groups must come in strictly increasing (block, slice, step).
    pub fn push(&mut self, g: &Group<'_>) -> Result<(), WriteError> {
        let key = (g.block, g.slice, g.step);
        let invalid = |problem: String| WriteError::Invalid {
            file: self.name.clone(),
            block: g.block,
            slice: g.slice,
            step: g.step,
            problem,
        };
        if let Some(last) = self.last {
            if key <= last {
                return Err(invalid(format!(
                    "groups out of order: (block, slice, step) must increase, previous was {last:?}"
                )));
            }
        }
        let n = g.mask.count_ones() as usize;
        if n == 0 || g.addrs.len() != n {
            return Err(invalid(format!("{} addresses for a lane mask of {n} lanes", g.addrs.len())));
        }
        if g.slice > u32::MAX / SLICE_LANES {
            return Err(invalid("thread index beyond 2^32".into()));
        }
        let waits = self.waits;
        let sites = self.sites;
        let attr_ok = |a: &LaneAttr, addr: u32| {
            attr_code(a).is_some()
                && addr as u64 + a.bytes as u64 <= 1 << 32
                && a.wait.is_none_or(|w| waits && w <= a.gap)
                && (a.site == crate::NO_SITE || sites.is_none_or(|n| a.site < n))
        };
        let codes_ok = match g.attrs {
            // one code for every lane: only the highest address can go past 2^32
            Attrs::Uniform(a) => attr_ok(&a, g.addrs.iter().copied().max().unwrap_or(0)),
            Attrs::PerLane(v) => v.len() == n && v.iter().zip(g.addrs).all(|(a, &addr)| attr_ok(a, addr)),
        };
        if !codes_ok {
            return Err(invalid(
                "invalid attributes: a width of 1, 2, 4, 8 or 16 bytes (0 for a barrier; 16 for ldsm, stsm and ldgsts.cg; 4, 8 or 16 for ldgsts), one per lane, address + width below 2^32, a wait (in a file written with waits) at most the gap, and a site in the site table".into(),
            ));
        }
        let tensor = match g.attrs {
            Attrs::Uniform(a) => a.op.is_tensor().then_some(a.op),
            Attrs::PerLane(v) => v.iter().find(|a| a.op.is_tensor()).map(|a| a.op),
        };
        if let (Some(op), false) = (tensor, self.tensor_ops) {
            if self.head.is_none() {
                return Err(invalid(format!(
                    "`{op}` needs binary format version 4, and the header, written with the first chunk, says an older one: make the writer `with_tensor_ops`"
                )));
            }
            self.set_tensor_ops();
        }
        let new_run = self.last.is_none_or(|(b, s, _)| (b, s) != (g.block, g.slice));
        if new_run && self.lanes >= self.chunk_lanes {
            self.flush()?;
        }
        if self.groups == 0 {
            self.first = key;
            self.prev_key = (0, 0, 0);
            self.prev_first = 0;
            self.prev_addrs.clear();
        }
        self.encode(g, n);
        self.prev_key = key;
        self.last = Some(key);
        self.groups += 1;
        self.lanes += n as u32;
        if self.cols.iter().map(|c| c.len() as u64).sum::<u64>() > MAX_CHUNK_BYTES as u64 - 1024 {
            return Err(WriteError::Invalid {
                file: self.name.clone(),
                block: g.block,
                slice: g.slice,
                step: g.step,
                problem: "one run of a 64-thread slice is too large for a chunk (1 GiB)".into(),
            });
        }
        Ok(())
    }

    fn encode(&mut self, g: &Group<'_>, n: usize) {
        let (pb, ps, pt) = self.prev_key;
        let [c_block, c_slice, c_step, c_mask, c_attr, c_gap, c_mode, c_addr] = &mut self.cols;
        put_varint(c_block, (g.block - pb) as u64);
        if g.block == pb {
            put_varint(c_slice, (g.slice - ps) as u64);
        } else {
            put_varint(c_slice, g.slice as u64);
        }
        if (g.block, g.slice) == (pb, ps) && self.groups > 0 {
            put_varint(c_step, (g.step - pt - 1) as u64);
        } else {
            put_varint(c_step, g.step as u64);
        }
        let first_lane = g.mask.trailing_zeros();
        if is_run(g.mask) {
            c_mask.extend_from_slice(&[first_lane as u8, n as u8]);
        } else {
            c_mask.push(EXPLICIT_MASK);
            c_mask.extend_from_slice(&g.mask.to_le_bytes());
        }
        let (waits, sites) = (self.waits, self.sites.is_some());
        let put_gap = |c_gap: &mut Vec<u8>, a: &LaneAttr| {
            put_varint(c_gap, a.gap as u64);
            if waits {
                put_varint(c_gap, a.wait.map_or(0, |w| w as u64 + 1));
            }
            if sites {
                put_varint(c_gap, if a.site == crate::NO_SITE { 0 } else { a.site as u64 + 1 });
            }
        };
        match g.attrs {
            Attrs::Uniform(a) => {
                c_attr.push(attr_code(&a).unwrap_or(0));
                put_gap(c_gap, &a);
            }
            Attrs::PerLane(v) => {
                let uniform = v.iter().all(|a| a == &v[0]);
                if uniform {
                    c_attr.push(attr_code(&v[0]).unwrap_or(0));
                    put_gap(c_gap, &v[0]);
                } else {
                    c_attr.push(PER_LANE);
                    for a in v {
                        c_attr.push(attr_code(a).unwrap_or(0));
                        put_gap(c_gap, a);
                    }
                }
            }
        }
        let a = g.addrs;
        let first = a[0];
        if a == &self.prev_addrs[..] {
            c_mode.push(MODE_REPEAT);
        } else if a.iter().all(|&x| x == 0) {
            c_mode.push(MODE_ZERO);
        } else {
            let base = zigzag(first as i64 - self.prev_first as i64);
            let stride = if n > 1 {
                let l1 = (g.mask & (g.mask - 1)).trailing_zeros();
                let d = a[1] as i64 - first as i64;
                let span = (l1 - first_lane) as i64;
                (d % span == 0).then_some(d / span)
            } else {
                Some(0)
            };
            let affine = stride.filter(|&s| {
                let mut m = g.mask;
                a.iter().all(|&x| {
                    let l = m.trailing_zeros();
                    m &= m - 1;
                    x as i64 == first as i64 + s * (l - first_lane) as i64
                })
            });
            match affine {
                Some(s) => {
                    c_mode.push(MODE_AFFINE);
                    put_varint(c_addr, base);
                    put_varint(c_addr, zigzag(s));
                }
                None => {
                    // the smallest of a tile, lane-to-lane deltas and offsets from the
                    // lowest address packed in as few bits as they need (a tile when
                    // it is no larger: its addresses need not be written out)
                    let delta_len: usize =
                        a.windows(2).map(|w| varint_len(zigzag(w[1] as i64 - w[0] as i64))).sum();
                    let min = a.iter().copied().min().unwrap_or(0);
                    let or = a.iter().fold(0, |m, &x| m | (x - min));
                    let shift = if or == 0 { 0 } else { or.trailing_zeros() };
                    let bits = 32 - (or >> shift).leading_zeros();
                    let packed_len = 2 + (n * bits as usize).div_ceil(8);
                    let tile = tile_of(g.mask, a).map(|(origin, steps)| {
                        let origin = zigzag(origin - self.prev_first as i64);
                        let len = varint_len(origin)
                            + 1
                            + steps
                                .iter()
                                .map(|&s| if s == 0 { 0 } else { varint_len(zigzag(s as i64)) })
                                .sum::<usize>();
                        (origin, steps, len)
                    });
                    if let Some((origin, steps, _)) =
                        tile.filter(|&(_, _, len)| len <= packed_len.min(varint_len(base) + delta_len))
                    {
                        c_mode.push(MODE_TILE);
                        put_varint(c_addr, origin);
                        let bits = steps.iter().enumerate().fold(0u8, |b, (j, &s)| b | ((s != 0) as u8) << j);
                        c_addr.push(bits);
                        for &s in steps.iter().filter(|&&s| s != 0) {
                            put_varint(c_addr, zigzag(s as i64));
                        }
                    } else if packed_len < delta_len {
                        c_mode.push(MODE_PACKED);
                        put_varint(c_addr, zigzag(min as i64 - self.prev_first as i64));
                        c_addr.extend_from_slice(&[shift as u8, bits as u8]);
                        let mut acc = 0u64;
                        let mut have = 0;
                        for &x in a {
                            acc |= (((x - min) >> shift) as u64) << have;
                            have += bits;
                            while have >= 8 {
                                c_addr.push(acc as u8);
                                acc >>= 8;
                                have -= 8;
                            }
                        }
                        if have > 0 {
                            c_addr.push(acc as u8);
                        }
                    } else {
                        c_mode.push(MODE_DELTA);
                        put_varint(c_addr, base);
                        for w in a.windows(2) {
                            put_varint(c_addr, zigzag(w[1] as i64 - w[0] as i64));
                        }
                    }
                }
            }
        }
        self.prev_first = first;
        self.prev_addrs.clear();
        self.prev_addrs.extend_from_slice(a);
    }

    fn flush(&mut self) -> Result<(), WriteError> {
        if self.groups == 0 {
            return Ok(());
        }
        self.write_head()?;
        let last = self.last.unwrap_or_default();
        let mut h = Vec::with_capacity(CHUNK_HEADER_LEN);
        h.extend_from_slice(CHUNK_TAG);
        for v in [self.groups, self.lanes, self.first.0, self.first.1, self.first.2, last.0, last.1, last.2] {
            h.extend_from_slice(&v.to_le_bytes());
        }
        for c in &self.cols {
            h.extend_from_slice(&(c.len() as u32).to_le_bytes());
        }
        let mut crc = crc32fast::Hasher::new();
        crc.update(&h);
        for c in &self.cols {
            crc.update(c);
        }
        h.extend_from_slice(&crc.finalize().to_le_bytes());
        self.out.write_all(&h)?;
        for c in &mut self.cols {
            self.out.write_all(c)?;
            c.clear();
        }
        self.chunks += 1;
        self.total_groups += self.groups as u64;
        self.total_lanes += self.lanes as u64;
        self.groups = 0;
        self.lanes = 0;
        Ok(())
    }

    /// Writes the last chunk and the end marker, and returns the output.
    pub fn finish(mut self) -> Result<W, WriteError> {
        self.flush()?;
        self.write_head()?;
        let mut e = Vec::with_capacity(END_LEN);
        e.extend_from_slice(END_TAG);
        for v in [self.chunks, self.total_groups, self.total_lanes] {
            e.extend_from_slice(&v.to_le_bytes());
        }
        let crc = crc32fast::hash(&e);
        e.extend_from_slice(&crc.to_le_bytes());
        self.out.write_all(&e)?;
        self.out.flush()?;
        Ok(self.out)
    }
}

/// The tile form of a group's addresses (see [`sim_core::LaneAddrs::Tile`]): lane 0's address and
/// the step of each bit of the lane number (0 for bits that no two active lanes tell
/// apart), where every active lane's address is `origin + Σ_j bit j of lane × steps[j]`,
/// each step fits in 32 bits and every lane of 0..64, active or not, lies in
/// `0..2^32 − 16` (so that any width fits). `addrs` holds one address per lane of `mask`.
fn tile_of(mask: u64, addrs: &[u32]) -> Option<(i64, [i32; 6])> {
    let mut at = [None; 64];
    let mut m = mask;
    for &a in addrs {
        at[m.trailing_zeros() as usize] = Some(a as i64);
        m &= m - 1;
    }
    let mut steps = [0i32; 6];
    for (j, step) in steps.iter_mut().enumerate() {
        let bit = 1u64 << j;
        // the active lanes whose bit j is clear, where the lane with it set is active too
        let pairs = mask & !BIT_LANES[j] & (mask >> bit);
        if pairs != 0 {
            let l = pairs.trailing_zeros() as usize;
            *step = i32::try_from(at[l | bit as usize]? - at[l]?).ok()?;
        } else if mask & BIT_LANES[j] != 0 && mask & !BIT_LANES[j] != 0 {
            return None; // bit j varies, but no two active lanes differ in it alone
        }
    }
    let l0 = mask.trailing_zeros();
    let origin = at[l0 as usize]? - lane_sum(&steps, l0);
    let mut m = mask;
    for &a in addrs {
        if a as i64 != origin + lane_sum(&steps, m.trailing_zeros()) {
            return None;
        }
        m &= m - 1;
    }
    let lo = origin + steps.iter().map(|&s| (s as i64).min(0)).sum::<i64>();
    let hi = origin + steps.iter().map(|&s| (s as i64).max(0)).sum::<i64>();
    (lo >= 0 && hi + 16 <= 1 << 32).then_some((origin, steps))
}

/// The lanes 0..64 whose bit `j` is set, as masks.
const BIT_LANES: [u64; 6] = [
    0xAAAA_AAAA_AAAA_AAAA,
    0xCCCC_CCCC_CCCC_CCCC,
    0xF0F0_F0F0_F0F0_F0F0,
    0xFF00_FF00_FF00_FF00,
    0xFFFF_0000_FFFF_0000,
    0xFFFF_FFFF_0000_0000,
];

/// `Σ_j bit j of lane × steps[j]`.
fn lane_sum(steps: &[i32; 6], lane: u32) -> i64 {
    steps.iter().enumerate().filter(|&(j, _)| lane >> j & 1 == 1).map(|(_, &s)| s as i64).sum()
}

/// Writes `trace` as a binary trace (records sorted by block, thread / 64, step,
/// thread). Two records of one thread at one step are an error, as is a record the
/// format cannot hold.
pub fn write<W: Write>(trace: &Trace, out: W) -> Result<W, WriteError> {
    write_chunked(trace, out, CHUNK_LANES)
}

/// [`write()`] closing chunks at `chunk_lanes` lanes (at the next (block, slice) boundary).
pub fn write_chunked<W: Write>(trace: &Trace, out: W, chunk_lanes: u32) -> Result<W, WriteError> {
    let mut w = if trace.has_sites() {
        Writer::with_sites(out, &trace.source, &trace.sites)?
    } else if trace.records.iter().any(|r| r.wait.is_some()) {
        Writer::with_waits(out, &trace.source)?
    } else {
        Writer::new(out, &trace.source, trace.has_timing_columns)?
    }
    .with_chunk_lanes(chunk_lanes);
    if trace.records.iter().any(|r| r.op.is_tensor()) {
        w = w.with_tensor_ops();
    }
    w.push_trace(trace)?;
    w.finish()
}

impl<W: Write> Writer<W> {
    /// Appends the records of `trace` (in any order), as groups; every group must come
    /// after the groups pushed before, so a trace written in parts goes block by block.
    /// Records with waits need a writer [`Writer::with_waits`].
    pub fn push_trace(&mut self, trace: &Trace) -> Result<(), WriteError> {
        let recs = &trace.records;
        let mut order: Vec<u32> = (0..recs.len() as u32).collect();
        order.sort_unstable_by_key(|&i| {
            let r = &recs[i as usize];
            (r.block, r.thread / SLICE_LANES, r.step, r.thread, i)
        });
        let mut attrs: Vec<LaneAttr> = Vec::with_capacity(64);
        let mut addrs: Vec<u32> = Vec::with_capacity(64);
        let mut i = 0;
        while i < order.len() {
            let r0 = &recs[order[i] as usize];
            let key = (r0.block, r0.thread / SLICE_LANES, r0.step);
            let (mut mask, mut j) = (0u64, i);
            attrs.clear();
            addrs.clear();
            while j < order.len() {
                let r = &recs[order[j] as usize];
                if (r.block, r.thread / SLICE_LANES, r.step) != key {
                    break;
                }
                let bit = 1u64 << (r.thread % SLICE_LANES);
                if mask & bit != 0 {
                    return Err(WriteError::Duplicate {
                        file: trace.source.clone(),
                        block: r.block,
                        thread: r.thread,
                        step: r.step,
                        first_line: trace.lines[order[j - 1] as usize],
                        line: trace.lines[order[j] as usize],
                    });
                }
                mask |= bit;
                attrs.push(LaneAttr {
                    op: r.op,
                    bytes: r.bytes,
                    gap: r.gap,
                    dep: r.dep,
                    wait: r.wait,
                    site: if self.sites.is_some() { r.site } else { crate::NO_SITE },
                });
                addrs.push(r.addr);
                j += 1;
            }
            let g = Group {
                block: key.0,
                slice: key.1,
                step: key.2,
                mask,
                attrs: Attrs::PerLane(&attrs),
                addrs: &addrs,
            };
            self.push(&g)?;
            i = j;
        }
        Ok(())
    }
}
