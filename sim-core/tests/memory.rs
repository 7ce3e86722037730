//! The global traffic of a workload and the bandwidth it gets from DRAM and the L2
//! (`sim_core::memory`).

use sim_core::memory::{share, Traffic};
use sim_core::{Op, Timing};

fn timing(dram: f64, l2: f64, l2_bytes: u64) -> Timing {
    let mut t = configs::load("h100").unwrap().timing.unwrap();
    (t.dram_bytes_per_cycle, t.l2_bytes_per_cycle, t.l2_bytes) = (dram, l2, l2_bytes);
    t
}

#[test]
fn a_stream_reads_every_line_from_dram() {
    let t = timing(1000.0, 4000.0, 1 << 20);
    let s = share(&t, 1 << 30, 1 << 30, 1 << 30);
    assert_eq!((s.dram_bytes, s.bytes_per_cycle), (1 << 30, 1000.0));
}

#[test]
fn re_reads_of_a_footprint_the_l2_holds_come_at_its_rate() {
    let t = timing(1000.0, 4000.0, 1 << 20);
    // 64 reads of each byte of 512 KiB: DRAM serves 1/64 of them, the L2 is the limit
    let s = share(&t, 64 << 19, 64 << 19, 1 << 19);
    assert_eq!(s.dram_bytes, 1 << 19);
    assert_eq!(s.bytes_per_cycle, 4000.0);
    // two reads: DRAM's half takes longer than the L2's whole
    let s = share(&t, 2 << 19, 2 << 19, 1 << 19);
    assert_eq!(s.bytes_per_cycle, 2000.0);
}

#[test]
fn a_footprint_above_the_l2_keeps_only_its_share_of_re_reads() {
    let t = timing(1000.0, 4000.0, 1 << 20);
    // footprint 4 MiB, read 4 times: 1/4 of the 3 re-reads hit
    let s = share(&t, 16 << 20, 16 << 20, 4 << 20);
    assert_eq!(s.dram_bytes, (4 << 20) + (12 << 20) * 3 / 4);
    assert!((s.bytes_per_cycle - 1000.0 * 16.0 / 13.0).abs() < 1e-9);
}

#[test]
fn without_an_l2_the_bandwidth_is_drams() {
    let t = timing(1000.0, 0.0, 0);
    assert_eq!(share(&t, 64 << 19, 64 << 19, 1 << 19).bytes_per_cycle, 1000.0);
}

#[test]
fn traffic_counts_each_requests_lines_sectors_and_the_distinct_lines() {
    let mut t = Traffic::default();
    let row: Vec<u32> = (0..32).map(|l| l * 4).collect(); // one line, 4 sectors
    let column: Vec<u32> = (0..32).map(|l| l * 128).collect(); // 32 lines, a sector each
    t.add(Op::GlobalLoad, &row);
    t.add(Op::GlobalLoad, &column);
    t.add(Op::GlobalStore, &row);
    t.add(Op::Load, &column); // shared: not global traffic
    assert_eq!((t.lines, t.sectors, t.distinct), (34, 40, 32));
    assert_eq!((t.line_bytes(), t.bytes(), t.distinct_bytes()), (34 * 128, 40 * 32, 32 * 128));
}

/// A request that uses one sector of each line it touches moves a quarter of its lines'
/// bytes: the engine, which charges whole lines, gets four times the bandwidth.
#[test]
fn lines_used_in_part_move_only_their_sectors() {
    let t = timing(1000.0, 0.0, 0);
    let s = share(&t, 4 << 20, 1 << 20, 1 << 30);
    assert_eq!((s.bytes, s.dram_bytes), (1 << 20, 1 << 20));
    assert_eq!(s.bytes_per_cycle, 4000.0);
}

/// A load waits DRAM's latency for the bytes DRAM serves and the L2's for the rest.
#[test]
fn a_load_waits_the_latency_of_where_its_bytes_come_from() {
    let mut t = timing(1000.0, 4000.0, 1 << 20);
    (t.global_latency, t.dram_latency) = (500, 700);
    // read once: every byte from DRAM
    assert_eq!(share(&t, 1 << 30, 1 << 30, 1 << 30).latency, 700);
    // 64 reads of a footprint the L2 holds: 1/64 from DRAM
    assert_eq!(share(&t, 64 << 19, 64 << 19, 1 << 19).latency, 503);
    // half from each
    assert_eq!(share(&t, 2 << 19, 2 << 19, 1 << 19).latency, 600);
    // no DRAM latency: every load waits the one latency
    t.dram_latency = 0;
    assert_eq!(share(&t, 1 << 30, 1 << 30, 1 << 30).latency, 500);
    // and applying a traffic gives the timing its latency
    t.dram_latency = 700;
    let mut traffic = Traffic::default();
    traffic.add(Op::GlobalLoad, &(0..32).map(|l| l * 4).collect::<Vec<u32>>());
    let m = traffic.apply(&mut t, None).unwrap();
    assert_eq!((m.latency, t.global_latency), (700, 700));
}
