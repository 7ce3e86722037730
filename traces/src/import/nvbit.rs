//! The text output of NVBit's `mem_trace` example tool.
//!
//! ```text
//! Kernel transpose(float*) - grid size 2,1,1 - block size 64,1,1 - nregs 16 - shmem 4096 - cuda stream id 0
//! CTA 1,0,0 - warp 9 - STS - 0x00007f0000000000 0x00007f0000000004 ... (32 addresses)
//! MEMTRACE: CTX 0x000055d0c0a0e2a0 - LAUNCH - Kernel pc 0x... - Kernel name k - grid launch id 0 - grid size 2,1,1 - block size 64,1,1 - nregs 16 - shmem 4096 - cuda stream id 0
//! MEMTRACE: CTX 0x000055d0c0a0e2a0 - grid_launch_id 0 - CTA 1,0,0 - warp 9 - LDS.U.64 - 0x... (32 addresses)
//! ```
//!
//! Both generations of the tool are read: the older lines `CTA x,y,z - warp W - OPCODE -
//! 32 addresses` after a `Kernel NAME - grid size ... - block size ...` line per launch,
//! and the newer `MEMTRACE: CTX ... - grid_launch_id N - CTA ... - warp W - [PC ... -]
//! OPCODE - 32 addresses` with `LAUNCH` lines. Other lines (the application's own
//! output, NVBit's banner) are ignored and counted; a line that has a `CTA` field but
//! does not parse is an error. Width and op come from the opcode as for Accel-Sim (see
//! [`super`]); there are no barriers (the tool traces memory instructions only).
//!
//! Caveats, from what the tool records:
//! - **No active mask.** Every lane prints an address, inactive lanes included (whatever
//!   the warp shuffle returned for them). When a line holds generic addresses (in the
//!   shared window: at or above [`Options::shmem_base`], or above 4 GiB when the base is
//!   unknown), a lane whose address is outside the window is taken as inactive; when the
//!   addresses are plain offsets every lane is taken as active. Lanes beyond the block's
//!   threads (from the launch line's block size) are dropped. Both are counted in
//!   [`ImportStats::inactive_lanes`]. Divergent code can still be over-counted.
//! - **Hardware warp slots.** `warp W` is the warp's slot on its SM, not its index in the
//!   block. Within each CTA the distinct slots are numbered 0, 1, 2, ... in ascending
//!   order (slots of one block are usually allocated in warp order); thread =
//!   `that number * 32 + lane`.
//! - **Several kernels.** A launch is chosen with [`Options::kernel`]; without it, the
//!   only launch with shared-memory accesses is taken, and several are an error listing
//!   them.

use super::error::ImportError;
use super::fields::{block_threads, lane_record, linear_block, parse_dim3, parse_hex};
use super::lines::Lines;
use super::opcode::{classify, Kind, GLOBAL_COPY};
use super::options::Options;
use super::stats::{count_skipped, ImportStats, Imported, Kernel};
use super::window::{Offset, Window};
use crate::record::Trace;
use sim_core::Op;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::BufRead;

/// One lane access before warps are renumbered.
struct Pending {
    block: u32,
    slot: u32,
    lane: u32,
    step: u32,
    op: Op,
    addr: u32,
    bytes: u8,
    /// Whether the address was taken modulo 16 MiB.
    wrapped: bool,
    line: u32,
    /// The instruction's site (its PC's), or `NO_SITE` where the line has no PC.
    site: u32,
}

/// What one kernel launch contributed.
#[derive(Default)]
struct Launch {
    info: Kernel,
    /// Line of the launch line (0 if the file has none for it).
    line: u64,
    stats: ImportStats,
    /// Shared-memory warp instructions.
    shared: u64,
    /// Memory records of any kind.
    records: u64,
    /// Next step of each (block, slot).
    steps: HashMap<(u32, u32), u32>,
    /// Only for the launch being imported.
    pending: Vec<Pending>,
    /// The site id of each PC seen (labels in `stats.sites`).
    pcs: HashMap<u64, u32>,
}

/// Converts `mem_trace` output read from `reader`; `name` is used in messages.
pub fn parse<R: BufRead>(reader: R, name: &str, opts: &Options) -> Result<Imported, ImportError> {
    let window = Window::new(opts.shmem_base);
    let mut lines = Lines::new(reader, name);
    let mut launches: BTreeMap<u64, Launch> = BTreeMap::new();
    let mut ordinal = 0u64;
    let mut current: Option<u64> = None;
    // the launch whose records are kept
    let mut keep: Option<u64> = opts.kernel;
    let mut other_lines = 0u64;
    while let Some((line, text)) = lines.next_line()? {
        let ctx = Ctx { file: name, line };
        let body = text.trim();
        let body = body.strip_prefix("MEMTRACE:").map_or(body, str::trim_start);
        let segs: Vec<&str> = body.split(" - ").map(str::trim).collect();
        let old_launch = segs[0].starts_with("Kernel ") && segs.iter().any(|s| s.starts_with("grid size "));
        if old_launch || segs.contains(&"LAUNCH") {
            let info = ctx.launch(&segs, ordinal)?;
            ordinal += 1;
            let id = info.id;
            let l = launches.entry(id).or_default();
            if l.line != 0 {
                return Err(ctx.structure(format!(
                    "kernel launch {id} appears twice (first at line {}); split the output per CUDA context",
                    l.line
                )));
            }
            l.line = line;
            l.info = info;
            current = Some(id);
            continue;
        }
        if !segs.iter().any(|s| s.starts_with("CTA ")) {
            other_lines += 1;
            continue;
        }
        let rec = ctx.record(&segs)?;
        let id = rec.launch.or(current).unwrap_or(0);
        if opts.kernel.is_some_and(|k| k != id) {
            launches.entry(id).or_default().records += 1;
            continue;
        }
        let l = launches.entry(id).or_default();
        l.records += 1;
        l.stats.instructions += 1;
        let kind = classify(rec.opcode, None).map_err(|reason| ImportError::Unsupported {
            file: name.into(),
            line,
            opcode: rec.opcode.into(),
            reason,
        })?;
        let (op, bytes, lanes) = match kind {
            Kind::Skip(n) => {
                let n = if n.is_empty() { rec.opcode.split('.').next().unwrap_or(rec.opcode) } else { n };
                count_skipped(&mut l.stats, n);
                continue;
            }
            Kind::Barrier => (Op::Barrier, 0, 32),
            Kind::Access { op, bytes, lanes } => (op, bytes, lanes),
        };
        l.shared += 1;
        if keep.is_none() {
            keep = Some(id);
        }
        if keep != Some(id) {
            continue;
        }
        let block = linear_block(rec.cta, l.info.grid).map_err(|p| ctx.structure(p))?;
        let site = match rec.pc {
            None => crate::NO_SITE,
            Some(pc) => *l.pcs.entry(pc).or_insert_with(|| {
                l.stats.sites.push(format!("pc {pc:#06x} {}", rec.opcode));
                l.stats.sites.len() as u32 - 1
            }),
        };
        // a cp.async has two lines, its shared destination's and its global source's:
        // only the first is of use, its lanes outside shared memory taken as inactive
        let copy = op.is_tensor() && !matches!(op, Op::MatrixLoad | Op::MatrixStore);
        if copy && !rec.addrs[..lanes as usize].iter().any(|&a| window.is_copy_destination(a)) {
            count_skipped(&mut l.stats, GLOBAL_COPY);
            continue;
        }
        let generic = op != Op::Barrier && rec.addrs.iter().any(|&a| window.is_generic(a));
        let step = *l.steps.get(&(block, rec.slot)).unwrap_or(&0);
        let mut any = false;
        for lane in 0..lanes {
            let raw = rec.addrs[lane as usize];
            if (generic && !window.contains(raw)) || (copy && !window.is_copy_destination(raw)) {
                l.stats.inactive_lanes += 1;
                continue;
            }
            let (addr, wrapped) = match (op, window.offset(raw)) {
                (Op::Barrier, _) => (0, false),
                (_, Ok(Offset::Plain(a))) => (a, false),
                (_, Ok(Offset::Wrapped(a))) => (a, true),
                (_, Err(problem)) => {
                    return Err(ImportError::Address { file: name.into(), line, lane, addr: raw, problem })
                }
            };
            if lane_record(0, 0, 0, op, addr, bytes).is_none() {
                return Err(ImportError::Address {
                    file: name.into(),
                    line,
                    lane,
                    addr: raw,
                    problem: format!("+ {bytes} bytes overflows 32 bits"),
                });
            }
            any = true;
            let line = u32::try_from(line).unwrap_or(u32::MAX);
            l.pending.push(Pending {
                block,
                slot: rec.slot,
                lane,
                step,
                op,
                addr,
                bytes,
                wrapped,
                line,
                site,
            });
        }
        if any {
            l.steps.insert((block, rec.slot), step + 1);
            *l.stats.kept.entry(op).or_insert(0) += 1;
        } else {
            l.stats.masked_off += 1;
        }
    }
    let lines_read = lines.line;
    let chosen = match opts.kernel {
        Some(k) => match launches.get(&k) {
            Some(l) if l.records > 0 || l.line != 0 => Some(k),
            _ => {
                return Err(ImportError::NoKernel {
                    file: name.into(),
                    kernel: k,
                    known: launches.iter().filter(|(_, l)| l.records > 0).map(|(&id, _)| id).collect(),
                })
            }
        },
        None => {
            let shared: Vec<(u64, String, u64)> = launches
                .iter()
                .filter(|(_, l)| l.shared > 0)
                .map(|(&id, l)| (id, l.info.name.clone(), l.shared))
                .collect();
            if shared.len() > 1 {
                return Err(ImportError::Kernels { file: name.into(), kernels: shared });
            }
            keep
        }
    };
    let mut trace = Trace::new(name);
    let mut stats = ImportStats::default();
    if let Some(l) = chosen.and_then(|k| launches.remove(&k)) {
        stats = l.stats;
        renumber(name, &l.info, l.pending, &mut trace, &mut stats)?;
        trace.sites = stats.sites.clone();
        stats.kernel = Some(l.info);
    }
    stats.lines = lines_read;
    stats.other_lines = other_lines;
    Ok(Imported { trace, stats })
}

/// Turns hardware warp slots into warps of the block (ascending slots per block) and
/// appends the records.
fn renumber(
    file: &str,
    kernel: &Kernel,
    pending: Vec<Pending>,
    trace: &mut Trace,
    stats: &mut ImportStats,
) -> Result<(), ImportError> {
    let mut slots: BTreeMap<u32, BTreeSet<u32>> = BTreeMap::new();
    for p in &pending {
        slots.entry(p.block).or_default().insert(p.slot);
    }
    let threads = kernel.block.and_then(block_threads);
    let mut rank: HashMap<(u32, u32), u32> = HashMap::new();
    for (&block, set) in &slots {
        if let Some(n) = threads {
            let warps = n.div_ceil(32) as usize;
            if set.len() > warps {
                let first = pending.iter().find(|p| p.block == block).map_or(0, |p| p.line);
                return Err(ImportError::Structure {
                    file: file.into(),
                    line: first as u64,
                    problem: format!(
                        "block {block} has {} distinct warp ids but a block of {n} threads has {warps} warps",
                        set.len()
                    ),
                });
            }
        }
        for (i, &slot) in set.iter().enumerate() {
            rank.insert((block, slot), i as u32);
        }
    }
    for p in pending {
        let warp = rank.get(&(p.block, p.slot)).copied().unwrap_or(0);
        let thread = warp.checked_mul(32).and_then(|t| t.checked_add(p.lane));
        let Some(thread) = thread.filter(|&t| threads.is_none_or(|n| t < n)) else {
            stats.inactive_lanes += 1;
            continue;
        };
        if let Some(r) = lane_record(p.block, thread, p.step, p.op, p.addr, p.bytes) {
            stats.wrapped += p.wrapped as u64;
            trace.records.push(crate::Record { site: p.site, ..r });
            trace.lines.push(p.line);
        }
    }
    Ok(())
}

/// One memory record line.
struct MemRecord<'a> {
    launch: Option<u64>,
    cta: [u32; 3],
    slot: u32,
    /// The instruction's PC, where the line has one.
    pc: Option<u64>,
    opcode: &'a str,
    addrs: [u64; 32],
}

/// File and line, for messages.
struct Ctx<'a> {
    file: &'a str,
    line: u64,
}

impl Ctx<'_> {
    fn malformed(&self, field: &'static str, expected: &str, found: &str) -> ImportError {
        ImportError::malformed(self.file, self.line, field, expected, found)
    }

    fn structure(&self, problem: String) -> ImportError {
        ImportError::Structure { file: self.file.into(), line: self.line, problem }
    }

    /// A launch line's fields; `ordinal` is its index among the launches.
    fn launch(&self, segs: &[&str], ordinal: u64) -> Result<Kernel, ImportError> {
        let mut k = Kernel { id: ordinal, ..Kernel::default() };
        for (i, s) in segs.iter().enumerate() {
            if let Some(v) = s.strip_prefix("grid size ") {
                k.grid = Some(parse_dim3(v).ok_or_else(|| self.malformed("grid size", "x,y,z", v))?);
            } else if let Some(v) = s.strip_prefix("block size ") {
                k.block = Some(parse_dim3(v).ok_or_else(|| self.malformed("block size", "x,y,z", v))?);
            } else if let Some(v) = s.strip_prefix("grid launch id ") {
                k.id = v.parse().map_err(|_| self.malformed("grid launch id", "an integer", v))?;
            } else if let Some(v) = s.strip_prefix("Kernel name ") {
                k.name = v.to_string();
            } else if i == 0 {
                if let Some(v) = s.strip_prefix("Kernel ") {
                    k.name = v.to_string();
                }
            }
        }
        Ok(k)
    }

    /// A memory record line's fields.
    fn record<'s>(&self, segs: &[&'s str]) -> Result<MemRecord<'s>, ImportError> {
        let expected =
            "`[CTX ... - grid_launch_id N - ]CTA x,y,z - warp W - [PC ... - ]OPCODE - 32 hex addresses`";
        let n = segs.len();
        if n < 4 {
            return Err(self.malformed("line", expected, &segs.join(" - ")));
        }
        let (mut launch, mut cta, mut slot, mut pc) = (None, None, None, None);
        for s in &segs[..n - 2] {
            if let Some(v) = s.strip_prefix("CTA ") {
                cta = Some(parse_dim3(v).ok_or_else(|| self.malformed("CTA", "x,y,z", v))?);
            } else if let Some(v) = s.strip_prefix("warp ") {
                slot = Some(v.parse().map_err(|_| self.malformed("warp", "a warp id", v))?);
            } else if let Some(v) = s.strip_prefix("grid_launch_id ") {
                launch = Some(v.parse().map_err(|_| self.malformed("grid_launch_id", "an integer", v))?);
            } else if let Some(v) = s.strip_prefix("PC ") {
                pc = Some(parse_hex(v.trim()).ok_or_else(|| self.malformed("PC", "a hex PC", v))?);
            } else if !s.starts_with("CTX ") {
                return Err(self.malformed("field", "CTX, grid_launch_id, CTA, warp or PC", s));
            }
        }
        let cta = cta.ok_or_else(|| self.malformed("CTA", "a `CTA x,y,z` field", &segs.join(" - ")))?;
        let slot = slot.ok_or_else(|| self.malformed("warp", "a `warp W` field", &segs.join(" - ")))?;
        let opcode = segs[n - 2];
        if !opcode.starts_with(|c: char| c.is_ascii_alphabetic()) || opcode.contains(char::is_whitespace) {
            return Err(self.malformed("opcode", "a SASS opcode before the addresses", opcode));
        }
        let mut addrs = [0u64; 32];
        let mut count = 0;
        for tok in segs[n - 1].split_whitespace() {
            let a = parse_hex(tok).ok_or_else(|| self.malformed("address", "32 hex lane addresses", tok))?;
            if count < 32 {
                addrs[count] = a;
            }
            count += 1;
        }
        if count != 32 {
            return Err(self.malformed("addresses", "32 hex lane addresses", &format!("{count} addresses")));
        }
        Ok(MemRecord { launch, cta, slot, pc, opcode, addrs })
    }
}
