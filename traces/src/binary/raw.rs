//! [`RawChunk`]: one chunk's bytes as the reader left them (read, pending or mapped),
//! their loading and their checksum.

use super::error::BinaryError;
use super::format::COLUMNS;
use std::io::Read;
use std::sync::Arc;

/// [`read_full`] at byte `at` of `file`, by position (the file's cursor stays put).
#[cfg(unix)]
pub(crate) fn read_full_at(file: &std::fs::File, buf: &mut [u8], at: u64) -> std::io::Result<usize> {
    use std::os::unix::fs::FileExt;
    fill(buf, |rest, n| file.read_at(rest, at + n as u64))
}

/// Reads until `buf` is full or the input ends; the number of bytes read.
pub(super) fn read_full<R: Read>(r: &mut R, buf: &mut [u8]) -> std::io::Result<usize> {
    fill(buf, |rest, _| r.read(rest))
}

/// Fills `buf` by calls of `read` (with the part of `buf` still empty, and the bytes
/// read so far) until it is full or `read` reads nothing; interrupted reads are retried.
/// The number of bytes read.
fn fill(
    buf: &mut [u8],
    mut read: impl FnMut(&mut [u8], usize) -> std::io::Result<usize>,
) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match read(&mut buf[n..], n) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// The file `file` ends at byte `now`, inside chunk `index` (at byte `at`), which was
/// there when the file was opened.
pub(super) fn shrank(file: &str, now: u64, index: u64, at: u64) -> BinaryError {
    BinaryError::Truncated {
        file: file.to_string(),
        offset: now,
        inside: format!("chunk {index} (at byte {at}): the file shrank while it was read"),
    }
}

/// Checks that `payload` after a chunk header whose CRC is `head_crc` has the checksum
/// `stored` (chunk `index` at byte `at` of `file`).
pub(super) fn checksum(
    file: &str,
    at: u64,
    index: u64,
    head_crc: u32,
    stored: u32,
    payload: &[u8],
) -> Result<(), BinaryError> {
    let mut hasher = crc32fast::Hasher::new_with_initial(head_crc);
    hasher.update(payload);
    let found = hasher.finalize();
    if found == stored {
        return Ok(());
    }
    Err(BinaryError::Corrupt {
        file: file.to_string(),
        offset: at,
        problem: format!(
            "checksum mismatch in chunk {index} ({} payload bytes): stored {stored:#010x}, computed {found:#010x}",
            payload.len()
        ),
    })
}

/// A chunk's payload inside a mapped window of the file.
#[derive(Clone, Debug)]
pub(super) struct Mapped {
    pub(super) window: Arc<memmap2::Mmap>,
    pub(super) file: Arc<std::fs::File>,
    /// Byte offset of the payload in the file.
    pub(super) at: u64,
    /// Where the payload starts in the window, and its length.
    pub(super) start: usize,
    pub(super) len: usize,
    /// The chunk's index.
    pub(super) index: u64,
    /// Whether [`RawChunk::load`] found the payload's pages there.
    pub(super) checked: bool,
}

/// Where a chunk's payload is, for [`RawChunk::load`].
#[derive(Clone, Debug)]
pub(super) struct Pending {
    pub(super) file: Arc<std::fs::File>,
    pub(super) at: u64,
    pub(super) len: u32,
    pub(super) index: u64,
}

/// One chunk's bytes, as `Reader::next_chunk` read them; [`RawChunk::decode`] checks
/// their checksum.
#[derive(Clone, Debug, Default)]
pub struct RawChunk {
    pub(super) name: Arc<str>,
    pub(super) offset: u64,
    pub(super) index: u64,
    pub(super) groups: u32,
    pub(super) lanes: u32,
    pub(super) first: (u32, u32, u32),
    pub(super) last: (u32, u32, u32),
    pub(super) cols: [u32; COLUMNS],
    pub(super) bytes: Vec<u8>,
    /// CRC-32 of the chunk header (without its checksum), and the checksum it stores.
    pub(super) head_crc: u32,
    pub(super) crc: u32,
    /// The payload, still to be read (`Reader::defer_payloads`).
    pub(super) pending: Option<Pending>,
    /// The payload in a mapped window of the file, in place of `bytes`.
    pub(super) mapped: Option<Mapped>,
    /// Address and length of the next chunk's mapped payload, fetched into the cache a
    /// little at a time while this chunk is decoded ([`RawChunk::fetch_during_decode`]).
    pub(super) ahead: (usize, usize),
    /// Whether every gap is followed by a wait (the file's flag bit 1).
    pub(super) waits: bool,
    /// With sites (the file's flag bit 2): every wait is followed by a site + 1, below
    /// this many + 1.
    pub(super) sites: Option<u32>,
    /// Whether codes may name the tensor-core ops (version 4 on).
    pub(super) tensor_ops: bool,
}

impl RawChunk {
    /// Byte offset of the chunk in the file.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// Active lanes (records) in the chunk.
    pub fn lanes(&self) -> u32 {
        self.lanes
    }

    /// Reads the payload that a reader with `Reader::defer_payloads` left to this (on
    /// the thread that calls it); of a mapped payload (`Reader::map_payloads`), puts its
    /// pages in the page table and so finds a file that shrank since (an error here, not
    /// a `SIGBUS` in the decode); nothing otherwise. Call it before decoding.
    pub fn load(&mut self) -> Result<(), BinaryError> {
        if let Some(m) = &self.mapped {
            return if m.checked { Ok(()) } else { self.check_mapped() };
        }
        let Some(p) = self.pending.take() else { return Ok(()) };
        #[cfg(unix)]
        {
            // (only bytes past the last payload's length are zeroed before the read)
            self.bytes.resize(p.len as usize, 0);
            let got = read_full_at(&p.file, &mut self.bytes, p.at).map_err(|source| BinaryError::Io {
                file: self.name.to_string(),
                offset: p.at,
                source,
            })?;
            if got < p.len as usize {
                return Err(shrank(&self.name, p.at + got as u64, p.index, self.offset));
            }
        }
        Ok(())
    }

    /// [`RawChunk::load`] of a mapped payload: its pages put in the page table (which the
    /// decode's first touch would do page by page). That fails where a page is past the
    /// end of a file that shrank since its window was mapped, where a touch would be a
    /// `SIGBUS`. (Where it is not supported, e.g. before Linux 5.14, the file's length is
    /// checked instead.)
    #[inline(never)]
    fn check_mapped(&mut self) -> Result<(), BinaryError> {
        let Some(m) = &mut self.mapped else { return Ok(()) };
        #[cfg(target_os = "linux")]
        let populated = m.window.advise_range(memmap2::Advice::PopulateRead, m.start, m.len).is_ok();
        #[cfg(not(target_os = "linux"))]
        let populated = false;
        let end = m.at + m.len as u64;
        if !populated {
            if let Some(now) = m.file.metadata().ok().map(|md| md.len()).filter(|&now| now < end) {
                return Err(shrank(&self.name, now, m.index, self.offset));
            }
        }
        m.checked = true;
        Ok(())
    }

    /// The payload's bytes.
    #[inline]
    pub(super) fn payload(&self) -> &[u8] {
        match &self.mapped {
            Some(m) => &m.window[m.start..m.start + m.len],
            None => &self.bytes,
        }
    }

    /// While this chunk is decoded, fetch `next`'s payload into the cache a few lines at
    /// a time, where it is mapped (a mapped payload is read from memory on first touch,
    /// and a core alone reads memory far slower than it decodes; spread over the decode,
    /// the reads overlap it). `next` is loaded first ([`RawChunk::load`]: its pages put in
    /// the page table, where a prefetch needs them); where that fails, nothing is fetched
    /// and its own load, in its turn, fails again. A hint: nothing changes but the time.
    pub fn fetch_during_decode(&mut self, next: Option<&mut RawChunk>) {
        self.ahead = (0, 0);
        let Some(n) = next.filter(|n| n.mapped.is_some()) else { return };
        if let (Ok(()), Some(m)) = (n.load(), &n.mapped) {
            self.ahead = (m.window[m.start..].as_ptr() as usize, m.len);
        }
    }

    /// Lets go of the mapped window that holds the payload, if any (a window is unmapped
    /// once no chunk holds it).
    pub fn release(&mut self) {
        self.mapped = None;
    }

    /// Whether the payload is borrowed from a mapped window (`Reader::map_payloads`).
    pub fn is_mapped(&self) -> bool {
        self.mapped.is_some()
    }

    /// Checks the chunk's checksum (which `Reader::next_chunk` leaves to this, so that
    /// it runs on the thread that decodes the chunk).
    pub fn verify(&self) -> Result<(), BinaryError> {
        debug_assert!(
            self.pending.is_none() && self.mapped.as_ref().is_none_or(|m| m.checked),
            "a deferred payload not loaded"
        );
        checksum(&self.name, self.offset, self.index, self.head_crc, self.crc, self.payload())
    }
}
