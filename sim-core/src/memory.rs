//! What a dispatch's global accesses cost in bandwidth: DRAM for the lines it reads
//! first, the L2 cache for the lines it reads again while the L2 still holds them.
//!
//! The engine passes every global request's 128-byte lines through its SM's share of
//! one bandwidth ([`Timing::dram_bytes_per_cycle`]). A kernel that reads the same
//! data from many blocks (a GEMM's tiles, a stencil's halo) moves far more lines than
//! its buffers hold; those re-reads come from the L2, several times faster than DRAM.
//! [`share`] turns a dispatch's traffic into the one bandwidth the engine uses:
//!
//! - `bytes`: what the dispatch moves: every global request's distinct 32-byte sectors
//!   (the engine charges its distinct 128-byte lines, one pipe wavefront each, to a
//!   bandwidth scaled by lines over sectors);
//! - `footprint`: the distinct bytes it can touch (its buffers, or the distinct lines
//!   of a trace that holds every block);
//! - the first touch of each byte comes from DRAM (`min(bytes, footprint)`); a re-read
//!   hits the L2 when the footprint fits in it, and otherwise with the chance that a
//!   line is still held, `l2_bytes / footprint`;
//! - the time is that of the slower of the two: DRAM for the bytes it serves, L2 for
//!   all of them. The engine's bandwidth is the lines' bytes over that time.
//!
//! With no L2 in the timing (or no re-reads), and every sector of the lines used, this
//! is DRAM's bandwidth.
//! Measured on the H100 with `validate/kernels/l2_read.wgsl` and `stream_copy.wgsl`
//! (`validate/run_micro.sh`).
//!
//! Where the timing has a DRAM latency ([`Timing::dram_latency`]), a load's latency is
//! that of the L2 (`global_latency`) and DRAM's in the proportion of the bytes each
//! serves: a dispatch that reads its buffers once (a copy, a transpose) waits DRAM's, a
//! GEMM whose tiles the L2 holds waits about the L2's (both measured with
//! `validate/kernels/global_chase.wgsl`).

use crate::model::{distinct_units, GLOBAL_LINE_BYTES};
use crate::timing::Timing;
use crate::Op;

/// Bytes of a global-memory line: a request takes one pipe wavefront per distinct line
/// it touches (what the engine's bandwidth is charged in).
pub const LINE_BYTES: u64 = GLOBAL_LINE_BYTES as u64;

/// Bytes of a sector: what the L1 fetches from the L2, and the L2 from DRAM, for the
/// lines a request touches (only the sectors its lanes use).
pub const SECTOR_BYTES: u64 = 32;

/// Global traffic of a workload, counted request by request.
#[derive(Clone, Debug, Default)]
pub struct Traffic {
    /// Lines: each global request's distinct lines, summed (the engine's wavefronts).
    pub lines: u64,
    /// Sectors moved: each global request's distinct sectors, summed.
    pub sectors: u64,
    /// Distinct lines touched.
    pub distinct: u64,
    /// One bit per line of the 32-bit address space (allocated at the first global
    /// request: 4 MiB).
    seen: Vec<u64>,
}

impl Traffic {
    /// Counts one request (anything but a global access is ignored).
    pub fn add(&mut self, op: Op, addrs: &[u32]) {
        if !op.is_global() || addrs.is_empty() {
            return;
        }
        self.lines += distinct_units(addrs, GLOBAL_LINE_BYTES) as u64;
        self.sectors += distinct_units(addrs, SECTOR_BYTES as u32) as u64;
        if self.seen.is_empty() {
            self.seen = vec![0; ((u32::MAX as u64 + 1) / LINE_BYTES / 64) as usize];
        }
        for &a in addrs {
            let line = (a / GLOBAL_LINE_BYTES) as usize;
            let (word, bit) = (line / 64, 1u64 << (line % 64));
            if self.seen[word] & bit == 0 {
                self.seen[word] |= bit;
                self.distinct += 1;
            }
        }
    }

    /// Bytes of the lines the requests touch (what the engine charges).
    pub fn line_bytes(&self) -> u64 {
        self.lines * LINE_BYTES
    }

    /// Bytes moved: the sectors.
    pub fn bytes(&self) -> u64 {
        self.sectors * SECTOR_BYTES
    }

    /// Distinct bytes touched (whole lines).
    pub fn distinct_bytes(&self) -> u64 {
        self.distinct * LINE_BYTES
    }

    /// Gives `t` the bandwidth this traffic gets ([`share`]) over `footprint` bytes
    /// (`None`: the distinct lines touched) and returns the split; `None`, and `t` as it
    /// was, where `t` has no DRAM bandwidth or there is no global traffic.
    pub fn apply(&self, t: &mut Timing, footprint: Option<u64>) -> Option<MemoryShare> {
        if t.dram_bytes_per_cycle <= 0.0 || self.lines == 0 {
            return None;
        }
        let m = share(t, self.line_bytes(), self.bytes(), footprint.unwrap_or(self.distinct_bytes()));
        t.dram_bytes_per_cycle = m.bytes_per_cycle;
        t.global_latency = m.latency;
        Some(m)
    }
}

/// A dispatch's global traffic and the bandwidth it gets.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MemoryShare {
    /// Bytes the dispatch's global requests move (their sectors).
    pub bytes: u64,
    /// Bytes of the lines they touch, which the engine charges to the bandwidth below.
    pub line_bytes: u64,
    /// Distinct bytes it can touch.
    pub footprint: u64,
    /// Of `bytes`, those DRAM serves (the rest come from the L2).
    pub dram_bytes: u64,
    /// The bandwidth the engine charges the lines to, bytes per cycle, the device's:
    /// the line bytes over the time the moved bytes take (what the engine uses as
    /// `dram_bytes_per_cycle`).
    pub bytes_per_cycle: f64,
    /// The latency of a global load, cycles: `global_latency` (the L2's) and
    /// `dram_latency` in the proportion of `bytes` each serves (`global_latency` where
    /// the timing has no DRAM latency).
    pub latency: u32,
}

/// The bandwidth a dispatch whose requests touch `line_bytes` of lines, moving `bytes`
/// of sectors over `footprint` distinct bytes, gets on `t` (see the module
/// documentation).
pub fn share(t: &Timing, line_bytes: u64, bytes: u64, footprint: u64) -> MemoryShare {
    let dram = t.dram_bytes_per_cycle;
    let first = bytes.min(footprint);
    let again = bytes - first;
    let held =
        if t.l2_bytes == 0 || footprint == 0 { 0.0 } else { (t.l2_bytes as f64 / footprint as f64).min(1.0) };
    let dram_bytes =
        if t.l2_bytes_per_cycle > 0.0 { first + (again as f64 * (1.0 - held)).round() as u64 } else { bytes };
    let bytes_per_cycle = if dram <= 0.0 || bytes == 0 {
        dram
    } else {
        // time = max(dram_bytes / dram, bytes / l2): the engine charges the lines to
        // a bandwidth that takes that long for them
        let l2 = if t.l2_bytes_per_cycle > 0.0 { bytes as f64 / t.l2_bytes_per_cycle } else { 0.0 };
        let cycles = (dram_bytes as f64 / dram).max(l2);
        line_bytes as f64 / cycles
    };
    let latency = if t.dram_latency == 0 || bytes == 0 {
        t.global_latency
    } else {
        let (l2, dram) = (t.global_latency as f64, t.dram_latency as f64);
        (l2 + (dram - l2) * dram_bytes as f64 / bytes as f64).round() as u32
    };
    MemoryShare { bytes, line_bytes, footprint, dram_bytes, bytes_per_cycle, latency }
}
