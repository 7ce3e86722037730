//! `traces::parallel::for_each_chunk`: every chunk once, merged in file order whatever
//! the thread count, and the first error in file order.

use sim_core::Op;
use traces::binary::{self, BinaryError, Chunk, Reader};
use traces::parallel::for_each_chunk;
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
    pool(threads).install(|| match source {
        Source::Memory => {
            drive(Reader::new(bytes, "t.bsim", Some(bytes.len() as u64)).expect("a header"), fail_at, false)
        }
        Source::File | Source::Mapped => {
            let path = std::env::temp_dir().join(format!(
                "traces-parallel-{}-{:?}.bsim",
                std::process::id(),
                std::thread::current().id()
            ));
            std::fs::write(&path, bytes).expect("a temporary file");
            let mut reader = Reader::open(&path).expect("a header");
            if let Source::Mapped = source {
                assert!(reader.map_payloads(), "a file opened by path maps");
            }
            let out = drive(reader, fail_at, matches!(source, Source::Mapped));
            let _ = std::fs::remove_file(&path);
            out
        }
    })
}

fn drive<R: std::io::Read + Send>(
    reader: Reader<R>,
    fail_at: &[u64],
    mapped: bool,
) -> (Vec<(u64, u64)>, Result<(), String>) {
    let mut seen = Vec::new();
    let result = for_each_chunk(
        reader,
        Chunk::default,
        |chunk, raw| {
            assert_eq!(raw.is_mapped(), mapped, "chunk at {}", raw.offset());
            if fail_at.contains(&raw.offset()) {
                return Err(StringError(format!("work failed at {}", raw.offset())));
            }
            raw.decode(chunk)?;
            chunk.split(32)?;
            // uneven work, so that chunks finish out of order
            if raw.offset() % 3 == 0 {
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
            let digest = chunk.iter().fold(0u64, |h, r| {
                h.wrapping_mul(31).wrapping_add(r.block as u64 * 1000 + r.step as u64 + r.addrs[0] as u64)
            });
            Ok((raw.offset(), digest))
        },
        |part| seen.push(part),
    )
    .map_err(|e: StringError| e.0);
    (seen, result)
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
            let path = std::env::temp_dir()
                .join(format!("traces-parallel-cut-{}-{map}-{threads}.bsim", std::process::id()));
            std::fs::write(&path, &bytes).expect("a temporary file");
            let mut reader = Reader::open(&path).expect("a header");
            if map {
                assert!(reader.map_payloads());
            }
            std::fs::OpenOptions::new().write(true).open(&path).and_then(|f| f.set_len(cut)).expect("cut");
            let (seen, err) = pool(threads).install(|| drive(reader, &[], map));
            let msg = err.expect_err("a cut file");
            assert!(
                msg.contains(&format!("the file ends at byte {cut} inside chunk 30"))
                    && msg.contains("shrank"),
                "mapped {map}, {threads} threads: {msg}"
            );
            assert_eq!(seen, all[..30], "mapped {map}, {threads} threads");
            let _ = std::fs::remove_file(&path);
        }
    }
}
