//! Fields shared by both formats: hex numbers, `x,y,z` triples, linear block ids, and
//! one lane's record.

use crate::record::Record;
use sim_core::Op;

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
    Some(Record { block, thread, step, op, addr, bytes, gap: 0, dep: None, wait: None, site: crate::NO_SITE })
}
