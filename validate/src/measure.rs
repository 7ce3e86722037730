//! Measured runs: the uninstrumented kernel, timed with timestamp queries.
//!
//! Each repetition is one compute pass with one dispatch and a timestamp at the pass's
//! start and end, submitted alone and waited for; the first `warmup` repetitions are
//! dropped. On an adapter without timestamp queries the host's wall clock around
//! submit-and-wait is used instead, and the report says so (`timer: "wall"`).

use crate::bind;
use crate::capture::KernelOptions;
use crate::error::{GpuError, MeasureError};
use crate::gpu::Gpu;
use crate::kernel;
use serde::Serialize;

/// A measurement's options.
#[derive(Clone, Debug)]
pub struct MeasureOptions {
    /// A name for this variant in reports (e.g. `stride_dependent s=32`).
    pub label: String,
    /// The kernel and its dispatch.
    pub kernel: KernelOptions,
    /// Repetitions run and dropped first.
    pub warmup: u32,
    /// Repetitions timed.
    pub reps: u32,
    /// Whether wgpu zero-fills workgroup memory before the kernel (wgpu's default; the
    /// `wgpu_stridebench` ground truth was measured with it).
    pub zero_init_workgroup: bool,
}

/// The adapter a measurement ran on.
#[derive(Clone, Debug, Serialize)]
pub struct AdapterReport {
    /// Adapter name.
    pub name: String,
    /// PCI vendor id.
    pub vendor: u32,
    /// PCI device id.
    pub device: u32,
    /// Discrete, integrated, CPU, ...
    pub device_type: String,
    /// Backend (Vulkan).
    pub backend: String,
    /// Driver name.
    pub driver: String,
    /// Driver version text.
    pub driver_info: String,
    /// Nanoseconds per timestamp tick.
    pub timestamp_period_ns: f32,
    /// The limits that matter for compute kernels.
    pub limits: Vec<(String, u64)>,
}

impl AdapterReport {
    /// The report of an open device.
    pub fn of(gpu: &Gpu) -> AdapterReport {
        let i = &gpu.info;
        let l = &gpu.limits;
        let limits = [
            ("max_compute_workgroup_storage_size", l.max_compute_workgroup_storage_size as u64),
            ("max_compute_invocations_per_workgroup", l.max_compute_invocations_per_workgroup as u64),
            ("max_compute_workgroup_size_x", l.max_compute_workgroup_size_x as u64),
            ("max_compute_workgroup_size_y", l.max_compute_workgroup_size_y as u64),
            ("max_compute_workgroup_size_z", l.max_compute_workgroup_size_z as u64),
            ("max_compute_workgroups_per_dimension", l.max_compute_workgroups_per_dimension as u64),
            ("max_storage_buffer_binding_size", l.max_storage_buffer_binding_size),
            ("max_buffer_size", l.max_buffer_size),
            ("max_bind_groups", l.max_bind_groups as u64),
        ];
        AdapterReport {
            name: i.name.clone(),
            vendor: i.vendor,
            device: i.device,
            device_type: format!("{:?}", i.device_type),
            backend: format!("{:?}", i.backend),
            driver: i.driver.clone(),
            driver_info: i.driver_info.clone(),
            timestamp_period_ns: gpu.queue.get_timestamp_period(),
            limits: limits.into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
        }
    }
}

/// Summary statistics of repeated times.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Stats {
    /// Median.
    pub median: f64,
    /// Smallest.
    pub min: f64,
    /// Largest.
    pub max: f64,
    /// Mean.
    pub mean: f64,
    /// First quartile.
    pub q1: f64,
    /// Third quartile.
    pub q3: f64,
    /// (q3 - q1) / median: the relative spread.
    pub rel_iqr: f64,
}

impl Stats {
    /// Statistics of `values` (None when empty).
    pub fn of(values: &[f64]) -> Option<Stats> {
        if values.is_empty() {
            return None;
        }
        let mut v = values.to_vec();
        v.sort_by(f64::total_cmp);
        // linear interpolation between order statistics
        let q = |p: f64| {
            let x = p * (v.len() - 1) as f64;
            let (lo, hi) = (x.floor() as usize, x.ceil() as usize);
            v[lo] + (v[hi] - v[lo]) * (x - lo as f64)
        };
        let median = q(0.5);
        let (q1, q3) = (q(0.25), q(0.75));
        Some(Stats {
            median,
            min: v[0],
            max: v[v.len() - 1],
            mean: v.iter().sum::<f64>() / v.len() as f64,
            q1,
            q3,
            rel_iqr: if median > 0.0 { (q3 - q1) / median } else { 0.0 },
        })
    }
}

/// One kernel's measured times.
#[derive(Clone, Debug, Serialize)]
pub struct Measurement {
    /// The variant's name.
    pub label: String,
    /// The kernel file.
    pub kernel: String,
    /// Entry point.
    pub entry: String,
    /// Overrides set.
    pub overrides: Vec<(String, f64)>,
    /// Workgroups dispatched.
    pub dispatch: [u32; 3],
    /// `@workgroup_size`.
    pub workgroup_size: [u32; 3],
    /// Workgroup memory per workgroup, bytes (capture layout).
    pub shared_bytes: u32,
    /// Bytes of every buffer bound, added up: the global memory the dispatch can touch.
    pub global_bytes: u64,
    /// `timestamp` (GPU timestamps around the pass) or `wall` (host clock).
    pub timer: String,
    /// Warm-up repetitions dropped.
    pub warmup: u32,
    /// Every timed repetition, nanoseconds.
    pub times_ns: Vec<f64>,
    /// Their statistics, nanoseconds.
    pub stats: Stats,
    /// The adapter.
    pub adapter: AdapterReport,
}

impl Measurement {
    /// The CSV header matching [`Measurement::csv_row`].
    pub const CSV_HEADER: &'static str =
        "label,kernel,entry,overrides,dispatch,workgroup_size,shared_bytes,global_bytes,timer,reps,median_us,min_us,max_us,q1_us,q3_us,rel_iqr,adapter,driver,driver_info";

    /// One CSV row (times in microseconds).
    pub fn csv_row(&self) -> String {
        let us = |ns: f64| format!("{:.3}", ns / 1000.0);
        let ov: Vec<String> = self.overrides.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let dims = |d: [u32; 3]| format!("{}x{}x{}", d[0], d[1], d[2]);
        let quote = |s: &str| format!("\"{}\"", s.replace('"', "\"\""));
        [
            quote(&self.label),
            quote(&self.kernel),
            self.entry.clone(),
            quote(&ov.join(";")),
            dims(self.dispatch),
            dims(self.workgroup_size),
            self.shared_bytes.to_string(),
            self.global_bytes.to_string(),
            self.timer.clone(),
            self.times_ns.len().to_string(),
            us(self.stats.median),
            us(self.stats.min),
            us(self.stats.max),
            us(self.stats.q1),
            us(self.stats.q3),
            format!("{:.4}", self.stats.rel_iqr),
            quote(&self.adapter.name),
            quote(&self.adapter.driver),
            quote(&self.adapter.driver_info),
        ]
        .join(",")
    }
}

/// Runs `source` (uninstrumented) `warmup + reps` times and times each run.
pub fn measure(
    gpu: &Gpu,
    source: &str,
    file: &str,
    opts: &MeasureOptions,
) -> Result<Measurement, MeasureError> {
    if opts.reps == 0 {
        return Err(MeasureError::Options { what: "--reps must be at least 1".into() });
    }
    let runs = opts.warmup as u64 + opts.reps as u64;
    sim_core::limits::MEASURE_RUNS
        .check(|| format!("--warmup {} --reps {}", opts.warmup, opts.reps), runs)
        .map_err(|e| MeasureError::Options { what: e.to_string() })?;
    let d = opts.kernel.dispatch;
    if d.contains(&0) {
        return Err(MeasureError::Options {
            what: format!("--dispatch {d:?}: every dimension must be at least 1"),
        });
    }
    // the instrumentation is only used for what the kernel binds and its shape; the
    // original source runs, with the overrides passed to the pipeline
    let loaded = kernel::load(source, file, opts.kernel.entry.as_deref(), &opts.kernel.overrides)?;
    let inst = crate::instrument::instrument(&loaded.module, &loaded.info, &loaded.entry, source, file)?;
    gpu.check_limits(inst.workgroup_size, inst.shared_bytes, d)?;
    let invocations =
        d.iter().map(|&v| v as u64).product::<u64>() * inst.workgroup_size.iter().product::<u32>() as u64;
    let contents = bind::contents(&inst.resources, &opts.kernel.binds, invocations)?;
    let constants: Vec<(&str, f64)> = opts.kernel.overrides.iter().map(|(k, v)| (k.as_str(), *v)).collect();
    let kernel = gpu.pipeline(
        wgpu::ShaderSource::Wgsl(source.into()),
        &loaded.entry,
        &constants,
        &inst.resources,
        None,
        opts.zero_init_workgroup,
    )?;
    let bound = inst
        .resources
        .iter()
        .zip(&contents)
        .map(|(r, (bytes, _))| gpu.resource(r, bytes, crate::capture::texels(d, inst.workgroup_size)))
        .collect::<Result<Vec<_>, _>>()?;
    let refs: Vec<wgpu::BindingResource> = bound.iter().map(|b| b.binding()).collect();
    let groups = gpu.bind(&kernel, &refs)?;

    let stamps = gpu.timestamp_queries();
    let period = gpu.queue.get_timestamp_period() as f64;
    let mut times = Vec::with_capacity(opts.reps as usize);
    for rep in 0..runs as u32 {
        let t0 = std::time::Instant::now();
        gpu.dispatch(&kernel, &groups, d, stamps.as_ref().map(|(q, r)| (q, r)))?;
        let wall = t0.elapsed().as_nanos() as f64;
        let ns = match &stamps {
            Some((_, resolve)) => {
                let b = gpu.read(resolve, 0, 16)?;
                let t = |i: usize| u64::from_le_bytes(b[i * 8..i * 8 + 8].try_into().expect("8 bytes"));
                if t(1) < t(0) {
                    return Err(GpuError::Wgpu {
                        message: format!("timestamps went backwards ({} then {})", t(0), t(1)),
                    }
                    .into());
                }
                (t(1) - t(0)) as f64 * period
            }
            None => wall,
        };
        if rep >= opts.warmup {
            times.push(ns);
        }
    }
    let stats = Stats::of(&times).ok_or_else(|| MeasureError::Options { what: "no repetitions".into() })?;
    Ok(Measurement {
        label: opts.label.clone(),
        kernel: file.to_string(),
        entry: loaded.entry,
        overrides: opts.kernel.overrides.clone(),
        dispatch: d,
        workgroup_size: inst.workgroup_size,
        shared_bytes: inst.shared_bytes,
        global_bytes: bind::buffer_bytes(&inst.resources, &opts.kernel.binds, invocations),
        timer: if stamps.is_some() { "timestamp" } else { "wall" }.into(),
        warmup: opts.warmup,
        times_ns: times,
        stats,
        adapter: AdapterReport::of(gpu),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats_of_known_values() {
        let s = Stats::of(&[5.0, 1.0, 3.0, 2.0, 4.0]).unwrap();
        assert_eq!((s.median, s.min, s.max, s.mean, s.q1, s.q3), (3.0, 1.0, 5.0, 3.0, 2.0, 4.0));
        assert!((s.rel_iqr - 2.0 / 3.0).abs() < 1e-12);
        assert_eq!(Stats::of(&[2.0, 4.0]).unwrap().median, 3.0);
        assert!(Stats::of(&[]).is_none());
    }
}
