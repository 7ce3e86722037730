//! The text trace format: CSV with a header.
//!
//! ```text
//! block,thread,step,op,addr,bytes[,gap[,dep[,wait]]]
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
//! the access itself is the first use), empty when the gap does not use it. Records may
//! come in any order.

use crate::error::TraceError;
use crate::record::{Record, Trace};
use sim_core::{is_valid_width, Op};
use std::io::{Read, Write};
use std::path::Path;

const COLUMNS: [&str; 9] = ["block", "thread", "step", "op", "addr", "bytes", "gap", "dep", "wait"];

/// Reads a text trace from a file.
pub fn read(path: &Path) -> Result<Trace, TraceError> {
    let file = std::fs::File::open(path).map_err(|source| TraceError::Io { path: path.into(), source })?;
    if file.metadata().map(|m| m.is_dir()).unwrap_or(false) {
        return Err(TraceError::Io {
            path: path.into(),
            source: std::io::Error::other("is a directory, expected a trace file"),
        });
    }
    parse(std::io::BufReader::new(file), &path.display().to_string())
}

/// Parses a text trace from a reader; `name` is used in messages.
pub fn parse<R: Read>(reader: R, name: &str) -> Result<Trace, TraceError> {
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(false)
        .comment(Some(b'#'))
        .flexible(true)
        .trim(csv::Trim::All)
        .from_reader(reader);
    let mut trace = Trace::new(name);
    let mut record = csv::StringRecord::new();
    let mut columns = 0;
    loop {
        let more = rdr.read_record(&mut record).map_err(|e| csv_error(name, &e))?;
        if !more {
            break;
        }
        let line = record.position().map_or(0, |p| p.line());
        if columns == 0 {
            columns = header(&record, name, line)?;
            trace.has_timing_columns = columns > 6;
            continue;
        }
        if record.len() != columns {
            return Err(TraceError::FieldCount {
                file: name.into(),
                line,
                expected: columns,
                found: record.len(),
            });
        }
        trace.records.push(parse_record(&record, name, line)?);
        trace.lines.push(u32::try_from(line).unwrap_or(u32::MAX));
    }
    if columns == 0 {
        return Err(TraceError::Empty { file: name.into() });
    }
    Ok(trace)
}

fn csv_error(name: &str, e: &csv::Error) -> TraceError {
    let line = e.position().map_or(0, |p| p.line());
    let message = match e.kind() {
        csv::ErrorKind::Utf8 { .. } => "invalid UTF-8: a text trace must be plain text".to_string(),
        csv::ErrorKind::Io(io) => format!("cannot read: {io}"),
        _ => e.to_string(),
    };
    TraceError::Csv { file: name.into(), line, message }
}

fn header(record: &csv::StringRecord, name: &str, line: u64) -> Result<usize, TraceError> {
    let n = record.len();
    let ok = (6..=COLUMNS.len()).contains(&n) && record.iter().zip(COLUMNS).all(|(f, c)| f == c);
    if ok {
        Ok(n)
    } else {
        Err(TraceError::Header {
            file: name.into(),
            line,
            found: record.iter().collect::<Vec<_>>().join(","),
        })
    }
}

fn parse_record(r: &csv::StringRecord, name: &str, line: u64) -> Result<Record, TraceError> {
    let field_err = |column: usize, problem: &str| TraceError::Field {
        file: name.into(),
        line,
        column: column + 1,
        field: COLUMNS[column],
        value: r[column].to_string(),
        problem: problem.to_string(),
    };
    let int = |column: usize| -> Result<u32, TraceError> {
        r[column].parse::<u32>().map_err(|_| field_err(column, "expected a non-negative integer below 2^32"))
    };
    let block = int(0)?;
    let thread = int(1)?;
    let step = int(2)?;
    let op = Op::from_name(&r[3]).ok_or_else(|| field_err(3, "expected one of ld, st, atom, red, bar"))?;
    let (addr, bytes) = if op == Op::Barrier {
        (0, 0)
    } else {
        let addr = parse_addr(&r[4])
            .ok_or_else(|| field_err(4, "expected a byte address (decimal or 0x hex) below 2^32"))?;
        let bytes = r[5]
            .parse::<u8>()
            .ok()
            .filter(|&b| is_valid_width(b))
            .ok_or_else(|| field_err(5, "expected an access width of 1, 2, 4, 8 or 16 bytes"))?;
        if addr.checked_add(bytes as u32).is_none() {
            return Err(field_err(4, "address + width overflows 32 bits"));
        }
        (addr, bytes)
    };
    let gap = if r.len() > 6 && !r[6].is_empty() {
        r[6].parse::<u32>().map_err(|_| field_err(6, "expected cycles as a non-negative integer"))?
    } else {
        0
    };
    let dep = if r.len() > 7 {
        match &r[7] {
            "" => None,
            "0" => Some(false),
            "1" => Some(true),
            _ => return Err(field_err(7, "expected 0, 1 or nothing")),
        }
    } else {
        None
    };
    let wait = if r.len() > 8 && !r[8].is_empty() {
        let w = r[8]
            .parse::<u32>()
            .map_err(|_| field_err(8, "expected cycles as a non-negative integer, or nothing"))?;
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
    Ok(Record { block, thread, step, op, addr, bytes, gap, dep, wait })
}

fn parse_addr(s: &str) -> Option<u32> {
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(hex) => u32::from_str_radix(hex, 16).ok(),
        None => s.parse().ok(),
    }
}

/// Writes a trace in the text format. The `gap` and `dep` columns are written when
/// `trace.has_timing_columns` is set or any record needs them, `wait` when a record has
/// one.
pub fn write<W: Write>(trace: &Trace, mut out: W) -> std::io::Result<()> {
    let waits = trace.records.iter().any(|r| r.wait.is_some());
    let timing =
        waits || trace.has_timing_columns || trace.records.iter().any(|r| r.gap != 0 || r.dep.is_some());
    let columns = if waits {
        9
    } else if timing {
        8
    } else {
        6
    };
    writeln!(out, "{}", COLUMNS[..columns].join(","))?;
    for r in &trace.records {
        write!(out, "{},{},{},{},{},{}", r.block, r.thread, r.step, r.op, r.addr, r.bytes)?;
        if timing {
            let dep = match r.dep {
                None => "",
                Some(false) => "0",
                Some(true) => "1",
            };
            write!(out, ",{},{}", r.gap, dep)?;
        }
        if waits {
            match r.wait {
                Some(w) => write!(out, ",{w}")?,
                None => write!(out, ",")?,
            }
        }
        writeln!(out)?;
    }
    out.flush()
}
