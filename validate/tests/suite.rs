//! The kernel suite on a real Vulkan adapter (lavapipe in CI): every kernel of
//! `validate/kernels/` is captured and its trace compared, record for record, with the
//! trace our generators or a hand-derived formula give; the bank model then checks the
//! conflict degree each kernel is known for. Without an adapter these tests are skipped
//! (see `validate::gpu::open_for_tests`), unless `BANKSIM_REQUIRE_GPU=1`.

use sim_core::{BankModel, Op};
use std::collections::BTreeMap;
use traces::{Record, Requests, Trace};
use validate::capture::{capture, Capture, CaptureOptions, KernelOptions};
use validate::gpu::{open_for_tests, Gpu};

fn kernel(name: &str) -> (String, String) {
    let path = format!("{}/kernels/{name}", env!("CARGO_MANIFEST_DIR"));
    let src = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    (src, path)
}

fn run(gpu: &Gpu, name: &str, dispatch: [u32; 3], overrides: &[(&str, f64)], binds: &[&str]) -> Capture {
    run_entry(gpu, name, None, dispatch, overrides, binds)
}

/// [`run`] of the entry point `entry` (None: the only one).
fn run_entry(
    gpu: &Gpu,
    name: &str,
    entry: Option<&str>,
    dispatch: [u32; 3],
    overrides: &[(&str, f64)],
    binds: &[&str],
) -> Capture {
    let (src, path) = kernel(name);
    let opts = CaptureOptions::new(KernelOptions {
        entry: entry.map(String::from),
        overrides: overrides.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
        dispatch,
        binds: binds.iter().map(|b| b.parse().unwrap()).collect(),
    });
    capture(gpu, &src, &path, &opts).unwrap_or_else(|e| panic!("{name}: {e}"))
}

type Row = (u32, u32, u32, Op, u32, u8);

/// The shared-memory records (global accesses left out: the generators model shared
/// memory) sorted, with each block's steps renumbered 0, 1, 2, ... in order (the
/// capture numbers steps densely per block; generators may leave gaps).
fn normalized(trace: &Trace) -> Vec<Row> {
    let shared = || trace.records.iter().filter(|r| !r.op.is_global());
    let mut per_block: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    for r in shared() {
        per_block.entry(r.block).or_default().push(r.step);
    }
    let ranks: BTreeMap<u32, BTreeMap<u32, u32>> = per_block
        .into_iter()
        .map(|(b, mut steps)| {
            steps.sort_unstable();
            steps.dedup();
            (b, steps.into_iter().enumerate().map(|(i, s)| (s, i as u32)).collect())
        })
        .collect();
    let mut rows: Vec<Row> =
        shared().map(|r| (r.block, r.thread, ranks[&r.block][&r.step], r.op, r.addr, r.bytes)).collect();
    rows.sort_unstable();
    rows
}

/// `one` (block 0's records) repeated for blocks 0..blocks.
fn per_block(one: &[Record], blocks: u32) -> Trace {
    let mut t = Trace::new("expected");
    for b in 0..blocks {
        for r in one {
            t.push(Record { block: b, ..*r });
        }
    }
    t
}

fn rec(thread: u32, step: u32, op: Op, addr: u32, bytes: u8) -> Record {
    Record { block: 0, thread, step, op, addr, bytes, gap: 0, dep: None, wait: None, site: traces::NO_SITE }
}

fn bar(thread: u32, step: u32) -> Record {
    rec(thread, step, Op::Barrier, 0, 0)
}

fn assert_same(name: &str, got: &Trace, want: &Trace) {
    let (g, w) = (normalized(got), normalized(want));
    if g != w {
        let first = g.iter().zip(&w).position(|(a, b)| a != b).unwrap_or(g.len().min(w.len()));
        panic!(
            "{name}: captured {} records, expected {}; first difference at sorted row {first}: captured {:?}, expected {:?}",
            g.len(),
            w.len(),
            g.get(first),
            w.get(first)
        );
    }
}

/// (wavefronts, ideal) summed over the trace's `op` requests on the h100 preset.
fn wavefronts(trace: &Trace, op: Op) -> (u64, u64) {
    let hw = configs::preset("h100").unwrap();
    let mut model = BankModel::new(&hw);
    let reqs = Requests::group(trace, hw.warp).unwrap();
    let (mut w, mut i) = (0, 0);
    for r in reqs.iter().filter(|r| r.op == op) {
        let o = model.evaluate(&r.warp_request());
        w += o.wavefronts as u64;
        i += o.ideal as u64;
    }
    (w, i)
}

fn gcd(a: u32, b: u32) -> u32 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

fn params(kv: &[(&str, i64)]) -> BTreeMap<String, i64> {
    kv.iter().map(|(k, v)| (k.to_string(), *v)).collect()
}

#[test]
fn transpose32_matches_generator_and_is_32_way_unpadded_1_way_padded() {
    let Some(gpu) = open_for_tests("transpose32_matches_generator_and_is_32_way_unpadded_1_way_padded")
    else {
        return;
    };
    for (file, pad, degree) in [("transpose32.wgsl", 0, 32), ("transpose32_pad1.wgsl", 1, 1)] {
        let c = run(gpu, file, [2, 2, 1], &[], &[]);
        let want = per_block(&traces::builtin::transpose(32, pad, 4).records, 4);
        assert_same(file, &c.trace, &want);
        let (w, ideal) = wavefronts(&c.trace, Op::Load);
        assert_eq!(w, ideal * degree, "{file}: column reads should be {degree}-way");
        assert_eq!(wavefronts(&c.trace, Op::Store), (128, 128), "{file}: row writes are conflict-free");
    }
}

#[test]
fn tile16_pads_0_to_4_match_generator_and_degrees() {
    let Some(gpu) = open_for_tests("tile16_pads_0_to_4_match_generator_and_degrees") else { return };
    for (pad, degree) in [(0, 8), (1, 2), (2, 1), (3, 2), (4, 2)] {
        let c = run(gpu, "tile16.wgsl", [1, 1, 1], &[("PAD", pad as f64)], &[]);
        let want = traces::generators::generate("tile", &params(&[("pad", pad)])).unwrap();
        assert_same(&format!("tile16 pad {pad}"), &c.trace, &want);
        assert_eq!(c.shared_bytes, 16 * (16 + pad as u32) * 4, "override-sized array");
        let (w, ideal) = wavefronts(&c.trace, Op::Load);
        assert_eq!((w, ideal), (8 * degree, 8), "tile16 pad {pad}: column read should be {degree}-way");
    }
}

/// The reduction kernels: two stores, a barrier, the generator's tree, thread 0's load.
fn reduction_expected(interleaved: bool, blocks: u32) -> Trace {
    let tree =
        traces::generators::generate("reduction", &params(&[("interleaved", interleaved as i64)])).unwrap();
    let mut one = Vec::new();
    for t in 0..256 {
        one.push(rec(t, 0, Op::Store, t * 4, 4));
        one.push(rec(t, 1, Op::Store, (t + 256) * 4, 4));
        one.push(bar(t, 2));
    }
    let last = tree.records.iter().map(|r| r.step).max().unwrap();
    one.extend(tree.records.iter().map(|r| Record { step: r.step + 3, ..*r }));
    one.push(rec(0, last + 4, Op::Load, 0, 4));
    per_block(&one, blocks)
}

#[test]
fn reductions_match_generator_interleaved_conflicts_sequential_does_not() {
    let Some(gpu) = open_for_tests("reductions_match_generator_interleaved_conflicts_sequential_does_not")
    else {
        return;
    };
    // interleaved, per block: rounds s = 1..256 put active lanes 2s words apart:
    // 2-, 4-, 8-, 16-, 16-, 8-, 4-, 2-, 1-way on 8, 4, 2, 1, 1, 1, 1, 1, 1 warps, two loads
    // each, plus thread 0's final load: 191 wavefronts for 41 requests
    for (file, interleaved, loads) in
        [("reduce_interleaved.wgsl", true, (191, 41)), ("reduce_sequential.wgsl", false, (41, 41))]
    {
        let c = run(gpu, file, [3, 1, 1], &[], &[]);
        assert_same(file, &c.trace, &reduction_expected(interleaved, 3));
        assert_eq!(wavefronts(&c.trace, Op::Load), (loads.0 * 3, loads.1 * 3), "{file}");
    }
}

/// The scan kernel: its two stores, the generator's up-sweep, thread 0 clearing the
/// last element, the generator's down-sweep, a barrier and the two loads.
fn scan_expected(padded: bool) -> Trace {
    let gen = traces::generators::generate("scan", &params(&[("padded", padded as i64)])).unwrap();
    let at = |i: u32| if padded { i + i / 32 } else { i } * 4;
    let up_steps = 4 * 9; // 9 rounds of barrier, load, load, store
    let mut one = Vec::new();
    for t in 0..256 {
        one.push(rec(t, 0, Op::Store, at(t), 4));
        one.push(rec(t, 1, Op::Store, at(t + 256), 4));
    }
    for r in &gen.records {
        let shift = if r.step < up_steps { 2 } else { 3 };
        one.push(Record { step: r.step + shift, ..*r });
    }
    one.push(rec(0, up_steps + 2, Op::Store, at(511), 4));
    let end = gen.records.iter().map(|r| r.step).max().unwrap() + 4;
    for t in 0..256 {
        one.push(bar(t, end));
        one.push(rec(t, end + 1, Op::Load, at(t), 4));
        one.push(rec(t, end + 2, Op::Load, at(t + 256), 4));
    }
    per_block(&one, 1)
}

#[test]
fn scan_matches_generator_and_padding_removes_most_conflicts() {
    let Some(gpu) = open_for_tests("scan_matches_generator_and_padding_removes_most_conflicts") else {
        return;
    };
    let plain = run(gpu, "scan.wgsl", [1, 1, 1], &[], &[]);
    assert_same("scan", &plain.trace, &scan_expected(false));
    let padded = run(gpu, "scan.wgsl", [1, 1, 1], &[("PADDED", 1.0)], &[]);
    assert_same("scan padded", &padded.trace, &scan_expected(true));
    let (wp, ip) = wavefronts(&plain.trace, Op::Load);
    let (wq, iq) = wavefronts(&padded.trace, Op::Load);
    assert_eq!(ip, iq, "same requests");
    // first up-sweep round: ai = 2t, bi = 2t + 1 are 2-way unpadded, conflict-free padded
    assert!(
        wp as f64 / ip as f64 > 2.0 && (wq as f64) / (iq as f64) < 1.5,
        "unpadded {wp}/{ip}, padded {wq}/{iq}"
    );
}

#[test]
fn aos_and_soa_match_generator_and_degrees() {
    let Some(gpu) = open_for_tests("aos_and_soa_match_generator_and_degrees") else { return };
    for (file, k, soa, degree) in [
        ("aos_k2.wgsl", 2, 0, 2),
        ("aos_k3.wgsl", 3, 0, 1),
        ("aos_k4.wgsl", 4, 0, 4),
        ("soa_k4.wgsl", 4, 1, 1),
    ] {
        let c = run(gpu, file, [2, 1, 1], &[], &[]);
        let gen =
            traces::generators::generate("aos", &params(&[("k", k), ("soa", soa), ("threads", 64)])).unwrap();
        let k = k as u32;
        let mut one: Vec<Record> = gen.records.iter().map(|r| Record { op: Op::Store, ..*r }).collect();
        one.extend((0..64).map(|t| bar(t, k)));
        one.extend(gen.records.iter().map(|r| Record { step: r.step + k + 1, ..*r }));
        assert_same(file, &c.trace, &per_block(&one, 2));
        let requests = 2 * 2 * k as u64; // 2 blocks x 2 warps x k fields
        assert_eq!(wavefronts(&c.trace, Op::Load), (requests * degree, requests), "{file}");
        assert_eq!(wavefronts(&c.trace, Op::Store), (requests * degree, requests), "{file}");
    }
}

fn stride_expected(stride: u32, iters: u32, dependent: bool, blocks: u32) -> Trace {
    let mut one = Vec::new();
    for t in 0..256 {
        for j in 0..32 {
            one.push(rec(t, j, Op::Store, (t + 256 * j) * 4, 4));
        }
        one.push(bar(t, 32));
        let lane = t & 31;
        for k in 0..iters {
            let word = if dependent { (lane * stride) & 8191 } else { (lane * stride + 32 * k) & 8191 };
            one.push(rec(t, 33 + k, Op::Load, word * 4, 4));
        }
    }
    per_block(&one, blocks)
}

#[test]
fn stride_sweeps_match_formula_and_gcd_degrees() {
    let Some(gpu) = open_for_tests("stride_sweeps_match_formula_and_gcd_degrees") else { return };
    for (file, dependent) in [("stride_dependent.wgsl", true), ("stride_independent.wgsl", false)] {
        for (stride, degree) in [(0, 1), (1, 1), (2, 2), (8, 8), (32, 32), (33, 1)] {
            let bind = format!("0.0=u32:{stride},5");
            let c = run(gpu, file, [2, 1, 1], &[], &[&bind]);
            assert_same(
                &format!("{file} stride {stride}"),
                &c.trace,
                &stride_expected(stride, 5, dependent, 2),
            );
            // the IR says which loads wait for the previous one (v = sh[v]) and which do
            // not (acc += sh[i + 32 k]); stores of `i` depend on no load; the result's
            // global store needs the loaded values
            for r in &c.trace.records {
                let want = match r.op {
                    Op::Load => Some(dependent),
                    Op::Store => Some(false),
                    Op::GlobalStore => Some(true),
                    _ => None,
                };
                assert_eq!(r.dep, want, "{file} stride {stride}: dep of {r:?}");
            }
            // the loop's other work is the same every iteration, and not nothing
            let loads: Vec<u32> = c
                .trace
                .records
                .iter()
                .filter(|r| r.op == Op::Load && r.block == 0 && r.thread == 5)
                .map(|r| r.gap)
                .collect();
            assert!(loads[1] > 0 && loads[1..].windows(2).all(|w| w[0] == w[1]), "{file}: gaps {loads:?}");
            let requests = 2 * 8 * 5; // 2 blocks x 8 warps x 5 loads
            assert_eq!(
                wavefronts(&c.trace, Op::Load),
                (requests * degree, requests),
                "{file} stride {stride}"
            );
        }
    }
}

#[test]
fn loads_wait_at_the_first_use_of_their_value() {
    let Some(gpu) = open_for_tests("loads_wait_at_the_first_use_of_their_value") else { return };
    // steady-state loop loads of thread 5: (gap, wait). The chase computes the next
    // index from v last (loop control first), the sum adds the value first, the ALU loop
    // converts it after its first loop-bound check and compare
    let waits = |file: &str, overrides: &[(&str, f64)]| {
        let c = run(gpu, file, [1, 1, 1], overrides, &["0.0=u32:8,6"]);
        let loads: Vec<(u32, Option<u32>)> = c
            .trace
            .records
            .iter()
            .filter(|r| r.op == Op::Load && r.thread == 5)
            .map(|r| (r.gap, r.wait))
            .collect();
        assert!(loads[1..].windows(2).all(|w| w[0] == w[1]), "{file}: steady state {loads:?}");
        loads[2]
    };
    let (gap, wait) = waits("stride_dependent.wgsl", &[]);
    assert_eq!(wait, Some(gap - 1), "the chase uses v in the index just before the load (gap {gap})");
    let (gap, wait) = waits("stride_independent.wgsl", &[]);
    assert!(gap > 0 && wait == Some(0), "the sum uses the value first: gap {gap}, wait {wait:?}");
    let (gap, wait) = waits("stride_alu.wgsl", &[("ALU", 4.0)]);
    let w = wait.expect("the ALU work uses the value");
    assert!(w > 0 && w < gap / 4, "f32(v) comes early in the ALU loop: gap {gap}, wait {w}");
}

fn gemm_expected(skew: u32) -> Trace {
    let pa = (16 + skew) / 4; // vectors per row of As
    let b_base = 64 * pa * 16;
    let mut one = Vec::new();
    for tile in 0..2 {
        let s = 24 * tile;
        for t in 0..256 {
            let (row, colv) = (t % 64, t / 64);
            one.push(rec(t, s, Op::Store, ((t / 4) * pa + t % 4) * 16, 16));
            if t < 64 {
                one.push(rec(t, s + 1, Op::Store, b_base + t * 16, 16));
            }
            one.push(bar(t, s + 2));
            for kv in 0..4 {
                one.push(rec(t, s + 3 + 5 * kv, Op::Load, (row * pa + kv) * 16, 16));
                for i in 0..4 {
                    one.push(rec(
                        t,
                        s + 4 + 5 * kv + i,
                        Op::Load,
                        b_base + ((4 * kv + i) * 4 + colv) * 16,
                        16,
                    ));
                }
            }
            one.push(bar(t, s + 23));
        }
    }
    per_block(&one, 1)
}

/// (wavefronts, ideal) of the loads of As (the first `b_base` bytes).
fn as_loads(trace: &Trace, b_base: u32) -> (u64, u64) {
    let mut t = trace.clone();
    t.records.retain(|r| r.op == Op::Load && r.addr < b_base);
    t.lines = vec![0; t.records.len()];
    wavefronts(&t, Op::Load)
}

#[test]
fn gemm_matches_formula_and_skew_removes_the_4_way_conflict() {
    let Some(gpu) = open_for_tests("gemm_matches_formula_and_skew_removes_the_4_way_conflict") else {
        return;
    };
    for (skew, degree) in [(0, 4), (4, 1)] {
        let c = run(gpu, "gemm_skew.wgsl", [1, 1, 1], &[("SKEW", skew as f64)], &[]);
        assert_same(&format!("gemm skew {skew}"), &c.trace, &gemm_expected(skew));
        let b_base = 64 * (16 + skew) * 4;
        assert_eq!(c.shared_bytes, b_base + 64 * 16);
        // 2 K-tiles x 4 vectors x 8 warps, 4 quarter-warp phases each
        assert_eq!(
            as_loads(&c.trace, b_base),
            (64 * 4 * degree as u64, 64 * 4),
            "gemm skew {skew}: As column reads"
        );
        // the same read pattern as the gemm generator's loads of As
        let gen = traces::generators::generate(
            "gemm",
            &params(&[
                ("m", 64),
                ("n", 16),
                ("k", 16),
                ("skew", skew as i64),
                ("width", 16),
                ("threads", 256),
            ]),
        )
        .unwrap();
        let (gw, gi) = as_loads(&gen, b_base);
        assert_eq!(gw / gi, degree as u64, "generator's As reads at skew {skew}");
    }
}

/// A kernel with the constructs the suite does not use: struct members, a vector
/// member, a signed index, helper functions called twice (specialised per call),
/// returning and non-returning atomics, a switch, a whole-struct copy,
/// workgroupUniformLoad, and a loop with divergent trip counts and `continue`.
const CONSTRUCTS: &str = "
struct S { a: u32, b: vec2<u32>, c: array<u32, 3> }  // a@0 b@8 c@16, stride 32
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
var<workgroup> s: array<S, 4>;                        // bytes 0..128
var<workgroup> hist: array<atomic<u32>, 8>;          // bytes 128..160
var<workgroup> flag: u32;                             // byte 160
var<workgroup> unused: array<u32, 64>;                // not used: not laid out

fn touch(i: u32, j: i32) { s[i].c[j] = 7u; }
fn bump() -> u32 { return atomicAdd(&hist[7], 1u); }

@compute @workgroup_size(4)
fn main(@builtin(local_invocation_index) t: u32) {
    let j = i32(t);
    s[j].a = 1u;
    s[t].b = vec2<u32>(t, t);
    touch(t, 1);
    touch(3u - t, 2);
    if (t % 2u == 0u) { atomicAdd(&hist[t], 1u); }
    let old = bump();
    switch t { case 0u: { flag = old; } default: {} }
    workgroupBarrier();
    let whole = s[t];
    let u = workgroupUniformLoad(&flag);
    var acc = 0u;
    for (var k = 0u; k < t; k++) {
        if (k == 1u) { continue; }
        acc += s[k].a;
    }
    out[t] = whole.a + whole.b.x + whole.c[1] + u + acc + old;
}";

#[test]
fn constructs_give_hand_derived_trace() {
    let Some(gpu) = open_for_tests("constructs_give_hand_derived_trace") else { return };
    let opts = CaptureOptions::new(KernelOptions { dispatch: [1, 1, 1], ..KernelOptions::default() });
    let c = capture(gpu, CONSTRUCTS, "constructs.wgsl", &opts).unwrap();
    assert_eq!(c.shared_bytes, 164);
    assert_eq!(c.shared.iter().map(|v| v.name.as_str()).collect::<Vec<_>>(), ["s", "hist", "flag"]);
    let mut want = Trace::new("constructs");
    for t in 0..4u32 {
        let b = t * 32;
        want.push(rec(t, 0, Op::Store, b, 4));
        want.push(rec(t, 1, Op::Store, b + 8, 8));
        want.push(rec(t, 2, Op::Store, b + 20, 4)); // touch(t, 1): c[1]
        want.push(rec(t, 3, Op::Store, (3 - t) * 32 + 24, 4)); // touch(3 - t, 2): c[2]
        if t % 2 == 0 {
            want.push(rec(t, 4, Op::Reduction, 128 + 4 * t, 4)); // result unused
        }
        want.push(rec(t, 5, Op::Atomic, 128 + 28, 4)); // result returned
        if t == 0 {
            want.push(rec(t, 6, Op::Store, 160, 4));
        }
        want.push(bar(t, 7));
        // the struct copy, piece by piece, of the pieces used: `a`, `b` (a vector, whole)
        // and `c[1]` (`c[0]` and `c[2]` are never read, so a compiler does not load them)
        for (i, (off, bytes)) in [(0, 4), (8, 8), (20, 4)].into_iter().enumerate() {
            want.push(rec(t, 8 + i as u32, Op::Load, b + off, bytes));
        }
        want.push(bar(t, 13));
        want.push(rec(t, 14, Op::Load, 160, 4));
        want.push(bar(t, 15));
        // loop iteration k is one instruction for every lane that runs it: iteration 0
        // is step 16, iteration 2 step 17 (iteration 1 loads nothing)
        for (k, step) in [(0, 16), (2, 17)] {
            if k < t {
                want.push(rec(t, step, Op::Load, k * 32, 4));
            }
        }
    }
    assert_same("constructs", &c.trace, &want);
    // raw records: the struct copy is one record for three pieces, and the loop records
    // each iteration it starts, the last one (which only tests k < t) included
    let loop_records = (0..4u64).map(|t| t + 1).sum::<u64>();
    assert_eq!(
        c.records,
        c.trace.len() as u64 - 4 * 2 + loop_records,
        "three pieces of the struct copy are one record"
    );
}

#[test]
fn a_too_small_trace_buffer_is_rerun_not_truncated() {
    let Some(gpu) = open_for_tests("a_too_small_trace_buffer_is_rerun_not_truncated") else { return };
    let (src, path) = kernel("reduce_interleaved.wgsl");
    let mut opts = CaptureOptions::new(KernelOptions { dispatch: [2, 1, 1], ..KernelOptions::default() });
    opts.initial_records = 10;
    let small = capture(gpu, &src, &path, &opts).unwrap();
    assert_eq!(small.runs, 2, "the first run overflowed and was repeated");
    assert_same("rerun", &small.trace, &reduction_expected(true, 2));
}

#[test]
fn unsupported_and_bad_kernels_are_clear_errors() {
    use validate::capture::prepare;
    use validate::InstrumentError;
    let k = KernelOptions::default();
    let texture = "@group(0) @binding(0) var tex: texture_multisampled_2d<f32>;
        var<workgroup> sh: array<f32, 4>;
        @compute @workgroup_size(4) fn main(@builtin(local_invocation_index) t: u32) {
            sh[t] = textureLoad(tex, vec2<i32>(0, 0), 0).x;
        }";
    let e = prepare(texture, "tex.wgsl", &k).unwrap_err();
    assert!(matches!(e, InstrumentError::Unsupported { .. }), "{e}");
    assert!(e.to_string().contains("tex.wgsl:1:") && e.to_string().contains("`tex`"), "{e}");

    let e = prepare("fn f() {}", "none.wgsl", &k).unwrap_err();
    assert!(matches!(e, InstrumentError::NoEntryPoint { .. }), "{e}");
    let two = "@compute @workgroup_size(1) fn a() {} @compute @workgroup_size(1) fn b() {}";
    let e = prepare(two, "two.wgsl", &k).unwrap_err();
    assert!(e.to_string().contains("a, b"), "{e}");
    let e =
        prepare("@compute @workgroup_size(1) fn main() { let x: u32 = 1.5; }", "bad.wgsl", &k).unwrap_err();
    assert!(matches!(e, InstrumentError::Parse { .. }) && e.to_string().contains("bad.wgsl:1:"), "{e}");
    let needs = "override N: u32; var<workgroup> sh: array<u32, N>;
        @compute @workgroup_size(1) fn main() { sh[0] = 1u; }";
    let e = prepare(needs, "o.wgsl", &k).unwrap_err();
    assert!(matches!(e, InstrumentError::Override { .. }), "{e}");
    let ok =
        prepare(needs, "o.wgsl", &KernelOptions { overrides: vec![("N".into(), 8.0)], ..k.clone() }).unwrap();
    assert_eq!(ok.0.shared_bytes, 32);
    // a value the override's type cannot hold is refused, not truncated or wrapped
    for (value, what) in [(2.5, "not 2.5"), (-1.0, "not -1")] {
        let e =
            prepare(needs, "o.wgsl", &KernelOptions { overrides: vec![("N".into(), value)], ..k.clone() })
                .unwrap_err();
        assert!(e.to_string().contains("`N` is a u32") && e.to_string().contains(what), "{e}");
    }
    // an override that makes the entry point invalid says why
    let size = "override W: u32 = 1; @compute @workgroup_size(W) fn main() {}";
    let e = prepare(size, "w.wgsl", &KernelOptions { overrides: vec![("W".into(), 100000.0)], ..k.clone() })
        .unwrap_err();
    assert!(e.to_string().contains("Workgroup size is out of range"), "{e}");
}

/// Kernels using optional features the adapter has (lavapipe and the H100 have both):
/// `f16` in workgroup memory, and a subgroup built-in feeding a shared store.
#[test]
fn f16_and_subgroup_kernels_capture() {
    let Some(gpu) = open_for_tests("f16_and_subgroup_kernels_capture") else { return };
    let f16 = "enable f16;
        var<workgroup> h: array<f16, 64>;
        var<workgroup> h3: array<vec3<f16>, 16>;           // stride 8, from byte 128
        @group(0) @binding(0) var<storage, read_write> out: array<f32>;
        @compute @workgroup_size(64) fn main(@builtin(local_invocation_index) t: u32) {
            h[t] = f16(t);
            if (t < 16u) { h3[t].z = 3.0h; }
            workgroupBarrier();
            out[t] = f32(h[63u - t]);
        }";
    let opts = CaptureOptions::new(KernelOptions { dispatch: [1, 1, 1], ..KernelOptions::default() });
    let c = capture(gpu, f16, "f16.wgsl", &opts).unwrap();
    let mut want = Trace::new("f16");
    for t in 0..64u32 {
        want.push(rec(t, 0, Op::Store, 2 * t, 2));
        if t < 16 {
            want.push(rec(t, 1, Op::Store, 128 + 8 * t + 4, 2));
        }
        want.push(bar(t, 2));
        want.push(rec(t, 3, Op::Load, 2 * (63 - t), 2));
    }
    assert_same("f16", &c.trace, &want);

    let subgroups = "var<workgroup> p: array<u32, 64>;
        @group(0) @binding(0) var<storage, read_write> out: array<u32>;
        @compute @workgroup_size(64) fn main(@builtin(local_invocation_index) t: u32) {
            p[t] = subgroupAdd(1u);
            workgroupBarrier();
            out[t] = p[(t + 1u) % 64u];
        }";
    let c = capture(gpu, subgroups, "subgroups.wgsl", &opts).unwrap();
    let mut want = Trace::new("subgroups");
    for t in 0..64u32 {
        want.push(rec(t, 0, Op::Store, 4 * t, 4));
        want.push(bar(t, 1));
        want.push(rec(t, 2, Op::Load, 4 * ((t + 1) % 64), 4));
    }
    assert_same("subgroups", &c.trace, &want);
}

#[test]
fn measure_times_repetitions_and_reports_the_adapter() {
    let Some(gpu) = open_for_tests("measure_times_repetitions_and_reports_the_adapter") else { return };
    use validate::measure::{measure, MeasureOptions, Measurement};
    let (src, path) = kernel("stride_dependent.wgsl");
    let opts = MeasureOptions {
        label: "stride 2".into(),
        kernel: KernelOptions {
            dispatch: [2, 1, 1],
            binds: vec!["0.0=u32:2,16".parse().unwrap()],
            ..KernelOptions::default()
        },
        warmup: 1,
        reps: 4,
        zero_init_workgroup: true,
    };
    let m = measure(gpu, &src, &path, &opts).unwrap();
    assert_eq!(m.times_ns.len(), 4);
    assert!(m.times_ns.iter().all(|&t| t > 0.0), "{:?}", m.times_ns);
    let s = &m.stats;
    assert!(s.min <= s.q1 && s.q1 <= s.median && s.median <= s.q3 && s.q3 <= s.max, "{s:?}");
    assert_eq!(m.timer, if gpu.timestamps { "timestamp" } else { "wall" });
    assert_eq!((m.workgroup_size, m.shared_bytes), ([256, 1, 1], 32768));
    // the bound buffers: the uniform's 8 bytes given (16 as bound) and one u32 of `out`
    // per invocation
    assert_eq!(m.global_bytes, 16 + 2 * 256 * 4);
    assert!(
        !m.adapter.name.is_empty()
            && m.adapter
                .limits
                .iter()
                .any(|(k, v)| k == "max_compute_invocations_per_workgroup" && *v >= 256)
    );
    // a real CSV parse: the adapter name has a comma inside its quotes
    let text = format!("{}\n{}\n", Measurement::CSV_HEADER, m.csv_row());
    let mut r = csv::Reader::from_reader(text.as_bytes());
    let header = r.headers().unwrap().clone();
    let row = r.records().next().unwrap().unwrap();
    assert_eq!(row.len(), header.len(), "{}", m.csv_row());
    assert_eq!(&row[0], "stride 2");
    assert_eq!(&row[header.iter().position(|h| h == "adapter").unwrap()], m.adapter.name);
    let zero = MeasureOptions { reps: 0, ..opts };
    assert!(measure(gpu, &src, &path, &zero).is_err(), "--reps 0 is an error");
}

/// A struct or array load records the pieces its uses read; a whole use (here: passed to
/// a function) records every piece.
#[test]
fn loads_record_the_pieces_used() {
    let Some(gpu) = open_for_tests("loads_record_the_pieces_used") else { return };
    let src = "struct Cell { pos: vec4<f32>, vel: vec4<f32>, tag: u32, mass: f32, ids: array<u32, 4> }
        var<workgroup> cells: array<Cell, 16>;              // stride 64: pos@0 vel@16 tag@32 mass@36 ids@40
        var<workgroup> grid: array<array<u32, 4>, 16>;      // from byte 1024
        @group(0) @binding(0) var<storage, read_write> out: array<f32>;
        fn whole(c: Cell) -> f32 { return c.mass; }
        @compute @workgroup_size(16)
        fn main(@builtin(local_invocation_index) t: u32) {
            cells[t].tag = t;
            grid[t][1] = t;
            workgroupBarrier();
            let c = cells[(t + 1u) % 16u];
            let g = grid[(t + 3u) % 16u];
            let w = cells[t];
            out[t] = f32(c.tag) + c.pos.y + f32(c.ids[2]) + f32(g[1]) + whole(w);
        }";
    let opts = CaptureOptions::new(KernelOptions { dispatch: [1, 1, 1], ..KernelOptions::default() });
    let c = capture(gpu, src, "pieces.wgsl", &opts).unwrap();
    let mut want = Trace::new("pieces");
    for t in 0..16u32 {
        want.push(rec(t, 0, Op::Store, 64 * t + 32, 4));
        want.push(rec(t, 1, Op::Store, 1024 + 16 * t + 4, 4));
        want.push(bar(t, 2));
        let n = 64 * ((t + 1) % 16);
        // c: `pos` (the vector, whole), `tag`, `ids[2]`
        want.push(rec(t, 3, Op::Load, n, 16));
        want.push(rec(t, 4, Op::Load, n + 32, 4));
        want.push(rec(t, 5, Op::Load, n + 48, 4));
        // g: `g[1]` only
        want.push(rec(t, 6, Op::Load, 1024 + 16 * ((t + 3) % 16) + 4, 4));
        // w: every piece
        let pieces = [(0, 16), (16, 16), (32, 4), (36, 4), (40, 4), (44, 4), (48, 4), (52, 4)];
        for (i, (off, bytes)) in pieces.into_iter().enumerate() {
            want.push(rec(t, 7 + i as u32, Op::Load, 64 * t + off, bytes));
        }
    }
    assert_same("pieces", &c.trace, &want);
}

/// Textures and samplers are bound (zero-filled, one texel per invocation; a default
/// sampler): an image kernel staging a tile in workgroup memory captures, and `--bind`
/// on a texture is a clear error.
#[test]
fn kernels_with_textures_and_samplers_capture() {
    let Some(gpu) = open_for_tests("kernels_with_textures_and_samplers_capture") else { return };
    let src = "@group(0) @binding(0) var img: texture_2d<f32>;
        @group(0) @binding(1) var out: texture_storage_2d<rgba8unorm, write>;
        @group(0) @binding(2) var samp: sampler;
        @group(0) @binding(3) var ids: texture_2d_array<u32>;
        var<workgroup> tile: array<array<vec4<f32>, 10>, 10>;   // 160-byte rows
        @compute @workgroup_size(8, 8)
        fn main(@builtin(local_invocation_id) l: vec3<u32>, @builtin(global_invocation_id) g: vec3<u32>) {
            let p = vec2<i32>(g.xy);
            let dims = textureDimensions(img);
            tile[l.y + 1u][l.x + 1u] = textureLoad(img, p, 0)
                + textureSampleLevel(img, samp, vec2<f32>(0.5), 0.0)
                + vec4<f32>(f32(textureLoad(ids, p, 0, 0).x));
            workgroupBarrier();
            let s = tile[l.y][l.x + 1u] + tile[l.y + 1u][l.x];
            textureStore(out, p, s + vec4<f32>(f32(dims.x)));
        }";
    let opts = CaptureOptions::new(KernelOptions { dispatch: [2, 1, 1], ..KernelOptions::default() });
    let c = capture(gpu, src, "image.wgsl", &opts).unwrap();
    let mut want = Trace::new("image");
    for b in 0..2u32 {
        for t in 0..64u32 {
            let (x, y) = (t % 8, t / 8);
            let mut r = rec(t, 0, Op::Store, 160 * (y + 1) + 16 * (x + 1), 16);
            r.block = b;
            want.push(r);
            let mut r = bar(t, 1);
            r.block = b;
            want.push(r);
            for (step, addr) in [(2, 160 * y + 16 * (x + 1)), (3, 160 * (y + 1) + 16 * x)] {
                let mut r = rec(t, step, Op::Load, addr, 16);
                r.block = b;
                want.push(r);
            }
        }
    }
    assert_same("image", &c.trace, &want);
    let kinds: Vec<&str> = c.buffers.iter().map(|(_, what)| what.as_str()).collect();
    assert!(kinds[0].contains("zero-filled texture") && kinds[2].contains("sampler"), "{kinds:?}");

    let mut bad = opts.clone();
    bad.kernel.binds = vec!["0.0=zeros:4".parse().unwrap()];
    let e = capture(gpu, src, "image.wgsl", &bad).unwrap_err();
    assert!(e.to_string().contains("`img` is a texture or sampler"), "{e}");
}

/// Storage-buffer accesses are `gld` / `gst` records: the transpose's global load feeds
/// its shared store (which waits for it), and its global store writes the shared load's
/// value, at byte offsets within each buffer.
#[test]
fn global_accesses_are_records_with_their_dependences() {
    let Some(gpu) = open_for_tests("global_accesses_are_records_with_their_dependences") else { return };
    let c = run(gpu, "transpose32.wgsl", [2, 2, 1], &[], &[]);
    let width = 64; // 2 workgroups of 32 columns
    for r in c.trace.records.iter().filter(|r| r.block == 3) {
        let (x, y) = (r.thread % 32, r.thread / 32);
        let (bx, by) = (3 % 2, 3 / 2);
        match r.op {
            Op::GlobalLoad => {
                assert_eq!(
                    (r.step, r.addr, r.bytes),
                    (0, 4 * ((by * 32 + y) * width + bx * 32 + x), 4),
                    "{r:?}"
                )
            }
            Op::Store => assert_eq!((r.step, r.dep), (1, Some(true)), "{r:?}"),
            Op::GlobalStore => {
                assert_eq!((r.step, r.dep), (4, Some(true)), "{r:?}");
                assert_eq!(r.addr, 4 * ((bx * 32 + y) * width + by * 32 + x), "{r:?}");
            }
            _ => {}
        }
    }
    let count = |op| c.trace.records.iter().filter(|r| r.op == op).count();
    assert_eq!((count(Op::GlobalLoad), count(Op::GlobalStore)), (4096, 4096));
    // one 128-byte line per warp request: coalesced
    let hw = configs::preset("h100").unwrap();
    let reqs = Requests::group(&c.trace, hw.warp).unwrap();
    let mut model = BankModel::new(&hw);
    for r in reqs.iter().filter(|r| r.op.is_global()) {
        assert_eq!(model.evaluate(&r.warp_request()).wavefronts, 1);
    }
}

/// The global stores of a capture, by (block, thread), as offsets from the lowest.
fn store_offsets(c: &Capture) -> BTreeMap<(u32, u32), u32> {
    let stores: Vec<&Record> = c.trace.records.iter().filter(|r| r.op == Op::GlobalStore).collect();
    let base = stores.iter().map(|r| r.addr).min().unwrap_or(0);
    stores.iter().map(|r| ((r.block, r.thread), r.addr - base)).collect()
}

/// The DRAM microbenchmarks write where their headers say: `run_copy.wgsl` lays its
/// runs out as a transpose (every vector written once), `tile32.wgsl` writes the tile
/// transposed, in order, or not at all, after the same loads.
#[test]
fn dram_microbenchmarks_write_where_they_say() {
    let Some(gpu) = open_for_tests("dram_microbenchmarks_write_where_they_say") else { return };
    // 2^12 vectors in runs of 4, 8 rows of runs (16 workgroups of 256)
    let (total, run_log, rows) = (12u32, 2u32, 3u32);
    for mode in [0u32, 1] {
        let overrides = [
            ("TOTAL_LOG", total as f64),
            ("RUN_LOG", run_log as f64),
            ("H_LOG", rows as f64),
            ("MODE", mode as f64),
        ];
        let c = run(gpu, "run_copy.wgsl", [16, 1, 1], &overrides, &["0.0=zeros:16384", "0.1=zeros:16384"]);
        let got = store_offsets(&c);
        assert_eq!(got.len(), 1 << total);
        let cols = total - run_log - rows;
        for (&(block, thread), &off) in &got {
            let i = block * 256 + thread;
            let (j, k) = (i >> run_log, i & ((1 << run_log) - 1));
            let (r, col) = (j >> cols, j & ((1 << cols) - 1));
            let want = if mode == 1 { (((col << rows) | r) << run_log) | k } else { i };
            assert_eq!(off, 16 * want, "mode {mode}, vector {i}");
        }
    }
    // 2 x 2 workgroups of 32 x 32: a 64 x 64 matrix of floats
    for mode in [0u32, 1, 2] {
        let c = run(gpu, "tile32.wgsl", [2, 2, 1], &[("MODE", mode as f64)], &[]);
        let loads = c.trace.records.iter().filter(|r| r.op == Op::GlobalLoad).count();
        assert_eq!(loads, 4096, "mode {mode}: the loads stay");
        let got = store_offsets(&c);
        if mode == 2 {
            assert!(got.is_empty(), "mode 2 writes nothing");
            continue;
        }
        assert_eq!(got.len(), 4096);
        for (&(block, thread), &off) in &got {
            let (wx, wy, lx, ly) = (block % 2, block / 2, thread % 32, thread / 32);
            let (x, y) = (wx * 32 + lx, wy * 32 + ly);
            let want = if mode == 0 { (wx * 32 + ly) * 64 + wy * 32 + lx } else { y * 64 + x };
            assert_eq!(off, 4 * want, "mode {mode}, block {block}, thread {thread}");
        }
    }
}

/// `load_mlp.wgsl` reads the lines its header says: step j's k-th load of warp g reads
/// line (j LOADS + k) warps + g, rotated left by SCATTER bits within LINES_LOG, each
/// lane its own word of the line; every line of the buffer once.
#[test]
fn load_mlp_reads_the_lines_its_header_says() {
    let Some(gpu) = open_for_tests("load_mlp_reads_the_lines_its_header_says") else { return };
    // 2 workgroups: 16 warps x 4 loads x 4 steps = 256 lines, the whole 2^8-line buffer
    let (loads, steps, lines_log, warps) = (4u32, 4u32, 8u32, 16u32);
    for scatter in [0u32, 3] {
        let overrides = [
            ("LOADS", loads as f64),
            ("STEPS", steps as f64),
            ("LINES_LOG", lines_log as f64),
            ("SCATTER", scatter as f64),
        ];
        let c = run(gpu, "load_mlp.wgsl", [2, 1, 1], &overrides, &["0.0=zeros:8192", "0.1=zeros:512"]);
        let mut per_thread: BTreeMap<(u32, u32), Vec<(u32, u32)>> = BTreeMap::new();
        for r in c.trace.records.iter().filter(|r| r.op == Op::GlobalLoad) {
            per_thread.entry((r.block, r.thread)).or_default().push((r.step, r.addr));
        }
        let base = per_thread.values().flatten().map(|&(_, a)| a).min().unwrap();
        let mask = (1u32 << lines_log) - 1;
        let mut seen = vec![0u32; 1 << lines_log];
        assert_eq!(per_thread.len(), 512);
        for (&(block, thread), reads) in &mut per_thread {
            reads.sort_unstable();
            assert_eq!(reads.len() as u32, steps * loads, "block {block}, thread {thread}");
            let (g, lane) = (block * 8 + thread / 32, thread % 32);
            for (i, &(_, addr)) in reads.iter().enumerate() {
                let (j, k) = (i as u32 / loads, i as u32 % loads);
                let line = ((j * loads + k) * warps + g) & mask;
                let line = if scatter == 0 {
                    line
                } else {
                    ((line << scatter) | (line >> (lines_log - scatter))) & mask
                };
                assert_eq!(
                    addr - base,
                    4 * (line * 32 + lane),
                    "scatter {scatter}, warp {g}, step {j}, load {k}"
                );
                seen[line as usize] += 1;
            }
        }
        assert!(seen.iter().all(|&n| n == 32), "scatter {scatter}: every line once, by a whole warp");
    }
}

/// A capture whose global accesses reach past every buffer bound says so (the GPU
/// clamps or drops them, the trace does not); with the buffer bound large enough, not.
#[test]
fn global_accesses_past_the_buffers_are_a_warning() {
    let Some(gpu) = open_for_tests("global_accesses_past_the_buffers_are_a_warning") else { return };
    // each invocation reads 4 elements apart: 4 times what the default buffer holds
    let src = "@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read_write> b: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>) { b[g.x] = a[4u * g.x]; }";
    let capture = |binds: &[&str]| {
        let opts = CaptureOptions::new(KernelOptions {
            entry: None,
            overrides: Default::default(),
            dispatch: [2, 1, 1],
            binds: binds.iter().map(|b| b.parse().unwrap()).collect(),
        });
        capture(gpu, src, "past.wgsl", &opts).unwrap()
    };
    let c = capture(&[]);
    assert_eq!(c.warnings.len(), 1, "{:?}", c.warnings);
    // the last invocation's read ends at byte 4 * (4 * 127) + 4; the buffers hold 128 floats
    assert!(
        c.warnings[0].contains("reach byte 2036") && c.warnings[0].contains("holds 512 bytes"),
        "{:?}",
        c.warnings
    );
    assert!(capture(&["0.0=zeros:512"]).warnings.is_empty());
}

/// `wide_conflict.wgsl` and `phase_conflict.wgsl` have the conflict degrees their
/// headers give, at every width and stride, and `barrier_cost.wgsl` only its barriers:
/// the timings of `validate/results/h200/micro.csv` are read against them.
#[test]
fn conflict_microbenchmarks_have_the_degrees_their_headers_say() {
    let Some(gpu) = open_for_tests("conflict_microbenchmarks_have_the_degrees_their_headers_say") else {
        return;
    };
    // (strides as validate/run_micro.sh runs them, and an odd one)
    for (entry, bytes, phase, most) in [("w1", 4u8, 32u32, 32u32), ("w2", 8, 16, 16), ("w4", 16, 8, 8)] {
        for stride in [1u32, 2, 3, 4, 8, 16, 32].into_iter().filter(|&s| s <= most) {
            let overrides = [("STRIDE", stride as f64), ("ITERS", 2.0)];
            let c =
                run_entry(gpu, "wide_conflict.wgsl", Some(entry), [1, 1, 1], &overrides, &["0.0=zeros:256"]);
            let loads: Vec<&Record> = c.trace.records.iter().filter(|r| r.op == Op::Load).collect();
            assert_eq!(loads.len(), 256 * 8, "{entry}: 4 x ITERS loads per invocation");
            assert!(loads.iter().all(|r| r.bytes == bytes), "{entry}: {bytes}-byte loads");
            let (w, ideal) = wavefronts(&c.trace, Op::Load);
            // lanes per phase: 32 for 4 bytes, 16 for 8, 8 for 16
            let degree = gcd(stride, phase);
            assert_eq!(w, degree as u64 * ideal, "{entry}, stride {stride}: {degree}-way");
        }
    }
    for (active, stride) in [(1u32, 1u32), (2, 16), (8, 32), (3, 6)] {
        let overrides = [("ACTIVE", active as f64), ("STRIDE", stride as f64), ("ITERS", 3.0)];
        let c = run(gpu, "phase_conflict.wgsl", [1, 1, 1], &overrides, &["0.0=zeros:256"]);
        // the phases' two loads per active warp, and the 8 warps' conflict-free read at the end
        let (w, ideal) = wavefronts(&c.trace, Op::Load);
        let phases = active as u64 * 2 * 3;
        assert_eq!(ideal, phases + 8, "active {active}: two loads per phase per active warp");
        assert_eq!(w, gcd(stride, 32) as u64 * phases + 8, "stride {stride}");
        let bars = c.trace.records.iter().filter(|r| r.op == Op::Barrier).count();
        assert_eq!(bars, 256 * 4, "a barrier after the fill and after each of the 3 phases");
    }
    // ROTATE = 1: workgroup 1's active warp is its last, warp 7
    let overrides = [("ACTIVE", 1.0), ("ROTATE", 1.0), ("ITERS", 2.0)];
    let c = run(gpu, "phase_conflict.wgsl", [2, 1, 1], &overrides, &["0.0=zeros:512"]);
    // every warp stores 4 words a lane in the fill, the active one 2 more (one a phase)
    let stores = |block: u32| -> Vec<usize> {
        (0..8u32)
            .map(|warp| {
                let of_warp = |r: &&Record| r.block == block && r.op == Op::Store && r.thread / 32 == warp;
                c.trace.records.iter().filter(of_warp).count()
            })
            .collect()
    };
    let want = |active: usize| (0..8).map(|w| if w == active { 6 * 32 } else { 4 * 32 }).collect::<Vec<_>>();
    assert_eq!(stores(0), want(0), "workgroup 0: warp 0 active");
    assert_eq!(stores(1), want(7), "workgroup 1: warp 7 active");
    // barrier_cost.wgsl: ITERS barriers per invocation and no shared-memory access
    let c = run(gpu, "barrier_cost.wgsl", [2, 1, 1], &[("WG", 64.0), ("ITERS", 5.0)], &["0.0=zeros:128"]);
    let shared = |r: &&Record| matches!(r.op, Op::Load | Op::Store | Op::Atomic | Op::Reduction);
    assert_eq!(c.trace.records.iter().filter(shared).count(), 0);
    let bars = c.trace.records.iter().filter(|r| r.op == Op::Barrier).count();
    assert_eq!(bars, 2 * 64 * 5, "5 barriers for each of 2 x 64 invocations");
}

/// The blind check's kernels (`validate/kernels/blind/`) have the conflicts their headers
/// give: `rowsum`'s row reads gcd(32 + PAD, 32)-way with its staging stores free of
/// them; `red1024` conflict-free sequentially, conflicted interleaved.
#[test]
fn blind_check_kernels_have_the_conflicts_their_headers_say() {
    let Some(gpu) = open_for_tests("blind_check_kernels_have_the_conflicts_their_headers_say") else {
        return;
    };
    for pad in [1u32, 0, 2, 4, 8] {
        let c = run(
            gpu,
            "blind/rowsum.wgsl",
            [1, 1, 1],
            &[("PAD", pad as f64)],
            &["0.0=zeros:4096", "0.1=zeros:128"],
        );
        let (w, ideal) = wavefronts(&c.trace, Op::Load);
        assert_eq!(ideal, 4 * 32, "4 warps x 32 row reads");
        let degree = gcd(32 + pad, 32);
        assert_eq!(w, degree as u64 * ideal, "PAD {pad}: {degree}-way");
        let (w, ideal) = wavefronts(&c.trace, Op::Store);
        assert_eq!(w, ideal, "PAD {pad}: the staging stores are conflict-free");
    }
    let conflicts = |mode: f64| {
        let c =
            run(gpu, "blind/red1024.wgsl", [1, 1, 1], &[("MODE", mode)], &["0.0=zeros:2048", "0.1=zeros:1"]);
        let (w, ideal) = wavefronts(&c.trace, Op::Load);
        w - ideal
    };
    assert_eq!(conflicts(0.0), 0, "sequential addressing");
    assert!(conflicts(1.0) > 0, "interleaved addressing");
}
