//! Importing real GPU traces: Accel-Sim kernel traces and NVBit `mem_trace` output.
//!
//! The sample files in `tests/data/` are written by hand from the formats' descriptions
//! (Accel-Sim's tracer and trace parser, NVBit's `mem_trace` tool). The round trip writes
//! generated traces in Accel-Sim's format with a small writer below, imports them back,
//! and checks every warp request simulates identically on the H100 preset.

use proptest::prelude::*;
use sim_core::{stats::Summary, BankModel, Op};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use traces::import::{self, accelsim, nvbit, Format, ImportError, Options};
use traces::{builtin, text, Record, Requests, Trace};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name)
}

/// (block, thread, step, op, addr, bytes) of every record, sorted.
fn rows(trace: &Trace) -> Vec<(u32, u32, u32, Op, u32, u8)> {
    let mut v: Vec<_> =
        trace.records.iter().map(|r| (r.block, r.thread, r.step, r.op, r.addr, r.bytes)).collect();
    v.sort_unstable();
    v
}

/// The records of one (block, warp, step), as (thread, addr), sorted.
fn request(trace: &Trace, block: u32, warp: u32, step: u32) -> (Vec<(u32, u32)>, Vec<Op>, Vec<u8>) {
    let mut lanes = Vec::new();
    let (mut ops, mut bytes) = (Vec::new(), Vec::new());
    for r in trace.records.iter().filter(|r| r.block == block && r.thread / 32 == warp && r.step == step) {
        lanes.push((r.thread, r.addr));
        ops.push(r.op);
        bytes.push(r.bytes);
    }
    lanes.sort_unstable();
    ops.dedup();
    bytes.dedup();
    (lanes, ops, bytes)
}

// ------------------------------------------------------------------------------------
// Accel-Sim sample files

#[test]
fn accelsim_sample_decodes_every_address_mode_mask_and_opcode() {
    let imp = import::read(&data("accelsim_sample.traceg"), Format::AccelSim, &Options::default()).unwrap();
    let t = &imp.trace;
    // block 1,1,0 in a 2x2 grid is block 3; block 0,0,0 is block 0
    let b = 3;

    // mode 1 (base + stride), all lanes: STS at lane * 4
    let (lanes, ops, bytes) = request(t, b, 0, 0);
    assert_eq!(lanes, (0..32).map(|l| (l, l * 4)).collect::<Vec<_>>());
    assert_eq!((ops, bytes), (vec![Op::Store], vec![4]));

    // the barrier, every lane
    let (lanes, ops, _) = request(t, b, 0, 1);
    assert_eq!((lanes.len(), ops), (32, vec![Op::Barrier]));

    // mode 0 (list) with mask f0f0f0f0: lanes 4-7, 12-15, 20-23, 28-31; LDS.U.128 = 16 bytes
    let (lanes, ops, bytes) = request(t, b, 0, 2);
    let want: Vec<(u32, u32)> =
        (0..32).filter(|l| (0xf0f0_f0f0u32 >> l) & 1 == 1).map(|l| (l, 0x400 + 16 * l)).collect();
    assert_eq!(lanes, want);
    assert_eq!((ops, bytes), (vec![Op::Load], vec![16]));

    // mode 2 (base + deltas) with mask a5a5: lanes 0,2,5,7,8,10,13,15, deltas 4 124 -64 8 8 8 8
    let (lanes, _, bytes) = request(t, b, 0, 3);
    assert_eq!(
        lanes,
        [(0, 0x80), (2, 0x84), (5, 0x100), (7, 0xc0), (8, 0xc8), (10, 0xd0), (13, 0xd8), (15, 0xe0)]
    );
    assert_eq!(bytes, [4]);

    // ATOMS.ADD writing R8: its result is used -> atom; stride 0: every lane on one word
    let (lanes, ops, _) = request(t, b, 0, 4);
    assert_eq!(ops, [Op::Atomic]);
    assert!(lanes.iter().all(|&(_, a)| a == 0x100) && lanes.len() == 32);
    // ATOMS.POPC.INC writing RZ (R255): a reduction
    let (lanes, ops, _) = request(t, b, 0, 5);
    assert_eq!((lanes.len(), ops), (16, vec![Op::Reduction]));
    // mask 0 issues nothing: no step 6
    assert!(request(t, b, 0, 6).0.is_empty());

    // warp 1 = threads 32..63: STS.64 in mode 2 with 31 deltas of 8
    let (lanes, _, bytes) = request(t, b, 1, 0);
    assert_eq!(lanes, (0..32).map(|l| (32 + l, 0x800 + 8 * l)).collect::<Vec<_>>());
    assert_eq!(bytes, [8]);
    // LDS.U8 with plain offsets (already below 4 GiB), lanes 0-7 and 16-23
    let (lanes, _, bytes) = request(t, b, 1, 2);
    let want: Vec<(u32, u32)> = (0..32).filter(|l| l % 16 < 8).map(|l| (32 + l, 0x10 + l)).collect();
    assert_eq!((lanes, bytes), (want, vec![1]));
    // LDSM.16.M88.4: 32 row addresses of 16 bytes
    let (lanes, ops, bytes) = request(t, b, 1, 3);
    assert_eq!(lanes, (0..32).map(|l| (32 + l, 0x1000 + 16 * l)).collect::<Vec<_>>());
    assert_eq!((ops, bytes), (vec![Op::MatrixLoad], vec![16]));

    // block 0: LDSM.16.MT88.2 keeps lanes 0-15 only; LDSM.16.M88 (x1) lanes 0-7
    let (lanes, _, _) = request(t, 0, 0, 1);
    assert_eq!(lanes, (0..16).map(|l| (l, 0x2000 + 32 * l)).collect::<Vec<_>>());
    let (lanes, _, _) = request(t, 0, 0, 2);
    assert_eq!(lanes, (0..8).map(|l| (l, 0x3000 + 16 * l)).collect::<Vec<_>>());

    let s = &imp.stats;
    assert_eq!(s.instructions, 12 + 5 + 3);
    let kept: BTreeMap<Op, u64> = [
        (Op::Load, 3),
        (Op::Store, 2),
        (Op::Atomic, 1),
        (Op::Reduction, 1),
        (Op::Barrier, 3),
        (Op::MatrixLoad, 3),
    ]
    .into();
    assert_eq!(s.kept, kept);
    let skipped: BTreeMap<String, u64> = [("IMAD", 2), ("S2R", 1), ("LDG", 1), ("BAR.ARV", 1), ("FOOBAR", 1)]
        .map(|(k, v)| (k.to_string(), v))
        .into();
    assert_eq!(s.skipped, skipped);
    assert_eq!((s.masked_off, s.wrapped), (1, 0));
    let k = s.kernel.as_ref().unwrap();
    assert_eq!(
        (k.id, k.name.as_str(), k.grid, k.block),
        (3, "_Z9transposePfPKf", Some([2, 2, 1]), Some([64, 1, 1]))
    );
    // every record carries its source line
    assert!(t.lines.iter().all(|&l| l > 20));
    // and the whole trace groups into valid warp requests
    let reqs = Requests::group(t, 32).unwrap();
    assert_eq!(reqs.len(), 6 + 4 + 3);
}

#[test]
fn accelsim_import_keeps_each_instructions_pc_as_its_site() {
    let imp = import::read(&data("accelsim_sample.traceg"), Format::AccelSim, &Options::default()).unwrap();
    let t = &imp.trace;
    assert_eq!(t.sites, imp.stats.sites);
    // block 1,1,0 (block 3), warp 0: STS at PC 0x0030, BAR.SYNC at 0x0040, LDS.U.128 at
    // 0x0050 (the sample's lines), every lane of a step at its instruction's PC
    let label = |step: u32| -> Vec<&str> {
        let mut v: Vec<&str> = t
            .records
            .iter()
            .filter(|r| r.block == 3 && r.thread < 32 && r.step == step)
            .map(|r| t.site_label(r.site).expect("a site in the table"))
            .collect();
        v.dedup();
        v
    };
    assert_eq!(label(0), vec!["pc 0x0030 STS"]);
    assert_eq!(label(1), vec!["pc 0x0040 BAR.SYNC.DEFER_BLOCKING"]);
    assert_eq!(label(2), vec!["pc 0x0050 LDS.U.128"]);
    // skipped instructions (IMAD, S2R, LDG) have no site; no PC twice
    assert!(t.sites.iter().all(|l| !l.contains("IMAD") && !l.contains("S2R")), "{:?}", t.sites);
    let mut pcs: Vec<&str> = t.sites.iter().map(|l| l.split(' ').nth(1).unwrap()).collect();
    pcs.sort_unstable();
    pcs.dedup();
    assert_eq!(pcs.len(), t.sites.len());
    // and a text trace of it keeps them
    let mut out = Vec::new();
    text::write(t, &mut out).unwrap();
    let back = text::parse(&out[..], "back.csv").unwrap();
    assert_eq!((&back.records, &back.sites), (&t.records, &t.sites));
}

#[test]
fn old_tracer_versions_and_line_numbers_are_read() {
    let imp =
        import::read(&data("accelsim_v2_lineinfo.traceg"), Format::AccelSim, &Options::default()).unwrap();
    let t = &imp.trace;
    assert_eq!(t.len(), 32 + 4);
    let (lanes, ops, _) = request(t, 2, 0, 1);
    assert_eq!(lanes, [(0, 0x40), (1, 0x44), (2, 0x48), (3, 0x4c)]);
    assert_eq!(ops, [Op::Load]);
    assert_eq!(imp.stats.skipped["IADD3"], 1);
}

#[test]
fn shmem_base_option_overrides_the_header() {
    // a base 0x100 below the header's: every offset grows by 0x100
    let opts = Options { shmem_base: Some(0x0000_7f2a_3bff_ff00), kernel: None };
    let imp = import::read(&data("accelsim_sample.traceg"), Format::AccelSim, &opts).unwrap();
    let (lanes, _, _) = request(&imp.trace, 3, 0, 0);
    assert_eq!(lanes[1], (1, 0x104));
}

#[test]
fn xz_compressed_traces_read_like_plain_ones() {
    let plain = std::fs::read(data("accelsim_sample.traceg")).unwrap();
    let dir = tempfile::Builder::new().prefix("banksim-import-").tempdir().unwrap();
    let path = dir.path().join("kernel-3.traceg.xz");
    let mut enc = liblzma::write::XzEncoder::new(std::fs::File::create(&path).unwrap(), 6);
    enc.write_all(&plain).unwrap();
    enc.finish().unwrap();
    assert_ne!(std::fs::read(&path).unwrap(), plain, "the file is compressed");
    let a = import::read(&data("accelsim_sample.traceg"), Format::AccelSim, &Options::default()).unwrap();
    let b = import::read(&path, Format::AccelSim, &Options::default()).unwrap();
    assert_eq!(rows(&a.trace), rows(&b.trace));
    assert_eq!(a.stats, b.stats);
    // a damaged xz stream is a read error naming the file, not a panic
    let mut bytes = std::fs::read(&path).unwrap();
    let n = bytes.len();
    bytes.truncate(n / 2);
    let cut = dir.path().join("cut.traceg.xz");
    std::fs::write(&cut, bytes).unwrap();
    let e = import::read(&cut, Format::AccelSim, &Options::default()).unwrap_err().to_string();
    assert!(e.contains("cut.traceg.xz"), "{e}");
}

#[test]
fn a_broken_sample_file_names_its_line() {
    let e = import::read(&data("accelsim_broken.traceg"), Format::AccelSim, &Options::default()).unwrap_err();
    let msg = e.to_string();
    assert!(matches!(e, ImportError::Malformed { line: 12, field: "mask", .. }), "{msg}");
    assert!(msg.contains("accelsim_broken.traceg:12") && msg.contains("contiguous active lanes"), "{msg}");
}

/// A valid one-warp trace whose instruction is `inst`, and the `insts` it declares.
fn one_inst(header: &str, inst: &str, insts: usize) -> String {
    format!(
        "-grid dim = (1,1,1)\n-block dim = (32,1,1)\n-shmem base_addr = 0x7f0000000000\n{header}\n\
         #BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = {insts}\n{inst}\n#END_TB\n"
    )
}

#[test]
fn malformed_accelsim_lines_are_errors_with_file_line_and_expectation() {
    let v5 = "-accelsim tracer version = 5";
    let v4 = "-accelsim tracer version = 4";
    let ok = "0010 0000000f 1 R1 LDS 1 R2 4 0 0x7f0000000000 0x7f0000000004 0x7f0000000008 0x7f000000000c 0";
    // sanity: the template is valid
    accelsim::parse(one_inst(v5, ok, 1).as_bytes(), "t.traceg", &Options::default()).unwrap();
    // (header, instruction line, insts, what the message must say)
    let cases: &[(&str, &str, usize, &str)] = &[
        (
            v5,
            "0010 0000000f 1 R1 LDS 1 R2 4 0 0x7f0000000000 0x7f0000000004 0x7f0000000008",
            1,
            "t.traceg:9: address: expected one hex address per active lane, found `end of line`",
        ),
        (
            v5,
            "0010 0000000f 1 R1 LDS 1 R2 4 0 0x7f0000000000 0x7f0000000004 0x7f0000000008 0x7f000000000c 0 7",
            1,
            "t.traceg:9: end of line: expected no more fields",
        ),
        (v4, &ok.replace(" 0x7f000000000c 0", " 0x7f000000000c"), 1, ""),
        (v4, ok, 1, "end of line: expected no more fields after the addresses"),
        (
            v5,
            &ok.replace("0000000f", "zz"),
            1,
            "t.traceg:9: mask: expected a 32-bit hex active mask, found `zz`",
        ),
        (v5, &ok.replace("0000000f", "1ffffffff"), 1, "mask: expected a 32-bit hex active mask"),
        (
            v5,
            &ok.replace(" 4 0 0x", " 4 7 0x"),
            1,
            "address mode: expected 0 (list), 1 (base + stride) or 2 (base + deltas), found `7`",
        ),
        (v5, &ok.replace(" 4 0 0x", " 0 0 0x"), 1, "mem_width: expected a width above 0"),
        (
            v5,
            &ok.replace("1 R1 LDS", "1 X1 LDS"),
            1,
            "destination register: expected a register `R<n>`, found `X1`",
        ),
        (
            v5,
            &ok.replace("1 R1 LDS", "9 R1 LDS"),
            1,
            "dest_num: expected a destination register count from 0 to 8, found `9`",
        ),
        (v5, &ok.replace("LDS 1 R2", "LDS q R2"), 1, "src_num"),
        (v5, &ok.replace("LDS", "LDS.U.256"), 1, "`LDS.U.256`: access width of 256 bits"),
        (v5, &ok.replace("LDS", "LDSM.16.M816.4"), 1, "`LDSM.16.M816.4`: unsupported matrix shape"),
        (v5, &ok.replace("LDS", "LDSM.16.M88.3"), 1, "unsupported matrix count `.3`"),
        (
            v5,
            &ok.replace("0x7f0000000004", "0x7f0x"),
            1,
            "address: expected one hex address per active lane, found `0x7f0x`",
        ),
        (
            v5,
            "0010 00000003 1 R1 LDS 1 R2 4 2 0x7f0000000000 -4611686018427387904 0",
            1,
            "lane 1: address 0x7f0000000000 plus its stride or delta",
        ),
        (
            v5,
            "0010 00000003 1 R1 LDS 1 R2 4 2 0x7e0000000000 8 0",
            1,
            "lane 0: address 0x7e0000000000 is below the shared base",
        ),
        (v5, "0010 00000003 1 R1 LDS.128 1 R2 16 1 0x7f00fffffff8 4 0", 1, "overflows 32 bits"),
        (
            v5,
            "0010 00000003",
            1,
            "t.traceg:9: dest_num: expected a destination register count from 0 to 8, found `end of line`",
        ),
        (v5, "xyz 2 3", 1, "t.traceg:9: PC: expected a hex PC, found `xyz`"),
        (
            v5,
            ok,
            2,
            "t.traceg:8: warp 0 of thread block 0,0,0 declares insts = 2 but has 1 instruction lines",
        ),
        (v5, "0010 80000001 1 R1 LDS 1 R2 4 0 0x7f0000000000 0x7f0000000004 0", 1, ""),
    ];
    for (header, inst, insts, want) in cases {
        let src = one_inst(header, inst, *insts);
        let got = accelsim::parse(src.as_bytes(), "t.traceg", &Options::default());
        match (got, want.is_empty()) {
            (Ok(_), true) => {}
            (Err(e), false) => assert!(e.to_string().contains(want), "{inst}\n  got:  {e}\n  want: {want}"),
            (Ok(_), false) => panic!("{inst}: accepted, expected an error containing `{want}`"),
            (Err(e), true) => panic!("{inst}: rejected ({e}), expected it to be accepted"),
        }
    }
}

#[test]
fn lanes_beyond_the_block_and_structure_errors_are_reported() {
    let v5 = "-accelsim tracer version = 5";
    // a 32-thread block: warp 1 does not exist
    let src =
        one_inst(v5, "0010 00000001 1 R1 LDS 1 R2 4 0 0x7f0000000000 0", 1).replace("warp = 0", "warp = 1");
    let e = accelsim::parse(src.as_bytes(), "t", &Options::default()).unwrap_err().to_string();
    assert!(e.contains("t:9: warp 1 lane 0 is beyond the block's 32 threads"), "{e}");

    let good = one_inst(v5, "0010 00000001 1 R1 LDS 1 R2 4 0 0x7f0000000000 0", 1);
    let cases: &[(String, &str)] = &[
        (
            good.replace("#END_TB\n", ""),
            "the file ends inside the thread block opened at line 5: expected `#END_TB`",
        ),
        (good.replace("#BEGIN_TB\n", ""), "t:5: line: expected a header line `-key = value`"),
        (
            good.replace("thread block = 0,0,0", "thread block = 1,0,0"),
            "t:6: block 1,0,0 is outside the grid (1,1,1)",
        ),
        (good.replace("thread block = 0,0,0", "thread block = 0,x,0"), "thread block: expected x,y,z"),
        (good.replace("thread block = 0,0,0\n", ""), "`warp =` before the block's `thread block = x,y,z`"),
        (good.replace("insts = 1\n", ""), "an instruction line of warp 0 before `insts = N`"),
        (good.replace("warp = 0\n", "").replace("insts = 1\n", ""), "an instruction line before `warp = n`"),
        (
            good.replace("#END_TB\n", "#BEGIN_TB\n"),
            "t:10: `#BEGIN_TB` inside the thread block opened at line 5",
        ),
        (good.replace("#BEGIN_TB\n", "#END_TB\n"), "t:5: `#END_TB` without a `#BEGIN_TB`"),
        (
            good.replace("-grid dim = (1,1,1)", "-grid dim = (1,1"),
            "t:1: grid dim: expected (x,y,z), found `(1,1`",
        ),
        (good.replace("-grid dim = (1,1,1)", "-grid dim"), "t:1: header: expected `-key = value`"),
        (good.replace("warp = 0", "warp = 0\nfoo = 3"), "line: expected `thread block = x,y,z`, `warp = n`"),
        (
            good.clone()
                + &good.replace("-grid", "#-grid").replace("-block", "#-block").replace("-shmem", "#-shmem"),
            "thread block 0,0,0 appears twice (first at line 6)",
        ),
        ("-grid dim = (1,1,1)\n\u{0}\u{ff}\u{fe}".to_string(), "t:2: line: expected a header line"),
    ];
    for (src, want) in cases {
        let e = accelsim::parse(src.as_bytes(), "t", &Options::default()).unwrap_err().to_string();
        assert!(e.contains(want), "\n  got:  {e}\n  want: {want}\n{src}");
    }
    // invalid UTF-8 names the line
    let mut bytes = good.into_bytes();
    bytes.extend_from_slice(b"\xff\xfe\n");
    let e = accelsim::parse(bytes.as_slice(), "t", &Options::default()).unwrap_err().to_string();
    assert!(e.contains("t:11: line: expected UTF-8 text"), "{e}");
    // a missing file names the path
    let e = import::read(Path::new("/no/such/kernel-1.traceg"), Format::AccelSim, &Options::default())
        .unwrap_err();
    assert!(e.to_string().starts_with("/no/such/kernel-1.traceg: cannot read"), "{e}");
}

// ------------------------------------------------------------------------------------
// The round trip: generated traces -> Accel-Sim format -> import -> identical simulation

/// Writes `trace` as an Accel-Sim `kernel-N.traceg`: each warp request becomes one
/// instruction line (behind a non-shared-memory instruction that the importer must
/// skip), with address modes 0, 1 and 2 in turn (mode 1 only where the tracer would
/// write it: contiguous lanes, constant stride). Returns the text and how often each
/// mode was used.
fn to_accelsim(trace: &Trace, grid: [u32; 3], block: [u32; 3], base: u64) -> (String, [usize; 3]) {
    let reqs = Requests::group(trace, 32).unwrap();
    let mut warps: BTreeMap<u32, BTreeMap<u32, Vec<String>>> = BTreeMap::new();
    let mut modes = [0usize; 3];
    let mut k = 0;
    for r in reqs.iter() {
        let mask = r.lanes.iter().fold(0u32, |m, &l| m | 1 << l);
        let lines = warps.entry(r.block).or_default().entry(r.warp).or_default();
        lines.push(format!("{:04x} ffffffff 1 R1 IMAD.MOV.U32 2 R255 R255 0 0", 16 * lines.len()));
        let pc = 16 * lines.len();
        let suffix = match r.bytes {
            1 => ".U8",
            2 => ".U16",
            8 => ".64",
            16 => ".128",
            _ => "",
        };
        let (dest, opcode) = match r.op {
            Op::Load => ("1 R4", format!("LDS{suffix}")),
            Op::Store => ("0", format!("STS{suffix}")),
            Op::Atomic => ("1 R4", format!("ATOMS.ADD{suffix}")),
            Op::Reduction => ("1 R255", format!("ATOMS.ADD{suffix}")),
            Op::Barrier => {
                lines.push(format!("{pc:04x} {mask:08x} 0 BAR.SYNC.DEFER_BLOCKING 0 0 0"));
                continue;
            }
            Op::MatrixLoad => ("1 R4", "LDSM.16.M88.4".into()),
            Op::MatrixStore => ("0", "STSM.16.M88.4".into()),
            Op::AsyncCopy => ("0", format!("LDGSTS.E{suffix}")),
            Op::AsyncCopyBypass => ("0", "LDGSTS.E.BYPASS.128".into()),
            Op::GlobalLoad | Op::GlobalStore => {
                unreachable!("the generated kernels access shared memory only")
            }
        };
        let g: Vec<u64> = r.addrs.iter().map(|&a| base + a as u64).collect();
        let contiguous = r.lanes.windows(2).all(|w| w[1] == w[0] + 1);
        let stride = if g.len() > 1 { g[1] as i64 - g[0] as i64 } else { 0 };
        let constant = g.windows(2).all(|w| w[1] as i64 - w[0] as i64 == stride);
        let mode = match k % 3 {
            1 if !(contiguous && constant && g.len() > 1) => 2,
            m => m,
        };
        k += 1;
        modes[mode] += 1;
        let addrs = match mode {
            0 => g.iter().map(|a| format!("0x{a:016x}")).collect::<Vec<_>>().join(" "),
            1 => format!("0x{:x} {stride}", g[0]),
            _ => {
                let deltas = g.windows(2).map(|w| (w[1] as i64 - w[0] as i64).to_string());
                std::iter::once(format!("0x{:x}", g[0])).chain(deltas).collect::<Vec<_>>().join(" ")
            }
        };
        lines.push(format!("{pc:04x} {mask:08x} {dest} {opcode} 2 R2 R3 {} {mode} {addrs} 0", r.bytes));
    }
    let mut out = format!(
        "-kernel name = generated\n-kernel id = 1\n-grid dim = ({},{},{})\n-block dim = ({},{},{})\n\
         -shmem = 0\n-nregs = 32\n-binary version = 90\n-cuda stream id = 0\n-shmem base_addr = 0x{base:016x}\n\
         -local mem base_addr = 0x{:016x}\n-nvbit version = 1.7.1\n-accelsim tracer version = 5\n-enable lineinfo = 0\n\n\
         #traces format = [line_num] PC mask dest_num [reg_dests] opcode src_num [reg_srcs] mem_width [adrrescompress?] [mem_addresses] immediate\n\n",
        grid[0], grid[1], grid[2], block[0], block[1], block[2], base + (1 << 25)
    );
    // blocks in descending order: the importer must not depend on the order
    for (&b, ws) in warps.iter().rev() {
        let (x, y, z) = (b % grid[0], b / grid[0] % grid[1], b / (grid[0] * grid[1]));
        out += &format!("\n#BEGIN_TB\n\nthread block = {x},{y},{z}\n");
        for (w, lines) in ws {
            out += &format!("\nwarp = {w}\ninsts = {}\n", lines.len());
            for l in lines {
                out += l;
                out += "\n";
            }
        }
        out += "\n#END_TB\n";
    }
    (out, modes)
}

/// Per request: (block, warp, step, op, bytes, lanes, addrs, wavefronts, ideal) on the
/// H100 preset, and the totals.
#[allow(clippy::type_complexity)]
fn simulate(trace: &Trace) -> (Vec<(u32, u32, u32, Op, u8, Vec<u16>, Vec<u32>, u32, u32)>, Summary) {
    let hw = configs::preset("h100").unwrap();
    let mut model = BankModel::new(&hw);
    let reqs = Requests::group(trace, hw.warp).unwrap();
    let mut summary = Summary::default();
    let per = reqs
        .iter()
        .map(|r| {
            let o = model.evaluate(&r.warp_request());
            summary.add(r.op, r.lanes.len(), o);
            (
                r.block,
                r.warp,
                r.step,
                r.op,
                r.bytes,
                r.lanes.to_vec(),
                r.addrs.to_vec(),
                o.wavefronts,
                o.ideal,
            )
        })
        .collect();
    (per, summary)
}

/// Writes, imports and simulates `trace`; returns how often each address mode was written.
fn round_trip(trace: &Trace, grid: [u32; 3], block: [u32; 3]) -> [usize; 3] {
    let base = 0x0000_7f2a_3c00_0000;
    let (text, modes) = to_accelsim(trace, grid, block, base);
    let imported = accelsim::parse(text.as_bytes(), "roundtrip.traceg", &Options::default()).unwrap();
    assert_eq!(rows(&imported.trace), rows(trace), "{}: the same records", trace.source);
    let (want, want_sum) = simulate(trace);
    let (got, got_sum) = simulate(&imported.trace);
    assert_eq!(got, want, "{}: every request simulates the same", trace.source);
    assert_eq!(got_sum, want_sum);
    assert!(want_sum.memory_total().wavefronts > 0);
    let skipped = imported.stats.skipped.get("IMAD").copied().unwrap_or(0);
    assert_eq!(skipped as usize, Requests::group(trace, 32).unwrap().len(), "one skipped filler per request");

    // and the imported trace survives the text format unchanged
    let mut csv = Vec::new();
    text::write(&imported.trace, &mut csv).unwrap();
    let back = text::parse(csv.as_slice(), "roundtrip.csv").unwrap();
    assert_eq!(back.records, imported.trace.records);
    modes
}

fn add(a: [usize; 3], b: [usize; 3]) -> [usize; 3] {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

#[test]
fn round_trip_transpose_tile_simulates_identically() {
    for pad in [0, 1] {
        let t = builtin::transpose(32, pad, 4);
        let modes = round_trip(&t, [1, 1, 1], [32, 32, 1]);
        assert!(modes.iter().all(|&n| n > 0), "every address mode used: {modes:?}");
    }
    // the unpadded transpose keeps its 32-way conflicts through the round trip
    let (per, _) = simulate(&builtin::transpose(32, 0, 4));
    assert!(per.iter().any(|r| r.3 == Op::Load && r.7 == 32));
}

#[test]
fn round_trip_wide_strided_atomic_and_multi_block_traces_simulate_identically() {
    // 8- and 16-byte strided accesses, one block each
    let mut modes = round_trip(&builtin::strided(64, 2, 0, 8, Op::Load), [1, 1, 1], [64, 1, 1]);
    modes = add(modes, round_trip(&builtin::strided(96, 1, 1, 16, Op::Load), [1, 1, 1], [96, 1, 1]));
    // six blocks on a 3x2 grid, every op and width, partial warps (40 threads per block)
    let mut t = Trace::new("multi-block");
    let ops = [Op::Load, Op::Store, Op::Atomic, Op::Reduction, Op::Load, Op::Store];
    let widths = [4u8, 8, 4, 4, 16, 1];
    for b in 0..6u32 {
        let g = builtin::strided(40, b + 1, b, widths[b as usize], ops[b as usize]);
        for (i, r) in g.records.iter().enumerate() {
            t.push(Record { block: b, ..*r });
            // a second step where lane 5 of each warp sits out (a mask with a hole)
            if i % 32 != 5 {
                t.push(Record { block: b, step: 1, op: Op::Load, addr: (r.addr / 2) & !3, bytes: 4, ..*r });
            }
        }
    }
    modes = add(modes, round_trip(&t, [3, 2, 1], [40, 1, 1]));
    assert!(modes.iter().all(|&n| n > 0), "every address mode used: {modes:?}");
}

// ------------------------------------------------------------------------------------
// NVBit mem_trace

#[test]
fn memtrace_old_format_renumbers_warp_slots_and_drops_inactive_lanes() {
    let imp = import::read(&data("memtrace_old.txt"), Format::NvbitMemtrace, &Options::default()).unwrap();
    let t = &imp.trace;
    // block 0: slots 12 and 13 are warps 0 and 1; block size 48: warp 1 has lanes 0-15
    let (lanes, ops, _) = request(t, 0, 0, 0);
    assert_eq!(lanes, (0..32).map(|l| (l, 4 * l)).collect::<Vec<_>>());
    assert_eq!(ops, [Op::Store]);
    let (lanes, _, _) = request(t, 0, 1, 0);
    assert_eq!(lanes, (0..16).map(|l| (32 + l, 0x80 + 4 * l)).collect::<Vec<_>>());
    let (lanes, ops, _) = request(t, 0, 0, 1);
    assert_eq!((lanes.len(), ops, lanes[31]), (32, vec![Op::Load], (31, 128 * 31)));
    // ATOMS.POPC.INC is a reduction, lanes with address 0 in a generic line are inactive
    let (lanes, ops, _) = request(t, 0, 1, 1);
    assert_eq!((lanes.len(), ops), (16, vec![Op::Reduction]));
    // block 1: slots 4 and 5; ATOMS.ADD is a returning atomic; lanes 16-31 of warp 1 are
    // beyond the 48 threads
    let (lanes, ops, _) = request(t, 1, 1, 0);
    assert_eq!((lanes.len(), ops), (16, vec![Op::Atomic]));
    assert_eq!(request(t, 1, 0, 0).0.len(), 32);

    let s = &imp.stats;
    assert_eq!(s.skipped["LDG"], 1);
    assert_eq!(s.instructions, 7);
    assert_eq!(s.inactive_lanes, 16 + 16 + 16);
    assert_eq!(s.wrapped as usize, t.len(), "no shared base: every generic address taken modulo 16 MiB");
    assert_eq!(s.other_lines, 4, "banner, separator and the program's own output");
    assert_eq!(s.kernel.as_ref().unwrap().name, "transpose48(float*, float const*)");
    Requests::group(t, 32).unwrap();
}

#[test]
fn memtrace_new_format_needs_a_kernel_choice_when_two_launches_use_shared_memory() {
    let path = data("memtrace_new.txt");
    let e = import::read(&path, Format::NvbitMemtrace, &Options::default()).unwrap_err();
    let msg = e.to_string();
    assert!(matches!(&e, ImportError::Kernels { kernels, .. } if kernels.len() == 2), "{msg}");
    assert!(
        msg.contains("0 `fill` (1 instructions), 1 `column` (3 instructions); choose one with --kernel"),
        "{msg}"
    );

    // kernel 0: plain offsets, every lane active
    let k0 = import::read(&path, Format::NvbitMemtrace, &Options { kernel: Some(0), ..Options::default() })
        .unwrap();
    assert_eq!(rows(&k0.trace), (0..32).map(|l| (0, l, 0, Op::Store, 4 * l, 4)).collect::<Vec<_>>());
    assert_eq!(k0.stats.wrapped, 0);

    // kernel 1 with the shared base given: CTA 1,1,0 of a 2x2 grid is block 3
    let opts = Options { kernel: Some(1), shmem_base: Some(0x0000_7f5a_3d00_0000) };
    let k1 = import::read(&path, Format::NvbitMemtrace, &opts).unwrap();
    let t = &k1.trace;
    let (lanes, _, bytes) = request(t, 3, 0, 0);
    assert_eq!((lanes[5], bytes), ((5, 256 * 5), vec![8]));
    let (lanes, _, bytes) = request(t, 3, 1, 0);
    assert_eq!((lanes.len(), lanes[31], bytes), (32, (63, 0x1000 + 16 * 31), vec![16]));
    let (lanes, ops, _) = request(t, 3, 0, 1);
    assert_eq!((lanes.len(), ops), (32, vec![Op::Store]));
    assert_eq!((k1.stats.wrapped, k1.stats.skipped["STG"]), (0, 1));
    assert_eq!(k1.stats.kernel.as_ref().unwrap().grid, Some([2, 2, 1]));

    // the LDS.U.64 line has a PC: its records keep it; lines without one have no site
    assert_eq!(t.sites, vec!["pc 0x0120 LDS.U.64".to_string()]);
    let site_of = |warp: u32, step: u32| {
        let s: Vec<u32> = t
            .records
            .iter()
            .filter(|r| r.block == 3 && r.thread / 32 == warp && r.step == step)
            .map(|r| r.site)
            .collect();
        assert!(s.windows(2).all(|w| w[0] == w[1]), "one site per request");
        s[0]
    };
    assert_eq!((site_of(0, 0), site_of(1, 0)), (0, traces::NO_SITE));
    // the same without the base: offsets taken modulo 16 MiB agree
    let k1w = import::read(&path, Format::NvbitMemtrace, &Options { kernel: Some(1), ..Options::default() })
        .unwrap();
    assert_eq!(rows(&k1w.trace), rows(t));
    assert_eq!(k1w.stats.wrapped as usize, t.len());

    let e = import::read(&path, Format::NvbitMemtrace, &Options { kernel: Some(7), ..Options::default() })
        .unwrap_err()
        .to_string();
    assert!(e.contains("no kernel launch 7 with memory records; the file has 0, 1"), "{e}");
}

#[test]
fn tensor_core_instructions_are_their_own_ops_and_cp_async_keeps_its_shared_destination() {
    // Accel-Sim: STSM x2 (lanes 0-15 give rows), LDGSTS of 8 bytes to shared offsets,
    // LDGSTS.E.BYPASS with generic shared addresses (cp.async.cg), and an LDGSTS whose
    // traced addresses are its global source (what Accel-Sim's tracer records): skipped
    let base = 0x7f00_0000_0000u64;
    let list =
        |f: &dyn Fn(u64) -> u64| (0..32).map(|l| format!("0x{:x}", f(l))).collect::<Vec<_>>().join(" ");
    let traceg = format!(
        "-grid dim = (1,1,1)\n-block dim = (32,1,1)\n-shmem base_addr = 0x{base:x}\n-accelsim tracer version = 5\n\n\
         #BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 4\n\
         0000 ffffffff 0 STSM.16.M88.2 2 R2 R4 16 0 {} 0\n\
         0010 ffffffff 0 LDGSTS.E.LTC128B.64 2 R2 R4 8 1 0x100 8 0\n\
         0020 ffffffff 0 LDGSTS.E.BYPASS.LTC128B.128 2 R2 R4 16 0 {} 0\n\
         0030 ffffffff 0 LDGSTS.E.128 2 R2 R4 16 0 {} 0\n#END_TB\n",
        list(&|l| base + 0x400 + 128 * l),
        list(&|l| base + 16 * l),
        list(&|l| 0x7e00_0000_0000 + 16 * l),
    );
    let imp = import::accelsim::parse(traceg.as_bytes(), "t.traceg", &Options::default()).unwrap();
    let t = &imp.trace;
    let step = |s: u32| -> Vec<(u32, Op, u32, u8)> {
        t.records.iter().filter(|r| r.step == s).map(|r| (r.thread, r.op, r.addr, r.bytes)).collect()
    };
    assert_eq!(step(0), (0..16).map(|l| (l, Op::MatrixStore, 0x400 + 128 * l, 16)).collect::<Vec<_>>());
    assert_eq!(step(1), (0..32).map(|l| (l, Op::AsyncCopy, 0x100 + 8 * l, 8)).collect::<Vec<_>>());
    assert_eq!(step(2), (0..32).map(|l| (l, Op::AsyncCopyBypass, 16 * l, 16)).collect::<Vec<_>>());
    assert!(step(3).is_empty());
    assert_eq!(imp.stats.skipped["LDGSTS (global source address)"], 1);
    // on the h100 preset: the stmatrix rows 128 bytes apart conflict 8-way in each matrix
    let hw = configs::preset("h100").unwrap();
    let reqs = Requests::group(t, 32).unwrap();
    let mut model = sim_core::BankModel::new(&hw);
    let out: Vec<(u32, u32)> =
        reqs.iter().map(|r| model.evaluate(&r.warp_request())).map(|o| (o.wavefronts, o.ideal)).collect();
    assert_eq!(out, [(16, 2), (2, 2), (0, 0)]);
    // a lane with a global address among shared ones is an error
    let mixed = traceg.replace(
        "0010 ffffffff 0 LDGSTS.E.LTC128B.64 2 R2 R4 8 1 0x100 8 0",
        "0010 00000003 0 LDGSTS.E.64 2 R2 R4 8 0 0x100 0x7e0000000000 0",
    );
    let e =
        import::accelsim::parse(mixed.as_bytes(), "t.traceg", &Options::default()).unwrap_err().to_string();
    assert!(e.contains("lane 1") && e.contains("other lanes of this LDGSTS are"), "{e}");

    // mem_trace: a cp.async is two lines, its shared destination's and its global
    // source's; the second is skipped
    let a =
        |f: &dyn Fn(u64) -> u64| (0..32).map(|l| format!("0x{:016x}", f(l))).collect::<Vec<_>>().join(" ");
    let src = format!(
        "Kernel k - grid size 1,1,1 - block size 32,1,1\n\
         CTA 0,0,0 - warp 0 - LDGSTS.E.BYPASS.128 - {}\nCTA 0,0,0 - warp 0 - LDGSTS.E.BYPASS.128 - {}\n",
        a(&|l| base + 16 * l),
        a(&|l| 0x7e00_0000_0000 + 16 * l),
    );
    let opts = Options { shmem_base: Some(base), ..Options::default() };
    let imp = nvbit::parse(src.as_bytes(), "t", &opts).unwrap();
    let got: Vec<(u32, Op, u32)> = imp.trace.records.iter().map(|r| (r.step, r.op, r.addr)).collect();
    assert_eq!(got, (0..32).map(|l| (0, Op::AsyncCopyBypass, 16 * l)).collect::<Vec<_>>());
    assert_eq!(imp.stats.skipped["LDGSTS (global source address)"], 1);
    // without the base, generic addresses cannot be told shared from global: both skipped
    let imp = nvbit::parse(src.as_bytes(), "t", &Options::default()).unwrap();
    assert_eq!((imp.trace.len(), imp.stats.skipped["LDGSTS (global source address)"]), (0, 2));
}

#[test]
fn malformed_memtrace_lines_are_errors_with_line_numbers() {
    let e =
        import::read(&data("memtrace_broken.txt"), Format::NvbitMemtrace, &Options::default()).unwrap_err();
    let msg = e.to_string();
    assert!(
        msg.contains(
            "memtrace_broken.txt:3: addresses: expected 32 hex lane addresses, found `31 addresses`"
        ),
        "{msg}"
    );

    let a32 =
        (0..32).map(|l| format!("0x{:016x}", 0x7f5a_3d00_0000u64 + 4 * l)).collect::<Vec<_>>().join(" ");
    let cases: &[(String, &str)] = &[
        (format!("CTA 0,0 - warp 1 - LDS - {a32}"), "t:1: CTA: expected x,y,z, found `0,0`"),
        (format!("CTA 0,0,0 - warp x - LDS - {a32}"), "t:1: warp: expected a warp id, found `x`"),
        (format!("CTA 0,0,0 - LDS - {a32}"), "t:1: line: expected `[CTX ... - grid_launch_id N - ]CTA x,y,z - warp W"),
        (format!("CTA 0,0,0 - wrap 1 - LDS - {a32}"), "t:1: field: expected CTX, grid_launch_id, CTA, warp or PC, found `wrap 1`"),
        (format!("CTA 0,0,0 - warp 1 - 0x12 - {a32}"), "t:1: opcode: expected a SASS opcode"),
        (format!("CTA 0,0,0 - warp 1 - LDS - {}", a32.replace("0x00007f5a3d000004", "0xq")), "t:1: address: expected 32 hex lane addresses, found `0xq`"),
        (format!("CTA 0,0,0 - warp 1 - LDSM.16.M816.4 - {a32}"), "t:1: `LDSM.16.M816.4`: unsupported matrix shape"),
        (format!("CTA 0,1,0 - warp 1 - LDS - {a32}"), "t:1: block 0,1,0: the grid size is needed"),
        (format!("Kernel k - grid size 1,1,1 - block size 32,1,1\nCTA 2,0,0 - warp 1 - LDS - {a32}"), "t:2: block 2,0,0 is outside the grid (1,1,1)"),
        (format!("Kernel k - grid size 1,1 - block size 32,1,1\nCTA 0,0,0 - warp 1 - LDS - {a32}"), "t:1: grid size: expected x,y,z"),
        (format!("Kernel k - grid size 1,1,1 - block size 32,1,1\nCTA 0,0,0 - warp 1 - LDS - {a32}\nCTA 0,0,0 - warp 2 - LDS - {a32}"), "block 0 has 2 distinct warp ids but a block of 32 threads has 1 warps"),
        ("MEMTRACE: CTX 0x1 - LAUNCH - Kernel name a - grid launch id 4\nMEMTRACE: CTX 0x1 - LAUNCH - Kernel name b - grid launch id 4".to_string(), "t:2: kernel launch 4 appears twice (first at line 1)"),
    ];
    for (src, want) in cases {
        let e = nvbit::parse(src.as_bytes(), "t", &Options::default()).unwrap_err().to_string();
        assert!(e.contains(want), "\n  got:  {e}\n  want: {want}");
    }
    // application output that merely mentions kernels is not a launch line
    let src = format!("Kernel time: 3 ms - ok\nCTA 0,0,0 - warp 1 - LDS - {a32}\n");
    let imp = nvbit::parse(src.as_bytes(), "t", &Options::default()).unwrap();
    assert_eq!((imp.trace.len(), imp.stats.other_lines), (32, 1));
}

// ------------------------------------------------------------------------------------
// Bad input never panics

fn sample_lines() -> Vec<String> {
    let mut v: Vec<String> =
        std::fs::read_to_string(data("accelsim_sample.traceg")).unwrap().lines().map(String::from).collect();
    v.extend(std::fs::read_to_string(data("memtrace_new.txt")).unwrap().lines().map(String::from));
    v
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn edited_traces_give_a_result_or_an_error_never_a_panic(
        edits in prop::collection::vec((any::<prop::sample::Index>(), 0u8..5, any::<u32>(), ".{0,12}"), 1..6),
    ) {
        let mut lines = sample_lines();
        for (at, how, n, junk) in edits {
            let i = at.index(lines.len());
            let toks: Vec<String> = lines[i].split_whitespace().map(String::from).collect();
            let k = (n as usize) % (toks.len() + 1);
            lines[i] = match how {
                0 => toks[..k].join(" "),                                     // truncate
                1 => { let mut t = toks.clone(); if k < t.len() { t[k] = junk; } t.join(" ") } // replace a field
                2 => { let mut t = toks.clone(); t.insert(k.min(t.len()), junk); t.join(" ") } // insert a field
                3 => { let j = (n as usize) % lines.len(); lines.swap(i, j); continue; } // reorder lines
                _ => { let mut t = toks.clone(); if k < t.len() { t[k] = n.to_string(); } t.join(" ") } // a number
            };
        }
        let src = lines.join("\n");
        for format in [Format::AccelSim, Format::NvbitMemtrace] {
            for kernel in [None, Some(1)] {
                let opts = Options { kernel, ..Options::default() };
                if let Ok(imp) = import::parse(src.as_bytes(), "fuzz", format, &opts) {
                    // whatever was accepted is a valid trace
                    let mut csv = Vec::new();
                    text::write(&imp.trace, &mut csv).unwrap();
                    prop_assert!(text::parse(csv.as_slice(), "fuzz.csv").is_ok());
                }
            }
        }
    }
}
