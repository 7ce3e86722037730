//! Reading binary traces: the [`Reader`] (file header, chunk headers, end marker,
//! payloads read, deferred or mapped), and whole-file [`read`], [`parse`], [`is_binary`].

use super::chunk::Chunk;
use super::error::BinaryError;
use super::format::{
    CHUNK_HEADER_LEN, CHUNK_TAG, COLUMNS, END_LEN, END_TAG, FLAG_SITES, FLAG_TIMING, FLAG_WAIT, HEADER_LEN,
    MAGIC, MAX_CHUNK_BYTES, MAX_SITE_LABEL, SITES_TAG, SLICE_LANES, VERSION, VERSION_SITES,
    VERSION_TENSOR_OPS,
};
#[cfg(unix)]
use super::raw::read_full_at;
use super::raw::{checksum, read_full, shrank, Mapped, Pending, RawChunk};
use crate::record::Trace;
use std::io::Read;
use std::path::Path;
use std::sync::Arc;

/// Bytes of the file mapped at once ([`Reader::map_payloads`]; a larger payload gets a
/// window of its own size).
const WINDOW_BYTES: u64 = 4 << 20;

/// What the file header says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// Format version.
    pub version: u16,
    /// Whether the source trace had the gap/dep columns.
    pub timing_columns: bool,
    /// Whether every gap is stored with its wait.
    pub waits: bool,
    /// Whether records keep sites (version 3; the table is [`Reader::sites`]).
    pub sites: bool,
}

/// Totals from the end marker.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Totals {
    /// Chunks.
    pub chunks: u64,
    /// Groups.
    pub groups: u64,
    /// Active lanes (records).
    pub lanes: u64,
}

/// Reads a binary trace chunk by chunk: [`Reader::next_chunk`] reads and checks one
/// chunk's bytes (sequential), [`RawChunk::decode`] decodes them (may run on any
/// thread), [`Chunk::split`] cuts them into warp requests.
pub struct Reader<R: Read> {
    src: R,
    /// The file again, for positional reads (files opened by [`Reader::open`], on Unix).
    file: Option<Arc<std::fs::File>>,
    /// Whether chunks are read by position and their payloads left to
    /// [`RawChunk::load`] ([`Reader::defer_payloads`]).
    defer: bool,
    /// Whether deferred payloads are read from mapped windows of the file.
    map: bool,
    /// The window the last payload was in, and its byte offset in the file.
    window: Option<(Arc<memmap2::Mmap>, u64)>,
    /// Bytes mapped at once ([`WINDOW_BYTES`]; smaller in tests).
    window_bytes: u64,
    name: Arc<str>,
    offset: u64,
    file_len: Option<u64>,
    header: Header,
    /// The site table (empty for a file without sites).
    sites: Vec<String>,
    last: Option<(u32, u32, u32)>,
    seen: Totals,
    end: Option<Totals>,
}

impl Reader<std::io::BufReader<std::fs::File>> {
    /// Opens a binary trace file.
    pub fn open(path: &Path) -> Result<Self, BinaryError> {
        let name = path.display().to_string();
        let io = |source| BinaryError::Io { file: name.clone(), offset: 0, source };
        let file = std::fs::File::open(path).map_err(io)?;
        let meta = file.metadata().map_err(io)?;
        if meta.is_dir() {
            return Err(io(std::io::Error::other("is a directory, expected a trace file")));
        }
        let again = if cfg!(unix) { file.try_clone().ok().map(Arc::new) } else { None };
        let mut r = Reader::new(std::io::BufReader::with_capacity(1 << 16, file), &name, Some(meta.len()))?;
        r.file = again;
        Ok(r)
    }
}

impl Reader<Box<dyn Read + Send>> {
    /// A reader of an opened input ([`crate::Input`]): a regular file is read as
    /// [`Reader::open`] reads it (by position, or mapped, where asked); a stream (standard
    /// input, a pipe) sequentially, from its first byte.
    pub fn from_input(input: crate::Input) -> Result<Self, BinaryError> {
        match input.into_file() {
            Ok((file, len, name)) => {
                let again = if cfg!(unix) { file.try_clone().ok().map(Arc::new) } else { None };
                let src: Box<dyn Read + Send> = Box::new(std::io::BufReader::with_capacity(1 << 16, file));
                let mut r = Reader::new(src, &name, Some(len))?;
                r.file = again;
                Ok(r)
            }
            Err(input) => {
                let name = input.name().to_string();
                Reader::new(input.into_reader(), &name, None)
            }
        }
    }
}

impl<R: Read> Reader<R> {
    /// Reads the header from `src`; `name` is used in messages, `file_len` (if known)
    /// lets a truncated file be reported before reading the rest.
    pub fn new(mut src: R, name: &str, file_len: Option<u64>) -> Result<Self, BinaryError> {
        let name: Arc<str> = name.into();
        let mut h = [0u8; HEADER_LEN];
        let got = read_full(&mut src, &mut h).map_err(|source| BinaryError::Io {
            file: name.to_string(),
            offset: 0,
            source,
        })?;
        if got < 8 || &h[..8] != MAGIC {
            return Err(BinaryError::Magic { file: name.to_string() });
        }
        if got < HEADER_LEN {
            return Err(BinaryError::Truncated {
                file: name.to_string(),
                offset: got as u64,
                inside: "the file header".into(),
            });
        }
        let unsupported =
            |offset, what, found| BinaryError::Unsupported { file: name.to_string(), offset, what, found };
        let version = u16::from_le_bytes([h[8], h[9]]);
        if !(1..=VERSION).contains(&version) {
            return Err(unsupported(8, "version", version as u64));
        }
        let crc = u32::from_le_bytes([h[16], h[17], h[18], h[19]]);
        if crc32fast::hash(&h[..16]) != crc {
            return Err(BinaryError::Corrupt {
                file: name.to_string(),
                offset: 16,
                problem: "checksum mismatch in the file header".into(),
            });
        }
        let flags = u16::from_le_bytes([h[10], h[11]]);
        let known = if version >= VERSION_SITES {
            FLAG_TIMING | FLAG_WAIT | FLAG_SITES
        } else {
            FLAG_TIMING | FLAG_WAIT
        };
        if flags & !known != 0 {
            return Err(unsupported(10, "flags", flags as u64));
        }
        if h[12] as u32 != SLICE_LANES {
            return Err(unsupported(12, "slice lanes", h[12] as u64));
        }
        if h[13..16] != [0, 0, 0] {
            return Err(unsupported(
                13,
                "reserved bytes",
                u32::from_le_bytes([h[13], h[14], h[15], 0]) as u64,
            ));
        }
        let (sites, table_len) =
            if flags & FLAG_SITES != 0 { read_site_table(&mut src, &name)? } else { (Vec::new(), 0) };
        Ok(Reader {
            src,
            file: None,
            defer: false,
            map: false,
            window: None,
            window_bytes: WINDOW_BYTES,
            name,
            offset: HEADER_LEN as u64 + table_len,
            file_len,
            header: Header {
                version,
                timing_columns: flags & FLAG_TIMING != 0,
                waits: flags & FLAG_WAIT != 0,
                sites: flags & FLAG_SITES != 0,
            },
            sites,
            last: None,
            seen: Totals::default(),
            end: None,
        })
    }

    /// From now on, [`Reader::next_chunk`] reads only each chunk's header (by position,
    /// so that the serial part of a parallel read is short) and leaves its payload to
    /// [`RawChunk::load`], which the thread that decodes the chunk calls. Whether that
    /// applies: only to a file opened with [`Reader::open`] (on Unix), and only before
    /// the first chunk is read.
    pub fn defer_payloads(&mut self) -> bool {
        self.defer = self.file.is_some() && self.seen.chunks == 0 && self.end.is_none();
        self.defer
    }

    /// From now on, the payloads that [`Reader::defer_payloads`] leaves to
    /// [`RawChunk::load`] are not read into a buffer but borrowed from windows of the file
    /// mapped into memory (4 MiB at a time, each unmapped once no chunk holds it, so that
    /// memory stays bounded). That saves copying every byte out of the page cache, a
    /// noticeable share of a one-core read (and with [`RawChunk::fetch_during_decode`],
    /// the next chunk's bytes come from memory while this one is decoded). It defers the payloads ([`Reader::defer_payloads`]), and
    /// applies where that does and the file can be mapped (else the payloads are read).
    ///
    /// A file that shrinks while it is mapped is an error where it is found: when a
    /// window is mapped (the file's length) or a chunk loaded ([`RawChunk::load`] maps
    /// its pages first). But one truncated by another process between a chunk's load and
    /// its decode ends this process with `SIGBUS` (as with every mapped read): do not map
    /// a file that may still be written.
    pub fn map_payloads(&mut self) -> bool {
        // (a file system that cannot map files keeps the reads: one byte mapped to see)
        // SAFETY: the byte is not read.
        let mappable = |f: &std::fs::File| unsafe { memmap2::MmapOptions::new().len(1).map(f) }.is_ok();
        self.map = self.defer_payloads() && self.file.as_deref().is_some_and(mappable);
        self.map
    }

    /// Reads into `buf` at byte `at`, which is where the sequential source stands unless
    /// chunks are read by position; the bytes read (fewer at the end of the input).
    fn read_at(&mut self, buf: &mut [u8], at: u64) -> std::io::Result<usize> {
        match &self.file {
            #[cfg(unix)]
            Some(f) if self.defer => read_full_at(f, buf, at),
            _ => read_full(&mut self.src, buf),
        }
    }

    /// The site table: the label of each site id (empty for a file without sites).
    pub fn sites(&self) -> &[String] {
        &self.sites
    }

    /// The file header.
    pub fn header(&self) -> Header {
        self.header
    }

    /// The file's name, as used in messages.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The totals of the end marker, once [`Reader::next_chunk`] has returned `false`.
    pub fn totals(&self) -> Option<Totals> {
        self.end
    }

    fn corrupt(&self, offset: u64, problem: String) -> BinaryError {
        BinaryError::Corrupt { file: self.name.to_string(), offset, problem }
    }

    fn truncated(&self, offset: u64, inside: String) -> BinaryError {
        BinaryError::Truncated { file: self.name.to_string(), offset, inside }
    }

    /// Reads the next chunk into `raw` (reusing its buffer) and checks its header and its
    /// order after the previous chunk; `false` at the end marker, after which the totals
    /// are checked and nothing may follow. The payload's checksum is checked by
    /// [`RawChunk::decode`] (or [`RawChunk::verify`]), on the thread that decodes it.
    pub fn next_chunk(&mut self, raw: &mut RawChunk) -> Result<bool, BinaryError> {
        if self.end.is_some() {
            return Ok(false);
        }
        let at = self.offset;
        let name = self.name.clone();
        let io = |offset, source| BinaryError::Io { file: name.to_string(), offset, source };
        let mut tag = [0u8; 4];
        let got = self.read_at(&mut tag, at).map_err(|e| io(at, e))?;
        if got < 4 {
            let inside = if got == 0 { "the chunk list: the end marker is missing" } else { "a chunk tag" };
            return Err(self.truncated(at + got as u64, inside.into()));
        }
        if &tag == END_TAG {
            return self.read_end(at).map(|_| false);
        }
        if &tag != CHUNK_TAG {
            return Err(self.corrupt(
                at,
                format!("expected a chunk (`CHNK`) or the end marker (`END!`), found {tag:02x?}"),
            ));
        }
        let mut h = [0u8; CHUNK_HEADER_LEN];
        h[..4].copy_from_slice(&tag);
        let got = self.read_at(&mut h[4..], at + 4).map_err(|e| io(at + 4, e))?;
        if got < CHUNK_HEADER_LEN - 4 {
            return Err(self.truncated(
                at + 4 + got as u64,
                format!("the header of chunk {} (at byte {at})", self.seen.chunks),
            ));
        }
        let u = |i: usize| u32::from_le_bytes([h[4 * i], h[4 * i + 1], h[4 * i + 2], h[4 * i + 3]]);
        let (groups, lanes) = (u(1), u(2));
        let first = (u(3), u(4), u(5));
        let last = (u(6), u(7), u(8));
        let mut cols = [0u32; COLUMNS];
        for (c, col) in cols.iter_mut().enumerate() {
            *col = u(9 + c);
        }
        let crc = u(17);
        let payload: u64 = cols.iter().map(|&c| c as u64).sum();
        if payload > MAX_CHUNK_BYTES as u64
            || groups == 0
            || lanes < groups
            || lanes as u64 > groups as u64 * 64
            // every group takes at least one byte of the block, step, attr, gap and addr
            // mode columns and two of the mask column: the header's counts (which size
            // the decoder's buffers) can never exceed what the payload holds
            || [0, 2, 4, 5, 6].iter().any(|&c| groups > cols[c])
            || groups as u64 * 2 > cols[3] as u64
        {
            // a checksum failure is more telling when the header is otherwise plausible
            return Err(self.corrupt(
                at,
                format!("implausible chunk header ({groups} groups, {lanes} lanes, {payload} payload bytes)"),
            ));
        }
        let body = at + CHUNK_HEADER_LEN as u64;
        if let Some(len) = self.file_len {
            if body + payload > len {
                return Err(self.truncated(
                    len,
                    format!("chunk {} (at byte {at}, {payload} payload bytes)", self.seen.chunks),
                ));
            }
        }
        raw.pending = None;
        raw.mapped = None;
        raw.ahead = (0, 0);
        match &self.file {
            Some(f) if self.defer && self.map => {
                let (end, index) = (body + payload, self.seen.chunks);
                let fits = self
                    .window
                    .as_ref()
                    .is_some_and(|(w, w_at)| *w_at <= body && end <= w_at + w.len() as u64);
                if !fits {
                    self.window = None;
                    let file_len = self.file_len.unwrap_or(end);
                    let now = f.metadata().map_err(|e| io(body, e))?.len();
                    if now < end {
                        return Err(shrank(&self.name, now, index, at));
                    }
                    let len = (file_len.min(now) - body).min(payload.max(self.window_bytes));
                    // SAFETY: the window lies inside the file as it is now; see
                    // `Reader::map_payloads` for a file that shrinks while mapped.
                    let w = unsafe { memmap2::MmapOptions::new().offset(body).len(len as usize).map(&**f) }
                        .map_err(|e| io(body, e))?;
                    self.window = Some((Arc::new(w), body));
                }
                if let Some((w, w_at)) = &self.window {
                    raw.mapped = Some(Mapped {
                        window: w.clone(),
                        file: f.clone(),
                        at: body,
                        start: (body - w_at) as usize,
                        len: payload as usize,
                        index,
                        checked: false,
                    });
                }
            }
            // (the file's length is known: the payload is there, barring a file that
            // shrinks while it is read, which `load` reports; `bytes` keeps the last
            // payload until then, so that `load` need not zero it first)
            Some(f) if self.defer => {
                raw.pending =
                    Some(Pending { file: f.clone(), at: body, len: payload as u32, index: self.seen.chunks })
            }
            _ => {
                raw.bytes.clear();
                // read what is there, at most `payload` bytes: the buffer grows with the
                // data actually present, never to a size a corrupt header merely claims
                let got =
                    (&mut self.src).take(payload).read_to_end(&mut raw.bytes).map_err(|e| io(body, e))?;
                if got < payload as usize {
                    return Err(self
                        .truncated(body + got as u64, format!("chunk {} (at byte {at})", self.seen.chunks)));
                }
            }
        }
        // The payload's checksum is left to whoever decodes the chunk
        // ([`RawChunk::decode`] checks it first), so that it runs in parallel; this
        // serial part only reads. A chunk out of order is checked here, its checksum
        // first (a corrupt header is more telling as a checksum failure).
        let head_crc = crc32fast::hash(&h[..CHUNK_HEADER_LEN - 4]);
        let out_of_order = if first > last {
            Some((at + 12, format!("chunk's first group {first:?} is after its last {last:?}")))
        } else {
            self.last.filter(|&prev| first <= prev || (first.0, first.1) == (prev.0, prev.1)).map(|prev| {
                (
                    at + 12,
                    format!("chunk starts at (block, slice, step) {first:?}, not after the previous chunk's run ending at {prev:?}"),
                )
            })
        };
        if let Some((offset, problem)) = out_of_order {
            raw.name = self.name.clone();
            raw.load()?;
            checksum(&self.name, at, self.seen.chunks, head_crc, crc, raw.payload())?;
            return Err(self.corrupt(offset, problem));
        }
        self.last = Some(last);
        raw.head_crc = head_crc;
        raw.crc = crc;
        raw.name = self.name.clone();
        raw.waits = self.header.waits;
        raw.sites = self.header.sites.then_some(self.sites.len() as u32);
        raw.tensor_ops = self.header.version >= VERSION_TENSOR_OPS;
        raw.offset = at;
        raw.index = self.seen.chunks;
        raw.groups = groups;
        raw.lanes = lanes;
        raw.first = first;
        raw.last = last;
        raw.cols = cols;
        self.seen.chunks += 1;
        self.seen.groups += groups as u64;
        self.seen.lanes += lanes as u64;
        self.offset = body + payload;
        Ok(true)
    }

    fn read_end(&mut self, at: u64) -> Result<(), BinaryError> {
        let mut e = [0u8; END_LEN];
        e[..4].copy_from_slice(END_TAG);
        let got = self.read_at(&mut e[4..], at + 4).map_err(|source| BinaryError::Io {
            file: self.name.to_string(),
            offset: at,
            source,
        })?;
        if got < END_LEN - 4 {
            return Err(self.truncated(at + 4 + got as u64, "the end marker".into()));
        }
        let q = |i: usize| u64::from_le_bytes(e[4 + 8 * i..12 + 8 * i].try_into().unwrap_or_default());
        let totals = Totals { chunks: q(0), groups: q(1), lanes: q(2) };
        let crc = u32::from_le_bytes([e[28], e[29], e[30], e[31]]);
        if crc32fast::hash(&e[..28]) != crc {
            return Err(self.corrupt(at, "checksum mismatch in the end marker".into()));
        }
        if totals != self.seen {
            return Err(self.corrupt(
                at,
                format!("the end marker counts {totals:?} but the file holds {:?}", self.seen),
            ));
        }
        let mut extra = [0u8; 1];
        let after = at + END_LEN as u64;
        if self.read_at(&mut extra, after).map_err(|source| BinaryError::Io {
            file: self.name.to_string(),
            offset: after,
            source,
        })? != 0
        {
            return Err(self.corrupt(after, "data after the end marker".into()));
        }
        self.end = Some(totals);
        Ok(())
    }
}

/// The site table after the header (see [`super`]) and its length in bytes.
fn read_site_table<R: Read>(src: &mut R, name: &str) -> Result<(Vec<String>, u64), BinaryError> {
    let mut at = HEADER_LEN as u64;
    let mut bytes = Vec::new();
    let mut take = |n: usize, at: &mut u64, what: &str| -> Result<Vec<u8>, BinaryError> {
        let mut b = vec![0u8; n];
        let got = read_full(src, &mut b).map_err(|source| BinaryError::Io {
            file: name.into(),
            offset: *at,
            source,
        })?;
        if got < n {
            return Err(BinaryError::Truncated {
                file: name.into(),
                offset: *at + got as u64,
                inside: what.into(),
            });
        }
        *at += n as u64;
        Ok(b)
    };
    let corrupt = |offset: u64, problem: String| BinaryError::Corrupt { file: name.into(), offset, problem };
    let head = take(8, &mut at, "the site table")?;
    if &head[..4] != SITES_TAG {
        return Err(corrupt(at - 8, "expected the site table (`SITE`) after the header".into()));
    }
    let count = u32::from_le_bytes([head[4], head[5], head[6], head[7]]);
    if count as usize > crate::site::MAX_SITES {
        return Err(corrupt(at - 4, format!("{count} sites, more than {}", crate::site::MAX_SITES)));
    }
    bytes.extend_from_slice(&head);
    let mut sites = Vec::with_capacity(count.min(1 << 16) as usize);
    for i in 0..count {
        let len = take(4, &mut at, "the site table")?;
        let n = u32::from_le_bytes([len[0], len[1], len[2], len[3]]);
        if n > MAX_SITE_LABEL {
            return Err(corrupt(
                at - 4,
                format!("site {i}'s label of {n} bytes, more than {MAX_SITE_LABEL}"),
            ));
        }
        let label = take(n as usize, &mut at, "the site table")?;
        bytes.extend_from_slice(&len);
        bytes.extend_from_slice(&label);
        let text = String::from_utf8(label)
            .map_err(|_| corrupt(at - n as u64, format!("site {i}'s label is not UTF-8")))?;
        sites.push(text);
    }
    let crc = take(4, &mut at, "the site table")?;
    if crc32fast::hash(&bytes) != u32::from_le_bytes([crc[0], crc[1], crc[2], crc[3]]) {
        return Err(corrupt(at - 4, "checksum mismatch in the site table".into()));
    }
    Ok((sites, at - HEADER_LEN as u64))
}

/// Reads a whole binary trace file into memory as records.
pub fn read(path: &Path) -> Result<Trace, BinaryError> {
    let reader = Reader::open(path)?;
    read_all(reader)
}

/// Parses a whole binary trace from a reader; `name` is used in messages.
pub fn parse<R: Read>(src: R, name: &str) -> Result<Trace, BinaryError> {
    read_all(Reader::new(src, name, None)?)
}

/// Reads every chunk of `reader` into records.
pub fn read_all<R: Read>(mut reader: Reader<R>) -> Result<Trace, BinaryError> {
    let mut trace = Trace::new(reader.name());
    trace.has_timing_columns = reader.header().timing_columns;
    trace.sites = reader.sites().to_vec();
    let (mut raw, mut chunk) = (RawChunk::default(), Chunk::default());
    while reader.next_chunk(&mut raw)? {
        raw.decode(&mut chunk)?;
        chunk.push_records(&mut trace);
    }
    Ok(trace)
}

/// Whether the file at `path` starts with the binary trace magic.
pub fn is_binary(path: &Path) -> std::io::Result<bool> {
    let mut f = std::fs::File::open(path)?;
    let mut m = [0u8; 8];
    Ok(read_full(&mut f, &mut m)? == 8 && &m == MAGIC)
}

#[cfg(test)]
mod tests {
    /// A trace of `chunks` chunks (8 blocks of 64 threads x 4 steps a chunk, strided and
    /// random-looking addresses) in a temporary file, and the folder that holds it (gone
    /// when dropped).
    fn chunked_file(tag: &str) -> (tempfile::TempDir, std::path::PathBuf) {
        let mut t = crate::record::Trace::new("w");
        let mut x = 0x9E37_79B9u32;
        for block in 0..48 {
            for thread in 0..64 {
                for step in 0..4 {
                    x ^= x << 13;
                    x ^= x >> 17;
                    x ^= x << 5;
                    let addr = if step % 2 == 0 { thread * 4 } else { x % 4096 * 4 };
                    t.push(crate::record::Record {
                        block,
                        thread,
                        step,
                        op: sim_core::Op::Load,
                        addr,
                        bytes: 4,
                        gap: 0,
                        dep: None,
                        wait: None,
                        site: crate::NO_SITE,
                    });
                }
            }
        }
        let dir = tempfile::Builder::new().prefix("traces-window-").tempdir().expect("a temporary folder");
        let path = dir.path().join(format!("{tag}.bsim"));
        std::fs::write(
            &path,
            crate::binary::write::write_chunked(&t, Vec::new(), 8 * 64 * 4).expect("a trace"),
        )
        .expect("a temporary file");
        (dir, path)
    }

    /// Every chunk's groups and addresses, through `decode`.
    fn decoded(reader: &mut super::Reader<impl std::io::Read>) -> Vec<(u64, Vec<u32>, Vec<u64>)> {
        let (mut raw, mut chunk) = (super::RawChunk::default(), super::Chunk::default());
        let mut out = Vec::new();
        while reader.next_chunk(&mut raw).expect("a chunk") {
            raw.load().expect("the payload");
            raw.decode(&mut chunk).expect("a good chunk");
            out.push((raw.offset(), chunk.addrs.clone(), chunk.g_mask.clone()));
        }
        out
    }

    /// Payloads borrowed from mapped windows decode as payloads read into a buffer:
    /// windows of one payload each, windows of a few, and windows smaller than a payload.
    #[test]
    fn mapped_windows_of_any_size_decode_as_reads_do() {
        let (_dir, path) = chunked_file("sizes");
        let mut plain = super::Reader::open(&path).expect("a header");
        let want = decoded(&mut plain);
        assert_eq!(want.len(), 6, "the file's chunks");
        let step = want.windows(2).map(|w| w[1].0 - w[0].0).max().expect("chunks");
        let spans = [(1, 6..=6), (step / 2, 6..=6), (step * 5 / 2, 2..=3), (super::WINDOW_BYTES, 1..=1)];
        for (window, expected) in spans {
            let mut r = super::Reader::open(&path).expect("a header");
            r.window_bytes = window;
            assert!(r.map_payloads(), "a file opened by path maps");
            let (mut raw, mut windows, mut chunks) = (super::RawChunk::default(), 0, Vec::new());
            let mut last = None;
            let mut chunk = super::Chunk::default();
            while r.next_chunk(&mut raw).expect("a chunk") {
                assert!(raw.is_mapped(), "window {window}: chunk at {} not mapped", raw.offset());
                // (a window is known by where it starts in the file)
                let w = r.window.as_ref().expect("a window").1;
                windows += usize::from(last != Some(w));
                last = Some(w);
                raw.load().expect("the payload");
                raw.decode(&mut chunk).expect("a good chunk");
                chunks.push((raw.offset(), chunk.addrs.clone(), chunk.g_mask.clone()));
            }
            assert_eq!(chunks, want, "window of {window} bytes");
            assert!(expected.contains(&windows), "window of {window} bytes: {windows} windows");
        }
    }

    /// A file that shrinks inside a window already mapped is an error when the chunk is
    /// loaded, not a fault when it is decoded.
    #[test]
    fn a_file_that_shrinks_inside_a_mapped_window_is_an_error_at_load() {
        let (_dir, path) = chunked_file("inside");
        let offsets: Vec<u64> =
            decoded(&mut super::Reader::open(&path).expect("a header")).iter().map(|c| c.0).collect();
        let mut r = super::Reader::open(&path).expect("a header");
        r.map_payloads();
        let (mut raw, mut chunk) = (super::RawChunk::default(), super::Chunk::default());
        assert!(r.next_chunk(&mut raw).expect("the first chunk"));
        raw.load().expect("the first payload");
        raw.decode(&mut chunk).expect("a good chunk");
        // one window holds the whole file; the third chunk's payload is cut in the middle
        let cut = offsets[2] + super::CHUNK_HEADER_LEN as u64 + 40;
        std::fs::OpenOptions::new().write(true).open(&path).and_then(|f| f.set_len(cut)).expect("truncated");
        assert!(r.next_chunk(&mut raw).expect("the second chunk, still whole"));
        raw.load().expect("the second payload");
        raw.decode(&mut chunk).expect("a good chunk");
        assert!(r.next_chunk(&mut raw).expect("the third chunk's header, inside the window"));
        assert!(raw.is_mapped());
        let e = raw.load().expect_err("the payload is cut").to_string();
        assert!(
            e.contains(&format!("the file ends at byte {cut} inside chunk 2")) && e.contains("shrank"),
            "{e}"
        );
        // (a second load says so again)
        assert!(raw.load().is_err());
    }

    /// A file that shrinks after it was opened is an error when the next window is
    /// mapped, not a fault.
    #[test]
    fn a_file_that_shrinks_while_mapped_is_an_error() {
        let (_dir, path) = chunked_file("shrink");
        let second = decoded(&mut super::Reader::open(&path).expect("a header"))[1].0;
        let mut r = super::Reader::open(&path).expect("a header");
        r.window_bytes = 1;
        r.map_payloads();
        let mut raw = super::RawChunk::default();
        assert!(r.next_chunk(&mut raw).expect("the first chunk"));
        // the second chunk's header stays, its payload goes
        let cut = second + super::CHUNK_HEADER_LEN as u64 + 1;
        std::fs::OpenOptions::new().write(true).open(&path).and_then(|f| f.set_len(cut)).expect("truncated");
        let e = r.next_chunk(&mut raw).expect_err("the file shrank").to_string();
        assert!(
            e.contains(&format!("truncated: the file ends at byte {cut}")) && e.contains("shrank"),
            "{e}"
        );
    }
}
