//! The kernel suite on a real Vulkan adapter (lavapipe in CI): every kernel of
//! `validate/kernels/` is captured and its trace compared, record for record, with the
//! trace our generators or a hand-derived formula give; the bank model then checks the
//! conflict degree each kernel is known for. Without an adapter these tests are skipped
//! (see `validate::gpu::open_for_tests`), unless `BANKSIM_REQUIRE_GPU=1`.

use sim_core::Op;
use std::collections::BTreeMap;
use traces::{Record, Trace};
use validate::capture::{capture, CaptureOptions, KernelOptions};
use validate::gpu::open_for_tests;

mod common;
use common::*;

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
    // (whole structs of 2 and 4 words are one 8- and 16-byte access, as the driver makes
    // them; 3 words at a 12-byte stride are never aligned to 8, and stay 4-byte fields)
    for (file, k, soa, merged) in [
        ("aos_k2.wgsl", 2, 0, true),
        ("aos_k3.wgsl", 3, 0, false),
        ("aos_k4.wgsl", 4, 0, true),
        ("soa_k4.wgsl", 4, 1, false),
    ] {
        let c = run(gpu, file, [2, 1, 1], &[], &[]);
        let gen =
            traces::generators::generate("aos", &params(&[("k", k), ("soa", soa), ("threads", 64)])).unwrap();
        let k = k as u32;
        let fields: Vec<Record> = match merged {
            true => gen
                .records
                .iter()
                .filter(|r| r.addr % (4 * k) == 0)
                .map(|r| Record { bytes: 4 * k as u8, ..*r })
                .collect(),
            false => gen.records.clone(),
        };
        let mut one: Vec<Record> = fields.iter().map(|r| Record { op: Op::Store, ..*r }).collect();
        one.extend((0..64).map(|t| bar(t, k)));
        one.extend(fields.iter().map(|r| Record { step: r.step + k + 1, ..*r }));
        assert_same(file, &c.trace, &per_block(&one, 2));
        // 2 blocks x 2 warps x k words a lane: k wavefronts a warp at the least (k 4-byte
        // requests of one, or one 4k-byte request of k), and conflict-free
        let ideal = 2 * 2 * k as u64;
        assert_eq!(wavefronts(&c.trace, Op::Load), (ideal, ideal), "{file}");
        assert_eq!(wavefronts(&c.trace, Op::Store), (ideal, ideal), "{file}");
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
