//! Decoding a [`RawChunk`]'s columns into a [`Chunk`]'s groups, eagerly or lazily,
//! with the memory of recent tile shapes.

use super::chunk::{Chunk, Form};
#[cfg(target_arch = "x86_64")]
use super::cpu::popcnt_available;
use super::error::BinaryError;
use super::format::{
    valid_code, width_of, CHUNK_HEADER_LEN, COLUMNS, COLUMN_NAMES, EXPLICIT_MASK, MODE_AFFINE, MODE_DELTA,
    MODE_PACKED, MODE_REPEAT, MODE_TILE, MODE_ZERO, PER_LANE, SLICE_LANES,
};
use super::raw::RawChunk;
use super::unpack::unpack;
use super::varint::{unzigzag, Col};

/// Tile groups whose steps the decoder remembers, per chunk.
const TILES_SEEN: usize = 4;

/// The steps of a tile group as the decoder read them. The same step bits and the same
/// bytes give the same steps, so a later group of the chunk with both takes them from
/// `at` in [`Chunk::g_tiles`] and skips the bytes. (GEMM tile loads repeat two or three
/// shapes.)
#[derive(Clone, Copy, Debug, Default)]
struct TileSeen {
    bits: u8,
    /// Bytes of the steps' varints, 1 to 16 (0: an empty entry).
    len: u8,
    /// The 16 bytes from the first step's on (the first `len` are the steps').
    bytes: u128,
    /// The sum of the negative steps, and of the positive ones.
    down: i64,
    up: i64,
    at: u32,
}

impl TileSeen {
    /// Whether 16 bytes `w` (read after `bits`) start with this entry's steps.
    #[inline]
    fn matches(&self, bits: u8, w: u128) -> bool {
        // (an empty entry matches nothing; `max` keeps the shift below 128)
        let keep = u128::MAX >> (128 - 8 * self.len.max(1) as u32);
        self.len > 0 && self.bits == bits && (w ^ self.bytes) & keep == 0
    }
}

impl RawChunk {
    /// Decodes the chunk's groups into `out`, checking every field.
    pub fn decode(&self, out: &mut Chunk) -> Result<(), BinaryError> {
        self.decode_any::<false>(out).inspect_err(|_| out.forget_groups())
    }

    /// [`Self::decode`], but the addresses of affine groups (most strided and tiled
    /// accesses) are only written out when something needs them one by one
    /// ([`Chunk::split`], [`Chunk::push_records`]); [`Chunk::for_each_masked`] hands them
    /// on as `first + stride × lane`. Every field is checked all the same.
    pub fn decode_lazy(&self, out: &mut Chunk) -> Result<(), BinaryError> {
        self.decode_any::<true>(out).inspect_err(|_| out.forget_groups())
    }

    /// [`Self::decode_with`], compiled with the POPCNT instruction where the CPU has it
    /// (lane counts are on every group's path; without it each is a dozen instructions).
    #[inline(always)]
    fn decode_any<const LAZY: bool>(&self, out: &mut Chunk) -> Result<(), BinaryError> {
        #[cfg(target_arch = "x86_64")]
        if popcnt_available() {
            // SAFETY: the CPU has POPCNT.
            return unsafe { self.decode_popcnt::<LAZY>(out) };
        }
        self.decode_with::<LAZY>(out)
    }

    /// # Safety
    /// The CPU must have POPCNT.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "popcnt")]
    unsafe fn decode_popcnt<const LAZY: bool>(&self, out: &mut Chunk) -> Result<(), BinaryError> {
        self.decode_with::<LAZY>(out)
    }

    #[inline(always)]
    fn decode_with<const LAZY: bool>(&self, out: &mut Chunk) -> Result<(), BinaryError> {
        self.verify()?;
        out.name = self.name.clone();
        out.offset = self.offset;
        out.lazy = LAZY;
        out.per_lane = false;
        out.lane_code.clear();
        out.lane_gap.clear();
        out.lane_wait.clear();
        out.lane_site.clear();
        out.clear_requests();
        let n = self.groups as usize;
        // The group columns are sized up front and written by index (pushes would store
        // nine lengths a group). They are not cleared first: every group's entry in each
        // is written below (or the chunk is an error and forgets its groups), and
        // resizing zeroes only what a column grows by.
        out.g_block.resize(n, 0);
        out.g_slice.resize(n, 0);
        out.g_step.resize(n, 0);
        out.g_mask.resize(n, 0);
        out.g_code.resize(n, 0);
        out.g_gap.resize(n, 0);
        out.g_wait.resize(n, 0);
        out.g_site.resize(if self.sites.is_some() { n } else { 0 }, 0);
        out.g_start.resize(n + 1, 0);
        out.g_form.resize(n, Form::default());
        out.g_tiles.clear();
        // the header's lane count (checked against the groups below) sizes the output;
        // every lane is written below (or the chunk is an error), so the buffer is not
        // cleared first: resizing only zeroes what it grows by
        out.addrs.resize(self.lanes as usize, 0);
        let mut start = 0usize;
        let payload = self.payload();
        let body = self.offset + CHUNK_HEADER_LEN as u64;
        let mut cols: [Col<'_>; COLUMNS] = std::array::from_fn(|i| {
            let len = self.cols[i] as usize;
            let c = Col { data: &payload[start..start + len], pos: 0, at: body + start as u64, index: i };
            start += len;
            c
        });
        let corrupt = |c: &Col<'_>, problem: &str| BinaryError::Corrupt {
            file: self.name.to_string(),
            offset: c.offset(),
            problem: format!("column `{}` of chunk {}: {problem}", COLUMN_NAMES[c.index], self.index),
        };
        let [c_block, c_slice, c_step, c_mask, c_attr, c_gap, c_mode, c_addr] = &mut cols;
        let u32_of = |c: &mut Col<'_>, what: &str| -> Result<u32, BinaryError> {
            let v =
                c.varint().ok_or_else(|| corrupt(c, &format!("truncated or overlong varint ({what})")))?;
            u32::try_from(v).map_err(|_| corrupt(c, &format!("{what} {v} does not fit in 32 bits")))
        };
        // `u32_of` with the one-byte case inline (most deltas, steps and gaps)
        macro_rules! small {
            ($c:expr, $what:expr) => {{
                let c: &mut Col<'_> = $c;
                match c.data.get(c.pos) {
                    Some(&b) if b < 0x80 => {
                        c.pos += 1;
                        b as u32
                    }
                    _ => u32_of(c, $what)?,
                }
            }};
        }
        // a gap and, in a file with waits, its wait (+ 1, 0 for none; at most the gap)
        // and, in a file with sites, its site (+ 1, 0 for none; in the table)
        let (waits, sites) = (self.waits, self.sites);
        // (a macro, not a closure, so that the common case, a one-byte gap and no waits,
        // is inline)
        macro_rules! gap_wait {
            ($c:expr) => {{
                let c: &mut Col<'_> = $c;
                let gap = small!(c, "gap");
                // (wait + 1 reaches 2^32 for the largest wait: it is held in 64 bits)
                let wait = if waits {
                    let w = c.varint().ok_or_else(|| corrupt(c, "truncated or overlong varint (wait)"))?;
                    if w > 0 && w - 1 > gap as u64 {
                        return Err(corrupt(c, &format!("wait {} beyond its gap {gap}", w - 1)));
                    }
                    w
                } else {
                    0
                };
                let site = match sites {
                    Some(table) => {
                        let s = u32_of(c, "site")?;
                        if s > table {
                            return Err(corrupt(
                                c,
                                &format!("site {} beyond the site table's {table}", s - 1),
                            ));
                        }
                        s
                    }
                    None => 0,
                };
                (gap, wait, site)
            }};
        }
        let (g_block, g_slice, g_step, g_mask) =
            (&mut out.g_block[..n], &mut out.g_slice[..n], &mut out.g_step[..n], &mut out.g_mask[..n]);
        let (g_code, g_gap, g_wait, g_start, g_form) = (
            &mut out.g_code[..n],
            &mut out.g_gap[..n],
            &mut out.g_wait[..n],
            &mut out.g_start[..n],
            &mut out.g_form[..n],
        );
        // The columns are decoded one at a time, in column order (each pass a short
        // loop with little state, where one loop over all eight would keep two dozen
        // cursors and outputs live and spill them). Block, slice, step and gap columns
        // of one byte a group (every value below 128: the usual case) and attr columns
        // of one valid code a group take a fast pass; any other column, or a value out
        // of range, takes the exact pass, which reports the column's first bad field.
        // (So a chunk with several bad fields reports the one in the earliest column.)

        // 1. blocks: deltas
        let fast = one_byte_each(c_block.data, n) && {
            let mut b = 0u64;
            for (o, &d) in g_block.iter_mut().zip(c_block.data) {
                b += d as u64;
                *o = b as u32;
            }
            b <= u32::MAX as u64
        };
        if fast {
            c_block.pos = n;
        } else {
            let mut pb = 0u32;
            for block in g_block.iter_mut() {
                let db = small!(c_block, "block delta");
                *block = pb.checked_add(db).ok_or_else(|| corrupt(c_block, "block beyond 2^32"))?;
                pb = *block;
            }
        }
        // 2. slices: a delta within the same block, else the slice
        const LAST_SLICE: u32 = u32::MAX / SLICE_LANES;
        let fast = one_byte_each(c_slice.data, n) && {
            let (mut pb, mut ps, mut ok) = (0u32, 0u32, true);
            for ((s, &b), &d) in g_slice.iter_mut().zip(&*g_block).zip(c_slice.data) {
                // (past a bad slice the sums may wrap: the exact pass runs then)
                ps = if b == pb { ps.wrapping_add(d as u32) } else { d as u32 };
                ok &= ps <= LAST_SLICE;
                *s = ps;
                pb = b;
            }
            ok
        };
        if fast {
            c_slice.pos = n;
        } else {
            let (mut pb, mut ps) = (0u32, 0u32);
            for (s, &block) in g_slice.iter_mut().zip(&*g_block) {
                *s = if block == pb {
                    ps.checked_add(small!(c_slice, "slice delta"))
                } else {
                    Some(small!(c_slice, "slice"))
                }
                .filter(|&s| s <= LAST_SLICE)
                .ok_or_else(|| corrupt(c_slice, "thread index beyond 2^32"))?;
                (pb, ps) = (block, *s);
            }
        }
        // 3. steps: within the same (block, slice) the delta from the previous step + 1
        let same_run = |gi: usize| gi > 0 && g_block[gi] == g_block[gi - 1] && g_slice[gi] == g_slice[gi - 1];
        let fast = one_byte_each(c_step.data, n) && {
            let (mut pt, mut ok) = (0u64, true);
            for (gi, (t, &d)) in g_step.iter_mut().zip(c_step.data).enumerate() {
                pt = if same_run(gi) { pt + 1 + d as u64 } else { d as u64 };
                ok &= pt <= u32::MAX as u64;
                *t = pt as u32;
            }
            ok
        };
        if fast {
            c_step.pos = n;
        } else {
            let mut pt = 0u32;
            for (gi, t) in g_step.iter_mut().enumerate() {
                *t = if same_run(gi) {
                    let d = small!(c_step, "step delta");
                    pt.checked_add(1).and_then(|p| p.checked_add(d))
                } else {
                    Some(small!(c_step, "step"))
                }
                .ok_or_else(|| corrupt(c_step, "step beyond 2^32"))?;
                pt = *t;
            }
        }
        // 4. lane masks, and where each group's addresses start in `out.addrs`
        let mut filled = 0usize;
        for (m, start) in g_mask.iter_mut().zip(g_start.iter_mut()) {
            let b0 = c_mask.byte().ok_or_else(|| corrupt(c_mask, "ends early"))?;
            let mask = if b0 == EXPLICIT_MASK {
                let bytes = c_mask.data.get(c_mask.pos..c_mask.pos + 8);
                let bytes = bytes.ok_or_else(|| {
                    c_mask.pos = c_mask.data.len();
                    corrupt(c_mask, "ends inside a lane mask")
                })?;
                c_mask.pos += 8;
                u64::from_le_bytes(bytes.try_into().unwrap_or_default())
            } else {
                let count = c_mask.byte().ok_or_else(|| corrupt(c_mask, "ends early"))? as u32;
                if b0 >= 64 || count == 0 || b0 as u32 + count > 64 {
                    return Err(corrupt(c_mask, &format!("bad lane run: first lane {b0}, {count} lanes")));
                }
                (u64::MAX >> (64 - count)) << b0
            };
            if mask == 0 {
                return Err(corrupt(c_mask, "empty lane mask"));
            }
            *m = mask;
            *start = filled as u32;
            filled += mask.count_ones() as usize;
            if filled > out.addrs.len() {
                return Err(corrupt(c_mask, &format!("more lanes than the chunk header's {}", self.lanes)));
            }
        }
        // 5. attribute codes: one a group, or 0xFF and one a lane (then the group's gap
        // entry is where its lanes start in `lane_code`)
        let tensor_ops = self.tensor_ops;
        if c_attr.data.len() == n && c_attr.data.iter().all(|&c| valid_code(c, tensor_ops)) {
            // (0xFF is not a code: every group has one)
            g_code.copy_from_slice(c_attr.data);
            c_attr.pos = n;
        } else {
            for ((code, gap), &mask) in g_code.iter_mut().zip(g_gap.iter_mut()).zip(&*g_mask) {
                *code = c_attr.byte().ok_or_else(|| corrupt(c_attr, "ends early"))?;
                if *code == PER_LANE {
                    out.per_lane = true;
                    *gap = out.lane_code.len() as u32;
                    for _ in 0..mask.count_ones() {
                        let c = c_attr.byte().ok_or_else(|| corrupt(c_attr, "ends inside per-lane codes"))?;
                        if !valid_code(c, tensor_ops) {
                            c_attr.pos -= 1;
                            return Err(corrupt(c_attr, &format!("invalid op/width code {c:#04x}")));
                        }
                        out.lane_code.push(c);
                    }
                } else if !valid_code(*code, tensor_ops) {
                    c_attr.pos -= 1;
                    return Err(corrupt(c_attr, &format!("invalid op/width code {:#04x}", *code)));
                }
            }
        }
        // 6. gaps (and waits): one a group, or one a lane after per-lane codes
        let g_site = &mut out.g_site[..];
        if !waits && sites.is_none() && !out.per_lane && one_byte_each(c_gap.data, n) {
            for ((gap, wait), &d) in g_gap.iter_mut().zip(g_wait.iter_mut()).zip(c_gap.data) {
                (*gap, *wait) = (d as u32, 0);
            }
            c_gap.pos = n;
        } else {
            for (g, ((gap, wait), (&code, &mask))) in
                g_gap.iter_mut().zip(g_wait.iter_mut()).zip(g_code.iter().zip(&*g_mask)).enumerate()
            {
                if code == PER_LANE {
                    for _ in 0..mask.count_ones() {
                        let (gap, wait, site) = gap_wait!(c_gap);
                        out.lane_gap.push(gap);
                        out.lane_wait.push(wait);
                        if sites.is_some() {
                            out.lane_site.push(site);
                        }
                    }
                    *wait = 0;
                } else {
                    let site;
                    (*gap, *wait, site) = gap_wait!(c_gap);
                    if let Some(s) = g_site.get_mut(g) {
                        *s = site;
                    }
                }
            }
        }
        // 7. addresses, written into the pre-sized `out.addrs` (lazily: not those of
        // groups with a formula)
        let mut prev_first = 0u32;
        let mut prev_range = 0..0usize;
        let mut prev_highest = 0u32;
        let mut prev_mask = 0u64;
        let mut prev_form = Form::Listed;
        // recent tile groups' steps (see `TileSeen`)
        let mut tiles_seen = [TileSeen::default(); TILES_SEEN];
        let mut tiles_in = 0usize;
        // the next chunk's payload (`fetch_during_decode`) is fetched `per` bytes (whole
        // cache lines) a group, into the core's L2
        let (ahead_at, ahead_end) = (self.ahead.0 & !63, self.ahead.0 + self.ahead.1);
        let per = (ahead_end - ahead_at).div_ceil(64).div_ceil(n) * 64;
        for gi in 0..n {
            #[cfg(target_arch = "x86_64")]
            {
                let mut at = ahead_at + gi * per;
                while at < ahead_end.min(ahead_at + (gi + 1) * per) {
                    // SAFETY: a prefetch never faults, whatever the address.
                    unsafe {
                        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T1 }>(at as *const i8)
                    };
                    at += 64;
                }
            }
            let (mask, code) = (g_mask[gi], g_code[gi]);
            let lanes = mask.count_ones() as usize;
            let a0 = g_start[gi] as usize;
            let a1 = a0 + lanes;
            let mode = c_mode.byte().ok_or_else(|| corrupt(c_mode, "ends early"))?;
            let mut form = Form::Listed;
            // the group's highest address, as each mode knows it, and its lowest lane's
            // (the next group's base is relative to it)
            let (highest, lane0): (u32, u32) = match mode {
                MODE_ZERO => {
                    form = Form::Affine { first: 0, stride: 0 };
                    if !LAZY {
                        out.addrs[a0..a1].fill(0);
                    }
                    (0, 0)
                }
                MODE_REPEAT => {
                    if prev_range.len() != lanes {
                        c_mode.pos -= 1;
                        return Err(corrupt(
                            c_mode,
                            &format!("repeats {} addresses for {lanes} lanes", prev_range.len()),
                        ));
                    }
                    if let Form::Listed = prev_form {
                        out.addrs.copy_within(prev_range.clone(), a0);
                    } else if mask == prev_mask {
                        form = prev_form;
                        if !LAZY {
                            out.addrs.copy_within(prev_range.clone(), a0);
                        }
                    } else {
                        // the previous group's addresses were not written: write them here
                        prev_form.fill(&out.g_tiles, prev_mask, &mut out.addrs[a0..a1]);
                    }
                    // (the same addresses as the previous group's)
                    (prev_highest, prev_first)
                }
                MODE_AFFINE | MODE_DELTA | MODE_PACKED | MODE_TILE => {
                    // (where groups of different kinds alternate, the base's length
                    // jumps from group to group and a branch on it is mispredicted;
                    // every other varint keeps the branch, which is cheaper where the
                    // lengths repeat, as in runs of strided groups)
                    let base =
                        c_addr.varint_unpredictable().ok_or_else(|| corrupt(c_addr, "truncated varint"))?;
                    let first = prev_first as i64 + unzigzag(base);
                    if !(0..=u32::MAX as i64).contains(&first) {
                        return Err(corrupt(c_addr, &format!("address {first} outside 0..2^32")));
                    }
                    match mode {
                        MODE_AFFINE => {
                            let stride =
                                unzigzag(c_addr.varint().ok_or_else(|| corrupt(c_addr, "truncated varint"))?);
                            let l0 = mask.trailing_zeros() as i64;
                            let l1 = 63 - mask.leading_zeros() as i64;
                            let end = stride.checked_mul(l1 - l0).and_then(|d| first.checked_add(d));
                            if !end.is_some_and(|e| (0..=u32::MAX as i64).contains(&e)) {
                                return Err(corrupt(c_addr, "affine addresses outside 0..2^32"));
                            }
                            // first + stride * (lane - l0) stays between the two ends
                            let stride = if lanes == 1 { 0 } else { stride };
                            form = Form::Affine { first: first as u32, stride };
                            if !LAZY {
                                form.fill(&[], mask, &mut out.addrs[a0..a1]);
                            }
                            (first.max(end.unwrap_or(first)) as u32, first as u32)
                        }
                        MODE_TILE => {
                            // (`first` is lane 0's address here)
                            let bits = c_addr.byte().ok_or_else(|| corrupt(c_addr, "ends early"))?;
                            if bits >> 6 != 0 {
                                c_addr.pos -= 1;
                                return Err(corrupt(
                                    c_addr,
                                    &format!("tile step bits {bits:#04x} beyond lane bit 5"),
                                ));
                            }
                            // The same bits and step bytes as a recent tile group of the chunk
                            // (a kernel's tile loads repeat a few shapes): its steps again,
                            // without reading the varints one by one.
                            let ahead = c_addr.data.get(c_addr.pos..c_addr.pos + 16);
                            let ahead = ahead.map(|b| u128::from_le_bytes(b.try_into().unwrap_or_default()));
                            let seen = ahead.and_then(|w| tiles_seen.iter().find(|t| t.matches(bits, w)));
                            // the steps' index in `g_tiles`, and the sums of the negative
                            // and of the positive ones
                            let (at, down, up) = if let Some(t) = seen {
                                c_addr.pos += t.len as usize;
                                (t.at, t.down, t.up)
                            } else {
                                let start = c_addr.pos;
                                let (mut steps, mut down, mut up) = ([0i32; 6], 0, 0);
                                for (j, step) in steps.iter_mut().enumerate() {
                                    if bits >> j & 1 == 1 {
                                        let v = c_addr
                                            .varint()
                                            .ok_or_else(|| corrupt(c_addr, "truncated varint"))?;
                                        let v = unzigzag(v);
                                        *step = i32::try_from(v).map_err(|_| {
                                            corrupt(c_addr, &format!("tile step {v} beyond 32 bits"))
                                        })?;
                                        (down, up) = (down + v.min(0), up + v.max(0));
                                    }
                                }
                                let at = out.g_tiles.len() as u32;
                                out.g_tiles.push(steps);
                                let len = c_addr.pos - start;
                                if let (Some(bytes), 1..=16) = (ahead, len) {
                                    let t = TileSeen { bits, len: len as u8, bytes, down, up, at };
                                    tiles_seen[tiles_in % TILES_SEEN] = t;
                                    tiles_in += 1;
                                }
                                (at, down, up)
                            };
                            let (lo, hi) = (first + down, first + up);
                            if lo < 0 || hi > u32::MAX as i64 {
                                return Err(corrupt(c_addr, "tile addresses outside 0..2^32"));
                            }
                            form = Form::Tile { origin: first as u32, at };
                            let steps = &out.g_tiles[at as usize];
                            if !LAZY {
                                sim_core::tile_addrs(first as u32, steps, mask, &mut out.addrs[a0..a1]);
                            }
                            (hi as u32, sim_core::tile_lane(first as u32, steps, mask.trailing_zeros()))
                        }
                        MODE_DELTA => {
                            let dst = &mut out.addrs[a0..a1];
                            let mut a = first;
                            let mut highest = a;
                            dst[0] = a as u32;
                            for d in &mut dst[1..] {
                                let v = c_addr.varint().ok_or_else(|| corrupt(c_addr, "truncated varint"))?;
                                a += unzigzag(v);
                                if !(0..=u32::MAX as i64).contains(&a) {
                                    return Err(corrupt(c_addr, &format!("address {a} outside 0..2^32")));
                                }
                                highest = highest.max(a);
                                *d = a as u32;
                            }
                            (highest as u32, first as u32)
                        }
                        _ => {
                            let (shift, bits) = (
                                c_addr.byte().ok_or_else(|| corrupt(c_addr, "ends early"))? as u32,
                                c_addr.byte().ok_or_else(|| corrupt(c_addr, "ends early"))? as u32,
                            );
                            if shift + bits > 32 {
                                c_addr.pos -= 2;
                                return Err(corrupt(
                                    c_addr,
                                    &format!("packed offsets of {bits} bits shifted by {shift}"),
                                ));
                            }
                            let dst = &mut out.addrs[a0..a1];
                            let len = (lanes * bits as usize).div_ceil(8);
                            if c_addr.data.len() - c_addr.pos < len {
                                return Err(corrupt(c_addr, "ends inside packed offsets"));
                            }
                            // (the rest of the column comes along: the kernel may read past
                            // the offsets, which saves copying the last ones out)
                            let max = unpack(&c_addr.data[c_addr.pos..], len, bits, shift, first as u32, dst);
                            // the lowest address is `first`; the highest must stay below 2^32
                            if first as u64 + max as u64 > u32::MAX as u64 {
                                return Err(corrupt(c_addr, "packed addresses beyond 2^32"));
                            }
                            c_addr.pos += len;
                            ((first as u64 + max as u64) as u32, dst[0])
                        }
                    }
                }
                m => {
                    c_mode.pos -= 1;
                    return Err(corrupt(c_mode, &format!("unknown address mode {m}")));
                }
            };
            if LAZY && code == PER_LANE {
                // (checked lane by lane below)
                form.fill(&out.g_tiles, mask, &mut out.addrs[a0..a1]);
            }
            // address + width must stay below 2^32
            let fits = if code == PER_LANE {
                let codes = &out.lane_code[g_gap[gi] as usize..];
                out.addrs[a0..a1].iter().zip(codes).all(|(&a, &c)| a as u64 + width_of(c) as u64 <= 1 << 32)
            } else {
                highest as u64 + width_of(code) as u64 <= 1 << 32
            };
            if !fits {
                return Err(corrupt(c_addr, "address + width beyond 2^32"));
            }
            prev_first = lane0;
            prev_range = a0..a1;
            prev_highest = highest;
            prev_mask = mask;
            prev_form = form;
            g_form[gi] = form;
        }
        for c in &cols {
            if c.pos != c.data.len() {
                return Err(corrupt(
                    c,
                    &format!("{} bytes left over after {n} groups", c.data.len() - c.pos),
                ));
            }
        }
        let keys = |i: usize| (out.g_block[i], out.g_slice[i], out.g_step[i]);
        let header = |problem: String| BinaryError::Corrupt {
            file: self.name.to_string(),
            offset: self.offset,
            problem,
        };
        if filled != self.lanes as usize {
            return Err(header(format!(
                "chunk {} holds {filled} lanes, its header says {}",
                self.index, self.lanes
            )));
        }
        if (keys(0), keys(n - 1)) != (self.first, self.last) {
            return Err(header(format!(
                "chunk {} runs from {:?} to {:?}, its header says {:?} to {:?}",
                self.index,
                keys(0),
                keys(n - 1),
                self.first,
                self.last
            )));
        }
        out.g_start[n] = out.addrs.len() as u32;
        Ok(())
    }
}

/// Whether a column holds exactly `n` varints of one byte each: `n` bytes, none with the
/// high bit set.
#[inline]
fn one_byte_each(data: &[u8], n: usize) -> bool {
    // (no early exit: the fold vectorizes)
    data.len() == n && data.iter().fold(0u8, |a, &b| a | b) < 0x80
}

#[cfg(test)]
mod tests {
    #[test]
    fn tile_groups_of_a_seen_shape_reuse_its_steps_and_decode_exactly() {
        // 4-byte loads of one 64-thread slice at a moving origin, in six tile shapes: rows
        // of 8 lanes 128 or 144 bytes apart, lane pairs, two shapes with the same step
        // bytes (4, 8, 16) on different lane bits, one whose last step's bytes differ from
        // the first shape's in one byte. Steps 0..40 cycle through four of them (each seen
        // again while remembered), steps 40..60 through the other two and the first
        // (which they evicted): 7 step sets, and one for each group too near the end of
        // the address column (fewer than 16 bytes after its step bits) to be looked up.
        let which = |step: u32| {
            if step < 40 {
                [0, 3, 4, 5][step as usize % 4]
            } else {
                [1, 2, 0][step as usize % 3]
            }
        };
        let shape = |step: u32, t: u32| match which(step) {
            0 => (t % 8) * 4 + (t / 8) * 128,
            1 => (t % 8) * 4 + (t / 8) * 144,
            2 => (t / 2) * 4,
            3 => (t % 8) * 4,
            4 => ((t >> 1) % 8) * 4,
            _ => (t % 8) * 4 + ((t / 8) % 4) * 128 + (t / 32) * 516,
        };
        let mut trace = crate::record::Trace::new("tiles");
        for step in 0..60 {
            for thread in 0..64 {
                let addr = 4096 * (step % 7) + shape(step, thread);
                let op = sim_core::Op::Load;
                trace.push(crate::record::Record {
                    block: 0,
                    thread,
                    step,
                    op,
                    addr,
                    bytes: 4,
                    gap: 0,
                    dep: None,
                    wait: None,
                    site: crate::NO_SITE,
                });
            }
        }
        let bytes = crate::binary::write::write(&trace, Vec::new()).expect("a trace");
        let mut reader = crate::binary::read::Reader::new(&bytes[..], "tiles.bsim", None).expect("a header");
        let (mut raw, mut chunk) = (super::RawChunk::default(), super::Chunk::default());
        assert!(reader.next_chunk(&mut raw).expect("a chunk"));
        let tiles =
            |c: &super::Chunk| c.g_form.iter().filter(|f| matches!(f, super::Form::Tile { .. })).count();
        for lazy in [false, true] {
            if lazy {
                raw.decode_lazy(&mut chunk).expect("decodes");
            } else {
                raw.decode(&mut chunk).expect("decodes");
            }
            assert_eq!(tiles(&chunk), 60, "lazy {lazy}");
            assert!((7..=9).contains(&chunk.g_tiles.len()), "lazy {lazy}: {} step sets", chunk.g_tiles.len());
            let mut back = crate::record::Trace::new("back");
            chunk.push_records(&mut back);
            let addrs = |t: &crate::record::Trace| {
                t.records.iter().map(|r| (r.step, r.thread, r.addr)).collect::<Vec<_>>()
            };
            assert_eq!(addrs(&back), addrs(&trace), "lazy {lazy}");
        }
    }
}
