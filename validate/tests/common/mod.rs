//! What the GPU tests share: the kernels of `validate/kernels/`, captured.
#![allow(dead_code)]

use sim_core::{BankModel, Op};
use std::collections::BTreeMap;
use traces::{Record, Requests, Trace};
use validate::capture::{capture, Capture, CaptureOptions, KernelOptions};
use validate::gpu::Gpu;

/// A kernel of `validate/kernels/`: its source and path.
pub fn kernel(name: &str) -> (String, String) {
    let path = format!("{}/kernels/{name}", env!("CARGO_MANIFEST_DIR"));
    let src = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    (src, path)
}

/// A capture of the kernel `name`.
pub fn run(gpu: &Gpu, name: &str, dispatch: [u32; 3], overrides: &[(&str, f64)], binds: &[&str]) -> Capture {
    run_entry(gpu, name, None, dispatch, overrides, binds)
}

/// [`run`] of the entry point `entry` (None: the only one).
pub fn run_entry(
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

/// (wavefronts, ideal) summed over the trace's `op` requests on the h100 preset.
pub fn wavefronts(trace: &Trace, op: Op) -> (u64, u64) {
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

pub type Row = (u32, u32, u32, Op, u32, u8);

/// The shared-memory records (global accesses left out: the generators model shared
/// memory) sorted, with each block's steps renumbered 0, 1, 2, ... in order (the
/// capture numbers steps densely per block; generators may leave gaps).
pub fn normalized(trace: &Trace) -> Vec<Row> {
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

pub fn rec(thread: u32, step: u32, op: Op, addr: u32, bytes: u8) -> Record {
    Record { block: 0, thread, step, op, addr, bytes, gap: 0, dep: None, wait: None, site: traces::NO_SITE }
}

pub fn bar(thread: u32, step: u32) -> Record {
    rec(thread, step, Op::Barrier, 0, 0)
}

pub fn assert_same(name: &str, got: &Trace, want: &Trace) {
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

pub fn gcd(a: u32, b: u32) -> u32 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}
