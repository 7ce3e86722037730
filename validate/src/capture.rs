//! Capture: instrument a kernel, run it, read the records back, decode them.

use crate::bind::{self, Bind};
use crate::decode::Decoder;
use crate::error::{CaptureError, InstrumentError};
use crate::gpu::Gpu;
use crate::instrument::{self, Instrumented, Resource, SharedVar};
use crate::kernel;
use crate::record::{
    raw_records_from_bytes, word_at, RawRecord, Site, Window, CUT_WORD, HEADER_WORDS, RECORD_WORDS,
    STEPS_WORD, WHOLE, WINDOW_WORD,
};
use sim_core::limits::{CAPTURE_INVOCATIONS, CAPTURE_RECORDS};
use std::collections::VecDeque;
use traces::Trace;

/// What to run: entry point, overrides, dispatch, buffer contents.
#[derive(Clone, Debug, Default)]
pub struct KernelOptions {
    /// Compute entry point (default: the only one).
    pub entry: Option<String>,
    /// Pipeline-overridable constants, by name or `@id`.
    pub overrides: Vec<(String, f64)>,
    /// Workgroups in x, y, z.
    pub dispatch: [u32; 3],
    /// Buffer contents (others get the default, see [`crate::bind`]).
    pub binds: Vec<Bind>,
}

/// A capture's options.
#[derive(Clone, Debug)]
pub struct CaptureOptions {
    /// The kernel and its dispatch.
    pub kernel: KernelOptions,
    /// Records the first run makes room for; a kernel that makes more is run again
    /// (see [`capture`]).
    pub initial_records: u64,
    /// Records one run makes room for at most (and at most what the device's largest
    /// storage binding holds): a kernel that makes more is captured in several runs, a
    /// window of its workgroups and steps each.
    pub chunk_records: u64,
}

impl CaptureOptions {
    /// Options for `kernel` with the default capacities: 1 Mi records in the first run,
    /// 4 Mi (112 MiB) in any run.
    pub fn new(kernel: KernelOptions) -> CaptureOptions {
        CaptureOptions { kernel, initial_records: 1 << 20, chunk_records: 1 << 22 }
    }
}

/// A captured trace and what it came from.
#[derive(Debug)]
pub struct Capture {
    /// The trace: every workgroup-memory access and barrier of the dispatch.
    pub trace: Trace,
    /// The adapter it ran on.
    pub adapter: String,
    /// The instrumented WGSL that ran.
    pub wgsl: String,
    /// The access sites.
    pub sites: Vec<Site>,
    /// The workgroup variables and their offsets.
    pub shared: Vec<SharedVar>,
    /// Workgroup memory bytes per workgroup.
    pub shared_bytes: u32,
    /// `@workgroup_size`.
    pub workgroup_size: [u32; 3],
    /// Raw records the kernel made (loop records included).
    pub records: u64,
    /// GPU runs it took: 1, 2 when the first buffer was too small, more when the
    /// records were read back a window at a time.
    pub runs: u32,
    /// The buffers bound, with where their contents came from.
    pub buffers: Vec<(Resource, String)>,
    /// What the user should know about the capture (printed by the commands).
    pub warnings: Vec<String>,
}

/// The kernel loaded with its overrides and instrumented.
fn instrumented(source: &str, file: &str, kernel: &KernelOptions) -> Result<Instrumented, InstrumentError> {
    let loaded = kernel::load(source, file, kernel.entry.as_deref(), &kernel.overrides)?;
    instrument::instrument(&loaded.module, &loaded.info, &loaded.entry, source, file)
}

/// Loads and instruments a kernel without running it; returns the instrumentation and
/// the WGSL to run (its entry point name as written).
pub fn prepare(
    source: &str,
    file: &str,
    kernel: &KernelOptions,
) -> Result<(Instrumented, String, String), InstrumentError> {
    let inst = instrumented(source, file, kernel)?;
    let wgsl = kernel::to_wgsl(&inst.module, &inst.info)?;
    let entry = kernel::reparse_entry(&wgsl)?;
    Ok((inst, wgsl, entry))
}

/// Bytes of every buffer the kernel binds at its options' dispatch (as `measure` binds
/// them), added up: the global memory that dispatch can touch.
pub fn buffer_bytes(source: &str, file: &str, kernel: &KernelOptions) -> Result<u64, InstrumentError> {
    let inst = instrumented(source, file, kernel)?;
    let d = kernel.dispatch;
    let invocations =
        d.iter().map(|&v| v as u64).product::<u64>() * inst.workgroup_size.iter().product::<u32>() as u64;
    Ok(crate::bind::buffer_bytes(&inst.resources, &kernel.binds, invocations))
}

/// Invocations of dispatch `d` along each dimension: the texel counts of the textures a
/// kernel binds (one texel per invocation).
pub fn texels(d: [u32; 3], workgroup_size: [u32; 3]) -> [u32; 3] {
    [0, 1, 2].map(|i| d[i].saturating_mul(workgroup_size[i]))
}

fn check_dispatch(d: [u32; 3]) -> Result<u64, CaptureError> {
    if d.contains(&0) {
        return Err(CaptureError::Dispatch {
            dispatch: d,
            what: "every dimension must be at least 1".into(),
        });
    }
    let blocks = d.iter().map(|&v| v as u64).product::<u64>();
    if blocks > u32::MAX as u64 {
        return Err(CaptureError::Dispatch { dispatch: d, what: "more than 2^32 workgroups".into() });
    }
    Ok(blocks)
}

/// Captures the trace of `source` (named `file` in messages) on `gpu`.
///
/// The first run makes room for [`CaptureOptions::initial_records`]. A kernel that
/// makes more is run again: with room for all of its records where one run's buffer
/// holds them ([`CaptureOptions::chunk_records`], at most the device's largest binding),
/// else once per window of its workgroups (and, where one workgroup makes more, of its
/// invocations' steps), each window's records decoded before the next run. So the
/// records read back at once are bounded by a window, not by the kernel's trip count.
pub fn capture(gpu: &Gpu, source: &str, file: &str, opts: &CaptureOptions) -> Result<Capture, CaptureError> {
    let d = opts.kernel.dispatch;
    let blocks = check_dispatch(d)?;
    let mut inst = instrumented(source, file, &opts.kernel)?;
    // the WGSL the user may see; the GPU runs the module itself (naga's WGSL writer
    // leaves out a struct member's @size and @align, moving the members after it)
    let wgsl = kernel::to_wgsl(&inst.module, &inst.info)?;
    let threads: u32 = inst.workgroup_size.iter().product();
    CAPTURE_INVOCATIONS.check(
        || format!("--dispatch {},{},{} of workgroups of {threads} invocations", d[0], d[1], d[2]),
        blocks.saturating_mul(threads as u64),
    )?;
    gpu.check_limits(inst.workgroup_size, inst.shared_bytes, d)?;
    let contents = bind::contents(&inst.resources, &opts.kernel.binds, blocks * threads as u64)?;
    // (the module is not needed after this)
    let module = wgpu::ShaderSource::Naga(std::borrow::Cow::Owned(std::mem::take(&mut inst.module)));
    let kernel = gpu.pipeline(module, &inst.entry, &[], &inst.resources, Some(inst.trace_binding), true)?;

    let record_bytes = RECORD_WORDS as u64 * 4;
    let header_bytes = HEADER_WORDS as u64 * 4;
    let max_bytes = gpu.limits.max_storage_buffer_binding_size.min(gpu.limits.max_buffer_size);
    // one run's record budget: a chunk, at most what the device's largest binding holds
    let budget = ((max_bytes - header_bytes) / record_bytes).min(opts.chunk_records).max(1);
    let mut runs = 0u32;
    // one run of the kernel writing the records of `window`, with room for `capacity`
    let mut run = |window: Window, capacity: u64| -> Result<Run, CaptureError> {
        runs += 1;
        // fresh buffers every run: the kernel may have written its inputs
        let inputs = inst
            .resources
            .iter()
            .zip(&contents)
            .map(|(r, (bytes, _))| gpu.resource(r, bytes, texels(d, inst.workgroup_size)))
            .collect::<Result<Vec<_>, _>>()?;
        let mut header = vec![0u8; (header_bytes + capacity * record_bytes) as usize];
        let mut words = [0u32; HEADER_WORDS as usize];
        words[1] = capacity as u32;
        words[2] = d[0];
        words[3] = d[1];
        words[WINDOW_WORD as usize..WINDOW_WORD as usize + 4].copy_from_slice(&window.words());
        for (i, w) in words.into_iter().enumerate() {
            header[i * 4..i * 4 + 4].copy_from_slice(&w.to_le_bytes());
        }
        let trace_buf = gpu.buffer(&header, false);
        drop(header);
        let mut all: Vec<wgpu::BindingResource> = inputs.iter().map(|b| b.binding()).collect();
        all.push(trace_buf.as_entire_binding());
        let groups = gpu.bind(&kernel, &all)?;
        gpu.dispatch(&kernel, &groups, d, None)?;
        let header = gpu.read(&trace_buf, 0, header_bytes)?;
        let word = |i: u32| word_at(&header, i as usize);
        if let Some(site) = word(CUT_WORD).checked_sub(1) {
            let what =
                inst.sites.get(site as usize).map_or_else(|| format!("loop site {site}"), |s| s.what.clone());
            return Err(CaptureError::LoopCut { what, adapter: crate::gpu::describe(&gpu.info) });
        }
        let (count, steps) = (word(0) as u64, word(STEPS_WORD));
        let raw = match count <= capacity {
            // read back a slice at a time: no copy of the whole buffer beside the records
            true => {
                let mut raw = Vec::with_capacity(count as usize);
                for first in (0..count).step_by(READ_RECORDS as usize) {
                    let n = READ_RECORDS.min(count - first);
                    let bytes =
                        gpu.read(&trace_buf, header_bytes + first * record_bytes, n * record_bytes)?;
                    raw.extend(raw_records_from_bytes(&bytes));
                }
                Some(raw)
            }
            false => None,
        };
        Ok(Run { count, steps, raw })
    };
    let name = format!("{file} dispatch {}x{}x{}", d[0], d[1], d[2]);
    let mut decoder = Decoder::new(&inst.sites, blocks as u32, threads, &name);
    let first = run(WHOLE, opts.initial_records.clamp(1, budget))?;
    let total = first.count;
    CAPTURE_RECORDS
        .check(|| format!("the kernel at --dispatch {},{},{} (its records)", d[0], d[1], d[2]), total)?;
    if let Some(raw) = first.raw {
        decoder.add(raw)?;
    } else if total <= budget {
        let again = run(WHOLE, total)?;
        match again.raw {
            Some(raw) if again.count == total => decoder.add(raw)?,
            _ => return Err(CaptureError::Unstable { first: total, second: again.count }),
        }
    } else {
        // windows of whole workgroups, as many as a run holds at the average count
        let steps = first.steps;
        let per_window = (budget / total.div_ceil(blocks)).clamp(1, blocks) as u32;
        let mut windows: VecDeque<Window> = (0..blocks as u32)
            .step_by(per_window as usize)
            .map(|b| Window { blocks: (b, (b + per_window).min(blocks as u32)), steps: (0, steps) })
            .collect();
        // the records of a workgroup captured a few steps at a time, until its last
        let mut partial = Vec::new();
        let mut got = 0u64;
        while let Some(w) = windows.pop_front() {
            let r = run(w, budget)?;
            let Some(raw) = r.raw else {
                // too many for one run: halve its workgroups, or one workgroup's steps
                let ((b0, b1), (s0, s1)) = (w.blocks, w.steps);
                let halves = if b1 - b0 > 1 {
                    let m = b0 + (b1 - b0) / 2;
                    [Window { blocks: (b0, m), ..w }, Window { blocks: (m, b1), ..w }]
                } else if s1 - s0 > 1 {
                    let m = s0 + (s1 - s0) / 2;
                    [Window { steps: (s0, m), ..w }, Window { steps: (m, s1), ..w }]
                } else {
                    return Err(CaptureError::TooManyRecords {
                        records: r.count,
                        bytes: header_bytes + r.count * record_bytes,
                        max_bytes,
                    });
                };
                windows.push_front(halves[1]);
                windows.push_front(halves[0]);
                continue;
            };
            got += r.count;
            if w.steps == (0, steps) {
                decoder.add(raw)?;
            } else {
                partial.extend(raw);
                if w.steps.1 == steps {
                    decoder.add(std::mem::take(&mut partial))?;
                }
            }
        }
        if got != total {
            return Err(CaptureError::Unstable { first: total, second: got });
        }
    }
    let mut trace = decoder.finish();
    // neighbouring accesses the GPU's compiler merges into wider ones
    crate::vectorize::merge_accesses(&mut trace, &inst.sites);
    let warnings = past_the_end(&trace, &inst.resources, &contents).into_iter().collect();
    Ok(Capture {
        trace,
        adapter: crate::gpu::describe(&gpu.info),
        wgsl,
        sites: inst.sites,
        shared: inst.shared,
        shared_bytes: inst.shared_bytes,
        workgroup_size: inst.workgroup_size,
        records: total,
        runs,
        buffers: inst.resources.into_iter().zip(contents.into_iter().map(|c| c.1)).collect(),
        warnings,
    })
}

/// Records read back from the trace buffer at a time (7 MiB).
const READ_RECORDS: u64 = 1 << 18;

/// What one run of the instrumented kernel left in its trace buffer.
struct Run {
    /// Records of its window the kernel made.
    count: u64,
    /// 1 + the largest step of any record (see [`crate::record::STEPS_WORD`]).
    steps: u32,
    /// The records, where the buffer held them all.
    raw: Option<Vec<RawRecord>>,
}

/// A warning where the trace's global accesses reach past the end of every storage
/// buffer bound (`contents`: each resource's bytes). Each buffer's accesses are byte
/// offsets within it, so the furthest one past the largest buffer is out of bounds: on a
/// GPU it is clamped into the buffer or dropped (the trace keeps the address computed).
fn past_the_end(trace: &Trace, resources: &[Resource], contents: &[(Vec<u8>, String)]) -> Option<String> {
    let reach =
        trace.records.iter().filter(|r| r.op.is_global()).map(|r| r.addr as u64 + r.bytes as u64).max()?;
    let (largest, bytes) = resources
        .iter()
        .zip(contents)
        .filter(|(r, _)| r.handle.is_none() && !r.uniform)
        .map(|(r, (bytes, _))| (r, bytes.len() as u64))
        .max_by_key(|&(_, n)| n)?;
    (reach > bytes).then(|| {
        format!(
            "global accesses reach byte {reach}, past the end of every storage buffer bound (the largest, \
             {}.{} `{}`, holds {bytes} bytes): the trace keeps the addresses the kernel computes, but a GPU \
             clamps such accesses into the buffer or drops them, and `predict` takes the buffers for the \
             data the dispatch can touch; bind the buffers as large as the kernel expects \
             (--bind G.B=zeros:N, N 4-byte words)",
            largest.group, largest.binding, largest.name
        )
    })
}
