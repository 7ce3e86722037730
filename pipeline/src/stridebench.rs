//! The cycle engine's prediction of the wgpu stride sweep
//! (`validate/probe/wgpu_stridebench.rs`, measured in `fixtures/h100/wgpu_stridebench.txt`):
//! workgroups of 256 invocations chasing dependent loads at a stride, one stride at a
//! time (`banksim stridebench`).

use sim_core::engine::{self, EngineOptions};
use sim_core::Hardware;

/// One stride of the sweep: `blocks` workgroups of 256 invocations, `iters` chase steps
/// at `stride`, `gap` cycles of other work per step ([`traces::builtin::StrideBench`]).
#[derive(Clone, Copy, Debug)]
pub struct Sweep {
    /// Workgroups.
    pub blocks: u32,
    /// Chase steps per invocation.
    pub iters: u32,
    /// Words between consecutive lanes' first addresses.
    pub stride: u32,
    /// Cycles of other work per chase step.
    pub gap: u32,
}

/// The engine's figures for one stride.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Prediction {
    /// Cycles of the whole dispatch.
    pub cycles: u64,
    /// Blocks resident on an SM at once.
    pub blocks_per_sm: u32,
    /// Busy cycles of the shared-memory pipe over the cycles of the SMs that ran blocks.
    pub pipe_utilisation: f64,
}

/// The cycle engine's prediction of `sweep` on `hw`.
///
/// With `one_sm`, where the blocks divide evenly over the SMs (a multiple of the SMs,
/// at least one each), one SM is simulated with its share of the blocks. That is exact:
/// every block of the sweep makes the same requests (only its id differs, and the engine
/// uses ids only to tell blocks apart), SMs are identical, and the dispatcher gives
/// blocks to the SMs that free a slot first, tied SMs one block each in turn; so the
/// initial fill and every later round give each SM the same number of blocks at the same
/// cycle, every SM runs as that one does, and the cycles, blocks per SM and pipe
/// utilisation are those of the whole dispatch. Otherwise (or without `one_sm`) the
/// engine runs every block.
pub fn predict(
    hw: &Hardware,
    sweep: &Sweep,
    one_sm: bool,
) -> Result<Prediction, sim_core::engine::EngineError> {
    let mut hw = hw.clone();
    let mut blocks = sweep.blocks;
    if let Some(t) = hw.timing.as_mut() {
        if one_sm && t.sms > 0 && blocks >= t.sms && blocks.is_multiple_of(t.sms) {
            blocks /= t.sms;
            t.sms = 1;
        }
    }
    check_size(blocks, sweep.iters)?;
    let work = traces::builtin::StrideBench::new(blocks, 256, sweep.iters, sweep.stride, sweep.gap);
    let r = engine::run(&hw, &work, &EngineOptions::default())?;
    let used = r.sms.iter().filter(|s| s.blocks > 0).count();
    let busy = r.cycles as f64 * used as f64;
    Ok(Prediction {
        cycles: r.cycles,
        blocks_per_sm: r.blocks_per_sm,
        pipe_utilisation: if busy > 0.0 { r.total.pipe_busy as f64 / busy } else { 0.0 },
    })
}

/// That a sweep of `blocks` simulated workgroups of 256 invocations chasing `iters`
/// steps is at least one workgroup and stays within the engine's limits: its requests
/// within [`SIMULATED_REQUESTS`](sim_core::limits::SIMULATED_REQUESTS), its blocks'
/// tables (16 bytes each) within [`MEMORY`](sim_core::limits::MEMORY).
pub fn check_size(blocks: u32, iters: u32) -> Result<(), sim_core::engine::EngineError> {
    use sim_core::limits::{MemoryBound, SIMULATED_REQUESTS};
    if blocks == 0 {
        return Err(sim_core::engine::EngineError::Input(
            "--blocks 0: expected at least one workgroup".into(),
        ));
    }
    let what = || format!("--blocks {blocks} --iters {iters} (simulated)");
    SIMULATED_REQUESTS.check(what, traces::builtin::StrideBench::requests(blocks, 256, iters))?;
    MemoryBound::default().check(what, blocks as u64 * 16)?;
    Ok(())
}
