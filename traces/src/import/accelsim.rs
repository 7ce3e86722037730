//! Accel-Sim's NVBit-tracer kernel traces (`kernel-N.traceg` after
//! `post-traces-processing`).
//!
//! ```text
//! -kernel name = transpose              header: `-key = value`; used: grid dim,
//! -grid dim = (2,1,1)                   block dim, shmem base_addr, accelsim
//! -block dim = (64,1,1)                 tracer version, enable lineinfo, kernel
//! -shmem base_addr = 0x00007f0000000000 name / id; the rest is ignored
//! -accelsim tracer version = 5
//! #traces format = ...                  `#` lines are comments
//! #BEGIN_TB
//! thread block = 1,0,0                  CTA coordinates
//! warp = 0                              warp in the block
//! insts = 2                             instruction lines that follow
//! 0010 ffffffff 0 STS.64 2 R2 R4 8 1 0x7f0000000000 8 0
//! 0020 0000ff0f 1 R5 LDS 1 R2 4 2 0x7f0000000010 4 4 4 52 4 4 4 4 4 4 4 0
//! #END_TB
//! ```
//!
//! An instruction line is `[line_num] PC mask dest_num [R..] OPCODE src_num [R..]
//! mem_width [address_mode addresses...] [immediate]`: `line_num` only with
//! `-enable lineinfo = 1`, the trailing immediate from tracer version 5 on, and before
//! version 3 the line starts with the block's `x y z` and the warp. `mask` is the active
//! mask (hex, lane 0 = bit 0). Address modes, for the active lanes in lane order:
//! `0 a0 a1 ...` lists every address (hex); `1 base stride` gives `base + k * stride`
//! (the tracer writes it only for contiguous active lanes); `2 base d1 d2 ...` gives
//! `base` then each address as the previous plus a delta (decimal). The access width
//! is recomputed from the opcode, as Accel-Sim's own parser does (NVBit's `mem_width`
//! can be wrong). See [`super`] for which opcodes are kept.
//!
//! Records: block = `x + y * gx + z * gx * gy` (grid from `-grid dim`), thread =
//! `warp * 32 + lane`, step = the warp's index among its kept shared-memory
//! instructions.

use super::error::ImportError;
use super::fields::{block_threads, lane_record, linear_block, parse_dim3, parse_hex};
use super::lines::Lines;
use super::opcode::{classify, Kind, GLOBAL_COPY};
use super::options::Options;
use super::stats::{count_skipped, ImportStats, Imported, Kernel};
use super::window::{Offset, Window};
use crate::record::{Record, Trace};
use sim_core::Op;
use std::collections::{HashMap, HashSet};
use std::io::BufRead;
use std::str::SplitWhitespace;

/// The header fields banksim uses.
#[derive(Clone, Debug, Default)]
struct Header {
    name: Option<String>,
    id: Option<u64>,
    grid: Option<[u32; 3]>,
    block: Option<[u32; 3]>,
    shmem_base: Option<u64>,
    version: Option<u32>,
    lineinfo: bool,
}

/// The warp whose instructions are being read.
struct Warp {
    id: u32,
    line: u64,
    /// `insts = N` and its line.
    declared: Option<(u64, u64)>,
    found: u64,
    step: u32,
}

/// The thread block being read.
struct Block {
    begin: u64,
    /// Coordinates, linear id, line.
    id: Option<([u32; 3], u32, u64)>,
    warps: HashSet<u32>,
    warp: Option<Warp>,
}

struct Parser<'a> {
    file: &'a str,
    opts: &'a Options,
    header: Header,
    window: Window,
    /// Records not handed to `sink` yet.
    trace: Trace,
    sink: &'a mut dyn FnMut(&Trace) -> Result<(), ImportError>,
    stats: ImportStats,
    /// Line of each block's `thread block =` line, by linear id.
    blocks: HashMap<u32, u64>,
    /// The site id of each PC seen (its label is in `stats.sites`).
    pcs: HashMap<u64, u32>,
}

/// Records handed to the sink at once.
const BATCH: usize = 1 << 16;

/// Converts an Accel-Sim kernel trace read from `reader`; `name` is used in messages.
pub fn parse<R: BufRead>(reader: R, name: &str, opts: &Options) -> Result<Imported, ImportError> {
    let mut trace = Trace::new(name);
    let stats = parse_each(reader, name, opts, &mut |part: &Trace| {
        trace.records.extend_from_slice(&part.records);
        trace.lines.extend_from_slice(&part.lines);
        Ok(())
    })?;
    trace.sites = stats.sites.clone();
    Ok(Imported { trace, stats })
}

/// [`parse`] handing the records to `sink` a batch at a time, in file order, as they are
/// read: memory stays bounded whatever the file's size. Returns the statistics (with
/// the site table: a batch's records refer to its sites, labelled at the end); stops at
/// `sink`'s first error.
pub fn parse_each<R: BufRead>(
    reader: R,
    name: &str,
    opts: &Options,
    sink: &mut dyn FnMut(&Trace) -> Result<(), ImportError>,
) -> Result<ImportStats, ImportError> {
    let mut p = Parser {
        file: name,
        opts,
        header: Header::default(),
        window: Window::new(opts.shmem_base),
        trace: Trace::new(name),
        sink,
        stats: ImportStats::default(),
        blocks: HashMap::new(),
        pcs: HashMap::new(),
    };
    let mut lines = Lines::new(reader, name);
    let mut block: Option<Block> = None;
    while let Some((line, text)) = lines.next_line()? {
        let t = text.trim();
        if t.is_empty() {
            continue;
        }
        if t.starts_with('#') {
            let word = t.split_whitespace().next().unwrap_or("");
            match (word, &mut block) {
                ("#BEGIN_TB", Some(b)) => {
                    return Err(p.structure(
                        line,
                        format!(
                            "`#BEGIN_TB` inside the thread block opened at line {}: expected `#END_TB` first",
                            b.begin
                        ),
                    ))
                }
                ("#BEGIN_TB", None) => {
                    block = Some(Block { begin: line, id: None, warps: HashSet::new(), warp: None })
                }
                ("#END_TB", None) => {
                    return Err(p.structure(line, "`#END_TB` without a `#BEGIN_TB` before it".into()))
                }
                ("#END_TB", Some(b)) => {
                    p.end_warp(b)?;
                    if b.id.is_none() {
                        return Err(p.structure(
                            line,
                            format!(
                                "the thread block opened at line {} has no `thread block = x,y,z` line",
                                b.begin
                            ),
                        ));
                    }
                    block = None;
                }
                _ => {} // a comment
            }
            continue;
        }
        match &mut block {
            None if t.starts_with('-') => p.header_line(t, line)?,
            None => {
                return Err(p.malformed(
                    line,
                    "line",
                    "a header line `-key = value`, a `#` comment or `#BEGIN_TB` (a raw kernel-N.trace must first go through Accel-Sim's post-traces-processing, which writes kernel-N.traceg)",
                    t,
                ))
            }
            Some(b) => match t.split_once('=') {
                Some((key, value)) => p.block_line(b, key.trim(), value.trim(), t, line)?,
                None => p.instruction(b, t, line)?,
            },
        }
    }
    if let Some(b) = block {
        return Err(p.structure(
            lines.line,
            format!("the file ends inside the thread block opened at line {}: expected `#END_TB` (truncated file?)", b.begin),
        ));
    }
    p.flush()?;
    p.stats.lines = lines.line;
    let h = &p.header;
    p.stats.kernel = Some(Kernel {
        id: h.id.unwrap_or(0),
        name: h.name.clone().unwrap_or_default(),
        grid: h.grid,
        block: h.block,
    });
    Ok(p.stats)
}

impl Parser<'_> {
    /// Hands the records read so far to the sink.
    fn flush(&mut self) -> Result<(), ImportError> {
        if !self.trace.is_empty() {
            (self.sink)(&self.trace)?;
            self.trace.records.clear();
            self.trace.lines.clear();
        }
        Ok(())
    }

    fn malformed(&self, line: u64, field: &'static str, expected: &str, found: &str) -> ImportError {
        ImportError::malformed(self.file, line, field, expected, found)
    }

    fn structure(&self, line: u64, problem: String) -> ImportError {
        ImportError::Structure { file: self.file.into(), line, problem }
    }

    fn header_line(&mut self, t: &str, line: u64) -> Result<(), ImportError> {
        let Some((key, value)) = t[1..].split_once('=') else {
            return Err(self.malformed(line, "header", "`-key = value`", t));
        };
        let (key, value) = (key.trim(), value.trim());
        let dims = |field| parse_dim3(value).ok_or_else(|| self.malformed(line, field, "(x,y,z)", value));
        match key {
            "kernel name" => self.header.name = Some(value.to_string()),
            "kernel id" => self.header.id = value.parse().ok(),
            "grid dim" => self.header.grid = Some(dims("grid dim")?),
            "block dim" => self.header.block = Some(dims("block dim")?),
            "shmem base_addr" => {
                let base = parse_hex(value)
                    .ok_or_else(|| self.malformed(line, "shmem base_addr", "a hex address", value))?;
                self.header.shmem_base = Some(base);
                self.window = Window::new(self.opts.shmem_base.or(Some(base)));
            }
            "accelsim tracer version" => {
                let v =
                    value.parse().map_err(|_| self.malformed(line, "tracer version", "an integer", value))?;
                self.header.version = Some(v);
            }
            "enable lineinfo" => {
                self.header.lineinfo = match value {
                    "0" => false,
                    "1" => true,
                    _ => return Err(self.malformed(line, "enable lineinfo", "0 or 1", value)),
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn block_line(
        &mut self,
        b: &mut Block,
        key: &str,
        value: &str,
        t: &str,
        line: u64,
    ) -> Result<(), ImportError> {
        match key {
            "thread block" => {
                if let Some((_, _, first)) = b.id {
                    return Err(self.structure(
                        line,
                        format!("a second `thread block` line in one block (the first is at line {first})"),
                    ));
                }
                let coords = parse_dim3(value).ok_or_else(|| {
                    self.malformed(line, "thread block", "x,y,z (non-negative integers)", value)
                })?;
                let id = linear_block(coords, self.header.grid).map_err(|p| self.structure(line, p))?;
                if let Some(first) = self.blocks.insert(id, line) {
                    return Err(self.structure(
                        line,
                        format!("thread block {value} appears twice (first at line {first}); expected each block once"),
                    ));
                }
                b.id = Some((coords, id, line));
            }
            "warp" => {
                self.end_warp(b)?;
                if b.id.is_none() {
                    return Err(
                        self.structure(line, "`warp =` before the block's `thread block = x,y,z`".into())
                    );
                }
                let id: u32 =
                    value.parse().map_err(|_| self.malformed(line, "warp", "a warp number", value))?;
                if !b.warps.insert(id) {
                    return Err(self.structure(line, format!("warp {id} appears twice in this thread block")));
                }
                b.warp = Some(Warp { id, line, declared: None, found: 0, step: 0 });
            }
            "insts" => {
                let n = value
                    .parse()
                    .map_err(|_| self.malformed(line, "insts", "an instruction count", value))?;
                match &mut b.warp {
                    None => return Err(self.structure(line, "`insts =` before `warp = n`".into())),
                    Some(w) if w.declared.is_some() || w.found > 0 => {
                        return Err(self.structure(line, format!("a second `insts =` for warp {}", w.id)))
                    }
                    Some(w) => w.declared = Some((n, line)),
                }
            }
            k if k.starts_with("cluster") => {} // cluster id / cta / rank (Hopper): not needed
            _ => {
                return Err(self.malformed(
                    line,
                    "line",
                    "`thread block = x,y,z`, `warp = n`, `insts = N`, an instruction line or `#END_TB`",
                    t,
                ))
            }
        }
        Ok(())
    }

    fn end_warp(&self, b: &mut Block) -> Result<(), ImportError> {
        let Some(w) = b.warp.take() else { return Ok(()) };
        let (declared, line) = w.declared.unwrap_or((0, w.line));
        if declared != w.found {
            let block = b.id.map(|(c, _, _)| format!("{},{},{}", c[0], c[1], c[2])).unwrap_or_default();
            return Err(ImportError::InstCount {
                file: self.file.into(),
                line,
                block,
                warp: w.id,
                declared,
                found: w.found,
            });
        }
        Ok(())
    }

    fn instruction(&mut self, b: &mut Block, t: &str, line: u64) -> Result<(), ImportError> {
        let Some(w) = b.warp.as_mut() else {
            return Err(self.structure(line, "an instruction line before `warp = n`".into()));
        };
        if w.declared.is_none() {
            return Err(
                self.structure(line, format!("an instruction line of warp {} before `insts = N`", w.id))
            );
        }
        w.found += 1;
        let (warp, step) = (w.id, w.step);
        let block = b.id.map_or(0, |(_, id, _)| id);
        self.stats.instructions += 1;
        let version = self.header.version;
        let mut c = Cursor { toks: t.split_whitespace(), file: self.file, line };
        if version.is_some_and(|v| v < 3) {
            for field in ["block x", "block y", "block z", "warp"] {
                c.dec(field, "the line's block and warp (tracer version < 3)")?;
            }
        }
        if self.header.lineinfo {
            c.dec("line_num", "a source line number (`-enable lineinfo = 1`)")?;
        }
        let pc = c.hex("PC", "a hex PC")?;
        let mask_tok = c.next("mask", "a hex active mask")?;
        let mask = parse_hex(mask_tok)
            .and_then(|m| u32::try_from(m).ok())
            .ok_or_else(|| c.malformed("mask", "a 32-bit hex active mask", mask_tok))?;
        let dests = c.count("dest_num", "a destination register count from 0 to 8")?;
        let mut result_used = false;
        for _ in 0..dests {
            let r = c.reg("destination register")?;
            result_used |= r != 255;
        }
        let opcode = c.next("opcode", "a SASS opcode")?;
        if !opcode.starts_with(|ch: char| ch.is_ascii_alphabetic()) {
            return Err(c.malformed("opcode", "a SASS opcode (e.g. `LDS.U.64`)", opcode));
        }
        let srcs = c.count("src_num", "a source register count from 0 to 8")?;
        for _ in 0..srcs {
            c.reg("source register")?;
        }
        let kind = classify(opcode, Some(result_used)).map_err(|reason| ImportError::Unsupported {
            file: self.file.into(),
            line,
            opcode: opcode.into(),
            reason,
        })?;
        let (op, bytes, lanes) = match kind {
            Kind::Skip(name) => {
                let name = if name.is_empty() { opcode.split('.').next().unwrap_or(opcode) } else { name };
                count_skipped(&mut self.stats, name);
                return Ok(());
            }
            Kind::Barrier => (Op::Barrier, 0, 32),
            Kind::Access { op, bytes, lanes } => (op, bytes, lanes),
        };
        let site = match self.pcs.get(&pc) {
            Some(&s) => s,
            None => {
                let s = self.stats.sites.len() as u32;
                self.stats.sites.push(format!("pc {pc:#06x} {opcode}"));
                self.pcs.insert(pc, s);
                s
            }
        };
        let mut addrs = [0u64; 32];
        if op != Op::Barrier {
            let width = c.dec("mem_width", "the access width in bytes")?;
            if width == 0 {
                return Err(c.malformed(
                    "mem_width",
                    "a width above 0 for a shared-memory instruction, followed by its addresses",
                    "0",
                ));
            }
            c.addresses(mask, &mut addrs)?;
            let extra = if version.is_some_and(|v| v < 5) { 0 } else { 1 };
            for _ in 0..extra {
                if let Some(tok) = c.toks.next() {
                    if tok.parse::<i64>().is_err() {
                        return Err(c.malformed("immediate", "an integer immediate (tracer version 5)", tok));
                    }
                }
            }
            if let Some(tok) = c.toks.next() {
                return Err(c.malformed(
                    "end of line",
                    "no more fields after the addresses (one address per active lane)",
                    tok,
                ));
            }
        }
        if self.emit(block, warp, step, (op, site), bytes, lanes, mask, &addrs, line)? {
            if let Some(w) = b.warp.as_mut() {
                w.step += 1;
            }
        }
        Ok(())
    }

    /// Records for the active lanes below `lanes`; whether there was any.
    #[allow(clippy::too_many_arguments)]
    fn emit(
        &mut self,
        block: u32,
        warp: u32,
        step: u32,
        (op, site): (Op, u32),
        bytes: u8,
        lanes: u32,
        mask: u32,
        addrs: &[u64; 32],
        line: u64,
    ) -> Result<bool, ImportError> {
        let mask = if lanes >= 32 { mask } else { mask & ((1 << lanes) - 1) };
        if mask == 0 {
            self.stats.masked_off += 1;
            return Ok(false);
        }
        if op.is_tensor() && !matches!(op, Op::MatrixLoad | Op::MatrixStore) {
            // a cp.async: the tracer records one of its two addresses (Accel-Sim's, the
            // global source); only a shared destination is of use
            let mut active = (0..32).filter(|l| mask >> l & 1 == 1);
            let global = |l: &u32| !self.window.is_copy_destination(addrs[*l as usize]);
            match active.clone().find(global) {
                Some(_) if active.all(|l| global(&l)) => {
                    count_skipped(&mut self.stats, GLOBAL_COPY);
                    return Ok(false);
                }
                Some(l) => {
                    let problem =
                        "is not a shared-memory address, and other lanes of this LDGSTS are".to_string();
                    return Err(self.address(line, l, addrs[l as usize], problem));
                }
                None => {}
            }
        }
        let threads = self.header.block.and_then(block_threads);
        for lane in (0..32).filter(|l| mask >> l & 1 == 1) {
            let thread = warp
                .checked_mul(32)
                .and_then(|t| t.checked_add(lane))
                .filter(|&t| threads.is_none_or(|n| t < n));
            let Some(thread) = thread else {
                return Err(self.structure(
                    line,
                    format!(
                        "warp {warp} lane {lane} is beyond the block's {} threads (`-block dim`)",
                        threads.map_or("2^32".to_string(), |n| n.to_string())
                    ),
                ));
            };
            let addr = if op == Op::Barrier {
                0
            } else {
                match self.window.offset(addrs[lane as usize]) {
                    Ok(Offset::Plain(a)) => a,
                    Ok(Offset::Wrapped(a)) => {
                        self.stats.wrapped += 1;
                        a
                    }
                    Err(problem) => return Err(self.address(line, lane, addrs[lane as usize], problem)),
                }
            };
            let rec = lane_record(block, thread, step, op, addr, bytes).ok_or_else(|| {
                self.address(line, lane, addrs[lane as usize], format!("+ {bytes} bytes overflows 32 bits"))
            })?;
            self.trace.records.push(Record { site, ..rec });
            self.trace.lines.push(u32::try_from(line).unwrap_or(u32::MAX));
        }
        *self.stats.kept.entry(op).or_insert(0) += 1;
        if self.trace.len() >= BATCH {
            self.flush()?;
        }
        Ok(true)
    }

    fn address(&self, line: u64, lane: u32, addr: u64, problem: String) -> ImportError {
        ImportError::Address { file: self.file.into(), line, lane, addr, problem }
    }
}

/// The fields of one instruction line.
struct Cursor<'a> {
    toks: SplitWhitespace<'a>,
    file: &'a str,
    line: u64,
}

impl<'a> Cursor<'a> {
    fn malformed(&self, field: &'static str, expected: &str, found: &str) -> ImportError {
        ImportError::malformed(self.file, self.line, field, expected, found)
    }

    fn next(&mut self, field: &'static str, expected: &str) -> Result<&'a str, ImportError> {
        self.toks.next().ok_or_else(|| self.malformed(field, expected, "end of line"))
    }

    fn dec(&mut self, field: &'static str, expected: &str) -> Result<u64, ImportError> {
        let t = self.next(field, expected)?;
        t.parse().map_err(|_| self.malformed(field, expected, t))
    }

    fn hex(&mut self, field: &'static str, expected: &str) -> Result<u64, ImportError> {
        let t = self.next(field, expected)?;
        parse_hex(t).ok_or_else(|| self.malformed(field, expected, t))
    }

    fn signed(&mut self, field: &'static str, expected: &str) -> Result<i64, ImportError> {
        let t = self.next(field, expected)?;
        t.parse().map_err(|_| self.malformed(field, expected, t))
    }

    fn count(&mut self, field: &'static str, expected: &str) -> Result<u64, ImportError> {
        let t = self.next(field, expected)?;
        t.parse().ok().filter(|&n| n <= 8).ok_or_else(|| self.malformed(field, expected, t))
    }

    /// A register `R<n>`; its number.
    fn reg(&mut self, field: &'static str) -> Result<u32, ImportError> {
        let t = self.next(field, "a register `R<n>`")?;
        t.strip_prefix('R')
            .and_then(|n| n.parse().ok())
            .ok_or_else(|| self.malformed(field, "a register `R<n>`", t))
    }

    /// The address mode and the active lanes' addresses into `addrs`.
    fn addresses(&mut self, mask: u32, addrs: &mut [u64; 32]) -> Result<(), ImportError> {
        let active = (0..32).filter(|l| mask >> l & 1 == 1);
        let mode = self.next("address mode", "0 (list), 1 (base + stride) or 2 (base + deltas)")?;
        match mode {
            "0" => {
                for lane in active {
                    addrs[lane] = self.hex("address", "one hex address per active lane")?;
                }
            }
            "1" => {
                let base = self.hex("base address", "a hex base address")?;
                let stride = self.signed("stride", "a decimal stride in bytes")?;
                let active: Vec<usize> = active.collect();
                if active.windows(2).any(|w| w[1] != w[0] + 1) {
                    return Err(self.malformed(
                        "mask",
                        "contiguous active lanes with address mode 1 (the tracer writes base + stride only for those; Accel-Sim reads lanes after a gap as address 0)",
                        &format!("{mask:08x}"),
                    ));
                }
                for (k, &lane) in active.iter().enumerate() {
                    addrs[lane] = self.step(base, stride.checked_mul(k as i64), lane)?;
                }
            }
            "2" => {
                let base = self.hex("base address", "a hex base address")?;
                let mut prev = base;
                for (k, lane) in active.enumerate() {
                    if k > 0 {
                        let delta = self.signed(
                            "delta",
                            "one decimal delta per active lane after the first (address mode 2)",
                        )?;
                        prev = self.step(prev, Some(delta), lane)?;
                    }
                    addrs[lane] = prev;
                }
            }
            _ => {
                return Err(self.malformed(
                    "address mode",
                    "0 (list), 1 (base + stride) or 2 (base + deltas)",
                    mode,
                ))
            }
        }
        Ok(())
    }

    /// `from + delta`, or an error if it leaves the 64-bit address space.
    fn step(&self, from: u64, delta: Option<i64>, lane: usize) -> Result<u64, ImportError> {
        delta.and_then(|d| from.checked_add_signed(d)).ok_or_else(|| ImportError::Address {
            file: self.file.into(),
            line: self.line,
            lane: lane as u32,
            addr: from,
            problem: "plus its stride or delta leaves the 64-bit address space".into(),
        })
    }
}
