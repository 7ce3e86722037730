//! The text reader's fold over whole blocks (`traces::text_fold`) against the ordinary
//! reader: on random traces whose blocks come in order, cut into stretches of every
//! size, every block reaches the work whole, once, with its records in file order; on
//! traces it must not decide (a bad line, blocks out of order, a site id not in the
//! table), it gives up.

use proptest::prelude::*;
use std::collections::BTreeMap;
use std::io::Write;
use traces::{text, Record};

/// The fold of the text `csv` with stretches of `stretch` bytes on `threads` threads:
/// every run of whole blocks handed to the work, and the preamble's columns and sites;
/// `None` where it gave up.
fn fold(csv: &str, stretch: u64, threads: usize) -> Option<(Vec<Vec<Record>>, usize, Vec<String>)> {
    let mut file = tempfile::tempfile().unwrap();
    file.write_all(csv.as_bytes()).unwrap();
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
    let read = std::sync::atomic::AtomicU64::new(0);
    let (runs, preamble) = pool.install(|| {
        traces::text_fold::fold_whole_blocks_in(
            &file,
            csv.len() as u64,
            "t.csv",
            Some(stretch),
            || (),
            |_, records, lines| {
                assert_eq!(records.len(), lines.len());
                Some(vec![records.to_vec()])
            },
            |all: &mut Vec<Vec<Record>>, more| all.extend(more),
            |n| {
                read.fetch_add(n, std::sync::atomic::Ordering::Relaxed);
            },
        )
    })?;
    // (every byte counted once, for the progress bar)
    assert_eq!(read.into_inner(), csv.len() as u64, "bytes read");
    Some((runs.unwrap_or_default(), preamble.columns, preamble.sites))
}

/// Each block's records in file order, by the ordinary reader.
fn blocks_of(records: &[Record]) -> BTreeMap<u32, Vec<Record>> {
    let mut blocks: BTreeMap<u32, Vec<Record>> = BTreeMap::new();
    for r in records {
        blocks.entry(r.block).or_default().push(*r);
    }
    blocks
}

/// A trace in block order: blocks of 0 to 11 records (block ids going up by 1 to 3),
/// with comment and empty lines here and there, `\r\n` or `\n` line ends, a site
/// column and table or not, and the last line end or not.
fn trace() -> impl Strategy<Value = String> {
    (
        prop::collection::vec((0u32..12, 1u32..4, prop::collection::vec((0u32..4, 0u32..4096), 12)), 0..8),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(blocks, crlf, sites, end)| {
            let nl = if crlf { "\r\n" } else { "\n" };
            let mut s = String::new();
            if sites {
                s += &format!("# site 0 k.wgsl:3:5{nl}# site 1 k.wgsl:7:2{nl}");
                s += &format!("block,thread,step,op,addr,bytes,gap,dep,wait,site{nl}");
            } else {
                s += &format!("block,thread,step,op,addr,bytes{nl}");
            }
            let mut block = 0;
            for (n, up, extras) in blocks {
                block += up;
                for i in 0..n {
                    let (extra, addr) = extras[i as usize];
                    match extra {
                        0 => s += &format!("# a comment{nl}"),
                        1 => s += nl,
                        _ => {}
                    }
                    let op = ["ld", "st"][(i % 2) as usize];
                    s += &format!("{block},{},{},{op},{},4", i % 5, i / 5, addr * 4);
                    if sites {
                        s += &format!(",0,,,{}", ["", "0", "1"][(addr % 3) as usize]);
                    }
                    s += nl;
                }
            }
            if !end && s.ends_with(nl) {
                s.truncate(s.len() - nl.len());
            }
            s
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 192, ..ProptestConfig::default() })]

    #[test]
    fn every_block_reaches_the_work_whole_once_in_file_order(csv in trace(), stretch in 1u64..120, threads in 1usize..4) {
        let t = text::parse(csv.as_bytes(), "t.csv").unwrap();
        let (runs, columns, sites) = fold(&csv, stretch, threads).expect("a trace in block order folds");
        prop_assert_eq!(columns, if t.has_timing_columns { 10 } else { 6 });
        prop_assert_eq!(sites, t.sites);
        let mut seen: BTreeMap<u32, Vec<Record>> = BTreeMap::new();
        for run in &runs {
            prop_assert!(!run.is_empty());
            for (block, records) in blocks_of(run) {
                prop_assert!(seen.insert(block, records).is_none(), "block {} in two runs", block);
            }
        }
        prop_assert_eq!(seen, blocks_of(&t.records));
    }

    #[test]
    fn a_problem_anywhere_gives_up(csv in trace(), stretch in 1u64..120, at in 0usize..1000, bad in 0usize..4) {
        let lines: Vec<&str> = csv.lines().collect();
        let records: Vec<usize> = (0..lines.len()).filter(|&i| lines[i].starts_with(|c: char| c.is_ascii_digit())).collect();
        prop_assume!(records.len() >= 2);
        let i = records[at % records.len()];
        let mut changed: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
        match bad {
            // a field the format does not allow
            0 => {
                let mut f: Vec<String> = changed[i].split(',').map(str::to_string).collect();
                f[5] = "3".into();
                changed[i] = f.join(",");
            }
            // a line that is not a record
            1 => changed[i] = "not,a,record".into(),
            // a block id below the one before it
            2 => {
                let j = records[(at + 1) % records.len()];
                let (a, b) = (i.min(j), i.max(j));
                let first = |l: &str| l.split(',').next().unwrap().to_string();
                prop_assume!(first(&changed[a]) != first(&changed[b]));
                changed.swap(a, b);
            }
            // a site id not in the table (where there is one), else a bad op
            _ => {
                let mut f: Vec<String> = changed[i].split(',').map(str::to_string).collect();
                if f.len() == 10 { f[9] = "2".into() } else { f[3] = "load".into() }
                changed[i] = f.join(",");
            }
        }
        let csv = changed.join("\n") + "\n";
        prop_assert!(text::parse(csv.as_bytes(), "t.csv").is_err() || bad == 2, "the change is a problem");
        prop_assert!(fold(&csv, stretch, 2).is_none(), "gave up");
    }
}

#[test]
fn no_header_and_a_trace_of_no_records() {
    assert!(fold("", 4, 1).is_none(), "an empty file: the ordinary reader names it");
    assert!(fold("# only a comment\n", 4, 1).is_none());
    let (runs, columns, _) = fold("block,thread,step,op,addr,bytes\n# nothing\n", 4, 2).unwrap();
    assert!(runs.is_empty());
    assert_eq!(columns, 6);
}

#[test]
fn the_work_giving_up_gives_up() {
    let mut file = tempfile::tempfile().unwrap();
    let csv = "block,thread,step,op,addr,bytes\n0,0,0,ld,0,4\n1,0,0,ld,0,4\n2,0,0,ld,0,4\n";
    file.write_all(csv.as_bytes()).unwrap();
    for stretch in [1, 8, 1000] {
        let got = traces::text_fold::fold_whole_blocks_in(
            &file,
            csv.len() as u64,
            "t.csv",
            Some(stretch),
            || (),
            |_, records, _| (records[0].block != 1).then_some(()),
            |_, _| {},
            |_| {},
        );
        assert!(got.is_none(), "stretch {stretch}");
    }
}
