//! Capture on a real Vulkan adapter (lavapipe in CI), beyond the suite's kernels: errors,
//! other kinds of kernels and resources, global accesses, the microbenchmarks' and blind
//! checks' kernels. Without an adapter these tests are skipped (see
//! `validate::gpu::open_for_tests`), unless `BANKSIM_REQUIRE_GPU=1`.

use sim_core::{BankModel, Op};
use std::collections::BTreeMap;
use traces::{Record, Requests, Trace};
use validate::capture::{capture, Capture, CaptureOptions, KernelOptions};
use validate::gpu::open_for_tests;

mod common;
use common::*;

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
/// a function) records every piece, merged into wide loads within the element.
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
        // w: every piece, the scalars of one struct element merged as the driver does
        // (`tag`, `mass`, `ids[0]`, `ids[1]` into 16 bytes, `ids[2]`, `ids[3]` into 8);
        // a merged piece's steps stay empty
        let pieces = [(0, 0, 16), (1, 16, 16), (2, 32, 16), (6, 48, 8)];
        for (step, off, bytes) in pieces {
            want.push(rec(t, 7 + step, Op::Load, 64 * t + off, bytes));
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

/// A kernel whose records outgrow one run's buffer is captured a window at a time (of
/// workgroups, and of one workgroup's steps where it alone outgrows it): the trace is
/// the one a single run gives, and a window too small for one step is a clear error.
#[test]
fn records_past_one_buffer_are_captured_in_windows() {
    let Some(gpu) = open_for_tests("records_past_one_buffer_are_captured_in_windows") else { return };
    let (src, path) = kernel("scan.wgsl");
    let kernel = KernelOptions { dispatch: [3, 1, 1], ..KernelOptions::default() };
    let whole = capture(gpu, &src, &path, &CaptureOptions::new(kernel.clone())).unwrap();
    assert_eq!(whole.runs, 1);
    let per_block = whole.records / 3;
    // two workgroups a window; then one workgroup's steps split in windows
    for (chunk, fewest_runs) in [(2 * per_block + 1, 3), (per_block / 3, 10)] {
        let opts = CaptureOptions { kernel: kernel.clone(), initial_records: 16, chunk_records: chunk };
        let c = capture(gpu, &src, &path, &opts).unwrap();
        assert!(c.runs >= fewest_runs, "chunk {chunk}: {} runs", c.runs);
        assert_eq!(c.records, whole.records);
        assert_eq!(c.trace.records, whole.trace.records, "chunk {chunk}");
    }
    // one step of a workgroup (its 256 invocations) cannot be split
    let opts = CaptureOptions { kernel, initial_records: 16, chunk_records: 100 };
    let e = capture(gpu, &src, &path, &opts).unwrap_err();
    assert!(e.to_string().contains("one step of one workgroup"), "{e}");
}

/// What a capture must keep across functions and in a buffer's layout: a member's
/// `@size` (the kernel reads `count` at byte 16), a binding at the top of the range
/// (the trace buffer goes to a free binding), a shared load whose value leaves through
/// a private variable read by another function, and a chase through a helper's return
/// value (the next address depends on the load).
#[test]
fn layouts_bindings_and_values_across_calls_are_kept() {
    let Some(gpu) = open_for_tests("layouts_bindings_and_values_across_calls_are_kept") else { return };
    let src = "struct Params { @size(16) stride: u32, count: u32 }
        @group(0) @binding(1023) var<uniform> prm: Params;
        @group(0) @binding(1) var<storage, read_write> out: array<u32>;
        var<workgroup> a: array<u32, 64>;
        var<private> carry: u32;
        fn stash(i: u32) { carry = a[63u - i]; }
        fn nx(v: u32) -> u32 { return a[v & 63u]; }
        @compute @workgroup_size(8) fn main(@builtin(local_invocation_index) i: u32) {
            for (var j = 0u; j < prm.count; j++) { a[(i * prm.stride + j) % 64u] = j; }
            workgroupBarrier();
            stash(i);
            out[i] = carry + nx(nx(i));
        }";
    let kernel = KernelOptions {
        dispatch: [1, 1, 1],
        binds: vec!["0.1023=u32:1,7,7,7,2".parse().unwrap(), "0.1=zeros:8".parse().unwrap()],
        ..KernelOptions::default()
    };
    let c = capture(gpu, src, "calls.wgsl", &CaptureOptions::new(kernel)).unwrap();
    let of = |op: Op| c.trace.records.iter().filter(|r| r.op == op && r.thread == 0).collect::<Vec<_>>();
    // count = 2 (byte 16), stride = 1: stores at words 0 and 1
    let stores: Vec<u32> = of(Op::Store).iter().map(|r| r.addr).collect();
    assert_eq!(stores, vec![0, 4]);
    // the stash's load, then the chase's two loads: the second depends on the first
    let loads = of(Op::Load);
    assert_eq!(loads.iter().map(|r| r.addr).collect::<Vec<_>>(), vec![4 * 63, 0, 0]);
    assert_eq!(loads.iter().map(|r| r.dep).collect::<Vec<_>>(), vec![Some(false), Some(false), Some(true)]);
}

/// What reaches nothing the kernel does is not loaded: a struct's piece used only by
/// dead code, and an atomic's old value used only by dead code (a `red`, not an `atom`).
#[test]
fn pieces_and_atomic_results_that_reach_nothing_are_not_loaded() {
    let Some(gpu) = open_for_tests("pieces_and_atomic_results_that_reach_nothing_are_not_loaded") else {
        return;
    };
    let src = "struct S { id: u32, arr: array<u32, 3> }
        var<workgroup> s: array<S, 32>;
        var<workgroup> c: array<atomic<u32>, 2>;
        @group(0) @binding(0) var<storage, read_write> out: array<u32>;
        @compute @workgroup_size(32) fn main(@builtin(local_invocation_index) i: u32) {
            let t = s[i];
            let unused = t.arr[1] * 3u;
            out[i] = t.id + atomicAdd(&c[0], 1u);
            let dead = atomicAdd(&c[1], 1u) * 2u;
        }";
    let kernel = KernelOptions { dispatch: [1, 1, 1], ..KernelOptions::default() };
    let c = capture(gpu, src, "dead.wgsl", &CaptureOptions::new(kernel)).unwrap();
    let t0: Vec<(Op, u32)> = c
        .trace
        .records
        .iter()
        .filter(|r| r.thread == 0 && !r.op.is_global())
        .map(|r| (r.op, r.addr))
        .collect();
    // s[0].id only (not arr[1] at byte 8); the returning atomic, then the dead one
    assert_eq!(t0, vec![(Op::Load, 0), (Op::Atomic, 512), (Op::Reduction, 516)]);
}

/// `smem_merge.wgsl` loads what its header says the H100 runs: the components of one
/// `vec4` element and the fields of one struct element, read one by one, as one 16-byte
/// load; neighbouring elements of a `u32` array as 4-byte loads, aligned or not; the
/// stores of a whole struct as 16-byte stores. `smem_merge_store.wgsl`'s stores merge the
/// same way.
#[test]
fn workgroup_loads_merge_within_an_element_as_smem_merge_measured() {
    let Some(gpu) = open_for_tests("workgroup_loads_merge_within_an_element_as_smem_merge_measured") else {
        return;
    };
    for (mode, s, off, bytes) in [
        (0u32, 4u32, 0u32, 4u8),
        (0, 4, 1, 4),
        (1, 4, 0, 4),
        (2, 4, 0, 16),
        (2, 8, 0, 16),
        (3, 4, 0, 16),
        (3, 8, 0, 16),
        (4, 4, 0, 16),
    ] {
        let overrides = [("MODE", mode as f64), ("S", s as f64), ("OFF", off as f64), ("ITERS", 2.0)];
        let c = run(gpu, "smem_merge.wgsl", [1, 1, 1], &overrides, &["0.0=u32:4,0", "0.1=zeros:1024"]);
        let loads: Vec<&Record> = c.trace.records.iter().filter(|r| r.op == Op::Load).collect();
        let per_step = 16 / bytes as usize;
        assert_eq!(loads.len(), 1024 * 8 * per_step, "MODE {mode} S {s} OFF {off}: 8 steps of 16 bytes");
        assert!(loads.iter().all(|r| r.bytes == bytes), "MODE {mode} S {s} OFF {off}: {bytes}-byte loads");
        // the fill: r4's and r8's whole structs as 16-byte stores
        let wide = c.trace.records.iter().filter(|r| r.op == Op::Store && r.bytes == 16).count();
        assert_eq!(wide, 512 + 128 * 3, "MODE {mode}: v's vec4 stores and the structs' 16-byte stores");
    }
    // smem_merge_store.wgsl: the stores' counterpart (merged as loads are, by analogy)
    for (mode, s, bytes) in
        [(0u32, 4u32, 4u8), (0, 8, 4), (1, 4, 16), (1, 8, 16), (2, 4, 16), (2, 16, 16), (3, 4, 16)]
    {
        let overrides = [("MODE", mode as f64), ("S", s as f64), ("ITERS", 2.0)];
        let c = run(gpu, "smem_merge_store.wgsl", [1, 1, 1], &overrides, &["0.0=u32:0", "0.1=zeros:1024"]);
        // the loop's stores: every store but the fill of `src` (512 words)
        let stores: Vec<&Record> =
            c.trace.records.iter().filter(|r| r.op == Op::Store && r.addr < 22528).collect();
        assert_eq!(
            stores.len(),
            1024 * 8 * (16 / bytes as usize),
            "store MODE {mode} S {s}: 8 steps of 16 bytes"
        );
        assert!(stores.iter().all(|r| r.bytes == bytes), "store MODE {mode} S {s}: {bytes}-byte stores");
    }
}

/// Every variant of the newest blind set (`validate/kernels/blind7/families.csv`) has the
/// worst conflict its manifest lists (`expected_conflict`: the most wavefronts over the
/// ideal of any of its shared-memory requests), captured on one workgroup with the
/// manifest's overrides and buffers: the set's spread of degrees is what it says.
#[test]
fn the_newest_blind_set_has_the_conflicts_its_manifest_lists() {
    let Some(gpu) = open_for_tests("the_newest_blind_set_has_the_conflicts_its_manifest_lists") else {
        return;
    };
    let path = format!("{}/kernels/blind7/families.csv", env!("CARGO_MANIFEST_DIR"));
    let mut rows = csv::Reader::from_path(&path).unwrap();
    let hw = configs::preset("h100").unwrap();
    let mut model = BankModel::new(&hw);
    let mut checked = 0;
    for row in rows.records() {
        let row = row.unwrap();
        let (label, kernel, overrides, binds) = (&row[0], &row[2], &row[3], &row[5]);
        let want: u32 = row[6].parse().unwrap();
        let overrides: Vec<(&str, f64)> = overrides
            .split(';')
            .filter(|o| !o.is_empty())
            .map(|o| {
                let (k, v) = o.split_once('=').unwrap();
                (k, v.parse().unwrap())
            })
            .collect();
        // (one workgroup's share of the buffers: the shared-memory pattern does not
        // depend on the rest, and zero-filling 128 MiB buffers 45 times is slow)
        let binds: Vec<String> = binds
            .split_whitespace()
            .map(|b| match b.split_once("=zeros:") {
                Some((at, words)) => format!("{at}=zeros:{}", words.parse::<u64>().unwrap().min(1 << 18)),
                None => b.to_string(),
            })
            .collect();
        let binds: Vec<&str> = binds.iter().map(String::as_str).collect();
        let c = run(gpu, &format!("blind7/{kernel}"), [1, 1, 1], &overrides, &binds);
        let requests = Requests::group(&c.trace, hw.warp).unwrap();
        let worst = requests
            .iter()
            .filter(|r| !r.op.is_global() && r.op != Op::Barrier)
            .map(|r| {
                let o = model.evaluate(&r.warp_request());
                o.wavefronts as f64 / o.ideal.max(1) as f64
            })
            .fold(0.0, f64::max);
        assert_eq!(worst.round() as u32, want, "{label}: worst {worst:.2}-way");
        checked += 1;
    }
    assert_eq!(checked, 45, "the set's 45 variants");
}
