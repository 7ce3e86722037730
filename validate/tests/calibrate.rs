//! Calibration end to end on synthetic "measurements" made by the engine itself: the
//! cycles per operation must be recovered from the reference alone, and the other
//! variants predicted exactly.

use sim_core::Op;
use traces::{Record, Requests, Trace};
use validate::calibrate::{dispatch_cycles, predict_suite, Model, Occupancy, Role, Variant};

/// `threads` threads of one block, each loading `steps` times with `stride` words
/// between lanes, `ops` IR operations of other work before each load.
fn strided(threads: u32, stride: u32, steps: u32, ops: u32) -> Requests {
    let mut t = Trace::new("synthetic");
    for thread in 0..threads {
        for step in 0..steps {
            let addr = ((thread % 32) * stride % 2048) * 4;
            t.push(Record {
                block: 0,
                thread,
                step,
                op: Op::Load,
                addr,
                bytes: 4,
                gap: ops,
                dep: Some(true),
                wait: None,
                site: traces::NO_SITE,
            });
        }
    }
    Requests::group(&t, 32).unwrap()
}

fn variant(label: &str, family: &str, role: Role, threads: u32, stride: u32, ops: u32) -> Variant {
    Variant {
        label: label.into(),
        family: family.into(),
        role,
        blocks: 264,
        scale: 1.0,
        measured_us: 0.0,
        requests: strided(threads, stride, 64, ops),
        smem_bytes: None,
        global_bytes: None,
    }
}

#[test]
fn recovers_cycles_per_op_and_predicts_variants_made_by_the_same_model() {
    let hw = configs::load("h100").unwrap();
    let clock = 1000.0;
    let truth = Model { occupancy: Occupancy::Limits, issue_per_op: 1.0, issue_share: 1.0 };
    let overhead = hw.timing.as_ref().unwrap().dispatch_overhead_cycles as f64;
    // 4-warp blocks, two per SM: latency-bound (the reference pins the cycles per op);
    // 32-warp blocks, 16 warps per scheduler: issue-bound (pins the issue cycles per op)
    let mut vs = vec![
        variant("a_s1", "a", Role::Fit, 128, 1, 12),
        variant("a_s8", "a", Role::Fit, 128, 8, 12),
        variant("a_s32", "a", Role::Fit, 128, 32, 12),
        variant("a_wide", "a", Role::Fit, 1024, 1, 12),
        variant("b_s1", "b", Role::Holdout, 128, 1, 40),
        variant("b_s16", "b", Role::Holdout, 128, 16, 40),
        variant("b_wide", "b", Role::Holdout, 1024, 1, 40),
    ];
    // "measure" every variant with 2.5 cycles per op (family a) and 1.5 (family b), and
    // the dispatch's fixed overhead
    for v in &mut vs {
        let c = if v.family == "a" { 2.5 } else { 1.5 };
        v.measured_us = (dispatch_cycles(&hw, &truth, v, c, false).unwrap() + overhead) / clock;
    }
    let issue = [(0.0, 1.0), (1.0, 1.0), (2.0, 1.0), (1.0, 0.25)];
    let cal = predict_suite(&hw, &vs, clock, &Occupancy::Limits, &issue, &|_| {}).unwrap();
    assert_eq!(
        (cal.model.issue_per_op, cal.model.issue_share),
        (1.0, 1.0),
        "the generating issue model fits best: {:?}",
        cal.search
    );
    let c: Vec<f64> = cal.cycles_per_op.iter().map(|f| f.1).collect();
    assert!((c[0] - 2.5).abs() < 0.05 && (c[1] - 1.5).abs() < 0.05, "solved cycles per op {c:?}");
    assert!((cal.overlap - 1.0).abs() < 0.02, "overlap {}", cal.overlap);
    for p in &cal.predictions {
        assert!(
            p.error.abs() < 0.01,
            "{}: predicted speedup {} vs {}",
            p.label,
            p.predicted_speedup,
            p.measured_speedup
        );
    }
    // and the conflicts matter: the 32-way variant runs more than twice the 1-way one's
    // cycles (its time, with the dispatch overhead, a little less than twice)
    let cycles = |label| cal.predictions.iter().find(|p| p.label == label).unwrap().engine_cycles;
    assert!(cycles("a_s32") > 2.0 * cycles("a_s1"), "{} vs {}", cycles("a_s32"), cycles("a_s1"));
}

#[test]
fn declared_shared_memory_sets_the_occupancy_the_trace_alone_would_not() {
    // 256-thread blocks touching 1 KiB; declared: nothing more, or 40 KiB (wgpu zeroes
    // every workgroup variable, so the driver allocates them all)
    let hw = configs::load("h100").unwrap();
    let model = Model {
        occupancy: hw.timing.as_ref().unwrap().occupancy.clone(),
        issue_per_op: 1.0,
        issue_share: 1.0,
    };
    let mut v = variant("v", "f", Role::Holdout, 256, 1, 4);
    let blocks_per_sm = |v: &Variant| {
        validate::calibrate::dispatch_launch(&hw, &model, v, 4.0, Default::default())
            .unwrap()
            .engine
            .blocks_per_sm
    };
    let touched = blocks_per_sm(&v);
    v.smem_bytes = Some(40 * 1024);
    let declared = blocks_per_sm(&v);
    // the H100's rule through Vulkan: the workgroups that fit in 48 KiB, one of 40 KiB
    assert_eq!((touched, declared), (8, 1));
}
