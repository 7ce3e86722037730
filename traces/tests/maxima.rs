//! Every column's documented maximum (docs/trace-format.md, "Limits and checks") is
//! accepted end to end: text -> binary -> text, as `banksim convert` does it, gives the
//! same records back.

use proptest::prelude::*;
use sim_core::Op;
use traces::{binary, text, Record, Trace};

/// The largest value of a 32-bit column.
const MAX: u32 = u32::MAX;

/// 0, the maximum or anything between, each about as often.
fn column() -> impl Strategy<Value = u32> {
    prop_oneof![Just(0u32), Just(MAX), Just(MAX - 1), any::<u32>()]
}

/// One record with each column at an edge or anywhere; `sites` entries in the table.
fn record(sites: u32) -> impl Strategy<Value = Record> {
    let ops = proptest::sample::select(Op::ALL.to_vec());
    let widths = prop_oneof![Just(1u8), Just(2), Just(4), Just(8), Just(16)];
    let site = prop_oneof![Just(sites - 1), 0..sites, Just(traces::NO_SITE)];
    (column(), column(), column(), ops, widths, column(), column(), any::<Option<bool>>(), 0u8..4, site)
        .prop_map(|(block, thread, step, op, bytes, addr, gap, dep, wait_kind, site)| {
            // (a tensor-core op at one of its widths)
            let bytes = match op {
                Op::Barrier => 0,
                _ if op.allows_width(bytes) => bytes,
                _ => op.widths()[bytes as usize % op.widths().len()],
            };
            // the highest address of a width: addr + width at most 2^32 - 1, aligned
            let top = MAX - bytes as u32;
            let addr = if op == Op::Barrier { 0 } else { addr.min(top) / bytes as u32 * bytes as u32 };
            let wait = match wait_kind {
                0 => None,
                1 => Some(gap),
                2 => Some(0),
                _ => Some(gap / 2),
            };
            Record { block, thread, step, op, addr, bytes, gap, dep, wait, site }
        })
}

/// A trace of a few records, one per (block, thread, step), with a site table.
fn trace() -> impl Strategy<Value = Trace> {
    (1u32..5).prop_flat_map(|sites| (Just(sites), proptest::collection::vec(record(sites), 1..12))).prop_map(
        |(sites, records)| {
            let mut t = Trace::new("t.csv");
            t.sites = (0..sites).map(|i| format!("k.wgsl:{}:{}", i + 1, MAX)).collect();
            t.has_timing_columns = true;
            let mut seen = std::collections::BTreeSet::new();
            for r in records {
                if seen.insert((r.block, r.thread, r.step)) {
                    t.push(r);
                }
            }
            t
        },
    )
}

/// Records in (block, thread, step) order: the binary format stores them by block.
fn sorted(t: &Trace) -> Vec<Record> {
    let mut r = t.records.clone();
    r.sort_by_key(|r| (r.block, r.thread, r.step));
    r
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn documented_maxima_round_trip_text_binary_text(t in trace()) {
        let mut csv = Vec::new();
        text::write(&t, &mut csv).unwrap();
        let read = text::parse(&csv[..], "t.csv").unwrap();
        prop_assert_eq!(sorted(&read), sorted(&t));
        let bytes = binary::write(&read, Vec::new()).unwrap();
        let back = binary::parse(&bytes[..], "t.bsim").unwrap();
        prop_assert_eq!(sorted(&back), sorted(&t));
        prop_assert_eq!(&back.sites, &t.sites);
        let mut again = Vec::new();
        text::write(&back, &mut again).unwrap();
        let last = text::parse(&again[..], "t2.csv").unwrap();
        prop_assert_eq!(sorted(&last), sorted(&t));
    }
}

/// The case the tester found: a `wait` of 2^32 - 1 (valid in text) written to binary
/// and read back, not refused as corrupt.
#[test]
fn the_largest_wait_reads_back_from_binary() {
    let csv = format!("block,thread,step,op,addr,bytes,gap,dep,wait\n0,0,0,ld,0,4,{MAX},1,{MAX}\n");
    let t = text::parse(csv.as_bytes(), "w.csv").unwrap();
    let bytes = binary::write(&t, Vec::new()).unwrap();
    let back = binary::parse(&bytes[..], "w.bsim").unwrap();
    assert_eq!(back.records[0].wait, Some(MAX));
    assert_eq!(back.records[0].gap, MAX);
}
