//! The text format: round trips, grouping, and every malformed line named precisely.

use proptest::prelude::*;
use sim_core::Op;
use traces::{text, GroupError, Record, Requests, Trace, TraceError};

fn record() -> impl Strategy<Value = Record> {
    (
        0u32..4,
        0u32..200,
        0u32..50,
        prop::sample::select(Op::ALL.to_vec()),
        any::<u32>(),
        prop::sample::select(vec![1u8, 2, 4, 8, 16]),
        prop::option::of(0u32..1000),
        prop::option::of(any::<bool>()),
        prop::option::of(any::<u32>()),
    )
        .prop_map(|(block, thread, step, op, addr, bytes, gap, dep, wait)| {
            // (a tensor-core op at one of its widths)
            let bytes =
                if op.allows_width(bytes) { bytes } else { op.widths()[bytes as usize % op.widths().len()] };
            let (addr, bytes) = if op == Op::Barrier { (0, 0) } else { (addr % (1 << 31), bytes) };
            let gap = gap.unwrap_or(0);
            // a wait is a point within the gap
            let wait = wait.map(|w| w % (gap + 1));
            Record { block, thread, step, op, addr, bytes, gap, dep, wait, site: traces::NO_SITE }
        })
}

proptest! {
    #[test]
    fn write_then_read_round_trips(mut records in prop::collection::vec(record(), 0..200)) {
        // a thread's second record for a step right after its first is refused on read
        records.dedup_by_key(|r| (r.block, r.thread, r.step));
        let mut trace = Trace::new("generated");
        for r in &records {
            trace.push(*r);
        }
        let mut buf = Vec::new();
        text::write(&trace, &mut buf).unwrap();
        let back = text::parse(buf.as_slice(), "roundtrip.csv").unwrap();
        prop_assert_eq!(&back.records, &trace.records);
        prop_assert_eq!(back.lines.len(), records.len());
    }

    #[test]
    fn a_repeated_record_is_refused_on_read(records in prop::collection::vec(record(), 1..50), at in any::<prop::sample::Index>(), block_bytes in 1usize..200) {
        let mut trace = Trace::new("generated");
        for r in &records {
            trace.push(*r);
        }
        let i = at.index(records.len());
        trace.records.insert(i + 1, Record { addr: 0, ..records[i] });
        let mut buf = Vec::new();
        text::write(&trace, &mut buf).unwrap();
        let err = text::parse(buf.as_slice(), "repeat.csv").unwrap_err().to_string();
        prop_assert!(err.contains("already has a record"), "{}", err);
        // the first repeat in the file, by its line and its first record's, wherever the
        // reader's blocks end (within one, or one ending between the two records)
        let first = trace.records.windows(2).position(|w| (w[0].block, w[0].thread, w[0].step) == (w[1].block, w[1].thread, w[1].step)).unwrap();
        let (line, first_line) = (first + 3, first + 2); // (line 1 is the header)
        prop_assert!(err.starts_with(&format!("repeat.csv:{line}:")) && err.contains(&format!("(line {first_line})")), "{}", err);
        let small = text::parse_in_blocks(buf.as_slice(), "repeat.csv", block_bytes).unwrap_err().to_string();
        prop_assert_eq!(small, err);
    }

    #[test]
    fn grouping_keeps_every_lane_once(records in prop::collection::vec(record(), 0..200), warp in prop::sample::select(vec![16u32, 32, 64])) {
        // make (block, thread, step) unique and ops/widths uniform per request
        let mut seen = std::collections::BTreeSet::new();
        let mut trace = Trace::new("generated");
        for r in records {
            if seen.insert((r.block, r.thread, r.step)) {
                trace.push(Record { op: Op::Load, bytes: 4, addr: r.addr & !3, ..r });
            }
        }
        let reqs = Requests::group(&trace, warp).unwrap();
        let lanes: usize = reqs.iter().map(|r| r.lanes.len()).sum();
        prop_assert_eq!(lanes, trace.len());
        for r in reqs.iter() {
            prop_assert!(r.lanes.windows(2).all(|w| w[0] < w[1]));
            prop_assert!(r.lanes.iter().all(|&l| (l as u32) < warp));
        }
    }
}

/// A reader that hands out its bytes in pieces of the given sizes, in turn.
struct Pieces<'a> {
    bytes: &'a [u8],
    sizes: Vec<usize>,
    turn: usize,
}

impl std::io::Read for Pieces<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let want = self.sizes[self.turn % self.sizes.len()].min(buf.len()).min(self.bytes.len());
        self.turn += 1;
        buf[..want].copy_from_slice(&self.bytes[..want]);
        self.bytes = &self.bytes[want..];
        Ok(want)
    }
}

/// The text of `records` with comment lines after the lines in `comments`, and, where
/// `bad` is given, one malformed line (from `BAD_LINES`) after record `bad.0`; and the
/// line of each record.
fn text_with(records: &[Record], comments: &[usize], bad: Option<(usize, usize)>) -> (Vec<u8>, Vec<u32>) {
    let mut trace = Trace::new("generated");
    for r in records {
        trace.push(*r);
    }
    let mut buf = Vec::new();
    text::write(&trace, &mut buf).unwrap();
    let text = String::from_utf8(buf).unwrap();
    let (mut out, mut lines, mut n) = (String::new(), Vec::new(), 0);
    for (i, line) in text.lines().enumerate() {
        out.push_str(line);
        out.push('\n');
        n += 1;
        if i > 0 {
            lines.push(n);
        }
        if comments.contains(&i) {
            out.push_str(if i % 2 == 0 { "# a comment, 0,0,0\n" } else { "\n" });
            n += 1;
        }
        if let Some((at, which)) = bad {
            if i == at + 1 {
                out.push_str(BAD_LINES[which % BAD_LINES.len()]);
                out.push('\n');
                n += 1;
            }
        }
    }
    (out.into_bytes(), lines)
}

/// Lines no header accepts as a record (each with 9 fields, as the written header has).
const BAD_LINES: [&str; 3] = ["0,0,0,load,0,4,0,,", "0,0,0,ld,0,3,0,,", "0,0"];

proptest! {
    /// Blocks cut at any line and reads of any size parse as one whole read does:
    /// the same records and lines, or the same first error.
    #[test]
    fn parsing_in_blocks_is_parsing_line_by_line(
        records in prop::collection::vec(record(), 1..120),
        comments in prop::collection::vec(0usize..120, 0..6),
        bad in prop::option::of((0usize..120, 0usize..3)),
        block in 1usize..300,
        sizes in prop::collection::vec(1usize..500, 1..4),
    ) {
        // (every record gets a wait, so the header has all 9 columns)
        let records: Vec<Record> = records.into_iter().map(|r| Record { wait: Some(r.wait.unwrap_or(0)), ..r }).collect();
        // a thread's second record for a step right after its first is an error too
        let repeat = records.windows(2).any(|w| (w[0].block, w[0].thread, w[0].step) == (w[1].block, w[1].thread, w[1].step));
        let (bytes, lines) = text_with(&records, &comments, bad);
        let whole = text::parse_in_blocks(bytes.as_slice(), "t.csv", 1 << 30);
        let cut = text::parse_in_blocks(Pieces { bytes: &bytes, sizes, turn: 0 }, "t.csv", block);
        match (whole, cut) {
            (Ok(a), Ok(b)) => {
                // (a bad line goes after record `at`: there is none past the last)
                prop_assert!(bad.is_none_or(|(at, _)| at >= records.len()) && !repeat);
                prop_assert_eq!(&a, &b);
                prop_assert_eq!(&a.records, &records);
                prop_assert_eq!(&a.lines, &lines);
            }
            (Err(a), Err(b)) => {
                prop_assert!(bad.is_some_and(|(at, _)| at < records.len()) || repeat);
                prop_assert_eq!(a.to_string(), b.to_string());
            }
            (a, b) => prop_assert!(false, "whole: {:?}\ncut: {:?}", a.map(|t| t.len()), b.map(|t| t.len())),
        }
    }
}

#[test]
fn tiny_blocks_and_reads() {
    let text = "block,thread,step,op,addr,bytes\n0,0,0,ld,0,4\n# c\n0,1,0,ld,4,4";
    for block in [1, 2, 5, 100] {
        for size in [1, 3, 1000] {
            let t = text::parse_in_blocks(
                Pieces { bytes: text.as_bytes(), sizes: vec![size], turn: 0 },
                "t.csv",
                block,
            )
            .unwrap();
            assert_eq!((t.len(), t.lines.clone()), (2, vec![2, 4]), "block {block} size {size}");
        }
    }
}

#[test]
fn a_line_after_many_blocks_is_named_with_its_number() {
    let mut text = String::from("block,thread,step,op,addr,bytes\n");
    for i in 0..5000 {
        text.push_str(&format!("{},{},0,ld,{},4\n", i / 256, i % 256, 4 * i));
    }
    text.push_str("# a comment\n7,0,0,ld,12,5\n");
    let e = text::parse_in_blocks(text.as_bytes(), "t.csv", 64).unwrap_err().to_string();
    assert!(e.contains("t.csv:5003") && e.contains("column 6 `bytes`"), "{e}");
    let good = text.strip_suffix("7,0,0,ld,12,5\n").unwrap();
    let t = text::parse_in_blocks(good.as_bytes(), "t.csv", 64).unwrap();
    assert_eq!((t.len(), t.lines[4999]), (5000, 5001));
}

#[test]
fn block_major_and_scattered_records_group_the_same() {
    // blocks in order, threads and steps shuffled within them; then the same records
    // with the blocks interleaved (the grouping's two ways of sorting)
    let mut rows = Vec::new();
    for block in 0..3u32 {
        for step in 0..3u32 {
            for thread in 0..70u32 {
                let addr = (block * 7 + step * 13 + thread * 5) % 64 * 4;
                rows.push(format!("{block},{thread},{step},ld,{addr},4"));
            }
        }
    }
    let shuffle = |v: &mut Vec<String>, seed: u64| {
        let mut x = seed;
        for i in (1..v.len()).rev() {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            v.swap(i, (x % (i as u64 + 1)) as usize);
        }
    };
    let mut major = Vec::new();
    for block in rows.chunks(210) {
        let mut b = block.to_vec();
        let seed = 0x9E37_79B9 + major.len() as u64;
        shuffle(&mut b, seed);
        major.extend(b);
    }
    let mut scattered = rows.clone();
    shuffle(&mut scattered, 42);
    let group = |rows: &[String]| {
        let text = format!("block,thread,step,op,addr,bytes\n{}\n", rows.join("\n"));
        Requests::group(&text::parse(text.as_bytes(), "t.csv").unwrap(), 32).unwrap()
    };
    // thread-major within each block (a per-thread log), with dense steps (a counting
    // sort by step) and with steps far apart (a comparison sort)
    let thread_major = |step_of: fn(u32) -> u32| {
        let mut v = Vec::new();
        for block in 0..3u32 {
            for thread in 0..70u32 {
                for step in 0..3u32 {
                    let addr = (block * 7 + step * 13 + thread * 5) % 64 * 4;
                    v.push(format!("{block},{thread},{},ld,{addr},4", step_of(step)));
                }
            }
        }
        v
    };
    let (dense, sparse) = (thread_major(|s| s), thread_major(|s| s * 100_000));
    let (a, b, c) = (group(&rows), group(&major), group(&scattered));
    let (d, e) = (group(&dense), group(&sparse));
    assert_eq!(a.len(), 3 * 3 * 3);
    assert_eq!((d.len(), e.len()), (a.len(), a.len()));
    for ((((x, y), z), u), v) in a.iter().zip(b.iter()).zip(c.iter()).zip(d.iter()).zip(e.iter()) {
        let key = |r: traces::RequestRef<'_>| (r.block, r.warp, r.step, r.lanes.to_vec(), r.addrs.to_vec());
        assert_eq!(key(x), key(y));
        assert_eq!(key(x), key(z));
        assert_eq!(key(x), key(u));
        assert_eq!(
            (x.block, x.warp, x.step * 100_000, x.lanes, x.addrs),
            (v.block, v.warp, v.step, v.lanes, v.addrs)
        );
    }
    // (lanes ascending, so each request's lanes came back in thread order)
    assert!(b.iter().all(|r| r.lanes.windows(2).all(|w| w[0] < w[1])));
}

#[test]
fn records_in_any_order_group_the_same() {
    let a = "block,thread,step,op,addr,bytes\n0,0,0,ld,0,4\n0,1,0,ld,4,4\n0,32,0,ld,8,4\n0,0,1,st,0,4\n";
    let b = "block,thread,step,op,addr,bytes\n0,0,1,st,0,4\n0,32,0,ld,8,4\n0,1,0,ld,4,4\n# c\n0,0,0,ld,0,4\n";
    let ga = Requests::group(&text::parse(a.as_bytes(), "a").unwrap(), 32).unwrap();
    let gb = Requests::group(&text::parse(b.as_bytes(), "b").unwrap(), 32).unwrap();
    assert_eq!(ga.len(), 3);
    for (x, y) in ga.iter().zip(gb.iter()) {
        assert_eq!(
            (x.block, x.warp, x.step, x.op, x.lanes, x.addrs),
            (y.block, y.warp, y.step, y.op, y.lanes, y.addrs)
        );
    }
    // the same trace on 16-lane warps: thread 32 is warp 2, lanes split differently
    let g16 = Requests::group(&text::parse(a.as_bytes(), "a").unwrap(), 16).unwrap();
    assert_eq!(g16.iter().map(|r| r.warp).collect::<Vec<_>>(), [0, 0, 2]);
}

#[test]
fn optional_gap_and_dep_columns() {
    let t = text::parse(
        "block,thread,step,op,addr,bytes,gap,dep\n0,0,0,ld,0x10,4,7,1\n0,0,1,ld,0,4,,\n".as_bytes(),
        "t",
    )
    .unwrap();
    assert_eq!((t.records[0].addr, t.records[0].gap, t.records[0].dep), (16, 7, Some(true)));
    assert_eq!((t.records[1].gap, t.records[1].dep), (0, None));
    let t = text::parse("block,thread,step,op,addr,bytes,gap\n0,0,0,ld,0,4,3\n".as_bytes(), "t").unwrap();
    assert_eq!(t.records[0].gap, 3);
}

/// Each malformed trace, and what its message must say.
const BAD_TRACES: &[(&str, &str, &[&str])] = &[
    ("empty file", "", &["t.csv", "empty trace", "header"]),
    ("only comments", "# nothing\n# here\n", &["t.csv", "empty trace"]),
    ("wrong header", "blk,thread,step,op,addr,bytes\n0,0,0,ld,0,4\n", &["t.csv:1", "bad header", "blk"]),
    ("header columns swapped", "block,thread,step,op,bytes,addr\n", &["t.csv:1", "bad header"]),
    (
        "too few fields",
        "block,thread,step,op,addr,bytes\n0,0,0,ld,0\n",
        &["t.csv:2", "expected 6 fields", "found 5"],
    ),
    (
        "too many fields",
        "block,thread,step,op,addr,bytes\n0,0,0,ld,0,4,9\n",
        &["t.csv:2", "expected 6 fields", "found 7"],
    ),
    (
        "non-numeric block",
        "block,thread,step,op,addr,bytes\nx,0,0,ld,0,4\n",
        &["t.csv:2", "column 1 `block`", "`x`", "non-negative integer"],
    ),
    (
        "negative thread",
        "block,thread,step,op,addr,bytes\n0,-1,0,ld,0,4\n",
        &["t.csv:2", "column 2 `thread`", "`-1`"],
    ),
    (
        "step too large",
        "block,thread,step,op,addr,bytes\n0,0,99999999999,ld,0,4\n",
        &["t.csv:2", "column 3 `step`"],
    ),
    (
        "unknown op",
        "block,thread,step,op,addr,bytes\n0,0,0,load,0,4\n",
        &[
            "t.csv:2",
            "column 4 `op`",
            "`load`",
            "ld, st, atom, red, bar, gld, gst, ldsm, stsm, ldgsts, ldgsts.cg",
        ],
    ),
    (
        "ldmatrix row of 8 bytes",
        "block,thread,step,op,addr,bytes\n0,0,0,ldsm,0,8\n",
        &["t.csv:2", "column 6 `bytes`", "`8`", "expected 16 bytes for `ldsm`"],
    ),
    (
        "cp.async of 2 bytes",
        "block,thread,step,op,addr,bytes\n0,0,0,ldgsts,0,2\n",
        &["t.csv:2", "column 6 `bytes`", "expected 4, 8 or 16 bytes for `ldgsts`"],
    ),
    (
        "cp.async.cg of 8 bytes",
        "block,thread,step,op,addr,bytes\n0,0,0,ldgsts.cg,0,8\n",
        &["t.csv:2", "column 6 `bytes`", "expected 16 bytes for `ldgsts.cg`"],
    ),
    (
        "bad hex address",
        "block,thread,step,op,addr,bytes\n0,0,0,ld,0xZZ,4\n",
        &["t.csv:2", "column 5 `addr`", "`0xZZ`", "0x hex"],
    ),
    (
        "address beyond 32 bits",
        "block,thread,step,op,addr,bytes\n0,0,0,ld,4294967296,4\n",
        &["t.csv:2", "column 5 `addr`"],
    ),
    (
        "address plus width overflows",
        "block,thread,step,op,addr,bytes\n0,0,0,ld,4294967295,4\n",
        &["t.csv:2", "`addr`", "overflows"],
    ),
    (
        "width 3",
        "block,thread,step,op,addr,bytes\n0,0,0,ld,0,3\n",
        &["t.csv:2", "column 6 `bytes`", "`3`", "1, 2, 4, 8 or 16"],
    ),
    ("width 32", "block,thread,step,op,addr,bytes\n0,0,0,st,0,32\n", &["t.csv:2", "`bytes`", "`32`"]),
    (
        "bad gap",
        "block,thread,step,op,addr,bytes,gap\n0,0,0,ld,0,4,soon\n",
        &["t.csv:2", "column 7 `gap`", "`soon`"],
    ),
    (
        "bad dep",
        "block,thread,step,op,addr,bytes,gap,dep\n0,0,0,ld,0,4,0,yes\n",
        &["t.csv:2", "column 8 `dep`", "0, 1 or nothing"],
    ),
    (
        "bad wait",
        "block,thread,step,op,addr,bytes,gap,dep,wait\n0,0,0,ld,0,4,5,1,later\n",
        &["t.csv:2", "column 9 `wait`", "`later`", "non-negative integer"],
    ),
    (
        "wait beyond the gap",
        "block,thread,step,op,addr,bytes,gap,dep,wait\n0,0,0,ld,0,4,5,1,6\n",
        &["t.csv:2", "column 9 `wait`", "`6`", "at most the gap (5)"],
    ),
    (
        "invalid utf-8",
        "block,thread,step,op,addr,bytes\n0,0,0,ld,\u{FFFD}0,4\n",
        &["t.csv:2", "column 5 `addr`"],
    ),
];

#[test]
fn malformed_traces_name_file_line_field_and_problem() {
    for (what, input, needles) in BAD_TRACES {
        let err = text::parse(input.as_bytes(), "t.csv").expect_err(what);
        let msg = err.to_string();
        for n in *needles {
            assert!(msg.contains(n), "{what}: message `{msg}` lacks `{n}`");
        }
    }
}

#[test]
fn raw_invalid_utf8_is_an_error_with_a_line() {
    let mut bytes = b"block,thread,step,op,addr,bytes\n0,0,0,ld,0,4\n0,0,1,ld,".to_vec();
    bytes.extend_from_slice(&[0xff, 0xfe]);
    bytes.extend_from_slice(b",4\n");
    let msg = text::parse(bytes.as_slice(), "t.csv").unwrap_err().to_string();
    assert!(msg.contains("t.csv:3") && msg.contains("UTF-8"), "{msg}");
}

fn group_err(input: &str) -> GroupError {
    let t = text::parse(input.as_bytes(), "g.csv").unwrap();
    Requests::group(&t, 32).unwrap_err()
}

#[test]
fn mixed_ops_in_one_request_are_named() {
    let msg = group_err("block,thread,step,op,addr,bytes\n0,0,0,ld,0,4\n0,1,0,st,4,4\n").to_string();
    for n in ["g.csv:3", "block 0 warp 0 step 0", "mixes ops", "`st`", "`ld` at line 2"] {
        assert!(msg.contains(n), "`{msg}` lacks `{n}`");
    }
}

#[test]
fn mixed_widths_in_one_request_are_named() {
    let msg = group_err("block,thread,step,op,addr,bytes\n0,0,0,ld,0,4\n0,5,0,ld,8,8\n").to_string();
    for n in ["g.csv:3", "mixes widths", "8 bytes here", "4 at line 2"] {
        assert!(msg.contains(n), "`{msg}` lacks `{n}`");
    }
}

#[test]
fn duplicate_thread_step_is_named() {
    let msg =
        group_err("block,thread,step,op,addr,bytes\n0,3,0,ld,0,4\n0,4,0,ld,0,4\n0,3,0,ld,8,4\n").to_string();
    for n in ["g.csv:4", "block 0 thread 3 step 0", "line 2"] {
        assert!(msg.contains(n), "`{msg}` lacks `{n}`");
    }
}

#[test]
fn bad_warp_size_is_refused() {
    let t = text::parse("block,thread,step,op,addr,bytes\n0,0,0,ld,0,4\n".as_bytes(), "t").unwrap();
    assert!(matches!(Requests::group(&t, 48), Err(GroupError::WarpSize { warp: 48 })));
}

#[test]
fn missing_file_and_directory_are_io_errors() {
    let e = text::read(std::path::Path::new("/nonexistent/trace.csv")).unwrap_err();
    assert!(matches!(e, TraceError::Io { .. }) && e.to_string().contains("/nonexistent/trace.csv"));
    let e = text::read(std::path::Path::new(env!("CARGO_MANIFEST_DIR"))).unwrap_err();
    assert!(e.to_string().contains("directory"), "{e}");
}

mod sites {
    use traces::{text, TraceError, NO_SITE};

    const WITH_SITES: &str = "# captured\n# site 0 k.wgsl:12:5\n# site 1 k.wgsl:14:22\n\
        block,thread,step,op,addr,bytes,gap,dep,wait,site\n\
        0,0,0,st,0,4,3,0,,0\n0,1,0,st,4,4,3,0,,0\n0,0,1,bar,0,0,0,,,\n0,0,2,ld,128,4,2,1,2,1\n";

    #[test]
    fn the_site_table_and_column_round_trip() {
        for block_bytes in [7, 1 << 20] {
            let t = text::parse_in_blocks(WITH_SITES.as_bytes(), "t.csv", block_bytes).unwrap();
            assert_eq!(t.sites, vec!["k.wgsl:12:5".to_string(), "k.wgsl:14:22".to_string()]);
            let sites: Vec<u32> = t.records.iter().map(|r| r.site).collect();
            assert_eq!(sites, vec![0, 0, NO_SITE, 1]);
            let general = text::parse_in_blocks_general(WITH_SITES.as_bytes(), "t.csv", block_bytes).unwrap();
            assert_eq!(general.records, t.records, "the fast path and the CSV reader agree");
            let mut out = Vec::new();
            text::write(&t, &mut out).unwrap();
            let back = text::parse(&out[..], "back.csv").unwrap();
            assert_eq!((back.records, back.sites), (t.records.clone(), t.sites.clone()));
        }
    }

    #[test]
    fn traces_without_sites_read_as_before() {
        let t = text::parse("block,thread,step,op,addr,bytes\n0,0,0,ld,4,4\n".as_bytes(), "old.csv").unwrap();
        assert!(!t.has_sites());
        assert_eq!(t.records[0].site, NO_SITE);
        let mut out = Vec::new();
        text::write(&t, &mut out).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), "block,thread,step,op,addr,bytes\n0,0,0,ld,4,4\n");
    }

    fn error(text: &str) -> String {
        let e = text::parse(text.as_bytes(), "t.csv").unwrap_err();
        assert!(matches!(e, TraceError::Field { .. } | TraceError::Site { .. }), "{e:?}");
        e.to_string()
    }

    #[test]
    fn a_bad_site_reference_names_file_line_and_field() {
        let head = "# site 0 k.wgsl:1:1\nblock,thread,step,op,addr,bytes,gap,dep,wait,site\n";
        let e = error(&format!("{head}0,0,0,ld,0,4,0,,,0\n0,1,0,ld,4,4,0,,,7\n"));
        assert_eq!(
            e,
            "t.csv:4: column 10 `site`: expected a site id of the table (0 to 0) or nothing, found `7`"
        );
        let e = error("block,thread,step,op,addr,bytes,gap,dep,wait,site\n0,0,0,ld,0,4,0,,,0\n");
        assert!(e.starts_with("t.csv:2: column 10 `site`: the trace has no site table"), "{e}");
        let e = error(&format!("{head}0,0,0,ld,0,4,0,,,x\n"));
        assert!(e.starts_with("t.csv:3: column 10 `site`: expected a site id"), "{e}");
        // the first bad line in the file, whatever the blocks
        let mut many = head.to_string();
        for t in 0..2000 {
            many += &format!("0,{t},0,ld,0,4,0,,,{}\n", if t == 1500 { 3 } else { 0 });
        }
        let e = text::parse_in_blocks(many.as_bytes(), "t.csv", 64).unwrap_err().to_string();
        assert!(e.starts_with("t.csv:1503: column 10 `site`"), "{e}");
    }

    #[test]
    fn a_bad_site_table_line_is_an_error() {
        let e = error("# site 1 k.wgsl:1:1\nblock,thread,step,op,addr,bytes\n");
        assert_eq!(e, "t.csv:1: site table: site ids must count up from 0 in order: expected 0, found 1");
        let e = error("# site zero k.wgsl:1:1\nblock,thread,step,op,addr,bytes\n");
        assert!(e.starts_with("t.csv:1: site table: expected `# site ID LABEL`"), "{e}");
        let e = error("# site 0\nblock,thread,step,op,addr,bytes\n");
        assert!(e.contains("the label is missing"), "{e}");
    }
}
