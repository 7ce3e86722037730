//! The text reader's fast path against the general one (the CSV reader for every line):
//! on random text, valid and not, both give the same trace or the same message.

use proptest::prelude::*;
use traces::text::{parse_in_blocks, parse_in_blocks_general};

/// Field texts that are valid somewhere, invalid elsewhere, or on an edge of a rule.
const FIELDS: &[&str] = &[
    "0",
    "1",
    "2",
    "7",
    "31",
    "32",
    "4",
    " 4",
    "4 ",
    "\t5\t",
    "+5",
    "+",
    "-1",
    "",
    "x",
    "4294967295",
    "4294967296",
    "99999999999",
    "999999999999999999999999",
    "4294967295x",
    "0004",
    "ld",
    "st",
    "atom",
    "red",
    "bar",
    "gld",
    "gst",
    "ldsm",
    "stsm",
    "ldgsts",
    "ldgsts.cg",
    "ldgsts.c",
    "lds",
    " ld ",
    "LD",
    "0x10",
    "0X1f",
    "0xFFFFFFFC",
    "0xFFFFFFFF",
    "0x",
    "0x+10",
    "0xg",
    "16",
    "8",
    "3",
    "\u{e9}",
    "\u{a0}1",
    "4294967292",
    "12",
    "9",
    "\u{0c}3",
];

const HEADERS: &[&str] = &[
    "block,thread,step,op,addr,bytes",
    "block,thread,step,op,addr,bytes,gap,dep",
    "block,thread,step,op,addr,bytes,gap,dep,wait",
    "block,thread,step,op,addr,bytes,gap",
    " block , thread,step,op,addr,bytes",
    "block,thread,step,op,addr",
    "block,thread,step,op,addr,bytes,gap,dep,wait,x",
];

/// One line: a record of mostly sensible fields, or a comment, an empty line, a quoted
/// field, raw bytes.
fn line() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        8 => (0u32..4, 0u32..64, 0u32..8, 0usize..9, 0u32..512, prop::sample::select(vec![1u8, 2, 4, 8, 16]),
              0u32..5, 0u32..3, 0u32..6)
            .prop_map(|(b, t, s, op, a, w, gap, dep, wait)| {
                let op = ["ld", "st", "atom", "red", "bar", "ldsm", "stsm", "ldgsts", "ldgsts.cg"][op];
                let dep = ["", "0", "1"][dep as usize];
                let wait = if wait == 5 { String::new() } else { wait.to_string() };
                format!("{b},{t},{s},{op},{},{w},{gap},{dep},{wait}", a * 4).into_bytes()
            }),
        4 => prop::collection::vec(prop::sample::select(FIELDS.to_vec()), 1..11)
            .prop_map(|f| f.join(",").into_bytes()),
        1 => Just(b"# a comment, with commas".to_vec()),
        1 => Just(Vec::new()),
        1 => Just(b"\"1\",2,3,ld,0,4".to_vec()),
        1 => Just(b"0,0,0,bar,\xff,0".to_vec()),
        1 => Just(b"0,0,0,bar,\xc3,\xa9".to_vec()),
        1 => Just(b"0,0,0,zz,\xc3,\xa9".to_vec()),
        1 => Just(b"0,0\r0,ld,0,4".to_vec()),
    ]
}

/// A file: a header (maybe after comments), lines, each cut to the header's fields
/// or not, with `\n` or `\r\n` line ends, and a last line end or not.
fn file() -> impl Strategy<Value = Vec<u8>> {
    (
        prop::sample::select(HEADERS.to_vec()),
        any::<bool>(),
        prop::collection::vec((line(), any::<bool>(), 0usize..4), 0..40),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(header, comment, lines, crlf, last_end)| {
            let end: &[u8] = if crlf { b"\r\n" } else { b"\n" };
            let columns = header.split(',').count();
            let mut out = Vec::new();
            if comment {
                out.extend_from_slice(b"# before the header");
                out.extend_from_slice(end);
            }
            out.extend_from_slice(header.as_bytes());
            for (l, cut, extra) in lines {
                out.extend_from_slice(end);
                // most records cut to the header's columns, some with more or fewer
                let keep = if cut { columns + extra % 2 } else { usize::MAX };
                let mut fields = 0;
                for &b in &l {
                    if b == b',' {
                        fields += 1;
                        if fields >= keep {
                            break;
                        }
                    }
                    out.push(b);
                }
            }
            if last_end {
                out.extend_from_slice(end);
            }
            out
        })
}

fn outcome(r: Result<traces::Trace, traces::TraceError>) -> Result<traces::Trace, String> {
    r.map_err(|e| e.to_string())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn fast_path_agrees_with_the_general_one(text in file(), block in prop::sample::select(vec![1usize, 7, 40, 1 << 20])) {
        let fast = outcome(parse_in_blocks(&text[..], "t.csv", block));
        let general = outcome(parse_in_blocks_general(&text[..], "t.csv", block));
        prop_assert_eq!(fast, general, "on {:?}", String::from_utf8_lossy(&text));
    }
}

#[test]
fn the_fast_path_reads_what_it_should() {
    let text = b"block,thread,step,op,addr,bytes,gap,dep,wait\r\n# c\r\n\r\n0,1,2,ld,0x10,4,3,1,2\r\n0,1,3,bar,,,0,,\n1, 2 ,3,red,8,8,,0,";
    let t = parse_in_blocks(&text[..], "t.csv", 1 << 20).unwrap();
    assert_eq!(t, parse_in_blocks_general(&text[..], "t.csv", 1 << 20).unwrap());
    assert_eq!(t.lines, [4, 5, 6]);
    assert_eq!((t.records[0].addr, t.records[0].wait, t.records[2].thread), (16, Some(2), 2));
    // (the CSV reader takes a comment that ends the text with no line end for a record)
    let text = b"block,thread,step,op,addr,bytes\n# a comment";
    assert!(parse_in_blocks(&text[..], "t.csv", 1 << 20).is_err());
}
