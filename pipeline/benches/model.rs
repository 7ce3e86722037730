//! Criterion benchmarks on the standard mix (see `common/mod.rs`), h100 preset, warp 32,
//! reported as warp requests per second (criterion's "elements"):
//!
//! - `bank_model/<class>` and `bank_model/mix`: `BankModel::evaluate` alone over
//!   requests already decoded into memory;
//! - `binary_file/read_decode`: reading the binary trace from a file (page cache) and
//!   decoding it into warp requests, nothing more (the limit);
//! - `binary_file/read_decode_model`: the same plus the bank model (one thread);
//! - `binary_file/decode_lazy`: decoding alone, every chunk's payload already in memory
//!   (checksum included): the decoder's own time, without the file's;
//! - `engine/mix`: the cycle engine (one thread) on the mix grouped in memory;
//! - `kernel/random_32_lanes`: `BankModel::evaluate` on full warps of random 4-byte
//!   loads (4096 of them, 512 KiB of addresses), the fast path's costliest common case;
//!   `kernel/random_64_lane_slices`: the same words as 2048 full slices of two warps,
//!   through `BankModel::evaluate_warps` (the two-warp kernel).
//!
//! ```sh
//! cargo bench -p banksim-pipeline --bench model                             # everything
//! cargo bench -p banksim-pipeline --bench model -- bank_model               # one group
//! cargo bench -p banksim-pipeline --bench model -- --save-baseline before   # then, after a change:
//! cargo bench -p banksim-pipeline --bench model -- --baseline before        # compare
//! ```
//! `cargo bench -p banksim-pipeline --bench runner` prints the same figures as one table.

mod common;

use common::{decoded_chunks, model_only, raw_chunks, read_decode, simulate_file, Class, WARP};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use sim_core::engine::{self, EngineOptions};
use std::hint::black_box;
use std::time::Duration;

/// Blocks of the mix (512 warp requests each).
const BLOCKS: u32 = 128;

fn benches(c: &mut Criterion) {
    let hw = configs::preset("h100").expect("the h100 preset");
    let dir = std::env::temp_dir();
    let path = dir.join(format!("banksim-criterion-mix-{}.bsim", std::process::id()));
    std::fs::write(&path, common::mix_bytes(BLOCKS, &Class::ALL)).expect("a temporary file");
    let (chunks, n) = decoded_chunks(&path).expect("the mix");

    let mut g = c.benchmark_group("bank_model");
    for class in Class::ALL {
        let p = dir.join(format!("banksim-criterion-{}-{}.bsim", class.name(), std::process::id()));
        std::fs::write(&p, common::mix_bytes(BLOCKS, &[class])).expect("a temporary file");
        let (ch, k) = decoded_chunks(&p).expect("the class");
        let _ = std::fs::remove_file(&p);
        g.throughput(Throughput::Elements(k));
        g.bench_function(class.name(), |b| b.iter(|| model_only(black_box(&ch), &hw)));
    }
    g.throughput(Throughput::Elements(n));
    g.bench_function("mix", |b| b.iter(|| model_only(black_box(&chunks), &hw)));
    g.finish();

    let mut g = c.benchmark_group("binary_file");
    g.throughput(Throughput::Elements(n));
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("a worker thread");
    g.bench_function("read_decode", |b| {
        b.iter(|| one.install(|| read_decode(black_box(&path), false)).expect("the mix"))
    });
    // (the decoder alone: every chunk's payload already in memory, checksum included)
    let raws = raw_chunks(&path).expect("the mix");
    let mut chunk = traces::binary::Chunk::default();
    g.bench_function("decode_lazy", |b| {
        b.iter(|| {
            for raw in black_box(&raws) {
                raw.decode_lazy(&mut chunk).expect("the mix");
            }
            chunk.groups()
        })
    });
    g.bench_function("read_decode_model", |b| {
        b.iter(|| one.install(|| simulate_file(black_box(&path), &hw)).expect("the mix"))
    });
    g.finish();

    let trace = traces::read_any(&path).expect("the mix");
    let requests = traces::Requests::group(&trace, WARP).expect("the mix groups");
    let mut g = c.benchmark_group("engine");
    g.sample_size(10);
    g.throughput(Throughput::Elements(requests.len() as u64));
    g.bench_function("mix", |b| {
        b.iter(|| {
            one.install(|| engine::run(&hw, black_box(&requests), &EngineOptions::default())).expect("runs")
        })
    });
    g.finish();
    let _ = std::fs::remove_file(&path);

    // full warps of random words of 192 KiB (xorshift, as the mix's random class)
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let addrs: Vec<u32> = (0..4096 * 32)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 32) as u32 % (48 * 1024) * 4
        })
        .collect();
    let lanes: Vec<u16> = (0..32).collect();
    let mut model = sim_core::BankModel::new(&hw);
    let mut g = c.benchmark_group("kernel");
    g.throughput(Throughput::Elements(4096));
    g.bench_function("random_32_lanes", |b| {
        b.iter(|| {
            wavefronts(&addrs, 32, |addrs| {
                let req = sim_core::WarpRequest { op: sim_core::Op::Load, bytes: 4, lanes: &lanes, addrs };
                model.evaluate(&req).wavefronts
            })
        })
    });
    // the same words as 2048 full slices: both warps at once (`evaluate_warps`)
    g.bench_function("random_64_lane_slices", |b| {
        b.iter(|| {
            wavefronts(&addrs, 64, |a| {
                let (op, addrs) = (sim_core::Op::Load, sim_core::LaneAddrs::Listed(a));
                let req = sim_core::MaskedRequest { op, bytes: 4, mask: u64::MAX, addrs };
                model.evaluate_warps(&req).wavefronts
            })
        })
    });
    g.finish();
}

/// The sum of `wavefronts` over `addrs` cut into requests of `lanes` lanes.
fn wavefronts(addrs: &[u32], lanes: usize, mut wavefronts: impl FnMut(&[u32]) -> u32) -> u32 {
    addrs.chunks_exact(lanes).fold(0u32, |w, a| w + wavefronts(black_box(a)))
}

criterion_group! {
    name = model;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .sample_size(20);
    targets = benches
}
criterion_main!(model);
