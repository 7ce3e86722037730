//! The time of a WGSL kernel's dispatch on the preset's GPU (the `gpu` feature), from its
//! captured workgroups ([`predict`]): with no measurement (the preset's cost of an IR
//! operation) or from a measured variant of the kernel (the cost solved from its time,
//! as `calibrate` does per family).

use crate::error::{Error, Result};
use sim_core::engine::EngineOptions;
use sim_core::launch::LaunchReport;
use sim_core::Hardware;
use traces::Requests;
use validate::calibrate::{dispatch_cycles, dispatch_launch, solve_cycles_per_op, Model, Role, Variant};

/// What a kernel's dispatch holds besides its trace: the shared memory of a workgroup
/// (every workgroup variable declared) and the bytes of its buffers (`None`: a trace
/// file, which says neither).
#[derive(Clone, Copy, Debug, Default)]
pub struct Extent {
    /// Shared memory of a workgroup, bytes.
    pub smem: Option<u32>,
    /// Bytes of the dispatch's buffers.
    pub global: Option<u64>,
}

/// A dispatch to predict: the requests of the captured workgroups, stretched to
/// `blocks` blocks.
pub struct Dispatch {
    /// The captured workgroups' requests.
    pub requests: Requests,
    /// What the dispatch holds besides them.
    pub extent: Extent,
    /// Blocks of the dispatch.
    pub blocks: u32,
}

/// The reference of a prediction from a measured variant.
#[derive(Clone, Copy, Debug)]
pub struct Referenced {
    /// Its measured time, microseconds.
    pub us: f64,
    /// The engine's cycles of the kernel's dispatch (at the solved cost).
    pub cycles: f64,
    /// The engine's cycles of the reference's dispatch.
    pub reference_cycles: f64,
    /// The share of the engine's change that shows in the time (`timing.ops.overlap`).
    pub overlap: f64,
}

/// A kernel's predicted time, and what its bank conflicts cost.
pub struct Prediction {
    /// Cycles per IR operation of other work: the preset's, or solved from the reference.
    pub cycles_per_op: f64,
    /// The engine's launch of the dispatch.
    pub report: LaunchReport,
    /// The predicted time, microseconds.
    pub us: f64,
    /// The predicted time of the same dispatch with every request at its ideal
    /// wavefronts, microseconds.
    pub free_us: f64,
    /// Where the prediction came from a measured variant: its figures.
    pub reference: Option<Referenced>,
}

impl Prediction {
    /// What the bank conflicts cost, microseconds.
    pub fn conflict_us(&self) -> f64 {
        self.us - self.free_us
    }
}

/// The time of `target` on `hw` (which must have timing parameters and a clock): with
/// the preset's cost of an IR operation, or, given `reference` (a measured variant and
/// its time in microseconds), with the cost solved from that time, the target's time
/// being the reference's plus the engine's difference between the two.
/// With `full`, every block of each dispatch is simulated (see
/// [`EngineOptions::full`]).
pub fn predict(
    hw: &Hardware,
    target: Dispatch,
    reference: Option<(Dispatch, f64)>,
    full: bool,
) -> Result<Prediction> {
    let timing = hw.timing.as_ref().ok_or_else(|| {
        Error::Input(format!("preset `{}` has no timing parameters: nothing to predict with", hw.name))
    })?;
    let clock = timing.clock_mhz;
    let ops = timing.ops.clone();
    let mut model = Model { occupancy: timing.occupancy.clone(), issue_per_op: 1.0, issue_share: 1.0 };
    let (preset_cycles_per_op, overlap) = match &ops {
        Some(o) => {
            (model.issue_per_op, model.issue_share) = (o.issue_per_op, o.issue_share);
            (o.cycles_per_op, o.overlap)
        }
        None => (0.0, 1.0),
    };
    let overhead = timing.dispatch_overhead_cycles as f64;
    let v = variant(target, "kernel");
    let launch = |c: f64, no_conflicts: bool| -> Result<LaunchReport> {
        let options = EngineOptions { no_conflicts, full, ..Default::default() };
        Ok(dispatch_launch(hw, &model, &v, c, options)?)
    };
    match reference {
        Some((r, us)) => {
            let rv = variant(r, "reference");
            let c = solve_cycles_per_op(hw, &model, &rv, (us * clock - overhead).max(0.0), full)
                .map_err(|e| Error::Input(format!("--reference-us {}: {e}", short(us))))?;
            let report = launch(c, false)?;
            let (k, rk) = (report.engine.cycles as f64, dispatch_cycles(hw, &model, &rv, c, full)?);
            let predicted = us + overlap * (k - rk) / clock;
            let free = launch(c, true)?;
            let saved = overlap * (k - free.engine.cycles as f64) / clock;
            let reference = Referenced { us, cycles: k, reference_cycles: rk, overlap };
            Ok(Prediction {
                cycles_per_op: c,
                report,
                us: predicted,
                free_us: predicted - saved,
                reference: Some(reference),
            })
        }
        None => {
            let report = launch(preset_cycles_per_op, false)?;
            let free = launch(preset_cycles_per_op, true)?;
            let no_clock = || Error::Input(format!("preset `{}` has no clock (`timing.clock_mhz`)", hw.name));
            let us = report.micros().ok_or_else(no_clock)?;
            let free_us = free.micros().ok_or_else(no_clock)?;
            Ok(Prediction { cycles_per_op: preset_cycles_per_op, report, us, free_us, reference: None })
        }
    }
}

/// `v` as written on a command line: in exponent form where plain digits would be
/// many (`1e308`, `1e-9`).
fn short(v: f64) -> String {
    if v != 0.0 && !(1e-3..1e9).contains(&v.abs()) {
        format!("{v:e}")
    } else {
        format!("{v}")
    }
}

/// `d` as the calibration's variant named `label` (no measurement of its own).
fn variant(d: Dispatch, label: &str) -> Variant {
    Variant {
        label: label.into(),
        family: "kernel".into(),
        role: Role::Holdout,
        blocks: d.blocks,
        scale: 1.0,
        measured_us: 0.0,
        requests: d.requests,
        smem_bytes: d.extent.smem,
        global_bytes: d.extent.global,
    }
}
