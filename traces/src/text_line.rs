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
use sim_core::Op;

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

/// A record line of `columns` fields (6 to 10), or `None` where the general path must
/// decide (it may still accept the line, or name what is wrong with it).
///
/// One pass over the line's bytes: each field is parsed where it starts and must end at
/// a comma (or at the line's end, for the last). Fields with spaces or leading `+`, and
/// numbers longer than 10 digits, are left to the general path.
#[inline]
pub(crate) fn record(line: &[u8], columns: usize) -> Option<Record> {
    let mut c = Cursor { s: line, at: 0 };
    fields(&mut c, columns).filter(|_| c.at == line.len())
}

/// [`record`] of the line that starts at byte `at` of `text` (whole lines), with the
/// byte after its line end; `None` where [`record`] would say `None` (the caller then
/// finds the line's end and takes it the slow way). The same record as [`record`]
/// gives for the line without its end: no field reads past a line end.
#[inline]
pub(crate) fn record_in(text: &[u8], at: usize, columns: usize) -> Option<(Record, usize)> {
    let mut c = Cursor { s: text, at };
    let r = fields(&mut c, columns)?;
    let next = match &text[c.at..] {
        [] | [b'\r'] => text.len(),
        [b'\n', ..] => c.at + 1,
        [b'\r', b'\n', ..] => c.at + 2,
        _ => return None,
    };
    Some((r, next))
}

/// The fields of a record from `c` on, `c` left at the end of the last one.
#[inline]
fn fields(c: &mut Cursor<'_>, columns: usize) -> Option<Record> {
    let block = c.uint()?;
    c.comma()?;
    let thread = c.uint()?;
    c.comma()?;
    let step = c.uint()?;
    c.comma()?;
    let op = c.op()?;
    c.comma()?;
    let (addr, bytes) = if op == Op::Barrier {
        // ignored, but the general path checks the line is text (a field ends at a
        // comma or the line's end)
        if !c.field().is_ascii() {
            return None;
        }
        c.comma()?;
        if !c.field().is_ascii() {
            return None;
        }
        (0, 0)
    } else {
        let addr = if matches!(c.s.get(c.at..c.at + 2), Some(b"0x" | b"0X")) {
            c.at += 2;
            c.hex()?
        } else {
            c.uint()?
        };
        c.comma()?;
        let bytes = u8::try_from(c.uint()?).ok().filter(|&b| op.allows_width(b))?;
        addr.checked_add(bytes as u32)?;
        (addr, bytes)
    };
    let mut gap = 0;
    let (mut dep, mut wait) = (None, None);
    if columns > 6 {
        c.comma()?;
        gap = c.optional_uint()?.unwrap_or(0);
    }
    if columns > 7 {
        c.comma()?;
        dep = match c.field() {
            b"" => None,
            b"0" => Some(false),
            b"1" => Some(true),
            _ => return None,
        };
    }
    if columns > 8 {
        c.comma()?;
        wait = c.optional_uint()?;
        if wait.is_some_and(|w| w > gap) {
            return None;
        }
    }
    let mut site = crate::NO_SITE;
    if columns > 9 {
        c.comma()?;
        // (u32::MAX is no site id: the general path says so)
        site = c.optional_uint()?.map_or(Some(crate::NO_SITE), |s| (s != crate::NO_SITE).then_some(s))?;
    }
    Some(Record { block, thread, step, op, addr, bytes, gap, dep, wait, site })
}

/// A position in a line being parsed.
struct Cursor<'a> {
    s: &'a [u8],
    at: usize,
}

impl Cursor<'_> {
    /// Steps over the comma that ends a field; `None` where there is none.
    #[inline]
    fn comma(&mut self) -> Option<()> {
        (self.s.get(self.at) == Some(&b',')).then(|| self.at += 1)
    }

    /// The field's bytes, up to the next comma or the line's end.
    #[inline]
    fn field(&mut self) -> &[u8] {
        let rest = &self.s[self.at..];
        let n = rest.iter().position(|&c| matches!(c, b',' | b'\n' | b'\r')).unwrap_or(rest.len());
        self.at += n;
        &rest[..n]
    }

    /// Decimal digits (1 to 10 of them) below 2^32.
    #[inline]
    fn uint(&mut self) -> Option<u32> {
        let rest = &self.s[self.at..];
        // (up to 11 digits looked at: more than 10 is the general path's to name)
        let rest = &rest[..rest.len().min(11)];
        let mut v: u64 = 0;
        let mut n = 0;
        for &c in rest {
            let d = c.wrapping_sub(b'0');
            if d > 9 {
                break;
            }
            v = v * 10 + d as u64;
            n += 1;
        }
        if n == 0 || n > 10 {
            return None;
        }
        self.at += n;
        u32::try_from(v).ok()
    }

    /// An empty field (`Some(None)`) or [`Cursor::uint`].
    #[inline]
    fn optional_uint(&mut self) -> Option<Option<u32>> {
        match self.s.get(self.at) {
            None | Some(b',' | b'\n' | b'\r') => Some(None),
            _ => self.uint().map(Some),
        }
    }

    /// Hex digits (either case, at least one) below 2^32.
    #[inline]
    fn hex(&mut self) -> Option<u32> {
        let start = self.at;
        let mut v: u32 = 0;
        while let Some(&c) = self.s.get(self.at) {
            let d = match c {
                b'0'..=b'9' => c - b'0',
                b'a'..=b'f' => c - b'a' + 10,
                b'A'..=b'F' => c - b'A' + 10,
                _ => break,
            };
            v = v.checked_mul(16)?.checked_add(d as u32)?;
            self.at += 1;
        }
        (self.at > start).then_some(v)
    }

    /// One of the op names of the text format (`gld` and `gst` are left to the general
    /// path).
    #[inline]
    fn op(&mut self) -> Option<Op> {
        let rest = &self.s[self.at..];
        let (op, n) = match rest.first()? {
            b'l' if rest.starts_with(b"ldsm") => (Op::MatrixLoad, 4),
            b'l' if rest.starts_with(b"ldgsts.cg") => (Op::AsyncCopyBypass, 9),
            b'l' if rest.starts_with(b"ldgsts") => (Op::AsyncCopy, 6),
            b'l' if rest.starts_with(b"ld") => (Op::Load, 2),
            b's' if rest.starts_with(b"stsm") => (Op::MatrixStore, 4),
            b's' if rest.starts_with(b"st") => (Op::Store, 2),
            b'a' if rest.starts_with(b"atom") => (Op::Atomic, 4),
            b'r' if rest.starts_with(b"red") => (Op::Reduction, 3),
            b'b' if rest.starts_with(b"bar") => (Op::Barrier, 3),
            _ => return None,
        };
        self.at += n;
        Some(op)
    }
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
        let uint = |s: &[u8]| Cursor { s, at: 0 }.uint();
        let hex = |s: &[u8]| Cursor { s, at: 0 }.hex();
        assert_eq!(uint(b"42,"), Some(42));
        assert_eq!(uint(b"4294967295"), Some(u32::MAX));
        assert_eq!(uint(b"4294967296"), None);
        assert_eq!(uint(b"00000000001"), None);
        assert_eq!(uint(&[b'9'; 40]), None);
        assert_eq!(uint(b"+4"), None);
        assert_eq!(uint(b""), None);
        assert_eq!(hex(b"fFfFfFfF"), Some(u32::MAX));
        assert_eq!(hex(b"100000000"), None);
        assert_eq!(hex(b"g"), None);
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
        assert!(record(b"1,2,3,ldx,8,4", 6).is_none());
        assert!(record(b"1, 2,3,ld,8,4", 6).is_none());
        assert!(record(b"1,2,3,ld,0x,4", 6).is_none());
        assert_eq!(record(b"1,2,3,st,8,4,,,", 9).map(|r| (r.gap, r.dep, r.wait)), Some((0, None, None)));
        assert!(record(b"1,2,3,ld,4294967292,4", 6).is_none());
        assert_eq!(record(b"0,0,0,bar,x,y", 6).unwrap().op, Op::Barrier);
    }

    #[test]
    fn records_in_text_end_at_their_line_end() {
        let text = b"1,2,3,ld,0x10,4\n5,6,7,st,8,4,,,\r\n0,0,0,bar,x,y\r";
        let (r, next) = record_in(text, 0, 6).unwrap();
        assert_eq!((r.block, r.addr, next), (1, 16, 16));
        let (r, next) = record_in(text, 16, 9).unwrap();
        assert_eq!((r.block, r.gap, r.dep, r.wait, next), (5, 0, None, None, 33));
        assert_eq!(record_in(text, 33, 6).map(|(r, next)| (r.op, next)), Some((Op::Barrier, text.len())));
        // a field too many, or too few, is the slow path's to name
        assert!(record_in(text, 0, 7).is_none());
        assert!(record_in(b"1,2,3,ld,0x10,4,\n", 0, 6).is_none());
        assert!(record_in(b"1,2,3,ld,0x10\n4\n", 0, 6).is_none());
    }
}
