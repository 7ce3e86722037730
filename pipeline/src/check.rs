//! Checks of a trace against the hardware: every thread inside the block, every access
//! inside shared memory and aligned to its width.

use super::error::{Error, Result};
use sim_core::{Hardware, Op};
use traces::{Record, Trace};

/// Every access must lie inside the preset's shared memory, be naturally aligned (the
/// hardware faults on a misaligned access), and come from a thread inside the block.
pub fn check_records(trace: &Trace, hw: &Hardware, threads_per_block: Option<u32>) -> Result<()> {
    check_slice(&trace.source, &trace.records, &trace.lines, hw, threads_per_block)
}

/// [`check_records`] of the records `records` of the trace `source`, with their lines.
pub fn check_slice(
    source: &str,
    records: &[Record],
    lines: &[u32],
    hw: &Hardware,
    threads_per_block: Option<u32>,
) -> Result<()> {
    for (r, &line) in records.iter().zip(lines) {
        let at = || match line {
            0 => source.to_string(),
            l => format!("{source}:{l}"),
        };
        if let Some(problem) = thread_problem(r.thread, threads_per_block) {
            return Err(Error::Check { at: at(), problem });
        }
        if let Some(problem) = access_problem(hw, r.op, r.addr, r.bytes) {
            return Err(Error::Check { at: at(), problem });
        }
    }
    Ok(())
}

/// The most threads a block may have (thread ids are below it): far above any GPU's
/// block (1024 on NVIDIA, AMD and wgpu), low enough that ids, warp numbers and block
/// sizes computed from them never overflow.
pub const MAX_THREADS_PER_BLOCK: u32 = 1 << 24;

/// Why `thread` cannot be in a block of `threads_per_block` threads (at most
/// [`MAX_THREADS_PER_BLOCK`]), if it cannot.
pub fn thread_problem(thread: u32, threads_per_block: Option<u32>) -> Option<String> {
    match threads_per_block {
        Some(n) if thread >= n => Some(format!("thread {thread} is beyond the block size --threads-per-block {n}")),
        _ if thread >= MAX_THREADS_PER_BLOCK => Some(format!(
            "thread {thread} is above the limit of {} (MAX_THREADS_PER_BLOCK = {MAX_THREADS_PER_BLOCK} threads a block)",
            MAX_THREADS_PER_BLOCK - 1
        )),
        _ => None,
    }
}

/// Why an access cannot run on `hw`, if it cannot: beyond shared memory, or misaligned.
pub fn access_problem(hw: &Hardware, op: Op, addr: u32, bytes: u8) -> Option<String> {
    if !op.is_memory() {
        return None;
    }
    if addr as u64 + bytes as u64 > hw.smem_per_sm as u64 {
        return Some(format!(
            "address {addr:#x} + {bytes} bytes is beyond the {} bytes of shared memory of `{}`",
            hw.smem_per_sm, hw.name
        ));
    }
    (!addr.is_multiple_of(bytes as u32)).then(|| {
        format!(
            "misaligned {bytes}-byte {op} at address {addr:#x}: shared-memory accesses must be aligned to their width \
             (the GPU raises a misaligned-address fault)"
        )
    })
}
