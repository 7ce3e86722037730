//! The text reader's fast path: one line of the CSV format parsed straight from its
//! bytes, with no allocation and no CSV state machine.
//!
//! It is deliberately narrow: it accepts a line only when the line is plainly a record
//! (fields of ASCII digits, `0x` hex, one of the five shared-memory op names, the exact
//! `dep` values) and says `None` for anything else (`+5`, `gld`, a wrong field count, a
//! bad value, non-ASCII text...). The caller then parses that line on the general path,
//! which gives the record or the exact error message. So a line this accepts must be
//! one the general path accepts with the same record; nothing more is needed for the
//! two to agree.

use crate::record::Record;
use sim_core::{is_valid_width, Op};

/// Whether a block of text can be split into records at `\n` (or `\r\n`) alone: no
/// quote (a quoted field may hold a comma or a line end) and no `\r` but one that ends
/// a line (a lone `\r` ends a record too). Other blocks take the general path whole.
pub(crate) fn plain_lines(bytes: &[u8]) -> bool {
    memchr::memchr(b'"', bytes).is_none()
        && memchr::memchr_iter(b'\r', bytes).all(|i| matches!(bytes.get(i + 1), None | Some(b'\n')))
}

/// The line's text without its line end (`\n`, `\r\n`; `\r` at the end of the text).
pub(crate) fn strip_end(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// A record line of `columns` fields (6 to 9), or `None` where the general path must
/// decide (it may still accept the line, or name what is wrong with it).
#[inline]
pub(crate) fn record(line: &[u8], columns: usize) -> Option<Record> {
    let mut f: [&[u8]; 9] = [&[]; 9];
    let mut n = 0;
    let mut start = 0;
    // (a plain loop: lines are short, too short for a vector search to pay)
    for (comma, _) in line.iter().enumerate().filter(|&(_, &c)| c == b',') {
        if n + 1 >= columns {
            return None;
        }
        f[n] = &line[start..comma];
        n += 1;
        start = comma + 1;
    }
    f[n] = &line[start..];
    n += 1;
    if n != columns {
        return None;
    }
    let block = digits(f[0])?;
    let thread = digits(f[1])?;
    let step = digits(f[2])?;
    let op = match f[3].trim_ascii() {
        b"ld" => Op::Load,
        b"st" => Op::Store,
        b"atom" => Op::Atomic,
        b"red" => Op::Reduction,
        b"bar" => Op::Barrier,
        _ => return None,
    };
    let (addr, bytes) = if op == Op::Barrier {
        // ignored, but the general path checks the line is text
        if !f[4].is_ascii() || !f[5].is_ascii() {
            return None;
        }
        (0, 0)
    } else {
        let a = f[4].trim_ascii();
        let addr = match a.strip_prefix(b"0x").or_else(|| a.strip_prefix(b"0X")) {
            Some(hex) => hex_digits(hex)?,
            None => digits(a)?,
        };
        let bytes = u8::try_from(digits(f[5])?).ok().filter(|&b| is_valid_width(b))?;
        addr.checked_add(bytes as u32)?;
        (addr, bytes)
    };
    let gap = if n > 6 { optional(f[6])?.unwrap_or(0) } else { 0 };
    let dep = if n > 7 {
        match f[7].trim_ascii() {
            b"" => None,
            b"0" => Some(false),
            b"1" => Some(true),
            _ => return None,
        }
    } else {
        None
    };
    let wait = if n > 8 {
        match optional(f[8])? {
            Some(w) if w > gap => return None,
            w => w,
        }
    } else {
        None
    };
    Some(Record { block, thread, step, op, addr, bytes, gap, dep, wait })
}

/// A field that may be empty: `Some(None)` when it is, `None` when it is not a number.
#[inline]
fn optional(field: &[u8]) -> Option<Option<u32>> {
    let t = field.trim_ascii();
    if t.is_empty() {
        Some(None)
    } else {
        digits(t).map(Some)
    }
}

/// A field of decimal digits (surrounding ASCII whitespace allowed) below 2^32.
#[inline]
fn digits(field: &[u8]) -> Option<u32> {
    let t = field.trim_ascii();
    if t.is_empty() || t.len() > 10 {
        return None;
    }
    let mut v: u64 = 0;
    for &c in t {
        let d = c.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        v = v * 10 + d as u64;
    }
    u32::try_from(v).ok()
}

/// Hex digits (either case) below 2^32.
#[inline]
fn hex_digits(t: &[u8]) -> Option<u32> {
    if t.is_empty() {
        return None;
    }
    let mut v: u32 = 0;
    for &c in t {
        let d = match c {
            b'0'..=b'9' => c - b'0',
            b'a'..=b'f' => c - b'a' + 10,
            b'A'..=b'F' => c - b'A' + 10,
            _ => return None,
        };
        v = v.checked_mul(16)?.checked_add(d as u32)?;
    }
    Some(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_lines_are_told_apart() {
        assert!(plain_lines(b"a,b\r\nc\n"));
        assert!(plain_lines(b"a,b\r"));
        assert!(!plain_lines(b"a,\"b\"\n"));
        assert!(!plain_lines(b"a\rb\n"));
    }

    #[test]
    fn digits_and_hex() {
        assert_eq!(digits(b" 42 "), Some(42));
        assert_eq!(digits(b"4294967295"), Some(u32::MAX));
        assert_eq!(digits(b"4294967296"), None);
        assert_eq!(digits(b"+4"), None);
        assert_eq!(digits(b""), None);
        assert_eq!(hex_digits(b"fFfFfFfF"), Some(u32::MAX));
        assert_eq!(hex_digits(b"100000000"), None);
        assert_eq!(hex_digits(b"0g"), None);
    }

    #[test]
    fn records() {
        let r = record(b"1,2,3,ld,0x10,4", 6).unwrap();
        assert_eq!((r.block, r.thread, r.step, r.op, r.addr, r.bytes), (1, 2, 3, Op::Load, 16, 4));
        assert!(record(b"1,2,3,ld,0x10,4,", 6).is_none());
        assert!(record(b"1,2,3,ld,0x10", 6).is_none());
        let r = record(b"1,2,3,st,8,4,5,1,5", 9).unwrap();
        assert_eq!((r.gap, r.dep, r.wait), (5, Some(true), Some(5)));
        assert!(record(b"1,2,3,st,8,4,5,1,6", 9).is_none());
        assert!(record(b"1,2,3,gld,8,4", 6).is_none());
        assert!(record(b"1,2,3,ld,4294967292,4", 6).is_none());
        assert_eq!(record(b"0,0,0,bar,x,y", 6).unwrap().op, Op::Barrier);
    }
}
