//! Importing real GPU traces: Accel-Sim's NVBit-tracer kernel traces
//! (`kernel-N.traceg`, plain or `.xz`) and the text output of NVBit's `mem_trace` tool,
//! converted to banksim's per-thread [`Trace`].
//!
//! ```text
//! kernel-1.traceg[.xz] ──> accelsim::parse ──┐   shared-memory instructions only,
//!                                              ├─> one Record per active lane ──> text::write
//! mem_trace stdout ─────> nvbit::parse ──────┘   block = linear CTA id, thread = warp*32 + lane,
//!                                                  step = the warp's n-th shared instruction
//! ```
//!
//! A tiny Accel-Sim trace: one warp stores with base + stride (address mode 1), meets a
//! barrier and loads a list of addresses (mode 0) with lanes 1..=3 active.
//!
//! ```
//! use traces::import::{accelsim, Options};
//! use sim_core::Op;
//!
//! let traceg = "\
//! -grid dim = (1,1,1)
//! -block dim = (32,1,1)
//! -shmem base_addr = 0x00007f0000000000
//! -accelsim tracer version = 4
//!
//! #BEGIN_TB
//! thread block = 0,0,0
//! warp = 0
//! insts = 4
//! 0000 ffffffff 1 R1 IMAD.MOV.U32 2 R255 R255 0
//! 0010 ffffffff 0 STS 2 R2 R1 4 1 0x7f0000000000 4
//! 0020 ffffffff 0 BAR.SYNC.DEFER_BLOCKING 0 0
//! 0030 0000000e 1 R4 LDS.U.64 1 R3 8 0 0x7f0000000100 0x7f0000000108 0x7f0000000200
//! #END_TB
//! ";
//! let imported = accelsim::parse(traceg.as_bytes(), "kernel-1.traceg", &Options::default()).unwrap();
//! let recs = &imported.trace.records;
//! assert_eq!(recs.len(), 32 + 32 + 3); // 32 stores, 32 barrier lanes, 3 loads
//! assert_eq!((recs[5].op, recs[5].addr, recs[5].step), (Op::Store, 20, 0)); // lane 5: base + 5 x 4
//! let last = recs.last().unwrap();
//! assert_eq!((last.thread, last.op, last.addr, last.bytes, last.step), (3, Op::Load, 0x200, 8, 2));
//! assert_eq!(imported.stats.skipped["IMAD"], 1);
//! ```
//!
//! # What is kept, and as what
//!
//! | SASS opcode (first `.` token) | banksim op | width |
//! | --- | --- | --- |
//! | `LDS` | `ld` | from the opcode suffix, as Accel-Sim's parser recomputes it: the first numeric token in bits (`LDS.U.128` → 16 B), or `U`/`S` + bits (`LDS.U8` → 1 B; Accel-Sim reads `S8`/`S16` as 4 B, banksim as 1/2 B), else 4 B |
//! | `STS` | `st` | as `LDS` |
//! | `ATOMS` | `atom` when the instruction writes a register other than `RZ` (`R255`): its result is used, and returning atomics serialize on the H100; `red` when it writes no register or `RZ` (the H100 reduction `ATOMS.POPC.INC RZ`) | as `LDS` |
//! | `LDSM` (ldmatrix), `STSM` (stmatrix) | `ld` / `st` of 16-byte rows: `.M88`/`.MT88` take row addresses from lanes 0-7, `.2` from lanes 0-15, `.4` from all 32 | 16 B |
//! | `BAR` (`BAR.SYNC`, `BAR.RED`, ...) | `bar` for every active lane | - |
//! | `BAR.ARV` and everything else | skipped and counted by opcode in [`ImportStats::skipped`] | - |
//!
//! NVBit's `mem_trace` has no destination registers, so there `ATOMS.POPC.INC` is `red`
//! and every other `ATOMS` is `atom`. An `LDSM`/`STSM` shape other than `M88`/`MT88`, or
//! a width that is not 1, 2, 4, 8 or 16 bytes, is an error rather than a guess. Generic
//! `LD`/`ST`/`ATOM` that happen to address shared memory, and `LDGSTS` (cp.async), are
//! skipped.
//!
//! # Shared addresses
//!
//! Traces hold 64-bit generic addresses. An address at or above the shared window's base
//! (the Accel-Sim header's `-shmem base_addr`, or [`Options::shmem_base`]) becomes its
//! offset from the base; an address below 4 GiB is taken as an offset already. With no
//! base known, a larger address is reduced modulo 16 MiB (the window is aligned at least
//! that much, and bank mapping only sees low bits), and counted in
//! [`ImportStats::wrapped`].
//!
//! Errors name the file, the line and what was expected; nothing here panics on bad
//! input.

pub mod accelsim;
pub mod nvbit;

use crate::record::{Record, Trace};
use sim_core::Op;
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

/// Which tool wrote the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Accel-Sim's NVBit tracer after post-processing: `kernel-N.traceg` (see [`accelsim`]).
    AccelSim,
    /// The stdout of NVBit's `mem_trace` example tool (see [`nvbit`]).
    NvbitMemtrace,
}

/// Choices the file cannot make for itself.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// Base of the shared-memory window in the generic address space; overrides the
    /// Accel-Sim header's `-shmem base_addr`.
    pub shmem_base: Option<u64>,
    /// `mem_trace` only: the kernel launch to import (its `grid_launch_id`, or its index
    /// among the file's launches when the output has no ids). Needed when several
    /// launches touch shared memory.
    pub kernel: Option<u64>,
}

/// A kernel launch, as far as the file describes it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Kernel {
    /// Launch id (Accel-Sim's `-kernel id`, `mem_trace`'s grid launch id or launch index).
    pub id: u64,
    /// Kernel name (empty when the file does not say).
    pub name: String,
    /// Grid dimensions in blocks, when known.
    pub grid: Option<[u32; 3]>,
    /// Block dimensions in threads, when known.
    pub block: Option<[u32; 3]>,
}

/// What an import kept and what it left out.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ImportStats {
    /// Lines read.
    pub lines: u64,
    /// Warp instructions read (Accel-Sim instruction lines, `mem_trace` memory records).
    pub instructions: u64,
    /// Warp instructions kept, by op (barriers included).
    pub kept: BTreeMap<Op, u64>,
    /// Warp instructions skipped, by opcode (the first `.` token, or `BAR.ARV`).
    pub skipped: BTreeMap<String, u64>,
    /// Shared-memory instructions skipped because no lane was active (for `LDSM`/`STSM`:
    /// no active lane that provides a row address).
    pub masked_off: u64,
    /// Addresses reduced modulo 16 MiB because no shared base was known.
    pub wrapped: u64,
    /// `mem_trace`: lanes taken as inactive (see [`nvbit`]).
    pub inactive_lanes: u64,
    /// `mem_trace`: lines that are not `mem_trace` output (the application's own
    /// output, NVBit's banner), ignored.
    pub other_lines: u64,
    /// The kernel imported.
    pub kernel: Option<Kernel>,
}

impl ImportStats {
    /// Warp instructions kept, all ops.
    pub fn kept_total(&self) -> u64 {
        self.kept.values().sum()
    }

    /// Warp instructions skipped, all opcodes.
    pub fn skipped_total(&self) -> u64 {
        self.skipped.values().sum()
    }
}

/// An imported trace and its statistics.
#[derive(Clone, Debug)]
pub struct Imported {
    /// The trace: one record per active lane of each kept instruction, in file order;
    /// `lines` are the input's line numbers.
    pub trace: Trace,
    /// What was kept and skipped.
    pub stats: ImportStats,
}

/// Importing a trace failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ImportError {
    /// The file could not be opened, read or decompressed.
    #[error("{path}: cannot read: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A field of a line does not parse.
    #[error("{file}:{line}: {field}: expected {expected}, found `{found}`")]
    Malformed {
        /// The file.
        file: String,
        /// Line number (1-based).
        line: u64,
        /// The field, e.g. `mask` or `address mode`.
        field: &'static str,
        /// What was expected.
        expected: String,
        /// What was found (shortened when long).
        found: String,
    },
    /// Lines are in an order the format does not allow (e.g. an instruction outside a
    /// thread block, a file that ends inside one).
    #[error("{file}:{line}: {problem}")]
    Structure {
        /// The file.
        file: String,
        /// Line number (1-based).
        line: u64,
        /// What is wrong and what was expected.
        problem: String,
    },
    /// A warp's `insts = N` does not match its instruction lines.
    #[error("{file}:{line}: warp {warp} of thread block {block} declares insts = {declared} but has {found} instruction lines (truncated or edited file?)")]
    InstCount {
        /// The file.
        file: String,
        /// Line of the `insts =` line.
        line: u64,
        /// Block coordinates, `x,y,z`.
        block: String,
        /// Warp in the block.
        warp: u32,
        /// Instructions the header declared.
        declared: u64,
        /// Instruction lines found.
        found: u64,
    },
    /// A shared-memory instruction that banksim does not decode.
    #[error("{file}:{line}: `{opcode}`: {reason}")]
    Unsupported {
        /// The file.
        file: String,
        /// Line number (1-based).
        line: u64,
        /// The opcode as written.
        opcode: String,
        /// Why, and what is supported.
        reason: String,
    },
    /// A lane's address is not a shared-memory address banksim can represent.
    #[error("{file}:{line}: lane {lane}: address {addr:#x} {problem}")]
    Address {
        /// The file.
        file: String,
        /// Line number (1-based).
        line: u64,
        /// Lane.
        lane: u32,
        /// The address as written.
        addr: u64,
        /// What is wrong.
        problem: String,
    },
    /// Several kernel launches touch shared memory and none was chosen.
    #[error("{file}: {} kernel launches access shared memory: {}; choose one with --kernel ID", kernels.len(), list_kernels(kernels))]
    Kernels {
        /// The file.
        file: String,
        /// (launch id, name, shared-memory warp instructions) of each.
        kernels: Vec<(u64, String, u64)>,
    },
    /// The chosen kernel launch is not in the file.
    #[error("{file}: no kernel launch {kernel} with memory records; the file has {}", if known.is_empty() { "none".to_string() } else { known.iter().map(u64::to_string).collect::<Vec<_>>().join(", ") })]
    NoKernel {
        /// The file.
        file: String,
        /// The launch asked for.
        kernel: u64,
        /// Launches the file has.
        known: Vec<u64>,
    },
}

fn list_kernels(kernels: &[(u64, String, u64)]) -> String {
    kernels
        .iter()
        .map(|(id, name, n)| {
            let name = if name.is_empty() { String::new() } else { format!(" `{}`", shorten(name)) };
            format!("{id}{name} ({n} instructions)")
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The xz container's magic bytes.
const XZ_MAGIC: [u8; 6] = [0xFD, b'7', b'z', b'X', b'Z', 0x00];

/// Reads and converts a trace file of `format`. Files compressed with xz are recognised
/// by their content and decompressed on the fly.
pub fn read(path: &Path, format: Format, opts: &Options) -> Result<Imported, ImportError> {
    let io = |source| ImportError::Io { path: path.into(), source };
    let file = std::fs::File::open(path).map_err(io)?;
    if file.metadata().map(|m| m.is_dir()).unwrap_or(false) {
        return Err(io(std::io::Error::other("is a directory, expected a trace file")));
    }
    let mut reader = BufReader::with_capacity(1 << 16, file);
    let xz = reader.fill_buf().map_err(io)?.starts_with(&XZ_MAGIC);
    let name = path.display().to_string();
    if xz {
        let decoder = liblzma::bufread::XzDecoder::new_multi_decoder(reader);
        parse(BufReader::with_capacity(1 << 16, decoder), &name, format, opts)
    } else {
        parse(reader, &name, format, opts)
    }
}

/// Converts a trace of `format` from a reader (decompressed); `name` is used in messages.
pub fn parse<R: BufRead>(
    reader: R,
    name: &str,
    format: Format,
    opts: &Options,
) -> Result<Imported, ImportError> {
    match format {
        Format::AccelSim => accelsim::parse(reader, name, opts),
        Format::NvbitMemtrace => nvbit::parse(reader, name, opts),
    }
}

// ---------------------------------------------------------------------------------------
// Shared by both formats.

/// Reads a file line by line with 1-based numbers; invalid UTF-8 is an error naming the
/// line.
pub(crate) struct Lines<R> {
    reader: R,
    buf: Vec<u8>,
    file: String,
    /// Number of the line last returned.
    pub(crate) line: u64,
}

impl<R: BufRead> Lines<R> {
    pub(crate) fn new(reader: R, file: &str) -> Lines<R> {
        Lines { reader, buf: Vec::new(), file: file.into(), line: 0 }
    }

    /// The next line's number and text without its line ending, or `None` at the end.
    pub(crate) fn next_line(&mut self) -> Result<Option<(u64, &str)>, ImportError> {
        self.buf.clear();
        let n = self
            .reader
            .read_until(b'\n', &mut self.buf)
            .map_err(|source| ImportError::Io { path: self.file.clone().into(), source })?;
        if n == 0 {
            return Ok(None);
        }
        self.line += 1;
        while matches!(self.buf.last(), Some(b'\n' | b'\r')) {
            self.buf.pop();
        }
        match std::str::from_utf8(&self.buf) {
            Ok(s) => Ok(Some((self.line, s))),
            Err(_) => Err(ImportError::Malformed {
                file: self.file.clone(),
                line: self.line,
                field: "line",
                expected: "UTF-8 text (is this a trace file?)".into(),
                found: String::from_utf8_lossy(&self.buf).chars().take(40).collect(),
            }),
        }
    }
}

/// At most 60 characters of `s`, for messages.
pub(crate) fn shorten(s: &str) -> String {
    if s.chars().count() <= 60 {
        s.to_string()
    } else {
        s.chars().take(57).collect::<String>() + "..."
    }
}

/// Parses hex with or without `0x`.
pub(crate) fn parse_hex(s: &str) -> Option<u64> {
    let h = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")).unwrap_or(s);
    if h.is_empty() || h.len() > 16 {
        return None;
    }
    u64::from_str_radix(h, 16).ok()
}

/// Parses `x,y,z` (optionally in parentheses) of non-negative integers.
pub(crate) fn parse_dim3(s: &str) -> Option<[u32; 3]> {
    let s = s.trim();
    let s = s.strip_prefix('(').and_then(|s| s.strip_suffix(')')).unwrap_or(s);
    let mut it = s.split(',').map(|p| p.trim().parse::<u32>());
    let d = [it.next()?.ok()?, it.next()?.ok()?, it.next()?.ok()?];
    if it.next().is_some() {
        return None;
    }
    Some(d)
}

/// The linear block id `x + y*gx + z*gx*gy`, checked against the grid.
pub(crate) fn linear_block(coords: [u32; 3], grid: Option<[u32; 3]>) -> Result<u32, String> {
    let [x, y, z] = coords;
    match grid {
        Some([gx, gy, gz]) => {
            if x >= gx || y >= gy || z >= gz {
                return Err(format!("block {x},{y},{z} is outside the grid ({gx},{gy},{gz})"));
            }
            let id = x as u64 + gx as u64 * (y as u64 + gy as u64 * z as u64);
            u32::try_from(id).map_err(|_| format!("block {x},{y},{z}: linear id {id} does not fit 32 bits"))
        }
        None if y == 0 && z == 0 => Ok(x),
        None => Err(format!(
            "block {x},{y},{z}: the grid size is needed to number blocks, and the file does not give it"
        )),
    }
}

/// Threads in a block of dimensions `dims`, if it fits 32 bits.
pub(crate) fn block_threads(dims: [u32; 3]) -> Option<u32> {
    dims[0].checked_mul(dims[1])?.checked_mul(dims[2])
}

/// What to do with one opcode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A shared-memory access of `bytes` per lane, by lanes below `lanes` only.
    Access { op: Op, bytes: u8, lanes: u32 },
    /// A block barrier.
    Barrier,
    /// Not imported; counted under this name.
    Skip(&'static str),
}

/// Classifies an opcode. `result_used`: whether an `ATOMS` writes a register other than
/// `RZ` (`None` when the format does not say). An error is a shared-memory instruction
/// banksim cannot decode (the reason).
pub(crate) fn classify(opcode: &str, result_used: Option<bool>) -> Result<Kind, String> {
    let base = opcode.split('.').next().unwrap_or("");
    if !matches!(base, "LDS" | "STS" | "ATOMS" | "LDSM" | "STSM" | "BAR") {
        return Ok(Kind::Skip("")); // the common case: no allocation
    }
    let suffix: Vec<&str> = opcode.split('.').skip(1).filter(|t| !t.is_empty()).collect();
    let suffix = suffix.as_slice();
    let kind = match base {
        "LDS" => Kind::Access { op: Op::Load, bytes: width(suffix)?, lanes: 32 },
        "STS" => Kind::Access { op: Op::Store, bytes: width(suffix)?, lanes: 32 },
        "ATOMS" => {
            let op = match result_used {
                Some(true) => Op::Atomic,
                Some(false) => Op::Reduction,
                None if suffix.contains(&"POPC") && suffix.contains(&"INC") => Op::Reduction,
                None => Op::Atomic,
            };
            Kind::Access { op, bytes: width(suffix)?, lanes: 32 }
        }
        "LDSM" => Kind::Access { op: Op::Load, bytes: 16, lanes: matrix_lanes(suffix)? },
        "STSM" => Kind::Access { op: Op::Store, bytes: 16, lanes: matrix_lanes(suffix)? },
        "BAR" if suffix.contains(&"ARV") => Kind::Skip("BAR.ARV"),
        "BAR" => Kind::Barrier,
        _ => Kind::Skip(""),
    };
    Ok(kind)
}

/// Access width from the opcode suffix (Accel-Sim's rule: the first all-digit token, or
/// `U`+digits, is the width in bits; also `S`+digits here), default 4 bytes.
fn width(suffix: &[&str]) -> Result<u8, String> {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let bits = suffix.iter().find_map(|t| {
        if digits(t) {
            Some(*t)
        } else {
            t.strip_prefix('U').or_else(|| t.strip_prefix('S')).filter(|r| digits(r))
        }
    });
    let Some(bits) = bits else { return Ok(4) };
    match bits.parse::<u32>() {
        Ok(b @ (8 | 16 | 32 | 64 | 128)) => Ok((b / 8) as u8),
        _ => Err(format!(
            "access width of {bits} bits: banksim models 8, 16, 32, 64 and 128-bit shared-memory accesses"
        )),
    }
}

/// Lanes that provide row addresses to `ldmatrix`/`stmatrix`: 8 per matrix.
fn matrix_lanes(suffix: &[&str]) -> Result<u32, String> {
    let shape = suffix.iter().position(|t| *t == "M88" || *t == "MT88").ok_or_else(|| {
        "unsupported matrix shape: banksim decodes the 8x8 shapes `.M88` and `.MT88` (16-byte rows)"
            .to_string()
    })?;
    match suffix.get(shape + 1..).unwrap_or(&[]) {
        [] => Ok(8),
        ["2"] => Ok(16),
        ["4"] => Ok(32),
        other => Err(format!(
            "unsupported matrix count `.{}`: expected none (1 matrix), `.2` or `.4`",
            other.join(".")
        )),
    }
}

/// Where the shared window lies in the generic address space.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Window {
    base: Option<u64>,
}

/// Shared windows are aligned to at least this (bytes) in the generic address space.
const WINDOW_ALIGN: u64 = 1 << 24;

/// A lane address in the window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Offset {
    /// Offset from the base, or an address that was an offset already.
    Plain(u32),
    /// No base known: the address modulo [`WINDOW_ALIGN`].
    Wrapped(u32),
}

impl Window {
    /// A window at `base` (0 means unknown).
    pub(crate) fn new(base: Option<u64>) -> Window {
        Window { base: base.filter(|&b| b != 0) }
    }

    /// Whether `addr` is a generic address (as opposed to a plain offset).
    pub(crate) fn is_generic(&self, addr: u64) -> bool {
        addr > u32::MAX as u64 || self.base.is_some_and(|b| addr >= b)
    }

    /// Whether a generic `addr` lies in the window (always, when the base is unknown).
    pub(crate) fn contains(&self, addr: u64) -> bool {
        match self.base {
            Some(b) => addr >= b && addr - b <= u32::MAX as u64,
            None => addr > u32::MAX as u64,
        }
    }

    /// The shared-memory offset of `addr`, or why there is none.
    pub(crate) fn offset(&self, addr: u64) -> Result<Offset, String> {
        if let Some(b) = self.base {
            if addr >= b {
                return u32::try_from(addr - b).map(Offset::Plain).map_err(|_| {
                    format!("is {:#x} bytes past the shared base {b:#x}: beyond any shared memory", addr - b)
                });
            }
        }
        if let Ok(a) = u32::try_from(addr) {
            return Ok(Offset::Plain(a));
        }
        match self.base {
            Some(b) => Err(format!(
                "is below the shared base {b:#x} and not a 32-bit offset: not a shared-memory address (wrong --shmem-base?)"
            )),
            None => Ok(Offset::Wrapped((addr % WINDOW_ALIGN) as u32)),
        }
    }
}

/// Counts one skipped instruction under `name`.
pub(crate) fn count_skipped(stats: &mut ImportStats, name: &str) {
    match stats.skipped.get_mut(name) {
        Some(n) => *n += 1,
        None => {
            stats.skipped.insert(name.to_string(), 1);
        }
    }
}

/// One lane's record; `None` if `addr + bytes` overflows 32 bits.
pub(crate) fn lane_record(
    block: u32,
    thread: u32,
    step: u32,
    op: Op,
    addr: u32,
    bytes: u8,
) -> Option<Record> {
    let (addr, bytes) = if op == Op::Barrier { (0, 0) } else { (addr, bytes) };
    addr.checked_add(bytes as u32)?;
    Some(Record { block, thread, step, op, addr, bytes, gap: 0, dep: None, wait: None })
}
