//! The binary trace format: write-then-read round trips (records, and warp requests for
//! every warp size against `Requests::group`), and corrupt or truncated files.

use proptest::prelude::*;
use sim_core::LaneAddrs;
use sim_core::Op;
use traces::binary::{
    self, Attrs, BinaryError, Chunk, Group, LaneAttr, RawChunk, Reader, WriteError, Writer,
};
use traces::{text, Record, Requests, Trace};

/// The tensor-core ops and format version 4.
mod tensor_ops;

/// Records sorted the way the binary format stores them, to compare as multisets.
fn sorted(trace: &Trace) -> Vec<Record> {
    let mut r = trace.records.clone();
    r.sort_by_key(|r| (r.block, r.thread, r.step));
    r
}

fn to_bytes(trace: &Trace, chunk_lanes: u32) -> Vec<u8> {
    binary::write_chunked(trace, Vec::new(), chunk_lanes).expect("a writable trace")
}

/// Every warp request of the binary trace for `warp`, or the first error, as strings
/// (so that the two paths compare field by field).
fn binary_requests(bytes: &[u8], warp: u32, lazy: bool) -> Result<Vec<String>, String> {
    let mut reader = Reader::new(bytes, "t.bsim", Some(bytes.len() as u64)).map_err(|e| e.to_string())?;
    let (mut raw, mut chunk) = (RawChunk::default(), Chunk::default());
    let mut out = Vec::new();
    while reader.next_chunk(&mut raw).map_err(|e| e.to_string())? {
        if lazy {
            raw.decode_lazy(&mut chunk).map_err(|e| e.to_string())?;
        } else {
            raw.decode(&mut chunk).map_err(|e| e.to_string())?;
        }
        chunk.split(warp).map_err(|e| e.to_string())?;
        out.extend(chunk.iter().map(|r| {
            format!(
                "{} {} {} {} {} {} {:?} {:?} {:?} {:?}",
                r.block, r.warp, r.step, r.op, r.bytes, r.gap, r.dep, r.wait, r.lanes, r.addrs
            )
        }));
    }
    Ok(out)
}

/// The warp requests of [`Chunk::for_each_masked`] after a lazy decode, affine ones
/// written out, sorted (they come in group order); `None` where a chunk has per-lane
/// attributes.
fn masked_requests(bytes: &[u8], warp: u32) -> Result<Option<Vec<String>>, String> {
    let mut reader = Reader::new(bytes, "t.bsim", Some(bytes.len() as u64)).map_err(|e| e.to_string())?;
    let (mut raw, mut chunk) = (RawChunk::default(), Chunk::default());
    let mut out = Vec::new();
    while reader.next_chunk(&mut raw).map_err(|e| e.to_string())? {
        raw.decode_lazy(&mut chunk).map_err(|e| e.to_string())?;
        let done = chunk
            .for_each_masked(warp, |w| {
                let r = &w.request;
                let lanes: Vec<u16> = (0..64).filter(|l| r.mask >> l & 1 == 1).collect();
                let addrs: Vec<u32> = match r.addrs {
                    LaneAddrs::Listed(a) => a.to_vec(),
                    LaneAddrs::Affine { first, stride } => lanes
                        .iter()
                        .map(|&l| (first as i64 + stride * (l - lanes[0]) as i64) as u32)
                        .collect(),
                    LaneAddrs::Tile { origin, steps } => lanes
                        .iter()
                        .map(|&l| {
                            let sum: i64 = (0..6).filter(|j| l >> j & 1 == 1).map(|j| steps[j] as i64).sum();
                            (origin as i64 + sum) as u32
                        })
                        .collect(),
                };
                out.push(format!(
                    "{} {} {} {} {} {:?} {:?}",
                    w.block, w.warp, w.step, r.op, r.bytes, lanes, addrs
                ));
                Ok::<_, BinaryError>(())
            })
            .map_err(|e| e.to_string())?;
        if !done {
            return Ok(None);
        }
    }
    out.sort();
    Ok(Some(out))
}

fn text_requests(trace: &Trace, warp: u32) -> Result<Vec<String>, String> {
    let reqs = Requests::group(trace, warp).map_err(|e| e.to_string())?;
    Ok(reqs
        .iter()
        .map(|r| {
            format!(
                "{} {} {} {} {} {} {:?} {:?} {:?} {:?}",
                r.block, r.warp, r.step, r.op, r.bytes, r.gap, r.dep, r.wait, r.lanes, r.addrs
            )
        })
        .collect())
}

/// A random trace: a few blocks and up to 200 threads (several 64-thread slices), steps
/// with one instruction per warp or mixed per thread, addresses in the shapes the
/// encoder special-cases (affine, repeated, zero, tiles: rows of a power-of-two number
/// of threads, lane pairs or quads on one element) and random ones.
fn trace() -> impl Strategy<Value = Trace> {
    let rec = (0u32..3, 0u32..200, 0u32..6, 0u8..11, 0u32..5, any::<u32>(), 0u32..3, 0u8..3, 0u32..10);
    (prop::collection::vec(rec, 0..300), 0u8..3, 0u8..6).prop_map(|(recs, columns, style)| {
        // columns 0: none, 1: gap and dep, 2: with waits as well
        let timing = columns > 0;
        let mut t = Trace::new("random");
        t.has_timing_columns = timing;
        let mut seen = std::collections::HashSet::new();
        for (block, thread, step, op, w, r, gap, dep, wait) in recs {
            if !seen.insert((block, thread, step)) {
                continue;
            }
            // style 0: one instruction per (block, step); otherwise per thread (the
            // tensor-core ops too, at their widths)
            let op = Op::ALL[if style == 0 { (step % 7) as usize } else { op as usize }];
            let bytes = match op {
                Op::Barrier => 0,
                _ if style == 0 => 4,
                _ => op.widths()[w as usize % op.widths().len()],
            };
            let addr = match (op, style) {
                (Op::Barrier, _) => 0,
                (_, 0 | 1) => (thread * (step + 1) * bytes as u32) % 65536,
                (_, 2) => step * 4,
                (_, 3) => r % (u32::MAX - 16),
                // a tile: rows of 2^k threads, `pitch` bytes apart
                (_, 4) => {
                    let k = step % 7;
                    let pitch = [4, 128, 132, 36, 1000][(block + step) as usize % 5];
                    (thread % (1 << k)) * bytes as u32 + (thread >> k) * pitch + step * 64
                }
                // lane pairs or quads on one element, or a tile going down
                _ => match step % 3 {
                    0 => (thread >> (1 + block % 2)) * bytes as u32 + 256,
                    1 => 60_000 - (thread % 8) * 16 - (thread / 8) * 128,
                    _ => (thread % 4) * 4 + (thread / 32) * 512,
                },
            };
            let (gap, dep) =
                if timing { (gap * 7, [None, Some(false), Some(true)][dep as usize]) } else { (0, None) };
            // a wait within the gap for most records, none for some
            let wait = (columns == 2 && wait < 8).then(|| wait % (gap + 1));
            t.push(Record { block, thread, step, op, addr, bytes, gap, dep, wait, site: traces::NO_SITE });
        }
        t
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn round_trip_keeps_records(t in trace(), chunk_lanes in 1u32..200) {
        let bytes = to_bytes(&t, chunk_lanes);
        let back = binary::parse(&bytes[..], "t.bsim").unwrap();
        prop_assert_eq!(sorted(&back), sorted(&t));
        prop_assert_eq!(back.has_timing_columns, t.has_timing_columns);
        // and the text format of the round trip reads back the same records
        let mut csv = Vec::new();
        text::write(&back, &mut csv).unwrap();
        let again = text::parse(&csv[..], "t.csv").unwrap();
        prop_assert_eq!(sorted(&again), sorted(&t));
    }

    #[test]
    fn chunk_requests_equal_grouped_requests_for_every_warp_size(t in trace(), chunk_lanes in 1u32..200) {
        let bytes = to_bytes(&t, chunk_lanes);
        for warp in [1, 2, 4, 8, 16, 32, 64] {
            let a = text_requests(&t, warp);
            let b = binary_requests(&bytes, warp, false);
            prop_assert_eq!(&binary_requests(&bytes, warp, true), &b, "lazy decode, warp {}", warp);
            match (&a, &b) {
                (Ok(a), Ok(b)) => prop_assert_eq!(a, b, "warp {}", warp),
                // a warp that mixes ops or widths is an error on both paths
                (Err(ea), Err(eb)) => prop_assert!(ea.contains("mixes") && eb.contains("mixes"), "{} / {}", ea, eb),
                _ => prop_assert!(false, "warp {}: text {:?} binary {:?}", warp, a.as_ref().err(), b.as_ref().err()),
            }
            // lane masks and affine addresses: the same requests, unless a group has
            // per-lane attributes (then `split` is the way)
            match (masked_requests(&bytes, warp), &b) {
                (Ok(Some(m)), Ok(b)) => {
                    let mut want: Vec<String> = b.iter().map(|r| without_timing(r)).collect();
                    want.sort();
                    prop_assert_eq!(m, want, "masked requests, warp {}", warp);
                }
                (Ok(None), _) => prop_assert!(t.has_timing_columns || has_mixed_steps(&t)),
                (m, b) => prop_assert!(false, "warp {}: masked {:?} split {:?}", warp, m.err(), b.as_ref().err()),
            }
        }
    }

    #[test]
    fn lazy_decode_keeps_records(t in trace(), chunk_lanes in 1u32..200) {
        let bytes = to_bytes(&t, chunk_lanes);
        let mut reader = Reader::new(&bytes[..], "t.bsim", None).unwrap();
        let (mut raw, mut chunk) = (RawChunk::default(), Chunk::default());
        let mut back = Trace::new("back");
        while reader.next_chunk(&mut raw).unwrap() {
            raw.decode_lazy(&mut chunk).unwrap();
            chunk.push_records(&mut back);
        }
        prop_assert_eq!(sorted(&back), sorted(&t));
    }
}

/// A request line of `binary_requests` without its gap, dep and wait.
fn without_timing(line: &str) -> String {
    // block warp step op bytes gap dep wait [lanes] [addrs]
    let f: Vec<&str> = line.splitn(9, ' ').collect();
    format!("{} {} {} {} {} {}", f[0], f[1], f[2], f[3], f[4], f[8])
}

/// Whether some (block, step) of `t` mixes ops or widths among its threads (then the
/// writer stores per-lane attributes).
fn has_mixed_steps(t: &Trace) -> bool {
    let mut first = std::collections::HashMap::new();
    t.records
        .iter()
        .any(|r| *first.entry((r.block, r.thread / 64, r.step)).or_insert((r.op, r.bytes)) != (r.op, r.bytes))
}

/// A small trace of several chunks: 3 blocks x 128 threads x 4 steps.
fn sample() -> Trace {
    let mut t = Trace::new("sample");
    for block in 0..3 {
        for thread in 0..128 {
            for step in 0..4 {
                let op = if step == 2 { Op::Barrier } else { Op::Load };
                let (addr, bytes) = match (op, step) {
                    (Op::Barrier, _) => (0, 0),
                    // a tile of 8-thread rows 132 bytes apart
                    (_, 3) => ((thread % 8) * 4 + (thread / 8) * 132, 4),
                    _ => (thread * 4 * (step + 1), 4),
                };
                t.push(Record {
                    block,
                    thread,
                    step,
                    op,
                    addr,
                    bytes,
                    gap: 0,
                    dep: None,
                    wait: None,
                    site: traces::NO_SITE,
                });
            }
        }
    }
    t
}

fn parse_err(bytes: &[u8]) -> BinaryError {
    // through the reader with the length known, and without
    let with_len = Reader::new(bytes, "t.bsim", Some(bytes.len() as u64)).and_then(|mut r| {
        let (mut raw, mut chunk) = (RawChunk::default(), Chunk::default());
        while r.next_chunk(&mut raw)? {
            raw.decode(&mut chunk)?;
            chunk.split(32)?;
        }
        Ok(())
    });
    let without = binary::parse(bytes, "t.bsim");
    assert!(with_len.is_err(), "accepted with the length known");
    without.expect_err("accepted")
}

#[test]
fn every_truncation_is_an_error_naming_the_file_and_offset() {
    let bytes = to_bytes(&sample(), 100);
    for len in 0..bytes.len() {
        let e = parse_err(&bytes[..len]);
        let msg = e.to_string();
        assert!(msg.starts_with("t.bsim: "), "{msg}");
        match e {
            BinaryError::Magic { .. } => assert!(len < 8, "len {len}: {msg}"),
            BinaryError::Truncated { offset, .. } => assert_eq!(offset, len as u64, "{msg}"),
            other => panic!("len {len}: expected a truncation, got {other}"),
        }
    }
}

#[test]
fn every_flipped_byte_is_an_error() {
    let bytes = to_bytes(&sample(), 100);
    assert!(binary::parse(&bytes[..], "t.bsim").is_ok());
    for i in 0..bytes.len() {
        for flip in [0x01u8, 0x80, 0xFF] {
            let mut b = bytes.clone();
            b[i] ^= flip;
            let msg = parse_err(&b).to_string();
            assert!(msg.starts_with("t.bsim: ") && (msg.contains("byte") || msg.contains("magic")), "{msg}");
        }
    }
}

#[test]
fn checksum_error_names_the_chunk_offset() {
    let bytes = to_bytes(&sample(), 100);
    // the payload of the first chunk starts after the 20-byte header and 72-byte chunk header
    let mut b = bytes.clone();
    b[20 + 72 + 3] ^= 0x10;
    match parse_err(&b) {
        BinaryError::Corrupt { offset, problem, .. } => {
            assert_eq!(offset, 20);
            assert!(problem.contains("checksum mismatch in chunk 0"), "{problem}");
        }
        e => panic!("{e}"),
    }
}

#[test]
fn a_header_claiming_more_groups_than_its_payload_holds_is_refused_before_decoding() {
    // a crafted chunk whose checksum is right but whose group and lane counts would size
    // the decoder's buffers far beyond the bytes present
    let bytes = to_bytes(&sample(), 100);
    let h = 20; // chunk header: tag, groups, lanes, first 3, last 3, 8 column lengths, crc
    let word = |b: &[u8], i: usize| u32::from_le_bytes(b[h + 4 * i..h + 4 * i + 4].try_into().unwrap());
    let payload: usize = (9..17).map(|i| word(&bytes, i) as usize).sum();
    let mut b = bytes.clone();
    b[h + 4..h + 8].copy_from_slice(&(1u32 << 30).to_le_bytes());
    b[h + 8..h + 12].copy_from_slice(&u32::MAX.to_le_bytes());
    let mut crc = crc32fast::Hasher::new();
    crc.update(&b[h..h + 68]);
    crc.update(&b[h + 72..h + 72 + payload]);
    b[h + 68..h + 72].copy_from_slice(&crc.finalize().to_le_bytes());
    match parse_err(&b) {
        BinaryError::Corrupt { offset, problem, .. } => {
            assert_eq!(offset, 20);
            assert!(problem.contains("implausible chunk header"), "{problem}");
        }
        e => panic!("{e}"),
    }
}

#[test]
fn fuzz_found_packed_shift_of_32_is_an_error_not_a_panic() {
    // found by `fuzz/run_all.sh` (binary_trace, after 11.6 M runs): packed addresses with
    // 0 bits shifted by 32 overflowed a u32 shift (a panic in debug builds)
    let bytes =
        std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/fuzz_packed_shift32.bsim")).unwrap();
    let msg = parse_err(&bytes).to_string();
    assert!(msg.starts_with("t.bsim: ") && msg.contains("byte"), "{msg}");
}

#[test]
fn a_chunk_that_fails_to_decode_leaves_no_groups() {
    // a chunk reused after a good decode, then given one whose payload is corrupt (its
    // checksum matches)
    let good = to_bytes(&sample(), 100);
    let bad =
        std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/fuzz_packed_shift32.bsim")).unwrap();
    let (mut raw, mut chunk) = (RawChunk::default(), Chunk::default());
    for lazy in [false, true] {
        let mut r = Reader::new(&good[..], "good.bsim", None).unwrap();
        assert!(r.next_chunk(&mut raw).unwrap());
        raw.decode(&mut chunk).unwrap();
        assert!(chunk.groups() > 0 && chunk.records() > 0);
        let mut r = Reader::new(&bad[..], "bad.bsim", None).unwrap();
        assert!(r.next_chunk(&mut raw).unwrap());
        let e = if lazy { raw.decode_lazy(&mut chunk) } else { raw.decode(&mut chunk) };
        assert!(matches!(e, Err(BinaryError::Corrupt { .. })), "{e:?}");
        assert_eq!((chunk.groups(), chunk.records()), (0, 0), "lazy {lazy}");
        chunk.split(32).unwrap();
        assert_eq!(chunk.len(), 0);
    }
}

#[test]
fn text_is_not_binary_and_a_future_version_is_refused() {
    let e = parse_err(b"block,thread,step,op,addr,bytes\n0,0,0,ld,0,4\n");
    assert!(matches!(e, BinaryError::Magic { .. }), "{e}");
    let mut b = to_bytes(&sample(), 100);
    b[8] = 5;
    match parse_err(&b) {
        BinaryError::Unsupported { offset: 8, what: "version", found: 5, .. } => {}
        e => panic!("{e}"),
    }
}

#[test]
fn trailing_data_duplicated_and_reordered_chunks_are_errors() {
    let t = sample();
    let bytes = to_bytes(&t, 100);
    let mut b = bytes.clone();
    b.push(0);
    assert!(parse_err(&b).to_string().contains("data after the end marker"));
    // chunk boundaries: walk the chunk headers
    let mut chunks = Vec::new();
    let mut at = 20;
    while &bytes[at..at + 4] == b"CHNK" {
        let payload: u32 = (0..8)
            .map(|c| u32::from_le_bytes(bytes[at + 36 + 4 * c..at + 40 + 4 * c].try_into().unwrap()))
            .sum();
        chunks.push(at..at + 72 + payload as usize);
        at += 72 + payload as usize;
    }
    assert!(chunks.len() >= 3, "{} chunks", chunks.len());
    let end = &bytes[at..];
    // the second chunk twice
    let mut dup = bytes[..chunks[1].end].to_vec();
    dup.extend_from_slice(&bytes[chunks[1].clone()]);
    dup.extend_from_slice(&bytes[chunks[2].start..]);
    let msg = parse_err(&dup).to_string();
    assert!(msg.contains("not after the previous chunk"), "{msg}");
    // the first two chunks swapped
    let mut swapped = bytes[..20].to_vec();
    swapped.extend_from_slice(&bytes[chunks[1].clone()]);
    swapped.extend_from_slice(&bytes[chunks[0].clone()]);
    swapped.extend_from_slice(&bytes[chunks[2].start..]);
    assert!(parse_err(&swapped).to_string().contains("not after the previous chunk"));
    // a chunk dropped: the end marker's totals disagree
    let mut dropped = bytes[..chunks[1].start].to_vec();
    dropped.extend_from_slice(&bytes[chunks[2].start..at]);
    dropped.extend_from_slice(end);
    assert!(parse_err(&dropped).to_string().contains("the end marker counts"));
}

#[test]
fn a_warp_mixing_ops_is_an_error_at_that_warp_size_only() {
    let mut t = Trace::new("mixed");
    for thread in 0..64 {
        let op = if thread < 32 { Op::Load } else { Op::Store };
        t.push(Record {
            block: 0,
            thread,
            step: 0,
            op,
            addr: thread * 4,
            bytes: 4,
            gap: 0,
            dep: None,
            wait: None,
            site: traces::NO_SITE,
        });
    }
    let bytes = to_bytes(&t, 100);
    assert_eq!(binary_requests(&bytes, 32, true).unwrap().len(), 2);
    let e = binary_requests(&bytes, 64, true).unwrap_err();
    assert!(e.contains("block 0 warp 0 step 0 mixes ops: `ld` and `st`"), "{e}");
}

#[test]
fn writer_refuses_duplicates_and_disorder() {
    let mut t = sample();
    let r = t.records[5];
    t.push(r);
    assert!(matches!(binary::write(&t, Vec::new()), Err(WriteError::Duplicate { .. })));
    let mut w = Writer::new(Vec::new(), "w", false).unwrap();
    let a = LaneAttr { op: Op::Load, bytes: 4, gap: 0, dep: None, wait: None, site: traces::NO_SITE };
    let g = |step| Group { block: 0, slice: 0, step, mask: 1, attrs: Attrs::Uniform(a), addrs: &[0] };
    w.push(&g(1)).unwrap();
    assert!(matches!(w.push(&g(1)), Err(WriteError::Invalid { .. })));
    assert!(matches!(w.push(&g(0)), Err(WriteError::Invalid { .. })));
    let bad = LaneAttr { op: Op::Load, bytes: 3, gap: 0, dep: None, wait: None, site: traces::NO_SITE };
    let e = w.push(&Group { block: 0, slice: 0, step: 2, mask: 1, attrs: Attrs::Uniform(bad), addrs: &[0] });
    assert!(matches!(e, Err(WriteError::Invalid { .. })));
    // a wait needs a writer with waits, and lies within its gap
    let waited = LaneAttr { gap: 5, wait: Some(5), ..a };
    let g2 = Group { block: 0, slice: 0, step: 2, mask: 1, attrs: Attrs::Uniform(waited), addrs: &[0] };
    assert!(matches!(w.push(&g2), Err(WriteError::Invalid { .. })), "wait in a file without waits");
    let mut ww = Writer::with_waits(Vec::new(), "ww").unwrap();
    ww.push(&g2).unwrap();
    let beyond = LaneAttr { wait: Some(6), ..waited };
    let e = ww.push(&Group { step: 3, attrs: Attrs::Uniform(beyond), ..g2 });
    assert!(matches!(e, Err(WriteError::Invalid { .. })), "wait beyond the gap");
    let e = w.push(&Group { block: 0, slice: 0, step: 2, mask: 3, attrs: Attrs::Uniform(a), addrs: &[0] });
    assert!(matches!(e, Err(WriteError::Invalid { .. })), "two lanes, one address");
    // address + width past 2^32 on any lane of a uniform group, not only the first
    let over = [0, u32::MAX - 2, 8];
    for (mask, addrs) in [(0b111, &over[..]), (0b11, &over[..2]), (0b11, &over[1..])] {
        let e = w.push(&Group { block: 0, slice: 0, step: 2, mask, attrs: Attrs::Uniform(a), addrs });
        assert!(matches!(e, Err(WriteError::Invalid { .. })), "{addrs:?}: the last byte past 2^32");
    }
    let fits = [0, u32::MAX - 3, 8];
    w.push(&Group { block: 0, slice: 0, step: 2, mask: 0b111, attrs: Attrs::Uniform(a), addrs: &fits })
        .unwrap();
}

/// A trace of one 64-lane group of 16-byte loads of a tile: rows of 8 lanes, 144 bytes
/// apart (a float4 load of a 36-float-pitch tile), and the offset of its chunk header.
fn one_tile() -> (Vec<u8>, usize) {
    let mut t = Trace::new("tile");
    for thread in 0..64 {
        let addr = (thread % 8) * 16 + (thread / 8) * 144;
        t.push(Record {
            block: 0,
            thread,
            step: 0,
            op: Op::Load,
            addr,
            bytes: 16,
            gap: 0,
            dep: None,
            wait: None,
            site: traces::NO_SITE,
        });
    }
    (to_bytes(&t, binary::CHUNK_LANES), 20)
}

/// The chunk at `h` with its checksum made right again after an edit.
fn fix_checksum(b: &mut [u8], h: usize) {
    let word = |b: &[u8], i: usize| u32::from_le_bytes(b[h + 4 * i..h + 4 * i + 4].try_into().unwrap());
    let payload: usize = (9..17).map(|i| word(b, i) as usize).sum();
    let mut crc = crc32fast::Hasher::new();
    crc.update(&b[h..h + 68]);
    crc.update(&b[h + 72..h + 72 + payload]);
    b[h + 68..h + 72].copy_from_slice(&crc.finalize().to_le_bytes());
}

#[test]
fn a_tile_takes_a_step_per_lane_bit_and_bad_steps_are_errors() {
    let (bytes, h) = one_tile();
    let word = |b: &[u8], i: usize| u32::from_le_bytes(b[h + 4 * i..h + 4 * i + 4].try_into().unwrap());
    // the address column: lane 0 at 0 (zigzag 0), steps of bits 0-5 (0x3F): 16, 32, 64
    // (one byte each, zigzagged) and 144, 288, 576 (two bytes each)
    let addr_at = h + 72 + (9..16).map(|i| word(&bytes, i) as usize).sum::<usize>();
    let mode_at = addr_at - word(&bytes, 15) as usize;
    assert_eq!(bytes[mode_at], 5, "address mode");
    assert_eq!(
        &bytes[addr_at..addr_at + word(&bytes, 16) as usize],
        &[0x00, 0x3F, 32, 64, 128, 1, 160, 2, 192, 4, 128, 9][..]
    );
    // read back, lazily (as the tile) and written out
    let back = binary::parse(&bytes[..], "t.bsim").unwrap();
    let addrs: Vec<u32> = back.records.iter().map(|r| r.addr).collect();
    assert_eq!(addrs, (0..64).map(|t| (t % 8) * 16 + (t / 8) * 144).collect::<Vec<_>>());
    assert_eq!(masked_requests(&bytes, 64).unwrap().unwrap().len(), 1);
    // a step for lane bit 6, a first step of -17 (lane 1 below 0), a step beyond 32 bits
    let cases: [(usize, &[u8], &str); 3] = [
        (1, &[0x7F], "tile step bits 0x7f beyond lane bit 5"),
        (2, &[33], "tile addresses outside 0..2^32"),
        (2, &[0x80, 0x80, 0x80, 0x80, 0x20], "beyond 32 bits"),
    ];
    for (at, patch, want) in cases {
        let mut b = bytes[..addr_at + at].to_vec();
        b.extend_from_slice(patch);
        b.extend_from_slice(&bytes[addr_at + at + 1..]);
        let grow = patch.len() as u32 - 1;
        let len = word(&b, 16) + grow;
        b[h + 64..h + 68].copy_from_slice(&len.to_le_bytes());
        fix_checksum(&mut b, h);
        let msg = parse_err(&b).to_string();
        assert!(msg.contains(want) && msg.contains("column `addr`"), "{want}: {msg}");
    }
}

#[test]
fn a_tile_of_a_seen_shape_is_checked_like_any_other() {
    // three groups of `one_tile`'s shape at 0, 64 and 0: the second and third take the
    // first one's steps as the decoder remembered them
    let mut t = Trace::new("tiles");
    for (step, origin) in [0u32, 64, 0].into_iter().enumerate() {
        for thread in 0..64 {
            let addr = origin + (thread % 8) * 16 + (thread / 8) * 144;
            let (step, op) = (step as u32, Op::Load);
            t.push(Record {
                block: 0,
                thread,
                step,
                op,
                addr,
                bytes: 16,
                gap: 0,
                dep: None,
                wait: None,
                site: traces::NO_SITE,
            });
        }
    }
    let (bytes, h) = (to_bytes(&t, binary::CHUNK_LANES), 20);
    let back = binary::parse(&bytes[..], "t.bsim").unwrap();
    assert_eq!(sorted(&back), sorted(&t));
    let word = |b: &[u8], i: usize| u32::from_le_bytes(b[h + 4 * i..h + 4 * i + 4].try_into().unwrap());
    let addr_at = h + 72 + (9..16).map(|i| word(&bytes, i) as usize).sum::<usize>();
    // the address column: lane 0's address (zigzag: 0, then 64 as 0x80 0x01, then -64 as
    // 0x7F), the step bits and the same ten step bytes each time
    let steps = [0x3F, 32, 64, 128, 1, 160, 2, 192, 4, 128, 9];
    let column = [&[0x00][..], &steps, &[0x80, 0x01], &steps, &[0x7F], &steps].concat();
    assert_eq!(&bytes[addr_at..addr_at + word(&bytes, 16) as usize], &column[..]);
    // the second group moved to 2^32 - 100: its steps reach beyond 2^32
    let far = [0xB8, 0xFE, 0xFF, 0xFF, 0x1F]; // zigzag(2^32 - 100), as a varint
    let mut b = bytes[..addr_at + 12].to_vec();
    b.extend_from_slice(&far);
    b.extend_from_slice(&bytes[addr_at + 14..]);
    let len = word(&b, 16) + 3;
    b[h + 64..h + 68].copy_from_slice(&len.to_le_bytes());
    fix_checksum(&mut b, h);
    // (found at the second group: its steps end 5 + 1 + 10 bytes into it)
    match parse_err(&b) {
        BinaryError::Corrupt { offset, problem, .. } => {
            assert!(problem.contains("tile addresses outside 0..2^32"), "{problem}");
            assert_eq!(offset, (addr_at + 12 + 16) as u64, "{problem}");
        }
        e => panic!("{e}"),
    }
}

#[test]
fn strided_warps_take_a_few_bytes_per_request() {
    // 64 blocks x 256 threads x 16 steps of 4-byte loads at base + 4 * thread: affine
    let mut t = Trace::new("strided");
    for block in 0..64 {
        for thread in 0..256 {
            for step in 0..16 {
                t.push(Record {
                    block,
                    thread,
                    step,
                    op: Op::Load,
                    addr: step * 1024 + thread * 4,
                    bytes: 4,
                    gap: 0,
                    dep: None,
                    wait: None,
                    site: traces::NO_SITE,
                });
            }
        }
    }
    let bytes = to_bytes(&t, binary::CHUNK_LANES);
    let mut csv = Vec::new();
    text::write(&t, &mut csv).unwrap();
    let groups = 64 * 4 * 16;
    assert!(bytes.len() < groups * 16, "{} bytes for {groups} groups", bytes.len());
    assert!(bytes.len() * 50 < csv.len(), "binary {} text {}", bytes.len(), csv.len());
}

#[test]
fn read_any_reads_both_formats() {
    let dir = tempfile::Builder::new().prefix("banksim-binary-test-").tempdir().unwrap();
    let t = sample();
    let (csv, bin) = (dir.path().join("t.csv"), dir.path().join("t.bsim"));
    text::write(&t, std::fs::File::create(&csv).unwrap()).unwrap();
    binary::write(&t, std::fs::File::create(&bin).unwrap()).unwrap();
    let a = traces::read_any(&csv).unwrap();
    let b = traces::read_any(&bin).unwrap();
    assert_eq!(sorted(&a), sorted(&b));
    assert_eq!(b.source, bin.display().to_string());
    // a truncated file on disk: the error names it and the offset
    let bytes = std::fs::read(&bin).unwrap();
    std::fs::write(&bin, &bytes[..bytes.len() - 40]).unwrap();
    let e = traces::read_any(&bin).unwrap_err().to_string();
    assert!(e.contains("t.bsim") && e.contains(&format!("at byte {}", bytes.len() - 40)), "{e}");
}

mod sites {
    use super::*;
    use traces::NO_SITE;

    /// Two blocks of 100 threads: a store per thread at site 0, a barrier without a site,
    /// then a load whose site differs between lanes of one slice (lanes < 40: site 1,
    /// else site 2), so both uniform and per-lane groups carry sites.
    fn with_sites() -> Trace {
        let mut t = Trace::new("sites");
        t.sites = vec!["k.wgsl:3:5".into(), "k.wgsl:4:9".into(), "pc 0x0a30 LDS.U.32".into()];
        for block in 0..2 {
            for thread in 0..100 {
                let rec = |step, op, addr, site| Record {
                    block,
                    thread,
                    step,
                    op,
                    addr,
                    bytes: if op == Op::Barrier { 0 } else { 4 },
                    gap: 2,
                    dep: None,
                    wait: None,
                    site,
                };
                t.push(rec(0, Op::Store, 4 * thread, 0));
                t.push(rec(1, Op::Barrier, 0, NO_SITE));
                t.push(rec(2, Op::Load, 128 * (thread % 32), if thread % 64 < 40 { 1 } else { 2 }));
            }
        }
        t
    }

    #[test]
    fn sites_round_trip_in_version_3() {
        let t = with_sites();
        for chunk_lanes in [1, 50, 1 << 16] {
            let bytes = to_bytes(&t, chunk_lanes);
            assert_eq!(u16::from_le_bytes([bytes[8], bytes[9]]), 3, "a trace with sites is version 3");
            let back = binary::parse(&bytes[..], "t.bsim").unwrap();
            assert_eq!(back.sites, t.sites);
            assert_eq!(sorted(&back), sorted(&t));
            // and the text format agrees
            let mut csv = Vec::new();
            text::write(&back, &mut csv).unwrap();
            let again = text::parse(&csv[..], "t.csv").unwrap();
            assert_eq!((sorted(&again), again.sites), (sorted(&t), t.sites.clone()));
        }
    }

    #[test]
    fn traces_without_sites_stay_version_2_and_read_as_before() {
        let t = sample();
        let bytes = to_bytes(&t, 1 << 16);
        assert_eq!(u16::from_le_bytes([bytes[8], bytes[9]]), 2);
        let back = binary::parse(&bytes[..], "t.bsim").unwrap();
        assert!(back.sites.is_empty());
        assert!(back.records.iter().all(|r| r.site == NO_SITE));
    }

    /// `bytes` with its header's version and flags replaced (and its checksum redone).
    fn patched(mut bytes: Vec<u8>, version: u16, flags: u16) -> Vec<u8> {
        bytes[8..10].copy_from_slice(&version.to_le_bytes());
        bytes[10..12].copy_from_slice(&flags.to_le_bytes());
        let crc = crc32fast::hash(&bytes[..16]);
        bytes[16..20].copy_from_slice(&crc.to_le_bytes());
        bytes
    }

    #[test]
    fn unknown_versions_and_flags_are_refused_by_name() {
        let bytes = to_bytes(&with_sites(), 1 << 16);
        let flags = u16::from_le_bytes([bytes[10], bytes[11]]);
        let e = binary::parse(&patched(bytes.clone(), 5, flags)[..], "t.bsim").unwrap_err().to_string();
        assert_eq!(e, "t.bsim: byte 8: unsupported version 5 (this banksim reads versions 1 to 4)");
        // version 4 has sites as version 3 has them
        assert!(binary::parse(&patched(bytes.clone(), 4, flags)[..], "t.bsim").is_ok());
        // the sites flag in a version 2 file is unknown there
        let e = binary::parse(&patched(bytes.clone(), 2, flags)[..], "t.bsim").unwrap_err().to_string();
        assert!(e.starts_with("t.bsim: byte 10: unsupported flags"), "{e}");
        // a site table whose checksum fails (a byte of the first label, after the 20-byte
        // header, the tag, the count and the label's length)
        let mut bad = bytes.clone();
        bad[33] ^= 1;
        let e = binary::parse(&bad[..], "t.bsim").unwrap_err().to_string();
        assert!(e.contains("site table"), "{e}");
        // cut inside the table
        let e = binary::parse(&bytes[..26], "t.bsim").unwrap_err().to_string();
        assert!(e.contains("truncated") && e.contains("site table"), "{e}");
    }

    #[test]
    fn a_site_outside_the_table_is_refused_by_the_writer() {
        let table = vec!["k.wgsl:1:1".to_string()];
        let mut w = Writer::with_sites(Vec::new(), "w", &table).unwrap();
        let a = LaneAttr { op: Op::Load, bytes: 4, gap: 0, dep: None, wait: None, site: 0 };
        let g = |step, a| Group { block: 0, slice: 0, step, mask: 1, attrs: Attrs::Uniform(a), addrs: &[0] };
        w.push(&g(0, a)).unwrap();
        let e = w.push(&g(1, LaneAttr { site: 1, ..a }));
        assert!(matches!(e, Err(WriteError::Invalid { .. })), "{e:?}");
    }
}
