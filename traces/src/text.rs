//! The text trace format: CSV with a header.
//!
//! ```text
//! block,thread,step,op,addr,bytes[,gap[,dep[,wait[,site]]]]
//! # comment lines start with '#'
//! 0,0,0,st,0x0,4
//! 0,0,1,bar,0,0
//! 0,0,2,ld,128,4,12,1
//! 0,0,3,ld,256,4,12,1,9
//! ```
//! `op` is `ld`, `st`, `atom` (an atomic whose result is used), `red` (an atomic whose
//! result is unused) or `bar`; `addr` is decimal or `0x` hex; `bytes` is 1, 2, 4, 8 or
//! 16 (ignored for `bar`); `gap` is cycles of other work since the thread's previous
//! record (default 0); `dep` is 1 if the access needs the thread's previous load, 0 if
//! not, empty for the engine's default; `wait` is how many of the `gap` cycles come
//! before the thread first uses its previous load's value (at most `gap`; `gap` when
//! the access itself is the first use), empty when the gap does not use it; `site` is
//! the record's id in the site table (lines `# site ID LABEL` before the header, see
//! [`crate::site`]), empty for none. Records may come in any order.

use crate::error::{GroupError, TraceError};
use crate::record::{Record, Trace};
use crate::site::NO_SITE;
use crate::text_line;
use rayon::prelude::*;
use sim_core::Op;
use std::io::{Read, Write};
use std::path::Path;

const COLUMNS: [&str; 10] = ["block", "thread", "step", "op", "addr", "bytes", "gap", "dep", "wait", "site"];

/// What a text trace says before its records: the header's number of columns (6 to 10)
/// and the site table (the `# site ID LABEL` lines before the header).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Preamble {
    /// Columns of the header (0 before it is read).
    pub columns: usize,
    /// Label of each site id; empty when the trace has no site table.
    pub sites: Vec<String>,
}

impl Preamble {
    /// Whether the trace has the optional timing columns.
    pub fn has_timing_columns(&self) -> bool {
        self.columns > 6
    }
}

/// Reads a text trace from a file (`-`: standard input), opened and read once.
pub fn read(path: &Path) -> Result<Trace, TraceError> {
    let input = crate::Input::open(path).map_err(|source| TraceError::Io { path: path.into(), source })?;
    let name = input.name().to_string();
    parse(input.into_reader(), &name)
}

/// Opens a text trace file (a directory is an error here, not at the first read).
pub fn open(path: &Path) -> Result<std::fs::File, TraceError> {
    let file = std::fs::File::open(path).map_err(|source| TraceError::Io { path: path.into(), source })?;
    if file.metadata().map(|m| m.is_dir()).unwrap_or(false) {
        return Err(TraceError::Io {
            path: path.into(),
            source: std::io::Error::other("is a directory, expected a trace file"),
        });
    }
    Ok(file)
}

/// Text parsed per job: a parse reads this much (cut at a line end), then its threads
/// parse one such block each, side by side.
const BLOCK_BYTES: usize = 1 << 20;

/// Parses a text trace from a reader; `name` is used in messages.
///
/// The text is read in blocks of whole lines, which the threads of the current rayon
/// pool parse side by side; records keep file order, and an error is the first in the
/// file, as a line-by-line parse would find it.
pub fn parse<R: Read>(reader: R, name: &str) -> Result<Trace, TraceError> {
    parse_in_blocks(reader, name, BLOCK_BYTES)
}

/// [`parse`] with blocks of `block_bytes` (tests use tiny ones: every block boundary
/// case in a few lines).
#[doc(hidden)]
pub fn parse_in_blocks<R: Read>(reader: R, name: &str, block_bytes: usize) -> Result<Trace, TraceError> {
    parse_with(reader, name, block_bytes, parse_block)
}

/// [`parse_in_blocks`] on the general path alone (the CSV reader for every line): the
/// oracle the fast path is tested against.
#[doc(hidden)]
pub fn parse_in_blocks_general<R: Read>(
    reader: R,
    name: &str,
    block_bytes: usize,
) -> Result<Trace, TraceError> {
    parse_with(reader, name, block_bytes, parse_block_general)
}

/// Parses a block of whole lines (see [`parse_block`]).
type BlockParser = fn(&[u8], u64, &str, &mut usize) -> Block;

fn parse_with<R: Read>(
    reader: R,
    name: &str,
    block_bytes: usize,
    parser: BlockParser,
) -> Result<Trace, TraceError> {
    let mut trace = Trace::new(name);
    let preamble = for_each_batch_in(reader, name, block_bytes, parser, |records, lines, _| {
        trace.records.extend_from_slice(records);
        trace.lines.extend_from_slice(lines);
        Ok::<_, TraceError>(())
    })?;
    trace.has_timing_columns = preamble.has_timing_columns();
    trace.sites = preamble.sites;
    Ok(trace)
}

/// Reads a text trace a batch of records at a time, in file order, with the line of
/// each record and the [`Preamble`] (the header's number of columns, 6 to 10: `gap` and
/// `dep` from 8 on, `wait` at 9, `site` at 10; the site table): what [`parse`] collects,
/// for a caller that streams. Memory stays at a batch (1 MiB of text per thread). `f`
/// takes a batch while the next one is parsed. Returns the preamble; stops at `f`'s
/// first error. A site id missing from the table is an error naming its line.
///
/// Two neighbouring records of one thread for the same step, which no request can hold,
/// are an error here (the one grouping would give), so a file of one line repeated
/// fails at its second record rather than after it was all read.
pub fn for_each_batch<R: Read, E: From<TraceError> + Send>(
    reader: R,
    name: &str,
    f: impl FnMut(&[Record], &[u32], &Preamble) -> Result<(), E> + Send,
) -> Result<Preamble, E> {
    for_each_batch_in(reader, name, BLOCK_BYTES, parse_block, f)
}

/// `f`, after a check that the first record of each batch does not repeat the (block,
/// thread, step) of the record before it, the last of the batch before (within a batch
/// [`refuse_repeats_in`] checked, side by side): no request can hold both, and a file of
/// one line repeated then fails at its second record instead of after it was all read.
/// Other repeats are grouping's to find.
fn refuse_repeats<E: From<TraceError>>(
    name: &str,
    mut f: impl FnMut(&[Record], &[u32], &Preamble) -> Result<(), E>,
) -> impl FnMut(&[Record], &[u32], &Preamble) -> Result<(), E> {
    let mut last: Option<(Record, u32)> = None;
    let name = name.to_string();
    move |records, lines, columns| {
        if let (Some((p, first_line)), Some(r), Some(&line)) = (last, records.first(), lines.first()) {
            if key(&p) == key(r) {
                return Err(TraceError::from(duplicate(&name, &p, first_line, line)).into());
            }
        }
        if let (Some(&r), Some(&line)) = (records.last(), lines.last()) {
            last = Some((r, line));
        }
        f(records, lines, columns)
    }
}

/// A record's (block, thread, step): two neighbouring records with the same one repeat.
pub(crate) fn key(r: &Record) -> (u32, u32, u32) {
    (r.block, r.thread, r.step)
}

fn duplicate(name: &str, first: &Record, first_line: u32, line: u32) -> GroupError {
    let (block, thread, step) = key(first);
    GroupError::Duplicate { file: name.into(), line, first_line, block, thread, step }
}

/// Cuts `block` at its first record that repeats the (block, thread, step) of the one
/// before it, with that error: it comes before any error the block had (see
/// [`refuse_repeats`]).
pub(crate) fn refuse_repeats_in(block: &mut Block, name: &str) {
    let Some(at) = block.records.windows(2).position(|w| key(&w[0]) == key(&w[1])) else {
        return;
    };
    let e = duplicate(name, &block.records[at], block.lines[at], block.lines[at + 1]);
    block.error = Some(e.into());
    block.records.truncate(at + 1);
    block.lines.truncate(at + 1);
}

fn for_each_batch_in<R: Read, E: From<TraceError> + Send>(
    mut reader: R,
    name: &str,
    block_bytes: usize,
    parser: BlockParser,
    f: impl FnMut(&[Record], &[u32], &Preamble) -> Result<(), E> + Send,
) -> Result<Preamble, E> {
    assert!(block_bytes > 0);
    let mut f = refuse_repeats(name, f);
    let mut columns = 0;
    let mut sites = SiteTable::default();
    let mut preamble = Preamble::default();
    // text read but not parsed yet (it starts at a line start), and its first line
    let mut text: Vec<u8> = Vec::new();
    // the next batch's text, read while this one is parsed
    let mut next: Vec<u8> = Vec::new();
    let mut line = 1u64;
    let jobs = rayon::current_num_threads().max(1);
    // (more than that after a pass that found no whole line: a line longer than that)
    let mut want = jobs * block_bytes;
    let mut eof = fill(&mut reader, &mut text, want, name, line)?;
    // blocks parsed but not handed to `f` yet
    let mut ready: Vec<Block> = Vec::new();
    while !eof || !text.is_empty() {
        // cut into blocks of whole lines (the last one may end without a newline at the end)
        let mut cuts: Vec<&[u8]> = Vec::new();
        let mut at = 0;
        while at < text.len() {
            let rest = &text[at..];
            let Some(cut) = block_end(rest, block_bytes, eof) else { break };
            cuts.push(&rest[..cut]);
            at += cut;
        }
        if cuts.is_empty() {
            if eof {
                break;
            }
            want = text.len() + block_bytes;
            eof = fill(&mut reader, &mut text, want, name, line)?;
            continue;
        }
        want = jobs * block_bytes;
        // each block's first line: its line ends counted side by side (on many cores a
        // count over the whole batch on one thread is a serial part that shows)
        let newlines: Vec<u64> =
            cuts.par_iter().map(|b| memchr::memchr_iter(b'\n', b).count() as u64).collect();
        let mut blocks: Vec<(&[u8], u64)> = Vec::with_capacity(cuts.len());
        for (bytes, n) in cuts.into_iter().zip(newlines) {
            blocks.push((bytes, line));
            line += n;
        }
        // the header comes first: blocks before it (and the one holding it) one by one
        let mut parsed = 0;
        while columns == 0 && parsed < blocks.len() {
            debug_assert!(ready.is_empty(), "no records before the header");
            let (bytes, first) = blocks[parsed];
            let read = sites.read(bytes, first, name);
            let mut block = parser(bytes, first, name, &mut columns);
            if let Err(e) = read {
                // (the table precedes the header, so its error comes first in the file)
                block = Block { error: Some(e), ..Block::with_capacity(0) };
            } else if columns != 0 {
                preamble = Preamble { columns, sites: std::mem::take(&mut sites.labels) };
                check_sites(&mut block, &preamble, name);
            }
            refuse_repeats_in(&mut block, name);
            deliver(&mut f, vec![block], &preamble)?;
            parsed += 1;
        }
        // this batch's blocks are parsed while `f` takes the last batch's (so that a
        // caller's serial work overlaps the parse), and the next batch is read meanwhile
        // on this thread (the text after the last whole line first)
        next.clear();
        next.extend_from_slice(&text[at..]);
        let mut work = None;
        let read = rayon::in_place_scope(|s| {
            s.spawn(|_| {
                work = Some(rayon::join(
                    || -> Vec<Block> {
                        blocks[parsed..]
                            .par_iter()
                            .map(|&(bytes, first)| {
                                let mut block = parser(bytes, first, name, &mut { columns });
                                check_sites(&mut block, &preamble, name);
                                refuse_repeats_in(&mut block, name);
                                block
                            })
                            .collect()
                    },
                    || deliver(&mut f, std::mem::take(&mut ready), &preamble),
                ));
            });
            if eof {
                Ok(true)
            } else {
                fill(&mut reader, &mut next, want, name, line)
            }
        });
        let (parts, delivered) = work.expect("the scope ran its job");
        delivered?;
        ready = parts;
        eof = read?;
        std::mem::swap(&mut text, &mut next);
    }
    deliver(&mut f, ready, &preamble)?;
    if columns == 0 {
        return Err(TraceError::Empty { file: name.into() }.into());
    }
    Ok(preamble)
}

/// Reads from `reader` until `text` holds `want` bytes or the text ends (`true` then);
/// `line` is the line the error of a failed read names.
fn fill(
    reader: &mut impl Read,
    text: &mut Vec<u8>,
    want: usize,
    name: &str,
    line: u64,
) -> Result<bool, TraceError> {
    let Some(need) = want.checked_sub(text.len()).filter(|&n| n > 0) else {
        return Ok(false);
    };
    let got = reader.take(need as u64).read_to_end(text).map_err(|e| TraceError::Csv {
        file: name.into(),
        line,
        message: format!("cannot read: {e}"),
    })?;
    Ok(got < need)
}

/// The site table of a text trace as its lines are read, up to the header.
#[derive(Default)]
pub(crate) struct SiteTable {
    pub(crate) labels: Vec<String>,
    /// Whether the header was found (the table ends there).
    done: bool,
}

impl SiteTable {
    /// Reads the `# site ID LABEL` lines of `bytes` (whose first line is line `first`)
    /// up to the header.
    pub(crate) fn read(&mut self, bytes: &[u8], first: u64, name: &str) -> Result<(), TraceError> {
        for (i, line) in bytes.split(|&b| b == b'\n').enumerate() {
            if self.done {
                return Ok(());
            }
            let text = text_line::strip_end(line);
            let line = first + i as u64;
            if text.first() != Some(&b'#') {
                self.done = !text.trim_ascii().is_empty();
                continue;
            }
            let error =
                |problem: &str| TraceError::Site { file: name.into(), line, problem: problem.to_string() };
            let Ok(text) = std::str::from_utf8(text) else {
                if text.starts_with(crate::site::TABLE_PREFIX.as_bytes()) {
                    return Err(error("invalid UTF-8: a site label must be text"));
                }
                continue;
            };
            match crate::site::parse_table_line(text) {
                None => {}
                Some(Err(problem)) => return Err(error(problem)),
                Some(Ok((id, label))) => {
                    if id as usize != self.labels.len() {
                        return Err(error(&format!(
                            "site ids must count up from 0 in order: expected {}, found {id}",
                            self.labels.len()
                        )));
                    }
                    if self.labels.len() >= crate::site::MAX_SITES {
                        return Err(error(&format!("more than {} sites", crate::site::MAX_SITES)));
                    }
                    self.labels.push(label.to_string());
                }
            }
        }
        Ok(())
    }
}

/// Cuts `block` at its first record whose site is not in the preamble's table (a trace
/// with a `site` column), with that error: it comes before any error the block had.
pub(crate) fn check_sites(block: &mut Block, preamble: &Preamble, name: &str) {
    if preamble.columns < COLUMNS.len() {
        return;
    }
    let n = preamble.sites.len();
    let Some(bad) = block.records.iter().position(|r| r.site != NO_SITE && r.site as usize >= n) else {
        return;
    };
    let problem = match n {
        0 => "the trace has no site table (`# site ID LABEL` lines before the header)".to_string(),
        _ => format!("expected a site id of the table (0 to {}) or nothing", n - 1),
    };
    block.error = Some(TraceError::Field {
        file: name.into(),
        line: block.lines[bad] as u64,
        column: COLUMNS.len(),
        field: "site",
        value: block.records[bad].site.to_string(),
        problem,
    });
    block.records.truncate(bad);
    block.lines.truncate(bad);
}

/// Hands parsed blocks to `f` in order, up to the first error: the records of a block
/// before its error go to `f` first, so an error `f` finds in them (a repeated record)
/// is reported before a later line's, however the text was cut into blocks.
fn deliver<E: From<TraceError>>(
    f: &mut impl FnMut(&[Record], &[u32], &Preamble) -> Result<(), E>,
    parts: Vec<Block>,
    preamble: &Preamble,
) -> Result<(), E> {
    for part in parts {
        f(&part.records, &part.lines, preamble)?;
        if let Some(e) = part.error {
            return Err(e.into());
        }
    }
    Ok(())
}

/// Where the block that starts `rest` ends: after its last line end within `block`
/// bytes (after its first line, if that is longer), or at the end once the text is all
/// read; `None` while no whole line has been read.
fn block_end(rest: &[u8], block: usize, eof: bool) -> Option<usize> {
    if eof && rest.len() <= block {
        return Some(rest.len());
    }
    let after = |i: usize| i + 1;
    memchr::memrchr(b'\n', &rest[..rest.len().min(block)])
        .or_else(|| memchr::memchr(b'\n', rest))
        .map(after)
        .or(eof.then_some(rest.len()))
}

/// A block's records and their lines, up to its first error, if any.
pub(crate) struct Block {
    pub(crate) records: Vec<Record>,
    pub(crate) lines: Vec<u32>,
    pub(crate) error: Option<TraceError>,
}

impl Block {
    pub(crate) fn with_capacity(bytes: usize) -> Block {
        Block { records: Vec::with_capacity(bytes / 24), lines: Vec::with_capacity(bytes / 24), error: None }
    }
}

/// Parses whole lines `bytes`, whose first line is line `first` of the file. With
/// `*columns == 0` the first record is the header, which sets it.
///
/// Lines split at `\n` and plain records parsed from their bytes ([`crate::text_line`]);
/// the header, anything unusual and every error on the general path below, line by line
/// (a block with quotes or a lone `\r`: whole), so both give the same records and the
/// same messages.
pub(crate) fn parse_block(bytes: &[u8], first: u64, name: &str, columns: &mut usize) -> Block {
    let mut out = Block::with_capacity(bytes.len());
    parse_block_into(bytes, first, name, columns, &mut out);
    out
}

/// [`parse_block`] into `out`, whose memory is reused (what was in it is dropped).
pub(crate) fn parse_block_into(bytes: &[u8], first: u64, name: &str, columns: &mut usize, out: &mut Block) {
    out.records.clear();
    out.lines.clear();
    out.error = None;
    if !text_line::plain_lines(bytes) {
        *out = parse_block_general(bytes, first, name, columns);
        return;
    }
    out.records.reserve(bytes.len() / 24);
    out.lines.reserve(bytes.len() / 24);
    let mut line = first;
    let mut start = 0;
    while start < bytes.len() {
        // a plain record, parsed where it starts up to its line end (most lines)
        if *columns != 0 && bytes[start].is_ascii_digit() {
            if let Some((r, next)) = text_line::record_in(bytes, start, *columns) {
                out.records.push(r);
                out.lines.push(u32::try_from(line).unwrap_or(u32::MAX));
                line += 1;
                start = next;
                continue;
            }
        }
        let end = memchr::memchr(b'\n', &bytes[start..]).map_or(bytes.len(), |i| start + i + 1);
        let whole = &bytes[start..end];
        let text = text_line::strip_end(whole);
        start = end;
        // (a comment that ends the text with no line end is a record to the CSV reader)
        let comment = text.first() == Some(&b'#') && whole.last() == Some(&b'\n');
        if !text.is_empty() && !comment {
            let fast =
                if *columns == 0 || text[0] == b'#' { None } else { text_line::record(text, *columns) };
            let at = u32::try_from(line).unwrap_or(u32::MAX);
            match fast {
                Some(r) => {
                    out.records.push(r);
                    out.lines.push(at);
                }
                None => {
                    let general = parse_block_general(whole, line, name, columns);
                    out.records.extend_from_slice(&general.records);
                    out.lines.extend_from_slice(&general.lines);
                    if general.error.is_some() {
                        out.error = general.error;
                        return;
                    }
                }
            }
        }
        line += 1;
    }
}

/// [`parse_block`] through the CSV reader: quoting, lone `\r` line ends, and the exact
/// messages.
fn parse_block_general(bytes: &[u8], first: u64, name: &str, columns: &mut usize) -> Block {
    let mut out = Block::with_capacity(bytes.len());
    if let Err(e) = parse_general_into(&mut out, bytes, first, name, columns) {
        out.error = Some(e);
    }
    out
}

/// [`parse_block_general`]'s records into `out`, up to the first error.
fn parse_general_into(
    out: &mut Block,
    bytes: &[u8],
    first: u64,
    name: &str,
    columns: &mut usize,
) -> Result<(), TraceError> {
    let mut rdr =
        csv::ReaderBuilder::new().has_headers(false).comment(Some(b'#')).flexible(true).from_reader(bytes);
    let mut record = csv::ByteRecord::new();
    // the line of byte `seen`
    let (mut line, mut seen) = (first, 0);
    loop {
        let more = rdr.read_byte_record(&mut record).map_err(|e| csv_error(name, bytes, first, &e))?;
        if !more {
            return Ok(());
        }
        // The line from the byte offset. The CSV reader's position is where it began to
        // look for the record: before the comment and empty lines it skipped, which its
        // line count leaves out.
        let mut at = record.position().map_or(0, |p| p.byte() as usize);
        while let Some(b'#' | b'\n' | b'\r') = bytes.get(at) {
            at += bytes[at..].iter().position(|&b| b == b'\n').map_or(bytes.len() - at, |nl| nl + 1);
        }
        line += bytes[seen..at].iter().filter(|&&b| b == b'\n').count() as u64;
        seen = at;
        let n = record.len();
        // fields as trimmed text (one UTF-8 check for the whole line; a line of more
        // fields than the format has is checked against the header below)
        let text = std::str::from_utf8(record.as_slice()).map_err(|_| TraceError::Csv {
            file: name.into(),
            line,
            message: "invalid UTF-8: a text trace must be plain text".into(),
        })?;
        let mut fields = [""; COLUMNS.len()];
        for (i, f) in fields.iter_mut().enumerate().take(n) {
            *f = record.range(i).and_then(|r| text.get(r)).unwrap_or("").trim_ascii();
        }
        if *columns == 0 {
            *columns = header(&record, &fields[..n.min(COLUMNS.len())], name, line)?;
            continue;
        }
        if n != *columns {
            return Err(TraceError::FieldCount { file: name.into(), line, expected: *columns, found: n });
        }
        out.records.push(parse_record(&fields[..n], name, line)?);
        out.lines.push(u32::try_from(line).unwrap_or(u32::MAX));
    }
}

fn csv_error(name: &str, bytes: &[u8], first: u64, e: &csv::Error) -> TraceError {
    let line = e.position().map_or(0, |p| {
        let at = (p.byte() as usize).min(bytes.len());
        first + bytes[..at].iter().filter(|&&b| b == b'\n').count() as u64
    });
    let message = match e.kind() {
        csv::ErrorKind::Io(io) => format!("cannot read: {io}"),
        _ => e.to_string(),
    };
    TraceError::Csv { file: name.into(), line, message }
}

/// The most characters of an input field an error message echoes.
pub const ECHO_CHARS: usize = 64;

/// `s` cut to [`ECHO_CHARS`] characters (and `…`), for an error message: a huge field
/// is named, not copied.
pub fn clip(s: &str) -> String {
    match s.char_indices().nth(ECHO_CHARS) {
        Some((i, _)) => format!("{}… ({} bytes in all)", &s[..i], s.len()),
        None => s.to_string(),
    }
}

/// What is wrong with a field that does not parse as a `u32`: above the limit, or `other`.
fn u32_problem(e: &std::num::ParseIntError, other: &'static str) -> &'static str {
    match e.kind() {
        std::num::IntErrorKind::PosOverflow => "above the limit of 4294967295 (2^32 - 1)",
        _ => other,
    }
}

fn header(record: &csv::ByteRecord, fields: &[&str], name: &str, line: u64) -> Result<usize, TraceError> {
    let n = record.len();
    let ok = (6..=COLUMNS.len()).contains(&n) && fields.iter().zip(COLUMNS).all(|(f, c)| *f == c);
    if ok {
        Ok(n)
    } else {
        Err(TraceError::Header {
            file: name.into(),
            line,
            found: clip(&record.iter().map(String::from_utf8_lossy).collect::<Vec<_>>().join(",")),
        })
    }
}

fn parse_record(r: &[&str], name: &str, line: u64) -> Result<Record, TraceError> {
    let field_err = |column: usize, problem: &str| TraceError::Field {
        file: name.into(),
        line,
        column: column + 1,
        field: COLUMNS[column],
        value: clip(r[column]),
        problem: problem.to_string(),
    };
    let int = |column: usize| -> Result<u32, TraceError> {
        r[column]
            .parse::<u32>()
            .map_err(|e| field_err(column, u32_problem(&e, "expected a non-negative integer below 2^32")))
    };
    let block = int(0)?;
    let thread = int(1)?;
    let step = int(2)?;
    let op = Op::from_name(r[3]).ok_or_else(|| {
        // every op a trace may hold, named as in the file
        field_err(3, &format!("expected one of {}", Op::ALL.map(Op::name).join(", ")))
    })?;
    let (addr, bytes) = if op == Op::Barrier {
        (0, 0)
    } else {
        let addr = parse_addr(r[4])
            .ok_or_else(|| field_err(4, "expected a byte address (decimal or 0x hex) below 2^32"))?;
        let bytes = r[5].parse::<u8>().ok().filter(|&b| op.allows_width(b)).ok_or_else(|| {
            field_err(
                5,
                &match op.widths() {
                    [w] => format!("expected {w} bytes for `{op}` (its one width)"),
                    [_, _, _] => format!("expected 4, 8 or 16 bytes for `{op}`"),
                    _ => "expected an access width of 1, 2, 4, 8 or 16 bytes".into(),
                },
            )
        })?;
        if addr.checked_add(bytes as u32).is_none() {
            return Err(field_err(4, "address + width overflows 32 bits"));
        }
        (addr, bytes)
    };
    let gap = if r.len() > 6 && !r[6].is_empty() {
        r[6].parse::<u32>()
            .map_err(|e| field_err(6, u32_problem(&e, "expected cycles as a non-negative integer")))?
    } else {
        0
    };
    let dep = if r.len() > 7 {
        match r[7] {
            "" => None,
            "0" => Some(false),
            "1" => Some(true),
            _ => return Err(field_err(7, "expected 0, 1 or nothing")),
        }
    } else {
        None
    };
    let site = if r.len() > 9 && !r[9].is_empty() {
        r[9].parse::<u32>().ok().filter(|&s| s != NO_SITE).ok_or_else(|| {
            field_err(9, "expected a site id (a non-negative integer below 2^32 - 1) or nothing")
        })?
    } else {
        NO_SITE
    };
    let wait = if r.len() > 8 && !r[8].is_empty() {
        let w = r[8].parse::<u32>().map_err(|e| {
            field_err(8, u32_problem(&e, "expected cycles as a non-negative integer, or nothing"))
        })?;
        if w > gap {
            return Err(field_err(
                8,
                &format!("expected at most the gap ({gap}): it is a point within the gap"),
            ));
        }
        Some(w)
    } else {
        None
    };
    Ok(Record { block, thread, step, op, addr, bytes, gap, dep, wait, site })
}

fn parse_addr(s: &str) -> Option<u32> {
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(hex) => u32::from_str_radix(hex, 16).ok(),
        None => s.parse().ok(),
    }
}

/// Writes a trace in the text format. The `gap` and `dep` columns are written when
/// `trace.has_timing_columns` is set or any record needs them, `wait` when a record has
/// one, and the site table and `site` column when the trace has a site table.
pub fn write<W: Write>(trace: &Trace, mut out: W) -> std::io::Result<()> {
    let columns = columns_for(trace);
    crate::site::write_table(&trace.sites, &mut out)?;
    write_header(columns, &mut out)?;
    write_records(&trace.records, columns, &mut out)?;
    out.flush()
}

/// The columns [`write`] gives `trace`: 10 with a site table, else 9 when a record has a
/// `wait`, 8 with timing, else 6.
pub fn columns_for(trace: &Trace) -> usize {
    let waits = trace.records.iter().any(|r| r.wait.is_some());
    let timing =
        waits || trace.has_timing_columns || trace.records.iter().any(|r| r.gap != 0 || r.dep.is_some());
    if trace.has_sites() {
        10
    } else if waits {
        9
    } else if timing {
        8
    } else {
        6
    }
}

/// Writes the header of a text trace of `columns` columns (6, 8, 9 or 10): for a writer
/// that streams records with [`write_records`] (a trace with sites writes its table
/// first, [`crate::site::write_table`]).
pub fn write_header<W: Write>(columns: usize, mut out: W) -> std::io::Result<()> {
    writeln!(out, "{}", COLUMNS[..columns].join(","))
}

/// Writes `records` as lines of `columns` columns (6: no timing; 8: `gap`, `dep`; 9:
/// and `wait`; 10: and `site`, which the records must fit: a gap or dep with 6 columns
/// is left out).
pub fn write_records<W: Write>(records: &[Record], columns: usize, mut out: W) -> std::io::Result<()> {
    for r in records {
        write!(out, "{},{},{},{},{},{}", r.block, r.thread, r.step, r.op, r.addr, r.bytes)?;
        if columns > 6 {
            let dep = match r.dep {
                None => "",
                Some(false) => "0",
                Some(true) => "1",
            };
            write!(out, ",{},{}", r.gap, dep)?;
        }
        if columns > 8 {
            match r.wait {
                Some(w) => write!(out, ",{w}")?,
                None => write!(out, ",")?,
            }
        }
        if columns > 9 {
            match r.site {
                NO_SITE => write!(out, ",")?,
                s => write!(out, ",{s}")?,
            }
        }
        writeln!(out)?;
    }
    Ok(())
}
