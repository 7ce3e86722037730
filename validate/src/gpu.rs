//! Opening a wgpu device and running one compute dispatch with buffers bound; and the
//! device tests share, skipped without an adapter ([`open_for_tests`]).

use crate::error::GpuError;
use crate::instrument::{HandleKind, Resource};
use std::sync::{Arc, Mutex, OnceLock};
use wgpu::util::DeviceExt;

/// An open device and what it is.
pub struct Gpu {
    /// The device.
    pub device: wgpu::Device,
    /// Its queue.
    pub queue: wgpu::Queue,
    /// The adapter's description (name, driver, ...).
    pub info: wgpu::AdapterInfo,
    /// The device's limits (the adapter's maxima: everything is requested).
    pub limits: wgpu::Limits,
    /// Whether timestamp queries are available.
    pub timestamps: bool,
    /// How long one dispatch may run before it is given up on (a loop that never ends):
    /// [`GPU_SECONDS`](sim_core::limits::GPU_SECONDS) unless set.
    pub time_limit: std::time::Duration,
    /// Errors wgpu reported outside an error scope.
    uncaptured: Arc<Mutex<Vec<String>>>,
}

impl std::fmt::Debug for Gpu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gpu").field("adapter", &self.info.name).field("driver", &self.info.driver).finish()
    }
}

/// One adapter's description on one line.
pub fn describe(info: &wgpu::AdapterInfo) -> String {
    format!(
        "{} ({:?}, {:?}, driver {} {})",
        info.name, info.device_type, info.backend, info.driver, info.driver_info
    )
}

/// The environment variable that, set to `1`, makes a test that finds no adapter fail
/// instead of skipping (CI sets it: it has lavapipe).
pub const REQUIRE_GPU_VAR: &str = "BANKSIM_REQUIRE_GPU";

/// The device for a test that needs one: the default adapter ([`Gpu::open`] with no
/// filter), opened once per test process and shared by its tests.
///
/// Without an adapter, the test named `test` is skipped: this prints `skipped: <test>:
/// no Vulkan adapter (<reason>); set BANKSIM_REQUIRE_GPU=1 to make this a failure` to
/// stderr (uncaptured, so it shows in a plain `cargo test`) and returns `None`, on which the test returns (and passes). With
/// `BANKSIM_REQUIRE_GPU=1` it panics instead, failing the test.
///
/// ```no_run
/// let Some(gpu) = validate::gpu::open_for_tests("my_test") else { return };
/// assert!(!gpu.info.name.is_empty());
/// ```
pub fn open_for_tests(test: &str) -> Option<&'static Gpu> {
    static GPU: OnceLock<Result<Gpu, String>> = OnceLock::new();
    match GPU.get_or_init(|| Gpu::open(None).map_err(|e| e.to_string())) {
        Ok(gpu) => Some(gpu),
        Err(reason) if std::env::var(REQUIRE_GPU_VAR).is_ok_and(|v| v == "1") => {
            panic!("{test}: no Vulkan adapter ({reason}), and {REQUIRE_GPU_VAR}=1 requires one")
        }
        Err(reason) => {
            // straight to the stream, not `eprintln!`, which the test harness captures
            use std::io::Write;
            let _ = writeln!(
                std::io::stderr(),
                "skipped: {test}: no Vulkan adapter ({reason}); set {REQUIRE_GPU_VAR}=1 to make this a failure"
            );
            None
        }
    }
}

impl Gpu {
    /// Two timestamp queries around a dispatch and the buffer they resolve into, where
    /// the device has timestamps.
    pub fn timestamp_queries(&self) -> Option<(wgpu::QuerySet, wgpu::Buffer)> {
        self.timestamps.then(|| {
            let qs = self.device.create_query_set(&wgpu::QuerySetDescriptor {
                label: None,
                ty: wgpu::QueryType::Timestamp,
                count: 2,
            });
            let resolve = self.device.create_buffer(&wgpu::BufferDescriptor {
                label: None,
                size: 16,
                usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            });
            (qs, resolve)
        })
    }

    /// Opens the best adapter (discrete, then integrated, then anything, e.g. lavapipe),
    /// or the first whose name contains `wanted` (case-insensitive), through Vulkan
    /// (`WGPU_BACKEND` overrides), with every limit at the adapter's maximum and
    /// timestamp queries when the adapter has them.
    pub fn open(wanted: Option<&str>) -> Result<Gpu, GpuError> {
        pollster::block_on(Self::open_async(wanted))
    }

    async fn open_async(wanted: Option<&str>) -> Result<Gpu, GpuError> {
        let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
        desc.backends = wgpu::Backends::VULKAN;
        let instance = wgpu::Instance::new(desc.with_env());
        let adapters = instance.enumerate_adapters(wgpu::Backends::all()).await;
        let found: Vec<String> = adapters.iter().map(|a| describe(&a.get_info())).collect();
        let rank = |a: &wgpu::Adapter| match a.get_info().device_type {
            wgpu::DeviceType::DiscreteGpu => 3,
            wgpu::DeviceType::IntegratedGpu => 2,
            wgpu::DeviceType::VirtualGpu => 1,
            _ => 0,
        };
        let adapter = match wanted {
            Some(w) => {
                let w = w.to_lowercase();
                adapters.into_iter().find(|a| a.get_info().name.to_lowercase().contains(&w))
            }
            None => adapters.into_iter().max_by_key(rank),
        };
        let adapter =
            adapter.ok_or_else(|| GpuError::NoAdapter { wanted: wanted.map(str::to_string), found })?;
        let info = adapter.get_info();
        let timestamps = adapter.features().contains(wgpu::Features::TIMESTAMP_QUERY);
        // what the adapter has of what kernels may use (`enable f16;`, subgroup built-ins)
        // and of what measuring needs; a kernel needing a feature the adapter lacks gets
        // wgpu's error naming it
        let features = adapter.features()
            & (wgpu::Features::TIMESTAMP_QUERY | wgpu::Features::SHADER_F16 | wgpu::Features::SUBGROUP);
        let (device, queue) = adapter
            .request_device(&wgpu::DeviceDescriptor {
                label: Some("banksim"),
                required_features: features,
                required_limits: adapter.limits(),
                experimental_features: wgpu::ExperimentalFeatures::disabled(),
                memory_hints: wgpu::MemoryHints::Performance,
                trace: wgpu::Trace::Off,
            })
            .await
            .map_err(|e| GpuError::Device { adapter: info.name.clone(), message: e.to_string() })?;
        let uncaptured = Arc::new(Mutex::new(Vec::new()));
        let sink = uncaptured.clone();
        device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
            if let Ok(mut v) = sink.lock() {
                v.push(e.to_string());
            }
        }));
        let limits = device.limits();
        let time_limit = std::time::Duration::from_secs(sim_core::limits::GPU_SECONDS.max);
        Ok(Gpu { device, queue, info, limits, timestamps, time_limit, uncaptured })
    }

    /// Fails with the first error wgpu reported outside a scope, if any.
    fn check_uncaptured(&self) -> Result<(), GpuError> {
        let mut v =
            self.uncaptured.lock().map_err(|_| GpuError::Wgpu { message: "error sink poisoned".into() })?;
        let first = v.drain(..).next();
        match first {
            Some(message) => Err(GpuError::Wgpu { message }),
            None => Ok(()),
        }
    }

    /// Checks a kernel's shape against the device limits.
    pub fn check_limits(
        &self,
        workgroup: [u32; 3],
        shared_bytes: u32,
        dispatch: [u32; 3],
    ) -> Result<(), GpuError> {
        let l = &self.limits;
        let checks = [
            (
                "workgroup_size x (max_compute_workgroup_size_x)",
                workgroup[0] as u64,
                l.max_compute_workgroup_size_x as u64,
            ),
            (
                "workgroup_size y (max_compute_workgroup_size_y)",
                workgroup[1] as u64,
                l.max_compute_workgroup_size_y as u64,
            ),
            (
                "workgroup_size z (max_compute_workgroup_size_z)",
                workgroup[2] as u64,
                l.max_compute_workgroup_size_z as u64,
            ),
            (
                "invocations per workgroup (max_compute_invocations_per_workgroup)",
                workgroup.iter().map(|&v| v as u64).product(),
                l.max_compute_invocations_per_workgroup as u64,
            ),
            (
                "workgroup memory bytes (max_compute_workgroup_storage_size)",
                shared_bytes as u64,
                l.max_compute_workgroup_storage_size as u64,
            ),
        ];
        for (what, requested, allowed) in checks {
            if requested > allowed {
                return Err(GpuError::Limit { what: what.into(), requested, allowed });
            }
        }
        self.check_dispatch(dispatch)
    }

    /// An error where `dispatch` has more workgroups along a dimension than the device
    /// allows (`max_compute_workgroups_per_dimension`).
    pub fn check_dispatch(&self, dispatch: [u32; 3]) -> Result<(), GpuError> {
        let allowed = self.limits.max_compute_workgroups_per_dimension as u64;
        for (axis, &d) in ["x", "y", "z"].iter().zip(&dispatch) {
            if d as u64 > allowed {
                let what = format!("dispatch {axis} (max_compute_workgroups_per_dimension)");
                return Err(GpuError::Limit { what, requested: d as u64, allowed });
            }
        }
        Ok(())
    }

    /// Compiles `wgsl` and builds the pipeline for `entry` with an explicit layout for
    /// `resources` (plus `extra`, the trace buffer, when given).
    pub fn pipeline(
        &self,
        source: wgpu::ShaderSource<'_>,
        entry: &str,
        constants: &[(&str, f64)],
        resources: &[Resource],
        extra: Option<(u32, u32)>,
        zero_init_workgroup: bool,
    ) -> Result<Kernel, GpuError> {
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let module =
            self.device.create_shader_module(wgpu::ShaderModuleDescriptor { label: Some("kernel"), source });
        let buffer = |ty| wgpu::BindingType::Buffer { ty, has_dynamic_offset: false, min_binding_size: None };
        let mut slots: Vec<(u32, u32, wgpu::BindingType)> = Vec::with_capacity(resources.len() + 1);
        for r in resources {
            let ty = match r.handle {
                None if r.uniform => buffer(wgpu::BufferBindingType::Uniform),
                None => buffer(wgpu::BufferBindingType::Storage { read_only: !r.writable }),
                Some(h) => handle_binding(h).map_err(|message| GpuError::Wgpu {
                    message: format!("`{}` (@group({}) @binding({})): {message}", r.name, r.group, r.binding),
                })?,
            };
            slots.push((r.group, r.binding, ty));
        }
        if let Some((g, b)) = extra {
            slots.push((g, b, buffer(wgpu::BufferBindingType::Storage { read_only: false })));
        }
        let groups = slots.iter().map(|s| s.0 + 1).max().unwrap_or(0);
        if groups > self.limits.max_bind_groups {
            return Err(GpuError::Limit {
                what: "bind groups (max_bind_groups)".into(),
                requested: groups as u64,
                allowed: self.limits.max_bind_groups as u64,
            });
        }
        let layouts: Vec<wgpu::BindGroupLayout> = (0..groups)
            .map(|g| {
                let entries: Vec<wgpu::BindGroupLayoutEntry> = slots
                    .iter()
                    .filter(|s| s.0 == g)
                    .map(|&(_, binding, ty)| wgpu::BindGroupLayoutEntry {
                        binding,
                        visibility: wgpu::ShaderStages::COMPUTE,
                        ty,
                        count: None,
                    })
                    .collect();
                self.device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                    label: None,
                    entries: &entries,
                })
            })
            .collect();
        let layout_refs: Vec<Option<&wgpu::BindGroupLayout>> = layouts.iter().map(Some).collect();
        let layout = self.device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: None,
            bind_group_layouts: &layout_refs,
            immediate_size: 0,
        });
        let pipeline = self.device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some("kernel"),
            layout: Some(&layout),
            module: &module,
            entry_point: Some(entry),
            compilation_options: wgpu::PipelineCompilationOptions {
                constants,
                zero_initialize_workgroup_memory: zero_init_workgroup,
            },
            cache: None,
        });
        if let Some(e) = pollster::block_on(scope.pop()) {
            return Err(GpuError::Wgpu { message: e.to_string() });
        }
        self.check_uncaptured()?;
        Ok(Kernel { pipeline, layouts, slots })
    }

    /// A storage buffer with `contents` (COPY_SRC and COPY_DST too).
    pub fn buffer(&self, contents: &[u8], uniform: bool) -> wgpu::Buffer {
        let usage = if uniform {
            wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST
        } else {
            wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST
        };
        self.device.create_buffer_init(&wgpu::util::BufferInitDescriptor { label: None, contents, usage })
    }

    /// What resource `r` binds: a buffer of `bytes`, or a zero-filled texture of
    /// `texels` (one per invocation along each dimension of the dispatch, clamped to the
    /// device's limits), or a default sampler.
    pub fn resource(&self, r: &Resource, bytes: &[u8], texels: [u32; 3]) -> Result<Bound, GpuError> {
        let Some(h) = r.handle else {
            // (the device's limits first: wgpu panics on a buffer it cannot map)
            let (limit, name) = match r.uniform {
                true => (self.limits.max_uniform_buffer_binding_size, "max_uniform_buffer_binding_size"),
                false => (self.limits.max_storage_buffer_binding_size, "max_storage_buffer_binding_size"),
            };
            let (allowed, name) = match limit.min(self.limits.max_buffer_size) {
                l if l < limit => (l, "max_buffer_size"),
                l => (l, name),
            };
            if bytes.len() as u64 > allowed {
                return Err(GpuError::Limit {
                    what: format!("buffer {}.{} `{}`, bytes ({name})", r.group, r.binding, r.name),
                    requested: bytes.len() as u64,
                    allowed,
                });
            }
            return Ok(Bound::Buffer(self.buffer(bytes, r.uniform)));
        };
        let (dim, arrayed, format, usage) = match h {
            HandleKind::Sampler { comparison } => {
                return Ok(Bound::Sampler(self.device.create_sampler(&wgpu::SamplerDescriptor {
                    compare: comparison.then_some(wgpu::CompareFunction::LessEqual),
                    ..Default::default()
                })))
            }
            HandleKind::Sampled { dim, arrayed, kind, depth } => {
                let format = match (depth, kind) {
                    (true, _) => wgpu::TextureFormat::Depth32Float,
                    (false, naga::ScalarKind::Uint) => wgpu::TextureFormat::Rgba32Uint,
                    (false, naga::ScalarKind::Sint) => wgpu::TextureFormat::Rgba32Sint,
                    (false, _) => wgpu::TextureFormat::Rgba8Unorm,
                };
                (dim, arrayed, format, wgpu::TextureUsages::TEXTURE_BINDING)
            }
            HandleKind::Storage { dim, arrayed, format, .. } => {
                let format = storage_format(format).map_err(|message| GpuError::Wgpu { message })?;
                (dim, arrayed, format, wgpu::TextureUsages::STORAGE_BINDING)
            }
        };
        let l = &self.limits;
        let [x, y, z] = texels.map(|t| t.max(1));
        let (dimension, size) = match dim {
            naga::ImageDimension::D1 => {
                (wgpu::TextureDimension::D1, [x.min(l.max_texture_dimension_1d), 1, 1])
            }
            naga::ImageDimension::D2 => {
                let m = l.max_texture_dimension_2d;
                let layers = if arrayed { z.min(l.max_texture_array_layers) } else { 1 };
                (wgpu::TextureDimension::D2, [x.min(m), y.min(m), layers])
            }
            naga::ImageDimension::D3 => {
                let m = l.max_texture_dimension_3d;
                (wgpu::TextureDimension::D3, [x.min(m), y.min(m), z.min(m)])
            }
            naga::ImageDimension::Cube => {
                let side = x.max(y).min(l.max_texture_dimension_2d);
                (wgpu::TextureDimension::D2, [side, side, 6])
            }
        };
        let view = view_dimension(dim, arrayed);
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let texture = self.device.create_texture(&wgpu::TextureDescriptor {
            label: Some(&r.name),
            size: wgpu::Extent3d { width: size[0], height: size[1], depth_or_array_layers: size[2] },
            mip_level_count: 1,
            sample_count: 1,
            dimension,
            format,
            usage: usage | wgpu::TextureUsages::COPY_DST,
            view_formats: &[],
        });
        let view =
            texture.create_view(&wgpu::TextureViewDescriptor { dimension: Some(view), ..Default::default() });
        if let Some(e) = pollster::block_on(scope.pop()) {
            return Err(GpuError::Wgpu { message: format!("texture `{}`: {e}", r.name) });
        }
        Ok(Bound::Texture(texture, view))
    }

    /// Binds `resources` (one per slot of the kernel, in slot order) and returns the bind
    /// groups.
    pub fn bind(
        &self,
        kernel: &Kernel,
        resources: &[wgpu::BindingResource<'_>],
    ) -> Result<Vec<wgpu::BindGroup>, GpuError> {
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let groups = kernel
            .layouts
            .iter()
            .enumerate()
            .map(|(g, layout)| {
                let entries: Vec<wgpu::BindGroupEntry> = kernel
                    .slots
                    .iter()
                    .zip(resources)
                    .filter(|(s, _)| s.0 == g as u32)
                    .map(|(s, b)| wgpu::BindGroupEntry { binding: s.1, resource: b.clone() })
                    .collect();
                self.device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: None,
                    layout,
                    entries: &entries,
                })
            })
            .collect();
        if let Some(e) = pollster::block_on(scope.pop()) {
            return Err(GpuError::Wgpu { message: e.to_string() });
        }
        Ok(groups)
    }

    /// Records one dispatch (with optional timestamps at the pass's start and end) and
    /// submits it; waits for the queue.
    pub fn dispatch(
        &self,
        kernel: &Kernel,
        groups: &[wgpu::BindGroup],
        dispatch: [u32; 3],
        timestamps: Option<(&wgpu::QuerySet, &wgpu::Buffer)>,
    ) -> Result<(), GpuError> {
        let scope = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let mut enc = self.device.create_command_encoder(&Default::default());
        {
            let timestamp_writes = timestamps.map(|(qs, _)| wgpu::ComputePassTimestampWrites {
                query_set: qs,
                beginning_of_pass_write_index: Some(0),
                end_of_pass_write_index: Some(1),
            });
            let mut pass =
                enc.begin_compute_pass(&wgpu::ComputePassDescriptor { label: None, timestamp_writes });
            pass.set_pipeline(&kernel.pipeline);
            for (i, g) in groups.iter().enumerate() {
                pass.set_bind_group(i as u32, g, &[]);
            }
            pass.dispatch_workgroups(dispatch[0], dispatch[1], dispatch[2]);
        }
        if let Some((qs, resolve)) = timestamps {
            enc.resolve_query_set(qs, 0..2, resolve, 0);
        }
        self.queue.submit([enc.finish()]);
        self.wait()?;
        if let Some(e) = pollster::block_on(scope.pop()) {
            return Err(GpuError::Wgpu { message: e.to_string() });
        }
        self.check_uncaptured()
    }

    fn wait(&self) -> Result<(), GpuError> {
        match self
            .device
            .poll(wgpu::PollType::Wait { submission_index: None, timeout: Some(self.time_limit) })
        {
            Ok(_) => Ok(()),
            Err(wgpu::PollError::Timeout) => {
                // the GPU is still running the dispatch, and dropping the queue or the
                // device waits for it to finish: they are kept (leaked) instead, so that
                // the error reaches the caller now
                std::mem::forget(self.queue.clone());
                std::mem::forget(self.device.clone());
                Err(GpuError::TimeLimit {
                    seconds: self.time_limit.as_secs_f64(),
                    adapter: describe(&self.info),
                })
            }
            Err(e) => Err(GpuError::Wgpu { message: format!("waiting for the GPU: {e}") }),
        }
    }

    /// Copies `len` bytes from `offset` of `buffer` back to the host.
    pub fn read(&self, buffer: &wgpu::Buffer, offset: u64, len: u64) -> Result<Vec<u8>, GpuError> {
        let len = len.div_ceil(4) * 4;
        if len == 0 {
            return Ok(Vec::new());
        }
        let staging = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("readback"),
            size: len,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut enc = self.device.create_command_encoder(&Default::default());
        enc.copy_buffer_to_buffer(buffer, offset, &staging, 0, Some(len));
        self.queue.submit([enc.finish()]);
        let done = Arc::new(Mutex::new(None));
        let flag = done.clone();
        staging.map_async(wgpu::MapMode::Read, .., move |r| {
            if let Ok(mut d) = flag.lock() {
                *d = Some(r.map_err(|e| e.to_string()));
            }
        });
        // another thread sharing the device may be the one whose poll runs this
        // callback, a moment after our own poll returned: poll until it has run
        let start = std::time::Instant::now();
        let status = loop {
            self.wait()?;
            let status = done.lock().ok().and_then(|mut d| d.take());
            if status.is_some() || start.elapsed() > std::time::Duration::from_secs(60) {
                break status;
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        };
        match status {
            Some(Ok(())) => {}
            Some(Err(message)) => {
                return Err(GpuError::Wgpu { message: format!("mapping the readback buffer: {message}") })
            }
            None => return Err(GpuError::Wgpu { message: "the readback buffer was never mapped".into() }),
        }
        let bytes = staging
            .get_mapped_range(..)
            .map_err(|e| GpuError::Wgpu { message: format!("reading the readback buffer: {e}") })?
            .to_vec();
        staging.unmap();
        self.check_uncaptured()?;
        Ok(bytes)
    }
}

/// A compiled pipeline with its bind-group layouts.
pub struct Kernel {
    pipeline: wgpu::ComputePipeline,
    layouts: Vec<wgpu::BindGroupLayout>,
    /// (group, binding, type) of every buffer slot, resources first, then the trace buffer.
    slots: Vec<(u32, u32, wgpu::BindingType)>,
}

/// A bound resource, kept alive while bound.
pub enum Bound {
    /// A storage or uniform buffer.
    Buffer(wgpu::Buffer),
    /// A texture and its view.
    Texture(wgpu::Texture, wgpu::TextureView),
    /// A sampler.
    Sampler(wgpu::Sampler),
}

impl Bound {
    /// What a bind group entry takes.
    pub fn binding(&self) -> wgpu::BindingResource<'_> {
        match self {
            Bound::Buffer(b) => b.as_entire_binding(),
            Bound::Texture(_, v) => wgpu::BindingResource::TextureView(v),
            Bound::Sampler(s) => wgpu::BindingResource::Sampler(s),
        }
    }
}

/// The layout entry of a texture or sampler.
fn handle_binding(h: HandleKind) -> Result<wgpu::BindingType, String> {
    Ok(match h {
        HandleKind::Sampler { comparison: true } => {
            wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Comparison)
        }
        HandleKind::Sampler { comparison: false } => {
            wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering)
        }
        HandleKind::Sampled { dim, arrayed, kind, depth } => wgpu::BindingType::Texture {
            sample_type: match (depth, kind) {
                (true, _) => wgpu::TextureSampleType::Depth,
                (false, naga::ScalarKind::Uint) => wgpu::TextureSampleType::Uint,
                (false, naga::ScalarKind::Sint) => wgpu::TextureSampleType::Sint,
                (false, _) => wgpu::TextureSampleType::Float { filterable: true },
            },
            view_dimension: view_dimension(dim, arrayed),
            multisampled: false,
        },
        HandleKind::Storage { dim, arrayed, format, access } => wgpu::BindingType::StorageTexture {
            access: match (
                access.contains(naga::StorageAccess::LOAD),
                access.contains(naga::StorageAccess::STORE),
            ) {
                (true, true) => wgpu::StorageTextureAccess::ReadWrite,
                (true, false) => wgpu::StorageTextureAccess::ReadOnly,
                _ => wgpu::StorageTextureAccess::WriteOnly,
            },
            format: storage_format(format)?,
            view_dimension: view_dimension(dim, arrayed),
        },
    })
}

/// The view dimension of a WGSL texture type.
fn view_dimension(dim: naga::ImageDimension, arrayed: bool) -> wgpu::TextureViewDimension {
    match (dim, arrayed) {
        (naga::ImageDimension::D1, _) => wgpu::TextureViewDimension::D1,
        (naga::ImageDimension::D2, false) => wgpu::TextureViewDimension::D2,
        (naga::ImageDimension::D2, true) => wgpu::TextureViewDimension::D2Array,
        (naga::ImageDimension::D3, _) => wgpu::TextureViewDimension::D3,
        (naga::ImageDimension::Cube, false) => wgpu::TextureViewDimension::Cube,
        (naga::ImageDimension::Cube, true) => wgpu::TextureViewDimension::CubeArray,
    }
}

/// The wgpu format of a WGSL storage texel format.
fn storage_format(f: naga::StorageFormat) -> Result<wgpu::TextureFormat, String> {
    use naga::StorageFormat as S;
    use wgpu::TextureFormat as T;
    Ok(match f {
        S::R32Float => T::R32Float,
        S::R32Uint => T::R32Uint,
        S::R32Sint => T::R32Sint,
        S::Rg32Float => T::Rg32Float,
        S::Rg32Uint => T::Rg32Uint,
        S::Rg32Sint => T::Rg32Sint,
        S::Rgba32Float => T::Rgba32Float,
        S::Rgba32Uint => T::Rgba32Uint,
        S::Rgba32Sint => T::Rgba32Sint,
        S::Rgba16Float => T::Rgba16Float,
        S::Rgba16Uint => T::Rgba16Uint,
        S::Rgba16Sint => T::Rgba16Sint,
        S::Rgba8Unorm => T::Rgba8Unorm,
        S::Rgba8Snorm => T::Rgba8Snorm,
        S::Rgba8Uint => T::Rgba8Uint,
        S::Rgba8Sint => T::Rgba8Sint,
        S::Bgra8Unorm => T::Bgra8Unorm,
        S::R16Float => T::R16Float,
        S::R16Uint => T::R16Uint,
        S::R16Sint => T::R16Sint,
        S::Rg16Float => T::Rg16Float,
        S::Rg16Uint => T::Rg16Uint,
        S::Rg16Sint => T::Rg16Sint,
        S::R8Unorm => T::R8Unorm,
        S::R8Snorm => T::R8Snorm,
        S::R8Uint => T::R8Uint,
        S::R8Sint => T::R8Sint,
        S::Rg8Unorm => T::Rg8Unorm,
        S::Rg8Snorm => T::Rg8Snorm,
        S::Rg8Uint => T::Rg8Uint,
        S::Rg8Sint => T::Rg8Sint,
        S::Rgb10a2Unorm => T::Rgb10a2Unorm,
        S::Rgb10a2Uint => T::Rgb10a2Uint,
        S::Rg11b10Ufloat => T::Rg11b10Ufloat,
        other => return Err(format!("storage texel format {other:?} is not supported by capture")),
    })
}
