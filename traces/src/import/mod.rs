//! Importing real GPU traces: Accel-Sim's NVBit-tracer kernel traces
//! (`kernel-N.traceg`, plain or `.xz`) and the text output of NVBit's `mem_trace` tool,
//! converted to banksim's per-thread [`Trace`](crate::Trace).
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
//! | `LDSM` (ldmatrix), `STSM` (stmatrix) | `ldsm` / `stsm`, one record per lane that gives a 16-byte row address: `.M88`/`.MT88` lanes 0-7, `.2` lanes 0-15, `.4` all 32 | 16 B |
//! | `LDGSTS` (cp.async) | `ldgsts`, or `ldgsts.cg` for `.BYPASS` (16 bytes only), at the lanes' shared destinations; an instruction whose traced addresses are its global source is skipped and counted as `LDGSTS (global source address)` | as `LDS` (`LDGSTS.E` 4 B, `.64` 8 B, `.128` 16 B) |
//! | `BAR` (`BAR.SYNC`, `BAR.RED`, ...) | `bar` for every active lane | - |
//! | `BAR.ARV` and everything else | skipped and counted by opcode in [`ImportStats::skipped`] | - |
//!
//! NVBit's `mem_trace` has no destination registers, so there `ATOMS.POPC.INC` is `red`
//! and every other `ATOMS` is `atom`. An `LDSM`/`STSM` shape other than `M88`/`MT88`, a
//! width that is not 1, 2, 4, 8 or 16 bytes, or a cp.async of another width, is an error
//! rather than a guess. Generic `LD`/`ST`/`ATOM` that happen to address shared memory are
//! skipped.
//!
//! A cp.async has two addresses, its shared destination and its global source, and a
//! tracer records either: `mem_trace` writes a line for each (the destination's first),
//! Accel-Sim's tracer the source alone. A lane's address is taken as the destination
//! where it is a plain 32-bit offset or lies in the shared window (so give the base,
//! [`Options::shmem_base`], for `mem_trace` output with generic addresses); an
//! instruction with no such lane is skipped, and one that mixes them is an error.
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
mod error;
mod fields;
mod lines;
pub mod nvbit;
mod opcode;
mod options;
mod read;
mod stats;
mod window;

pub use error::ImportError;
pub use options::{Format, Options};
pub use read::{parse, read, read_each, read_from};
pub use stats::{ImportStats, Imported, Kernel};
