//! The GPU side of `banksim probe`: the microbenchmark `kernels/probe_banks.wgsl`
//! compiled once per access width ([`Bench`]), timed one dispatch at a time for a lane
//! table and a trip count, with timestamp queries where the adapter has them (else the
//! host's clock around submit-and-wait). What the patterns are and what the times mean
//! is `pipeline::probe`'s.

use crate::error::GpuError;
use crate::gpu::{Bound, Gpu, Kernel};
use crate::instrument::Resource;

/// The microbenchmark's source.
pub const KERNEL: &str = include_str!("../kernels/probe_banks.wgsl");

/// Its entry points, by access width: 4, 8 and 16 bytes.
pub const ENTRIES: [&str; 3] = ["w4", "w8", "w16"];

/// Workgroup memory a workgroup of the microbenchmark holds, bytes.
pub const SHARED_BYTES: u32 = 16384;

/// The most loop iterations a dispatch is given: a bound on the trip count's search (a
/// GPU reaches its target time in a few thousand).
pub const MAX_ITERS: u32 = 32768;

/// The adapters wgpu finds (Vulkan unless `WGPU_BACKEND` says otherwise), described
/// one per line, in the order `--adapter N` counts them.
pub fn adapters() -> Vec<(String, String)> {
    pollster::block_on(async {
        let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
        desc.backends = wgpu::Backends::VULKAN;
        let instance = wgpu::Instance::new(desc.with_env());
        instance
            .enumerate_adapters(wgpu::Backends::all())
            .await
            .iter()
            .map(|a| {
                let i = a.get_info();
                (i.name.clone(), crate::gpu::describe(&i))
            })
            .collect()
    })
}

/// The warp sizes the adapter may run: its subgroup sizes, the powers of two between
/// its smallest and largest, within 4 to 64.
pub fn warps(gpu: &Gpu) -> Vec<u32> {
    let (lo, hi) = (gpu.info.subgroup_min_size.clamp(4, 64), gpu.info.subgroup_max_size.clamp(4, 64));
    (2..=6).map(|b| 1u32 << b).filter(|&w| w >= lo && w <= hi.max(lo)).collect()
}

/// The microbenchmark compiled for one adapter, with its output buffer.
pub struct Bench<'g> {
    gpu: &'g Gpu,
    kernels: Vec<Kernel>,
    resources: Vec<Resource>,
    out: Bound,
    workgroup: u32,
    groups: u32,
    stamps: Option<(wgpu::QuerySet, wgpu::Buffer)>,
}

impl<'g> Bench<'g> {
    /// Compiles the three entry points with workgroups of `workgroup` invocations, for
    /// dispatches of `groups` workgroups.
    pub fn new(gpu: &'g Gpu, workgroup: u32, groups: u32) -> Result<Bench<'g>, GpuError> {
        gpu.check_limits([workgroup, 1, 1], SHARED_BYTES, [groups, 1, 1])?;
        let resource = |binding, name: &str, writable, fixed_size, runtime_stride| Resource {
            group: 0,
            binding,
            name: name.into(),
            uniform: false,
            writable,
            fixed_size,
            runtime_stride,
            handle: None,
        };
        let resources = vec![resource(0, "probe", false, 66 * 4, None), resource(1, "out", true, 0, Some(4))];
        let constants = [("WG", workgroup as f64)];
        let kernels = ENTRIES
            .iter()
            .map(|e| {
                gpu.pipeline(wgpu::ShaderSource::Wgsl(KERNEL.into()), e, &constants, &resources, None, true)
            })
            .collect::<Result<Vec<_>, _>>()?;
        let out_bytes = vec![0u8; groups as usize * workgroup as usize * 4];
        let out = gpu.resource(&resources[1], &out_bytes, [1, 1, 1])?;
        let stamps = gpu.timestamp_queries();
        Ok(Bench { gpu, kernels, resources, out, workgroup, groups, stamps })
    }

    /// `timestamp` or `wall`: what times the dispatches.
    pub fn timer(&self) -> &'static str {
        if self.stamps.is_some() {
            "timestamp"
        } else {
            "wall"
        }
    }

    /// Invocations per workgroup and workgroups per dispatch.
    pub fn shape(&self) -> (u32, u32) {
        (self.workgroup, self.groups)
    }

    /// The time (ns) of one dispatch of entry point `width` (an index of [`ENTRIES`])
    /// with lane table `lanes` and `iters` loop iterations (0: the fixed cost).
    pub fn time(&self, width: usize, lanes: &[u32; 64], iters: u32) -> Result<f64, GpuError> {
        let mut words = lanes.to_vec();
        words.extend([0, iters]);
        let table = self.gpu.resource(&self.resources[0], bytemuck::cast_slice(&words), [1, 1, 1])?;
        let kernel = &self.kernels[width];
        let groups = self.gpu.bind(kernel, &[table.binding(), self.out.binding()])?;
        let t0 = std::time::Instant::now();
        self.gpu.dispatch(kernel, &groups, [self.groups, 1, 1], self.stamps.as_ref().map(|(q, r)| (q, r)))?;
        let wall = t0.elapsed().as_nanos() as f64;
        let Some((_, resolve)) = &self.stamps else { return Ok(wall) };
        let b = self.gpu.read(resolve, 0, 16)?;
        let t = |i: usize| u64::from_le_bytes(b[i * 8..i * 8 + 8].try_into().expect("8 bytes"));
        if t(1) < t(0) {
            return Err(GpuError::Wgpu {
                message: format!("timestamps went backwards ({} then {})", t(0), t(1)),
            });
        }
        Ok((t(1) - t(0)) as f64 * self.gpu.queue.get_timestamp_period() as f64)
    }
}
