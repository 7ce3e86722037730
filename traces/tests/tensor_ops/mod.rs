//! The binary format's tensor-core ops (`ldsm`, `stsm`, `ldgsts`, `ldgsts.cg`): version 4,
//! and the versions before it read as they were.

use super::{binary_requests, parse_err, sorted, text_requests, to_bytes};
use sim_core::Op;
use traces::binary::{self, Attrs, Group, LaneAttr};
use traces::{Record, Trace};

/// A warp of each tensor-core op: `ldsm` x4 rows, `stsm` x1, `ldgsts` of 4 and 8 bytes and
/// `ldgsts.cg`.
fn tensor_ops() -> Trace {
    let mut t = Trace::new("tensor");
    let rec = |thread, step, op, addr, bytes| Record {
        block: 0,
        thread,
        step,
        op,
        addr,
        bytes,
        gap: 0,
        dep: None,
        wait: None,
        site: traces::NO_SITE,
    };
    for lane in 0..32 {
        t.push(rec(lane, 0, Op::MatrixLoad, lane * 144, 16));
        if lane < 8 {
            t.push(rec(lane, 1, Op::MatrixStore, lane * 128, 16));
        }
        t.push(rec(lane, 2, Op::AsyncCopy, lane * 4, 4));
        t.push(rec(lane + 32, 2, Op::AsyncCopy, 4096 + lane * 8, 8));
        t.push(rec(lane, 3, Op::AsyncCopyBypass, lane * 16, 16));
    }
    t
}

#[test]
fn tensor_core_ops_need_version_4_and_older_versions_read_as_before() {
    // a trace without them stays version 2, one with them is version 4 and round-trips
    assert_eq!(u16::from_le_bytes([to_bytes(&super::sample(), 100)[8], 0]), 2);
    let t = tensor_ops();
    let bytes = to_bytes(&t, 100);
    assert_eq!(u16::from_le_bytes([bytes[8], bytes[9]]), 4);
    let back = binary::parse(&bytes[..], "t.bsim").unwrap();
    assert_eq!(sorted(&back), sorted(&t));
    assert_eq!(text_requests(&t, 32), binary_requests(&bytes, 32, false));
    // the same codes in a file that says version 3 are refused by code
    let mut old = bytes.clone();
    old[8] = 3;
    let crc = crc32fast::hash(&old[..16]);
    old[16..20].copy_from_slice(&crc.to_le_bytes());
    let e = parse_err(&old).to_string();
    assert!(e.contains("invalid op/width code 0x07"), "{e}");
    // a streamed writer turns to version 4 at its first such op before the header goes
    // out, and refuses one after it
    let w = |lanes| {
        let mut w = binary::Writer::new(Vec::new(), "w.bsim", false).unwrap().with_chunk_lanes(lanes);
        let ld = LaneAttr { op: Op::Load, bytes: 4, gap: 0, dep: None, wait: None, site: traces::NO_SITE };
        let ldsm = LaneAttr { op: Op::MatrixLoad, bytes: 16, ..ld };
        let addrs: Vec<u32> = (0..8).map(|l| l * 16).collect();
        let group = |block, a| Group {
            block,
            slice: 0,
            step: 0,
            mask: 0xFF,
            attrs: Attrs::Uniform(a),
            addrs: &addrs,
        };
        w.push(&group(0, ld)).unwrap();
        w.push(&group(1, ld)).unwrap();
        w.push(&group(2, ldsm)).map(|_| w.finish().unwrap())
    };
    let bytes = w(1 << 16).unwrap();
    assert_eq!((bytes[8], binary::parse(&bytes[..], "w.bsim").unwrap().records.len()), (4, 24));
    let e = w(1).unwrap_err().to_string();
    assert!(e.contains("`ldsm` needs binary format version 4"), "{e}");
    let bytes = binary::Writer::new(Vec::new(), "w.bsim", false).unwrap().with_tensor_ops().finish().unwrap();
    assert_eq!(bytes[8], 4);
}
