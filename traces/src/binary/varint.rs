//! LEB128 and zigzag varints: writing them, and reading them back from a column
//! ([`Col`]).

/// Appends `v` as an unsigned LEB128 varint.
pub(super) fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Bytes of `v` as a varint.
pub(super) fn varint_len(v: u64) -> usize {
    (64 - (v | 1).leading_zeros() as usize).div_ceil(7)
}

/// `v` as an unsigned number for a varint: 0, -1, 1, -2, ... become 0, 1, 2, 3, ...
pub(super) fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

/// The inverse of [`zigzag`].
pub(super) fn unzigzag(v: u64) -> i64 {
    (v >> 1) as i64 ^ -((v & 1) as i64)
}

/// A column being decoded.
pub(super) struct Col<'a> {
    pub(super) data: &'a [u8],
    pub(super) pos: usize,
    /// Byte offset of the column in the file.
    pub(super) at: u64,
    pub(super) index: usize,
}

impl Col<'_> {
    #[inline]
    pub(super) fn byte(&mut self) -> Option<u8> {
        let b = *self.data.get(self.pos)?;
        self.pos += 1;
        Some(b)
    }

    #[inline(always)]
    pub(super) fn varint(&mut self) -> Option<u64> {
        let b = *self.data.get(self.pos)?;
        self.pos += 1;
        if b < 0x80 {
            return Some(b as u64);
        }
        let mut v = (b & 0x7F) as u64;
        let mut shift = 7;
        loop {
            let b = *self.data.get(self.pos)?;
            self.pos += 1;
            if shift == 63 && b > 1 {
                return None;
            }
            v |= ((b & 0x7F) as u64) << shift;
            if b < 0x80 {
                return Some(v);
            }
            shift += 7;
        }
    }

    pub(super) fn offset(&self) -> u64 {
        self.at + self.pos as u64
    }

    /// [`Self::varint`] with no branch on the length where eight bytes are left and the
    /// varint ends within them (for values whose length the core cannot predict).
    #[inline(always)]
    pub(super) fn varint_unpredictable(&mut self) -> Option<u64> {
        if let Some(w) = self.data.get(self.pos..self.pos + 8) {
            let w = u64::from_le_bytes(w.try_into().unwrap_or_default());
            let stops = !w & 0x8080_8080_8080_8080;
            if stops != 0 {
                let bits = stops.trailing_zeros() + 1;
                let x = w & (u64::MAX >> (64 - bits));
                self.pos += bits as usize / 8;
                let x = (x & 0x007F_007F_007F_007F) | (x & 0x7F00_7F00_7F00_7F00) >> 1;
                let x = (x & 0x0000_3FFF_0000_3FFF) | (x & 0x3FFF_0000_3FFF_0000) >> 2;
                return Some((x & 0x0000_0000_0FFF_FFFF) | (x & 0x0FFF_FFFF_0000_0000) >> 4);
            }
        }
        self.varint()
    }
}

#[cfg(test)]
mod tests {
    /// `Col::varint` reads back what `put_varint` wrote, for every length (one to ten
    /// bytes), at a column's end and followed by more bytes; truncated and overlong
    /// varints are `None`.
    #[test]
    fn varints_read_back_at_every_length() {
        let mut values = vec![0u64, 1, 0x7F, 0x80, 0x3FFF, 0x4000, u64::MAX, u64::MAX >> 1, 1 << 63];
        values.extend((0..64).flat_map(|k| [(1u64 << k) - 1, 1 << k, (1 << k) + 1]));
        values.extend((0..64).map(|k| 0x9E37_79B9_7F4A_7C15u64.rotate_left(k) >> k));
        // (both ways of reading: the loop, and without a branch on the length)
        let read = |bytes: &[u8]| {
            let mut c = super::Col { data: bytes, pos: 0, at: 0, index: 0 };
            let v = c.varint();
            let mut d = super::Col { data: bytes, pos: 0, at: 0, index: 0 };
            assert_eq!((d.varint_unpredictable(), d.pos), (v, c.pos), "{bytes:x?}");
            (v, c.pos)
        };
        for &v in &values {
            let mut bytes = Vec::new();
            super::put_varint(&mut bytes, v);
            let len = bytes.len();
            assert_eq!(len, super::varint_len(v));
            // at the end of the column, then followed by more bytes
            assert_eq!(read(&bytes), (Some(v), len), "{v:#x} alone");
            let mut padded = bytes.clone();
            padded.extend([0x80, 0xFF, 0x01, 0x7F, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00]);
            assert_eq!(read(&padded), (Some(v), len), "{v:#x} followed by more");
            // cut short: the last byte still says "more"
            if len > 1 {
                assert_eq!(read(&bytes[..len - 1]).0, None, "{v:#x} truncated");
            }
        }
        // eleven bytes, or a tenth byte above 1, do not fit in 64 bits
        for bad in [vec![0x80; 10], vec![0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x02]] {
            let mut padded = bad.clone();
            padded.extend([0u8; 8]);
            assert_eq!(read(&bad).0, None, "{bad:?}");
            assert_eq!(read(&padded).0, None, "{bad:?} followed by more");
        }
    }
}
