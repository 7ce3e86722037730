//! `traces::parallel::for_each_chunk`: every chunk once, merged in file order whatever
//! the thread count, and the first error in file order. `fold_chunks`: every chunk once,
//! the same first error, and no worker held up by a chunk another one holds.

use sim_core::Op;
use traces::binary::{self, BinaryError, Chunk, RawChunk, Reader};
use traces::parallel::{fold_chunks, for_each_chunk};
use traces::{Record, Trace};

/// 40 blocks x 128 threads x 3 steps, written in chunks of about 256 lanes: 60 chunks.
fn many_chunks() -> Vec<u8> {
    let mut t = Trace::new("many");
    for block in 0..40 {
        for thread in 0..128 {
            for step in 0..3 {
                let addr = (block * 7 + thread * 4 * (step + 1)) % 4096;
                t.push(Record {
                    block,
                    thread,
                    step,
                    op: Op::Load,
                    addr,
                    bytes: 4,
                    gap: 0,
                    dep: None,
                    wait: None,
                    site: traces::NO_SITE,
                });
            }
        }
    }
    binary::write_chunked(&t, Vec::new(), 256).expect("a writable trace")
}

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("a pool")
}

/// Where `run` reads the trace from.
#[derive(Clone, Copy, Debug)]
enum Source {
    /// Bytes in memory: chunks read whole, in turn.
    Memory,
    /// A file (`Reader::open`): chunk headers read in turn, each payload by position
    /// on the thread that works on it.
    File,
    /// A file mapped (`Reader::map_payloads`): each worker takes its next chunk before
    /// it works on the one it holds.
    Mapped,
}

const SOURCES: [Source; 3] = [Source::Memory, Source::File, Source::Mapped];

/// What the merge saw: per chunk, its offset and a digest of its decoded requests.
fn run(
    bytes: &[u8],
    threads: usize,
    fail_at: &[u64],
    source: Source,
) -> (Vec<(u64, u64)>, Result<(), String>) {
    on_reader(bytes, threads, fail_at, source, Mode::Merge)
}

/// What `fold_chunks` added up: every chunk's offset and digest, sorted by offset.
fn run_fold(
    bytes: &[u8],
    threads: usize,
    fail_at: &[u64],
    source: Source,
) -> Result<Vec<(u64, u64)>, String> {
    let (all, result) = on_reader(bytes, threads, fail_at, source, Mode::Fold);
    result.map(|()| all)
}

/// Which of the two loops runs.
#[derive(Clone, Copy)]
enum Mode {
    /// `for_each_chunk`, merging in file order.
    Merge,
    /// `fold_chunks`, adding up in any order.
    Fold,
}

fn on_reader(
    bytes: &[u8],
    threads: usize,
    fail_at: &[u64],
    source: Source,
    mode: Mode,
) -> (Vec<(u64, u64)>, Result<(), String>) {
    pool(threads).install(|| match source {
        Source::Memory => drive(
            Reader::new(bytes, "t.bsim", Some(bytes.len() as u64)).expect("a header"),
            fail_at,
            false,
            mode,
        ),
        Source::File | Source::Mapped => {
            let dir =
                tempfile::Builder::new().prefix("traces-parallel-").tempdir().expect("a temporary folder");
            let path = dir.path().join("t.bsim");
            std::fs::write(&path, bytes).expect("a temporary file");
            let mut reader = Reader::open(&path).expect("a header");
            if let Source::Mapped = source {
                assert!(reader.map_payloads(), "a file opened by path maps");
            }
            drive(reader, fail_at, matches!(source, Source::Mapped), mode)
        }
    })
}

/// One chunk's offset and a digest of its requests (or the planted failure).
fn work_on(
    chunk: &mut Chunk,
    raw: &RawChunk,
    fail_at: &[u64],
    mapped: bool,
) -> Result<(u64, u64), StringError> {
    assert_eq!(raw.is_mapped(), mapped, "chunk at {}", raw.offset());
    if fail_at.contains(&raw.offset()) {
        return Err(StringError(format!("work failed at {}", raw.offset())));
    }
    raw.decode(chunk)?;
    chunk.split(32)?;
    // uneven work, so that chunks finish out of order
    if raw.offset().is_multiple_of(3) {
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    let digest = chunk.iter().fold(0u64, |h, r| {
        h.wrapping_mul(31).wrapping_add(r.block as u64 * 1000 + r.step as u64 + r.addrs[0] as u64)
    });
    Ok((raw.offset(), digest))
}

/// With [`Mode::Merge`], the parts merged in the order merged; with [`Mode::Fold`], the
/// total sorted (empty after an error).
fn drive<R: std::io::Read + Send>(
    reader: Reader<R>,
    fail_at: &[u64],
    mapped: bool,
    mode: Mode,
) -> (Vec<(u64, u64)>, Result<(), String>) {
    match mode {
        Mode::Merge => {
            let mut seen = Vec::new();
            let result = for_each_chunk(
                reader,
                Chunk::default,
                |chunk, raw| work_on(chunk, raw, fail_at, mapped),
                |part| seen.push(part),
            )
            .map_err(|e: StringError| e.0);
            (seen, result)
        }
        Mode::Fold => {
            match fold_chunks(
                reader,
                Chunk::default,
                |chunk, raw| work_on(chunk, raw, fail_at, mapped).map(|part| vec![part]),
                |all, parts| all.extend(parts),
            ) {
                Ok(all) => {
                    let mut all = all.unwrap_or_default();
                    all.sort_unstable();
                    (all, Ok(()))
                }
                Err(StringError(e)) => (Vec::new(), Err(e)),
            }
        }
    }
}

/// A message, with the `From<BinaryError>` the driver needs.
struct StringError(String);

impl From<BinaryError> for StringError {
    fn from(e: BinaryError) -> Self {
        StringError(e.to_string())
    }
}

#[test]
fn every_chunk_is_merged_once_in_file_order_whatever_the_threads() {
    let bytes = many_chunks();
    let (serial, ok) = run(&bytes, 1, &[], Source::Memory);
    ok.expect("a good file");
    assert!(serial.len() >= 40, "{} chunks", serial.len());
    assert!(serial.windows(2).all(|w| w[0].0 < w[1].0), "offsets in file order");
    for source in SOURCES {
        for threads in [1, 2, 3, 8] {
            let (par, ok) = run(&bytes, threads, &[], source);
            ok.expect("a good file");
            assert_eq!(par, serial, "{threads} threads, {source:?}");
        }
    }
}

#[test]
fn the_first_failing_chunk_in_file_order_wins_and_nothing_after_it_is_merged() {
    let bytes = many_chunks();
    let (all, _) = run(&bytes, 1, &[], Source::Memory);
    let (third, tenth) = (all[3].0, all[10].0);
    for source in SOURCES {
        for threads in [1, 2, 8] {
            let (seen, err) = run(&bytes, threads, &[tenth, third], source);
            assert_eq!(err, Err(format!("work failed at {third}")), "{threads} threads, {source:?}");
            assert_eq!(seen, all[..3], "{threads} threads, {source:?}: exactly the chunks before the error");
        }
    }
}

#[test]
fn a_corrupt_chunk_is_the_reading_error_after_the_good_chunks_before_it() {
    let bytes = many_chunks();
    let (all, _) = run(&bytes, 1, &[], Source::Memory);
    let at = all[5].0 as usize;
    let mut bad = bytes.clone();
    bad[at + 72 + 2] ^= 0x40; // a payload byte of chunk 5: its checksum fails
    for source in SOURCES {
        for threads in [1, 2, 8] {
            let (seen, err) = run(&bad, threads, &[], source);
            let msg = err.expect_err("a corrupt file");
            assert!(
                msg.contains("checksum mismatch in chunk 5") && msg.contains(&format!("byte {at}")),
                "{msg}"
            );
            assert_eq!(seen, all[..5], "{threads} threads, {source:?}");
        }
    }
    // a header field of chunk 7 (its first group's block): out of order, but its
    // checksum is the telling error, whichever way the file is read
    let at = all[7].0 as usize;
    let mut bad = bytes.clone();
    bad[at + 12] ^= 0x7F;
    for source in SOURCES {
        let (seen, err) = run(&bad, 2, &[], source);
        let msg = err.expect_err("a corrupt file");
        assert!(msg.contains("checksum mismatch in chunk 7") && msg.contains(&format!("byte {at}")), "{msg}");
        assert_eq!(seen, all[..7], "{source:?}");
    }
}

#[test]
fn a_file_cut_after_it_was_opened_is_an_error_at_the_cut_chunk_whether_mapped_or_not() {
    let bytes = many_chunks();
    let (all, _) = run(&bytes, 1, &[], Source::Memory);
    // the payload of chunk 30 is cut in the middle
    let cut = all[30].0 + 72 + 10;
    for map in [false, true] {
        for threads in [1, 2, 8] {
            let dir = tempfile::Builder::new()
                .prefix("traces-parallel-cut-")
                .tempdir()
                .expect("a temporary folder");
            let path = dir.path().join(format!("{map}-{threads}.bsim"));
            std::fs::write(&path, &bytes).expect("a temporary file");
            let mut reader = Reader::open(&path).expect("a header");
            let mut reader_fold = Reader::open(&path).expect("a header");
            if map {
                assert!(reader.map_payloads() && reader_fold.map_payloads());
            }
            std::fs::OpenOptions::new().write(true).open(&path).and_then(|f| f.set_len(cut)).expect("cut");
            let (seen, err) = pool(threads).install(|| drive(reader, &[], map, Mode::Merge));
            let (_, err_fold) = pool(threads).install(|| drive(reader_fold, &[], map, Mode::Fold));
            for err in [err, err_fold] {
                let msg = err.expect_err("a cut file");
                assert!(
                    msg.contains(&format!("the file ends at byte {cut} inside chunk 30"))
                        && msg.contains("shrank"),
                    "mapped {map}, {threads} threads: {msg}"
                );
            }
            assert_eq!(seen, all[..30], "mapped {map}, {threads} threads");
        }
    }
}

#[test]
fn the_fold_adds_up_every_chunk_once_whatever_the_threads() {
    let bytes = many_chunks();
    let (serial, ok) = run(&bytes, 1, &[], Source::Memory);
    ok.expect("a good file");
    for source in SOURCES {
        for threads in [1, 2, 3, 8] {
            assert_eq!(
                run_fold(&bytes, threads, &[], source),
                Ok(serial.clone()),
                "{threads} threads, {source:?}"
            );
        }
    }
    // no chunks: no total
    let empty = binary::write_chunked(&Trace::new("empty"), Vec::new(), 256).expect("a writable trace");
    let reader = Reader::new(&empty[..], "empty.bsim", Some(empty.len() as u64)).expect("a header");
    let none = fold_chunks(reader, || (), |_, _| Ok::<u32, BinaryError>(1), |a, b| *a += b);
    assert!(matches!(none, Ok(None)), "{none:?}");
}

#[test]
fn the_fold_returns_the_first_error_in_file_order() {
    let bytes = many_chunks();
    let (all, _) = run(&bytes, 1, &[], Source::Memory);
    let (third, tenth) = (all[3].0, all[10].0);
    for source in SOURCES {
        for threads in [1, 2, 8] {
            let err = run_fold(&bytes, threads, &[tenth, third], source);
            assert_eq!(err, Err(format!("work failed at {third}")), "{threads} threads, {source:?}");
        }
    }
    let at = all[5].0 as usize;
    let mut bad = bytes.clone();
    bad[at + 72 + 2] ^= 0x40; // a payload byte of chunk 5: its checksum fails
    for source in SOURCES {
        for threads in [1, 2, 8] {
            let msg = run_fold(&bad, threads, &[all[20].0], source).expect_err("a corrupt file");
            assert!(
                msg.contains("checksum mismatch in chunk 5") && msg.contains(&format!("byte {at}")),
                "{threads} threads, {source:?}: {msg}"
            );
        }
    }
}

/// The fold's point: a worker that holds a chunk for a long time (its core taken away)
/// does not stop the others. Here the first chunk's work waits until every other chunk
/// is done, on 2 threads: the fold gets through; the in-order merge, whose other worker
/// may read only a few chunks past the oldest unmerged one, would wait for ever (it is
/// given up on after a while, and the test fails).
#[test]
fn in_the_fold_a_held_chunk_holds_up_no_other() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::{Duration, Instant};
    let bytes = many_chunks();
    let (all, _) = run(&bytes, 1, &[], Source::Memory);
    let first = all[0].0;
    let others = AtomicUsize::new(0);
    let reader = Reader::new(&bytes[..], "t.bsim", Some(bytes.len() as u64)).expect("a header");
    let waited = pool(2).install(|| {
        fold_chunks(
            reader,
            || (),
            |_, raw| {
                if raw.offset() != first {
                    others.fetch_add(1, Ordering::SeqCst);
                    return Ok::<_, BinaryError>(None);
                }
                let start = Instant::now();
                while others.load(Ordering::SeqCst) < all.len() - 1
                    && start.elapsed() < Duration::from_secs(20)
                {
                    std::thread::sleep(Duration::from_millis(1));
                }
                Ok(Some(others.load(Ordering::SeqCst)))
            },
            |a, b| *a = a.or(b),
        )
    });
    assert_eq!(
        waited.expect("a good file"),
        Some(Some(all.len() - 1)),
        "the other chunks, done while the first was held"
    );
}
