//! The cycle engine against the H100's measured timings, and its determinism.

use sim_core::engine::{self, EngineOptions, EngineReport, Workload};
use sim_core::{BankModel, Op, WarpRequest};
use std::path::PathBuf;
use traces::builtin::{independent_loads, pointer_chase, StrideBench};

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fixtures/h100").join(name)
}

/// The 4-byte one-warp load patterns of `patterns.txt`, by name.
fn load_patterns() -> Vec<(String, Vec<Option<u32>>)> {
    std::fs::read_to_string(fixture("patterns.txt"))
        .unwrap()
        .lines()
        .filter_map(|line| {
            let parts: Vec<&str> = line.split('|').collect();
            let head: Vec<&str> = parts[0].split_whitespace().collect();
            (head[1] == "4" && head[2] == "32").then(|| {
                let elems = parts[2]
                    .split_whitespace()
                    .map(|x| x.parse::<i64>().unwrap())
                    .map(|x| (x >= 0).then_some(x as u32))
                    .collect();
                (head[0].to_string(), elems)
            })
        })
        .collect()
}

/// `TIME NAME latency throughput` rows of `timing_cycles.txt`.
fn timings() -> Vec<(String, f64, f64)> {
    std::fs::read_to_string(fixture("timing_cycles.txt"))
        .unwrap()
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f[1].to_string(), f[2].parse().unwrap(), f[3].parse().unwrap())
        })
        .collect()
}

fn run(work: &dyn Workload, opts: &EngineOptions) -> EngineReport {
    let hw = configs::preset("h100").unwrap();
    engine::run(&hw, work, opts).unwrap()
}

#[test]
fn h100_latency_and_throughput_microbenchmarks_within_2_percent() {
    let pats = load_patterns();
    let times = timings();
    assert_eq!(times.len(), pats.len(), "one timing row per 4-byte one-warp pattern");
    let mut failures = Vec::new();
    for (name, lat, thr) in &times {
        let elems = &pats.iter().find(|(n, _)| n == name).unwrap().1;
        // one warp chasing its pattern 4096 times: cycles per load
        let chase = run(&pointer_chase(elems, 4096), &EngineOptions::default());
        let lat_sim = chase.cycles as f64 / 4096.0;
        // 32 warps of one block, 4096 independent loads each: cycles per warp-load
        let indep = run(&independent_loads(elems, 32, 4096), &EngineOptions::default());
        let thr_sim = indep.cycles as f64 / (32.0 * 4096.0);
        let (el, et) = ((lat_sim - lat).abs() / lat, (thr_sim - thr).abs() / thr);
        if el > 0.02 || et > 0.02 {
            failures.push(format!(
                "{name}: latency {lat_sim:.2} vs {lat} ({:.1}%), throughput {thr_sim:.3} vs {thr} ({:.1}%)",
                el * 100.0,
                et * 100.0
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} patterns off by more than 2%:\n{}",
        failures.len(),
        times.len(),
        failures.join("\n")
    );
}

/// (stride, measured ratio to stride 1) and the stride-1 time in microseconds, from
/// `wgpu_stridebench.txt`.
fn measured_sweep() -> (Vec<(u32, f64)>, f64) {
    let text = std::fs::read_to_string(fixture("wgpu_stridebench.txt")).unwrap();
    let mut rows = Vec::new();
    let mut base_us = 0.0;
    for line in text.lines().filter(|l| l.starts_with("stride")) {
        // "stride   1: median 4157.1 us  ratio 1.00"
        let f: Vec<&str> = line.split_whitespace().collect();
        let stride: u32 = f[1].trim_end_matches(':').parse().unwrap();
        let us: f64 = f[3].parse().unwrap();
        let ratio: f64 = f[6].parse().unwrap();
        if stride == 1 {
            base_us = us;
        }
        rows.push((stride, ratio));
    }
    (rows, base_us)
}

/// The sweep on the h100 preset, scaled down by symmetry: 4 SMs with 32 workgroups each
/// (as each of the 132 SMs gets 32 of the 4224), `iters` chase steps; blocks per SM as
/// the limits allow (7 of 32 KiB: CUDA's default carveout), not by the preset's Vulkan
/// carveout rule (one), which `banksim calibrate` covers with its operation costs.
fn sweep(iters: u32, gap: u32, strides: &[u32]) -> Vec<(u32, EngineReport)> {
    let mut hw = configs::preset("h100").unwrap();
    hw.timing.as_mut().unwrap().sms = 4;
    hw.timing.as_mut().unwrap().occupancy = sim_core::Occupancy::Limits;
    strides
        .iter()
        .map(|&s| {
            (
                s,
                engine::run(&hw, &StrideBench::new(4 * 32, 256, iters, s, gap), &EngineOptions::default())
                    .unwrap(),
            )
        })
        .collect()
}

#[test]
fn stridebench_sweep_predicted_against_measured() {
    let (measured, base_us) = measured_sweep();
    assert_eq!(measured.len(), 12);
    let strides: Vec<u32> = measured.iter().map(|m| m.0).collect();
    let iters = 512;

    // 1. Shared memory alone (gap 0): 7 resident blocks of 8 warps keep the pipe busy,
    //    so time follows the wavefronts W of each stride: 1, 2, 4, 8, 16, 32.
    let bare = sweep(iters, 0, &strides);
    let base = bare[0].1.cycles as f64;
    println!("stride  W   measured  predicted(gap 0)");
    let hw = configs::preset("h100").unwrap();
    let lanes: Vec<u16> = (0..32).collect();
    for ((s, r), (_, m)) in bare.iter().zip(&measured) {
        let addrs: Vec<u32> = (0..32u32).map(|l| (l.wrapping_mul(*s) & 8191) * 4).collect();
        let w = BankModel::new(&hw).evaluate(&WarpRequest {
            op: Op::Load,
            bytes: 4,
            lanes: &lanes,
            addrs: &addrs,
        });
        println!("{s:6} {:3}  {m:8.2}  {:8.2}", w.wavefronts, r.cycles as f64 / base);
    }
    assert_eq!(bare[0].1.blocks_per_sm, 7, "32 KiB per block: 7 blocks fit 228 KiB");
    let ratio = |rs: &[(u32, EngineReport)], s: u32| {
        rs.iter().find(|r| r.0 == s).unwrap().1.cycles as f64 / rs[0].1.cycles as f64
    };
    for s in [0, 3, 5, 17, 33] {
        assert_eq!(ratio(&bare, s), 1.0, "stride {s} is conflict-free like stride 1");
    }
    assert_eq!(ratio(&bare, 32), ratio(&bare, 64), "strides 32 and 64 both put a warp in one bank");
    assert!(ratio(&bare, 16) > 15.0 && ratio(&bare, 32) > 30.0, "pipe-bound without other work");

    // 2. With the loop's other work: one number, the cycles per chase step, taken from the
    //    measured stride-1 time alone (1980 MHz, 32 workgroups x 8 warps x 4096 steps per
    //    SM, 4 schedulers issuing one instruction per cycle), predicts the other strides.
    let per_warp_step = base_us * 1980.0 / (32.0 * 8.0 * 4096.0);
    let gap = (per_warp_step * 4.0 - 1.0).round() as u32;
    assert_eq!(gap, 30);
    let fitted = sweep(iters, gap, &strides);
    println!("stride  measured  predicted(gap {gap})");
    let mut worst: f64 = 0.0;
    for ((s, r), (_, m)) in fitted.iter().zip(&measured) {
        let p = r.cycles as f64 / fitted[0].1.cycles as f64;
        println!("{s:6}  {m:8.2}  {p:8.2}");
        worst = worst.max((p - m).abs() / m);
    }
    assert!(worst < 0.05, "held-out strides within 5% (worst {:.1}%)", worst * 100.0);
}

#[test]
fn results_do_not_depend_on_the_thread_count() {
    let hw = configs::preset("h100").unwrap();
    let mut hw4 = hw.clone();
    hw4.timing.as_mut().unwrap().sms = 5;
    let opts = EngineOptions { per_request: true, ..EngineOptions::default() };
    let work = StrideBench::new(37, 256, 64, 16, 3);
    let transpose = traces::Requests::group(&traces::builtin::transpose(32, 0, 4), 32).unwrap();
    let run_with = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| {
            (engine::run(&hw4, &work, &opts).unwrap(), engine::run(&hw, &transpose, &opts).unwrap())
        })
    };
    let one = run_with(1);
    assert!(one.0.requests.len() > 1000 && one.0.cycles > 0);
    for threads in [2, 16] {
        assert_eq!(run_with(threads), one, "{threads} threads");
    }
    assert_eq!(run_with(1), one, "repeated run");
}

#[test]
fn barrier_holds_warps_until_the_block_arrives() {
    // warp 0: 10 dependent conflict-free loads, then a barrier; warp 1: barrier at once.
    let mut reqs = traces::Requests::new(32);
    let lanes: Vec<u16> = (0..32).collect();
    let addrs: Vec<u32> = (0..32).map(|l| l * 4).collect();
    for step in 0..10 {
        reqs.push(0, 0, step, sim_core::Op::Load, 4, 0, Some(step > 0), None, &lanes, &addrs);
    }
    reqs.push(0, 0, 10, sim_core::Op::Barrier, 0, 0, None, None, &lanes, &[0; 32]);
    reqs.push(0, 1, 0, sim_core::Op::Barrier, 0, 0, None, None, &lanes, &[0; 32]);
    reqs.push(0, 1, 1, sim_core::Op::Load, 4, 0, Some(false), None, &lanes, &addrs);
    let r = run(&reqs, &EngineOptions { per_request: true, ..EngineOptions::default() });
    // the 10th load completes at 10 x 29; warp 1's load issues after the release
    let last_chase = r.requests.iter().find(|t| t.index == 9).unwrap();
    let after_bar = r.requests.iter().find(|t| t.index == 12).unwrap();
    assert_eq!(last_chase.done, 10 * 29);
    assert!(after_bar.issue > 9 * 29, "released only after warp 0 arrives: {after_bar:?}");
    assert!(r.total.stalls.barrier >= 9 * 29, "{:?}", r.total.stalls);
}

#[test]
fn a_barrier_arrival_waits_its_turn_in_the_pipe() {
    // warp 0: a 32-way conflicted load (32 wavefronts), then a barrier; warp 1: a barrier
    // at once, then a load. An arrival that uses the pipe queues behind the conflicted
    // load, so warp 1's load issues only once the pipe has taken it and warp 0's arrival.
    let mut reqs = traces::Requests::new(32);
    let lanes: Vec<u16> = (0..32).collect();
    let column: Vec<u32> = (0..32).map(|l| l * 128).collect();
    let row: Vec<u32> = (0..32).map(|l| l * 4).collect();
    reqs.push(0, 0, 0, Op::Load, 4, 0, Some(false), None, &lanes, &column);
    reqs.push(0, 0, 1, Op::Barrier, 0, 0, None, None, &lanes, &[0; 32]);
    reqs.push(0, 1, 0, Op::Barrier, 0, 0, None, None, &lanes, &[0; 32]);
    reqs.push(0, 1, 1, Op::Load, 4, 0, Some(false), None, &lanes, &row);
    let opts = EngineOptions { per_request: true, ..EngineOptions::default() };
    let with = |cycles: u32| {
        let mut hw = configs::preset("h100").unwrap();
        hw.timing.as_mut().unwrap().barrier_pipe_cycles = cycles;
        let r = engine::run(&hw, &reqs, &opts).unwrap();
        let after = *r.requests.iter().find(|t| t.index == 3).unwrap();
        (r, after)
    };
    assert_eq!(configs::preset("h100").unwrap().timing.unwrap().barrier_pipe_cycles, 1);
    let (queued, after) = with(1);
    assert!(
        after.issue > 32,
        "the load after the barrier issues at {}, before warp 0's arrival left the pipe",
        after.issue
    );
    assert_eq!(queued.sms[0].pipe_busy, 32 + 2 + 1, "32 wavefronts, 2 arrivals, 1 wavefront");
    assert!(
        queued.total.stalls.pipe_queue >= 32,
        "the arrivals' wait is the pipe's: {:?}",
        queued.total.stalls
    );
    // without the rule, the barrier releases as soon as both warps issue it
    let (free, after) = with(0);
    assert!(after.issue < 32, "without the rule the load issues at once: {}", after.issue);
    assert_eq!(free.sms[0].pipe_busy, 32 + 1);
}

#[test]
fn gap_work_makes_a_kernel_issue_bound_not_bank_bound() {
    // 4 warps per scheduler x 4 schedulers, independent 2-way-conflicted loads: the pipe
    // needs 2 cycles per request; 20 cycles of other work per request bind the issue slots.
    let elems: Vec<Option<u32>> = (0..32).map(|t| Some(2 * t)).collect();
    let (lanes, addrs) = traces::builtin::lanes_addrs(&elems, 4);
    let build = |gap| {
        let mut reqs = traces::Requests::new(32);
        for warp in 0..16 {
            for step in 0..256 {
                reqs.push(0, warp, step, sim_core::Op::Load, 4, gap, Some(false), None, &lanes, &addrs);
            }
        }
        reqs
    };
    let bank_bound = run(&build(0), &EngineOptions::default());
    let issue_bound = run(&build(20), &EngineOptions::default());
    let per_req = |r: &EngineReport| r.cycles as f64 / (16.0 * 256.0);
    assert!((per_req(&bank_bound) - 2.0).abs() < 0.05, "pipe-bound: {}", per_req(&bank_bound));
    // 21 issue cycles per request, 4 schedulers: 5.25 cycles per request
    assert!((per_req(&issue_bound) - 21.0 / 4.0).abs() < 0.1, "issue-bound: {}", per_req(&issue_bound));
    assert!(issue_bound.sms[0].pipe_utilisation() < 0.5);
}

#[test]
fn a_loads_latency_shows_only_from_the_first_use_of_its_value() {
    // one warp chasing a stride-`s` pattern (gcd(s, 32) wavefronts, latency 27 + 2 W),
    // 40 cycles of other work before each load, the loaded value first used `wait`
    // cycles into it (the warp issues in order: it stalls at the first use, not before)
    let per_step = |stride: u32, wait: Option<u32>| {
        let run_steps = |steps: u32| {
            let lanes: Vec<u16> = (0..32).collect();
            let addrs: Vec<u32> = (0..32).map(|l| (l * stride % 2048) * 4).collect();
            let mut reqs = traces::Requests::new(32);
            for step in 0..steps {
                reqs.push(0, 0, step, Op::Load, 4, 40, Some(true), wait, &lanes, &addrs);
            }
            run(&reqs, &EngineOptions::default()).cycles
        };
        (run_steps(512) - run_steps(256)) as f64 / 256.0
    };
    for (stride, wavefronts) in [(1u32, 1u32), (8, 8), (16, 16), (32, 32)] {
        let latency = (27 + 2 * wavefronts) as f64;
        // needed before the gap (no wait, or a wait of 0): latency + gap, in series
        assert_eq!(per_step(stride, None), latency + 40.0, "stride {stride}");
        assert_eq!(per_step(stride, Some(0)), latency + 40.0, "stride {stride}, wait 0");
        // needed only by the next load: the gap (and its issue slot) hides the latency
        assert_eq!(per_step(stride, Some(40)), latency.max(41.0), "stride {stride}, wait 40");
        // 10 cycles of work after the first use: those follow the data
        assert_eq!(per_step(stride, Some(30)), (latency + 10.0).max(41.0), "stride {stride}, wait 30");
    }
}

#[test]
fn an_sm_launches_one_block_per_launch_interval() {
    // 10 one-warp blocks of one conflict-free load each, all resident on one SM: they
    // start `block_launch_cycles` apart, so the last one's load is back 9 intervals + 29
    // cycles later (without an interval, the loads queue for the pipe: the last enters it
    // at cycle 9)
    let lanes: Vec<u16> = (0..32).collect();
    let addrs: Vec<u32> = (0..32).map(|l| l * 4).collect();
    let mut reqs = traces::Requests::new(32);
    for block in 0..10 {
        reqs.push(block, 0, 0, Op::Load, 4, 0, Some(false), None, &lanes, &addrs);
    }
    let cycles = |interval: u32| {
        let mut hw = configs::preset("h100").unwrap();
        let t = hw.timing.as_mut().unwrap();
        (t.sms, t.block_launch_cycles) = (1, interval);
        engine::run(&hw, &reqs, &EngineOptions::default()).unwrap().cycles
    };
    assert_eq!(cycles(0), 9 + 29);
    assert_eq!(cycles(100), 9 * 100 + 29);
    // the H100 preset's measured interval
    assert_eq!(configs::preset("h100").unwrap().timing.unwrap().block_launch_cycles, 157);
}

#[test]
fn a_block_launched_late_has_no_latency_stall_before_its_first_request() {
    // one SM, one block resident at a time, one warp per block: block b launches when
    // block b-1 is done, at cycle ~b x 100. Stores wait for no data, so no latency stall
    // however late a block starts; dependent loads stall only for their own chain.
    let lanes: Vec<u16> = (0..32).collect();
    let addrs: Vec<u32> = (0..32).map(|l| l * 4).collect();
    let run_with = |op: Op| {
        let mut reqs = traces::Requests::new(32);
        for block in 0..20 {
            for step in 0..4 {
                reqs.push(block, 0, step, op, 4, 0, None, None, &lanes, &addrs);
            }
        }
        let mut hw = configs::preset("h100").unwrap();
        let t = hw.timing.as_mut().unwrap();
        (t.sms, t.max_blocks_per_sm) = (1, 1);
        engine::run(&hw, &reqs, &EngineOptions::default()).unwrap()
    };
    let stores = run_with(Op::Store);
    assert_eq!(stores.total.blocks, 20);
    assert!(stores.cycles > 19 * 157, "blocks launch one after another: {}", stores.cycles);
    assert_eq!(stores.total.stalls.latency, 0, "{:?}", stores.total.stalls);
    // each block: 3 loads wait for the previous one's 29-cycle latency, less the issue cycle
    let loads = run_with(Op::Load);
    let per_block = loads.total.stalls.latency / 20;
    assert!(per_block > 0 && per_block < 3 * 29, "{:?}", loads.total.stalls);
}

#[test]
fn global_accesses_cost_a_wavefront_per_line_and_share_the_shared_memory_pipe() {
    let lanes: Vec<u16> = (0..32).collect();
    let coalesced: Vec<u32> = (0..32).map(|l| 4096 + 4 * l).collect();
    let strided: Vec<u32> = (0..32).map(|l| 4096 + 128 * l).collect();
    let column: Vec<u32> = (0..32).map(|l| 128 * l).collect(); // 32-way shared conflict
    let mut model = BankModel::new(&configs::preset("h100").unwrap());
    let lines = |m: &mut BankModel, a: &[u32]| {
        m.evaluate(&WarpRequest { op: Op::GlobalLoad, bytes: 4, lanes: &lanes, addrs: a })
    };
    assert_eq!((lines(&mut model, &coalesced).wavefronts, lines(&mut model, &coalesced).conflicts()), (1, 0));
    assert_eq!((lines(&mut model, &strided).wavefronts, lines(&mut model, &strided).conflicts()), (32, 0));

    let cycles = |reqs: &traces::Requests, latency: u32| {
        let mut hw = configs::preset("h100").unwrap();
        let t = hw.timing.as_mut().unwrap();
        (t.sms, t.global_latency) = (1, latency);
        engine::run(&hw, reqs, &EngineOptions::default()).unwrap().cycles
    };
    // a global load, then a store that needs its value: the store waits the latency
    let mut one = traces::Requests::new(32);
    one.push(0, 0, 0, Op::GlobalLoad, 4, 0, Some(false), None, &lanes, &coalesced);
    one.push(
        0,
        0,
        1,
        Op::Store,
        4,
        0,
        Some(true),
        None,
        &lanes,
        &coalesced[..32].iter().map(|a| a - 4096).collect::<Vec<_>>(),
    );
    let (a, b) = (cycles(&one, 0), cycles(&one, 500));
    assert_eq!(b - a, 500, "the dependent store waits the global latency");
    // warp 1's global load queues behind warp 0's 32-way conflicted shared load in the
    // one pipe: its data comes back 32 wavefronts later than without the conflict
    let pair = |shared: &[u32]| {
        let mut r = traces::Requests::new(32);
        r.push(0, 0, 0, Op::Load, 4, 0, Some(false), None, &lanes, shared);
        r.push(0, 1, 0, Op::GlobalLoad, 4, 1, Some(false), None, &lanes, &coalesced);
        r
    };
    let diagonal: Vec<u32> = (0..32).map(|l| 4 * l).collect();
    let (free, conflicted) = (cycles(&pair(&diagonal), 500), cycles(&pair(&column), 500));
    assert_eq!(conflicted - free, 31, "the global load waits for the conflict's 31 extra wavefronts");
}

#[test]
fn a_global_load_of_lines_its_block_loaded_recently_waits_the_l1() {
    let lanes: Vec<u16> = (0..32).collect();
    let line = |base: u32| (0..32).map(|l| base + 4 * l).collect::<Vec<u32>>();
    let words: Vec<u32> = (0..32).map(|l| 4 * l).collect();
    // one warp: load line A, then B, then A again, each value used by a store at once
    let mut r = traces::Requests::new(32);
    for (step, base) in [4096, 8192, 4096].into_iter().enumerate() {
        r.push(0, 0, 2 * step as u32, Op::GlobalLoad, 4, 0, Some(false), None, &lanes, &line(base));
        r.push(0, 0, 2 * step as u32 + 1, Op::Store, 4, 0, Some(true), None, &lanes, &words);
    }
    let cycles = |l1_latency: u32, l1_bytes: u32| {
        let mut hw = configs::preset("h100").unwrap();
        let t = hw.timing.as_mut().unwrap();
        (t.sms, t.global_latency, t.l1_latency, t.l1_bytes, t.dram_bytes_per_cycle) =
            (1, 500, l1_latency, l1_bytes, 0.0);
        engine::run(&hw, &r, &EngineOptions::default()).unwrap().cycles
    };
    // the third load hits: it waits the L1's latency, the other two the global one
    let (l1_100, l1_200) = (cycles(100, 1 << 20), cycles(200, 1 << 20));
    assert_eq!(l1_200 - l1_100, 100);
    // no L1, and an L1 too small for two lines (one line per block): every load misses
    assert_eq!(cycles(0, 1 << 20) - l1_100, 400);
    assert_eq!(cycles(100, 128) - l1_100, 400);
}

#[test]
fn ldmatrix_returns_data_like_a_load_and_stmatrix_and_cp_async_write_like_stores() {
    // one warp: a tensor-core op of 32 rows 128 bytes apart (8 wavefronts a matrix on the
    // h100 preset; cp.async.cg none), then an access that needs its previous load's value
    let lanes: Vec<u16> = (0..32).collect();
    let rows: Vec<u32> = (0..32).map(|l| 128 * l).collect();
    let words: Vec<u32> = (0..32).map(|l| 4 * l).collect();
    let cycles = |op: Op, bytes: u8| {
        let mut r = traces::Requests::new(32);
        r.push(0, 0, 0, op, bytes, 0, Some(false), None, &lanes, &rows);
        r.push(0, 0, 1, Op::Load, 4, 0, Some(true), None, &lanes, &words);
        let report = run(&r, &EngineOptions::default());
        (report.cycles, report.total.wavefronts)
    };
    let (ld, ld_wavefronts) = cycles(Op::Load, 16);
    let (ldsm, ldsm_wavefronts) = cycles(Op::MatrixLoad, 16);
    // 16-byte rows 128 bytes apart: the load's 4 phases of 8 lanes cost what ldmatrix's
    // 4 matrices cost, and the dependent load waits for either's data
    assert_eq!((ldsm, ldsm_wavefronts), (ld, ld_wavefronts));
    assert_eq!(ldsm_wavefronts, 32 + 1);
    let (st, _) = cycles(Op::Store, 16);
    let (stsm, _) = cycles(Op::MatrixStore, 16);
    let (cp, cp_wavefronts) = cycles(Op::AsyncCopy, 16);
    // nothing returns from a store, an stmatrix or a cp.async: the next load does not wait
    assert_eq!((stsm, cp), (st, st));
    assert!(st < ld, "{st} {ld}");
    assert_eq!(cp_wavefronts, 32 + 1);
    // cp.async.cg's write takes no wavefront of the pipe on the h100
    let (_, cg_wavefronts) = cycles(Op::AsyncCopyBypass, 16);
    assert_eq!(cg_wavefronts, 1);
}

/// Blocks of different lengths on a few SMs, so that slots free at different cycles.
fn uneven_blocks(blocks: u32) -> traces::Requests {
    let mut reqs = traces::Requests::new(32);
    let lanes: Vec<u16> = (0..32).collect();
    for block in 0..blocks {
        for warp in 0..4 {
            let steps = 3 + (block * 7 + warp * 3) % 11;
            for step in 0..steps {
                let stride = 1 + (block + step) % 4;
                let addrs: Vec<u32> = (0..32).map(|l| (l * stride + block) % 2048 * 4).collect();
                let op = if step % 3 == 2 { Op::Store } else { Op::Load };
                reqs.push(block, warp, step, op, 4, (block + step) % 5, None, None, &lanes, &addrs);
            }
        }
    }
    reqs
}

#[test]
fn every_request_runs_whatever_the_dispatch_order() {
    // uneven blocks free slots at scattered cycles: the serial dispatch takes one SM a
    // round, the speculative one (several threads) rolls some of its guesses back
    let work = uneven_blocks(300);
    let opts = EngineOptions { per_request: true, ..EngineOptions::default() };
    for sms in [2, 5, 13] {
        let mut hw = configs::preset("h100").unwrap();
        hw.timing.as_mut().unwrap().sms = sms;
        let mut first = None;
        for threads in [1, 2, 4] {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            let r = pool.install(|| engine::run(&hw, &work, &opts).unwrap());
            let at = format!("{sms} SMs, {threads} threads");
            assert_eq!(&r, first.get_or_insert_with(|| r.clone()), "{at}");
            assert_eq!(r.total.blocks, 300, "{at}");
            assert_eq!(r.total.requests as usize, work.len(), "{at}");
            assert_eq!(r.requests.len(), work.len(), "{at}");
            let last = r.requests.iter().map(|t| t.done).max().unwrap();
            assert!(r.cycles >= last, "{at}: {} cycles, last request done at {last}", r.cycles);
        }
    }
}

#[test]
fn kept_block_starts_give_the_scanned_result() {
    // `Requests` hands the engine its extent and block starts; a workload that keeps
    // neither makes the engine scan every request: the runs must agree
    struct Hidden<'a>(&'a traces::Requests);
    impl Workload for Hidden<'_> {
        fn len(&self) -> usize {
            self.0.len()
        }
        fn request(&self, i: usize) -> engine::EngineRequest<'_> {
            self.0.request(i)
        }
    }
    let work = uneven_blocks(120);
    assert_eq!(work.block_starts().map(<[usize]>::len), Some(120));
    let opts = EngineOptions { per_request: true, ..EngineOptions::default() };
    let (kept, scanned) = (run(&work, &opts), run(&Hidden(&work), &opts));
    assert_eq!(kept.total.blocks, 120);
    assert_eq!(kept, scanned);
}

/// The H100's shared atomics timing (`atom_timing.csv`, validate/probe/probe_atom_timing.cu):
/// one warp's chain of returning atomics (`atom`, ATOMS.ADD) and 32 warps issuing
/// independent ones; result-unused increments (`red`, ATOMS.POPC.INC) at saturation. The
/// loads and stores of the same run are checked too, and every pattern with the 32 warps
/// on the same words (`xwarp`: no cost for atomics of different warps on one word).
#[test]
fn h100_atomics_latency_and_throughput_within_2_percent() {
    let text = std::fs::read_to_string(fixture("atom_timing.csv")).unwrap();
    let mut failures = Vec::new();
    let mut checked = 0;
    for line in text.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        let op = match f[0] {
            "ld" => Op::Load,
            "atom" => Op::Atomic,
            "red_inc" => Op::Reduction,
            "st" => Op::Store,
            // (red.shared.add compiles to ATOMS.ADD: an `atom` whose result goes unused)
            _ => continue,
        };
        let k: u32 = f[2].parse().unwrap();
        // distinct: lane i on word i; same: every lane on word 0; kway: lane i on word i*k
        let word = |lane: u32| match f[1] {
            "same" => 0,
            "distinct" => lane,
            _ => lane * k,
        };
        let lanes: Vec<u16> = (0..32).collect();
        let addrs: Vec<u32> = (0..32).map(|l| word(l) * 4).collect();
        let mut chain = traces::Requests::new(32);
        let mut many = traces::Requests::new(32);
        for step in 0..1024 {
            chain.push(0, 0, step, op, 4, 0, Some(step > 0), None, &lanes, &addrs);
        }
        for warp in 0..32 {
            for step in 0..1024 {
                many.push(0, warp, step, op, 4, 0, Some(false), None, &lanes, &addrs);
            }
        }
        let mut check = |what: &str, sim: f64, measured: &str| {
            if let Ok(m) = measured.parse::<f64>() {
                checked += 1;
                if (sim - m).abs() / m > 0.02 {
                    failures.push(format!("{line}: {what} {sim:.2} vs {m}"));
                }
            }
        };
        if op != Op::Reduction {
            check("latency", run(&chain, &EngineOptions::default()).cycles as f64 / 1024.0, f[3]);
        }
        check("throughput", run(&many, &EngineOptions::default()).cycles as f64 / (32.0 * 1024.0), f[4]);
    }
    assert!(checked >= 50, "{checked} figures checked");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
