//! What the driver compiles a kernel to: the statistics (and, where the driver gives
//! them, the internal representations) a Vulkan driver reports for a compute pipeline
//! through `VK_KHR_pipeline_executable_properties`.
//!
//! The kernel is translated to SPIR-V as wgpu translates it for Vulkan (naga's SPIR-V
//! writer with its overrides set, index bounds checks, buffer checks unless the device
//! has `robustBufferAccess2`, the loop bounding, workgroup memory zeroed), then compiled
//! by the driver on a device of its own, so what is reported is what a measured run
//! executes. Which statistics exist is the driver's choice: NVIDIA reports registers,
//! shared memory and the binary's size, Mesa's drivers instruction counts and more.
//!
//! ```no_run
//! let kernel = validate::kernel::load_file("validate/kernels/transpose32.wgsl".as_ref(), None, &[])?;
//! let compiled = validate::compiled::compile(&kernel, None, false)?;
//! for e in &compiled.executables {
//!     for s in &e.statistics {
//!         println!("{}: {} = {}", e.name, s.name, s.value);
//!     }
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::kernel::Loaded;
use ash::{khr, vk};
use std::ffi::CString;

/// The name of the Vulkan extension the statistics come through.
pub const EXTENSION: &str = "VK_KHR_pipeline_executable_properties";

/// The driver's report on one compiled kernel.
#[derive(Debug, Clone)]
pub struct Compiled {
    /// The device and its driver (`name (driver name and version)`).
    pub adapter: String,
    /// What the pipeline compiled to: usually one executable for a compute shader.
    pub executables: Vec<Executable>,
}

/// One executable of a pipeline.
#[derive(Debug, Clone)]
pub struct Executable {
    /// Its name, as the driver gives it.
    pub name: String,
    /// Its description.
    pub description: String,
    /// The subgroup (warp) size it was compiled for.
    pub subgroup_size: u32,
    /// The driver's statistics.
    pub statistics: Vec<Statistic>,
    /// Internal representations (assembly, IR), where asked for and given: name, text.
    pub representations: Vec<(String, String)>,
}

/// One statistic of an executable.
#[derive(Debug, Clone)]
pub struct Statistic {
    /// Its name (`Register Count`, `Instruction Count`, ...).
    pub name: String,
    /// What it means, in the driver's words.
    pub description: String,
    /// Its value.
    pub value: Value,
}

/// A statistic's value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Value {
    /// A flag.
    Bool(bool),
    /// A signed count.
    Int(i64),
    /// A count.
    Uint(u64),
    /// A measure.
    Float(f64),
}

impl Value {
    /// The value as a number (a flag is 0 or 1).
    pub fn as_f64(self) -> f64 {
        match self {
            Value::Bool(b) => f64::from(u8::from(b)),
            Value::Int(i) => i as f64,
            Value::Uint(u) => u as f64,
            Value::Float(f) => f,
        }
    }
}

impl std::fmt::Display for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Value::Bool(b) => write!(f, "{b}"),
            Value::Int(i) => write!(f, "{i}"),
            Value::Uint(u) => write!(f, "{u}"),
            Value::Float(x) => write!(f, "{x}"),
        }
    }
}

impl Compiled {
    /// The value of the statistic whose name contains `name` (case-insensitive) in the
    /// first executable that has it.
    pub fn statistic(&self, name: &str) -> Option<Value> {
        let name = name.to_lowercase();
        self.executables
            .iter()
            .flat_map(|e| &e.statistics)
            .find(|s| s.name.to_lowercase().contains(&name))
            .map(|s| s.value)
    }
}

/// Why no statistics came back.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CompiledError {
    /// No Vulkan loader.
    #[error("no Vulkan loader ({message}). On a machine without a GPU install lavapipe (Debian: `apt-get install mesa-vulkan-drivers libvulkan1`)")]
    NoLoader {
        /// The loader's error.
        message: String,
    },
    /// No device, or none matching `--adapter`.
    #[error("no Vulkan device{}: found {}", wanted.as_ref().map(|w| format!(" matching `{w}`")).unwrap_or_default(), if found.is_empty() { "none".to_string() } else { found.join("; ") })]
    NoDevice {
        /// The `--adapter` filter.
        wanted: Option<String>,
        /// Devices seen.
        found: Vec<String>,
    },
    /// The driver does not report statistics.
    #[error("{adapter}: the driver does not support {EXTENSION}, so it reports nothing about the code it compiles")]
    Unsupported {
        /// The device.
        adapter: String,
    },
    /// A Vulkan call failed.
    #[error("{adapter}: {call} failed: {result}")]
    Vulkan {
        /// The device.
        adapter: String,
        /// The call.
        call: &'static str,
        /// Its result code.
        result: vk::Result,
    },
    /// naga could not write SPIR-V for the kernel.
    #[error("{file}: writing SPIR-V: {message}")]
    Spirv {
        /// The kernel.
        file: String,
        /// naga's message.
        message: String,
    },
}

/// Compiles `kernel` on the best Vulkan device (discrete, then integrated, then any),
/// or the first whose name contains `adapter` (case-insensitive), and returns what the
/// driver reports about it; with `representations`, also the driver's internal
/// representations where it gives them.
pub fn compile(
    kernel: &Loaded,
    adapter: Option<&str>,
    representations: bool,
) -> Result<Compiled, CompiledError> {
    // SAFETY: loading the system's Vulkan loader; its entry points are used as Vulkan specifies
    let entry =
        unsafe { ash::Entry::load() }.map_err(|e| CompiledError::NoLoader { message: e.to_string() })?;
    let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_3);
    let unnamed = |call, result| CompiledError::Vulkan { adapter: "Vulkan".into(), call, result };
    // SAFETY: a valid create info; the instance is destroyed by `Instance`'s drop
    let instance = Instance(
        unsafe { entry.create_instance(&vk::InstanceCreateInfo::default().application_info(&app), None) }
            .map_err(|r| unnamed("vkCreateInstance", r))?,
    );
    let i = &instance.0;
    // SAFETY: `i` is a live instance
    let devices =
        unsafe { i.enumerate_physical_devices() }.map_err(|r| unnamed("vkEnumeratePhysicalDevices", r))?;
    let described: Vec<(vk::PhysicalDevice, vk::PhysicalDeviceProperties, String)> = devices
        .into_iter()
        .map(|pd| {
            // SAFETY: `pd` came from `i`
            let p = unsafe { i.get_physical_device_properties(pd) };
            let name = p.device_name_as_c_str().map(|c| c.to_string_lossy().into_owned()).unwrap_or_default();
            (pd, p, name)
        })
        .collect();
    let found: Vec<String> = described.iter().map(|d| d.2.clone()).collect();
    let rank = |p: &vk::PhysicalDeviceProperties| match p.device_type {
        vk::PhysicalDeviceType::DISCRETE_GPU => 3,
        vk::PhysicalDeviceType::INTEGRATED_GPU => 2,
        vk::PhysicalDeviceType::VIRTUAL_GPU => 1,
        _ => 0,
    };
    let chosen = match adapter {
        Some(w) => described.iter().find(|d| d.2.to_lowercase().contains(&w.to_lowercase())),
        None => described.iter().max_by_key(|d| rank(&d.1)),
    };
    let Some(&(pd, props, ref name)) = chosen else {
        return Err(CompiledError::NoDevice { wanted: adapter.map(str::to_string), found });
    };
    let adapter_name = name.clone();
    let fail = |call, result| CompiledError::Vulkan { adapter: adapter_name.clone(), call, result };
    // SAFETY: `pd` came from `i`
    let extensions = unsafe { i.enumerate_device_extension_properties(pd) }
        .map_err(|r| fail("vkEnumerateDeviceExtensionProperties", r))?;
    let has = |ext: &std::ffi::CStr| extensions.iter().any(|e| e.extension_name_as_c_str() == Ok(ext));
    if !has(khr::pipeline_executable_properties::NAME) {
        return Err(CompiledError::Unsupported { adapter: adapter_name });
    }
    let device_api = props.api_version.min(vk::API_VERSION_1_3);

    // the features wgpu would use that change the code: robust buffer access 2 (no
    // buffer bounds checks in the shader), zero-initialised workgroup memory
    let mut robustness2 = vk::PhysicalDeviceRobustness2FeaturesEXT::default();
    let mut zero_init = vk::PhysicalDeviceZeroInitializeWorkgroupMemoryFeatures::default();
    let mut exec_props = vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR::default();
    let has_robustness2 = has(ash::ext::robustness2::NAME);
    let has_zero_init = device_api >= vk::API_VERSION_1_3 || has(khr::zero_initialize_workgroup_memory::NAME);
    {
        let mut query = vk::PhysicalDeviceFeatures2::default().push_next(&mut exec_props);
        if has_robustness2 {
            query = query.push_next(&mut robustness2);
        }
        if has_zero_init {
            query = query.push_next(&mut zero_init);
        }
        // SAFETY: `pd` came from `i`; the chain holds structs of this API version's extensions
        unsafe { i.get_physical_device_features2(pd, &mut query) };
    }
    if exec_props.pipeline_executable_info == vk::FALSE {
        return Err(CompiledError::Unsupported { adapter: adapter_name });
    }
    let robust_buffer_access2 = has_robustness2 && robustness2.robust_buffer_access2 == vk::TRUE;
    let zero_init_native = has_zero_init && zero_init.shader_zero_initialize_workgroup_memory == vk::TRUE;

    // SAFETY: `pd` came from `i`
    let families = unsafe { i.get_physical_device_queue_family_properties(pd) };
    let family =
        families.iter().position(|f| f.queue_flags.contains(vk::QueueFlags::COMPUTE)).unwrap_or(0) as u32;
    // SAFETY: `pd` came from `i`
    let core = unsafe { i.get_physical_device_features(pd) };
    let mut names = vec![khr::pipeline_executable_properties::NAME.as_ptr()];
    let mut enable_exec =
        vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR::default().pipeline_executable_info(true);
    let mut enable_robust = vk::PhysicalDeviceRobustness2FeaturesEXT::default().robust_buffer_access2(true);
    let mut enable_zero = vk::PhysicalDeviceZeroInitializeWorkgroupMemoryFeatures::default()
        .shader_zero_initialize_workgroup_memory(true);
    let priorities = [1.0f32];
    let queues =
        [vk::DeviceQueueCreateInfo::default().queue_family_index(family).queue_priorities(&priorities)];
    let mut features = vk::PhysicalDeviceFeatures2::default().features(core).push_next(&mut enable_exec);
    if robust_buffer_access2 {
        names.push(ash::ext::robustness2::NAME.as_ptr());
        features = features.push_next(&mut enable_robust);
    }
    if zero_init_native {
        if device_api < vk::API_VERSION_1_3 {
            names.push(khr::zero_initialize_workgroup_memory::NAME.as_ptr());
        }
        features = features.push_next(&mut enable_zero);
    }
    let info = vk::DeviceCreateInfo::default()
        .queue_create_infos(&queues)
        .enabled_extension_names(&names)
        .push_next(&mut features);
    // SAFETY: every extension and feature enabled was found on `pd`; dropped by `Device`
    let device = Device(unsafe { i.create_device(pd, &info, None) }.map_err(|r| fail("vkCreateDevice", r))?);
    let d = &device.0;

    let spirv = spirv(kernel, device_api, robust_buffer_access2, zero_init_native)?;
    let objects = Objects::new(d);
    let objects = objects.build(kernel, &spirv, representations).map_err(|(call, r)| fail(call, r))?;
    let ext = khr::pipeline_executable_properties::Device::new(i, d);
    let pipeline_info = vk::PipelineInfoKHR::default().pipeline(objects.pipeline);
    // SAFETY: the pipeline was created with CAPTURE_STATISTICS on a device with the feature
    let execs = unsafe { ext.get_pipeline_executable_properties(&pipeline_info) }
        .map_err(|r| fail("vkGetPipelineExecutablePropertiesKHR", r))?;
    let mut executables = Vec::with_capacity(execs.len());
    for (index, e) in execs.iter().enumerate() {
        let exec_info = vk::PipelineExecutableInfoKHR::default()
            .pipeline(objects.pipeline)
            .executable_index(index as u32);
        // SAFETY: as above, for an executable index the driver reported
        let stats = unsafe { ext.get_pipeline_executable_statistics(&exec_info) }
            .map_err(|r| fail("vkGetPipelineExecutableStatisticsKHR", r))?;
        let statistics = stats.iter().map(statistic).collect();
        let representations = if representations {
            // SAFETY: the pipeline was created with CAPTURE_INTERNAL_REPRESENTATIONS
            unsafe { internal_representations(&ext, d.handle(), &exec_info) }
                .map_err(|r| fail("vkGetPipelineExecutableInternalRepresentationsKHR", r))?
        } else {
            Vec::new()
        };
        executables.push(Executable {
            name: text(e.name_as_c_str()),
            description: text(e.description_as_c_str()),
            subgroup_size: e.subgroup_size,
            statistics,
            representations,
        });
    }
    // the driver's name and version as it writes them (its packed version number is
    // vendor-encoded)
    let mut driver = vk::PhysicalDeviceDriverProperties::default();
    let mut props2 = vk::PhysicalDeviceProperties2::default().push_next(&mut driver);
    // SAFETY: `pd` came from `i`, a Vulkan 1.3 instance; the struct is core since 1.2
    unsafe { i.get_physical_device_properties2(pd, &mut props2) };
    let driver = format!("{} {}", text(driver.driver_name_as_c_str()), text(driver.driver_info_as_c_str()));
    drop(objects);
    Ok(Compiled { adapter: format!("{adapter_name} ({})", driver.trim()), executables })
}

fn text(c: Result<&std::ffi::CStr, std::ffi::FromBytesUntilNulError>) -> String {
    c.map(|c| c.to_string_lossy().trim().to_string()).unwrap_or_default()
}

fn statistic(s: &vk::PipelineExecutableStatisticKHR) -> Statistic {
    // SAFETY: the union member read is the one `format` names
    let value = unsafe {
        match s.format {
            vk::PipelineExecutableStatisticFormatKHR::BOOL32 => Value::Bool(s.value.b32 == vk::TRUE),
            vk::PipelineExecutableStatisticFormatKHR::INT64 => Value::Int(s.value.i64),
            vk::PipelineExecutableStatisticFormatKHR::FLOAT64 => Value::Float(s.value.f64),
            _ => Value::Uint(s.value.u64),
        }
    };
    Statistic { name: text(s.name_as_c_str()), description: text(s.description_as_c_str()), value }
}

/// The driver's internal representations of one executable: name and text (binary
/// ones are given as their size).
///
/// # Safety
/// `info` names a pipeline of `device` created with `CAPTURE_INTERNAL_REPRESENTATIONS`.
unsafe fn internal_representations(
    ext: &khr::pipeline_executable_properties::Device,
    device: vk::Device,
    info: &vk::PipelineExecutableInfoKHR<'_>,
) -> Result<Vec<(String, String)>, vk::Result> {
    let get = ext.fp().get_pipeline_executable_internal_representations_khr;
    let mut count = 0u32;
    // SAFETY: the two-call idiom: a count, then the sizes, then the data
    unsafe { get(device, info, &mut count, std::ptr::null_mut()) }.result()?;
    let mut reps = vec![vk::PipelineExecutableInternalRepresentationKHR::default(); count as usize];
    unsafe { get(device, info, &mut count, reps.as_mut_ptr()) }.result()?;
    let mut buffers: Vec<Vec<u8>> = reps.iter().map(|r| vec![0u8; r.data_size]).collect();
    for (r, b) in reps.iter_mut().zip(&mut buffers) {
        r.p_data = b.as_mut_ptr().cast();
    }
    unsafe { get(device, info, &mut count, reps.as_mut_ptr()) }.result()?;
    Ok(reps
        .iter()
        .zip(buffers)
        .map(|(r, b)| {
            let body = if r.is_text == vk::TRUE {
                String::from_utf8_lossy(b.split(|&c| c == 0).next().unwrap_or(&[])).into_owned()
            } else {
                format!("({} bytes of binary)", b.len())
            };
            (text(r.name_as_c_str()), body)
        })
        .collect())
}

/// The kernel as wgpu's Vulkan backend writes it (see the module documentation).
fn spirv(
    kernel: &Loaded,
    device_api: u32,
    robust2: bool,
    zero_native: bool,
) -> Result<Vec<u32>, CompiledError> {
    use naga::back::spv;
    use naga::proc::{BoundsCheckPolicies, BoundsCheckPolicy};
    let lang_version = if device_api >= vk::API_VERSION_1_3 {
        (1, 6)
    } else if device_api >= vk::API_VERSION_1_2 {
        (1, 5)
    } else {
        (1, 3)
    };
    let options = spv::Options {
        lang_version,
        bounds_check_policies: BoundsCheckPolicies {
            index: BoundsCheckPolicy::Restrict,
            buffer: if robust2 { BoundsCheckPolicy::Unchecked } else { BoundsCheckPolicy::Restrict },
            image_load: BoundsCheckPolicy::Restrict,
            binding_array: BoundsCheckPolicy::Unchecked,
        },
        zero_initialize_workgroup_memory: if zero_native {
            spv::ZeroInitializeWorkgroupMemoryMode::Native
        } else {
            spv::ZeroInitializeWorkgroupMemoryMode::Polyfill
        },
        force_loop_bounding: true,
        ..spv::Options::default()
    };
    let pipeline =
        spv::PipelineOptions { shader_stage: naga::ShaderStage::Compute, entry_point: kernel.entry.clone() };
    spv::write_vec(&kernel.module, &kernel.info, &options, Some(&pipeline))
        .map_err(|e| CompiledError::Spirv { file: kernel.file.clone(), message: e.to_string() })
}

/// The descriptor type of a resource variable, if it is one.
fn descriptor_type(module: &naga::Module, var: &naga::GlobalVariable) -> Option<vk::DescriptorType> {
    use naga::{AddressSpace, ImageClass, TypeInner};
    match var.space {
        AddressSpace::Storage { .. } => Some(vk::DescriptorType::STORAGE_BUFFER),
        AddressSpace::Uniform => Some(vk::DescriptorType::UNIFORM_BUFFER),
        AddressSpace::Handle => match module.types[var.ty].inner {
            TypeInner::Sampler { .. } => Some(vk::DescriptorType::SAMPLER),
            TypeInner::Image { class: ImageClass::Storage { .. }, .. } => {
                Some(vk::DescriptorType::STORAGE_IMAGE)
            }
            TypeInner::Image { .. } => Some(vk::DescriptorType::SAMPLED_IMAGE),
            _ => None,
        },
        _ => None,
    }
}

struct Instance(ash::Instance);
impl Drop for Instance {
    fn drop(&mut self) {
        // SAFETY: every child object is gone (`Device` drops first)
        unsafe { self.0.destroy_instance(None) }
    }
}

struct Device(ash::Device);
impl Drop for Device {
    fn drop(&mut self) {
        // SAFETY: every object made on it is destroyed (`Objects` drops first)
        unsafe { self.0.destroy_device(None) }
    }
}

/// The shader module, layouts and pipeline, destroyed together.
struct Objects<'d> {
    device: &'d ash::Device,
    module: vk::ShaderModule,
    sets: Vec<vk::DescriptorSetLayout>,
    layout: vk::PipelineLayout,
    pipeline: vk::Pipeline,
}

impl<'d> Objects<'d> {
    fn new(device: &'d ash::Device) -> Self {
        Objects {
            device,
            module: vk::ShaderModule::null(),
            sets: Vec::new(),
            layout: vk::PipelineLayout::null(),
            pipeline: vk::Pipeline::null(),
        }
    }

    fn build(
        mut self,
        kernel: &Loaded,
        spirv: &[u32],
        representations: bool,
    ) -> Result<Self, (&'static str, vk::Result)> {
        let d = self.device;
        // SAFETY: valid SPIR-V from naga
        self.module =
            unsafe { d.create_shader_module(&vk::ShaderModuleCreateInfo::default().code(spirv), None) }
                .map_err(|r| ("vkCreateShaderModule", r))?;
        let mut groups: std::collections::BTreeMap<u32, Vec<vk::DescriptorSetLayoutBinding>> =
            Default::default();
        for (_, var) in kernel.module.global_variables.iter() {
            if let (Some(b), Some(ty)) = (&var.binding, descriptor_type(&kernel.module, var)) {
                groups.entry(b.group).or_default().push(
                    vk::DescriptorSetLayoutBinding::default()
                        .binding(b.binding)
                        .descriptor_type(ty)
                        .descriptor_count(1)
                        .stage_flags(vk::ShaderStageFlags::COMPUTE),
                );
            }
        }
        let last = groups.keys().next_back().map_or(0, |&g| g + 1);
        for g in 0..last {
            let bindings = groups.get(&g).map(Vec::as_slice).unwrap_or(&[]);
            // SAFETY: distinct bindings of one set
            let set = unsafe {
                d.create_descriptor_set_layout(
                    &vk::DescriptorSetLayoutCreateInfo::default().bindings(bindings),
                    None,
                )
            }
            .map_err(|r| ("vkCreateDescriptorSetLayout", r))?;
            self.sets.push(set);
        }
        // SAFETY: layouts made above
        self.layout = unsafe {
            d.create_pipeline_layout(&vk::PipelineLayoutCreateInfo::default().set_layouts(&self.sets), None)
        }
        .map_err(|r| ("vkCreatePipelineLayout", r))?;
        let entry = CString::new(kernel.entry.clone())
            .map_err(|_| ("entry point name", vk::Result::ERROR_UNKNOWN))?;
        let stage = vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::COMPUTE)
            .module(self.module)
            .name(&entry);
        let mut flags = vk::PipelineCreateFlags::CAPTURE_STATISTICS_KHR;
        if representations {
            flags |= vk::PipelineCreateFlags::CAPTURE_INTERNAL_REPRESENTATIONS_KHR;
        }
        let info = vk::ComputePipelineCreateInfo::default().flags(flags).stage(stage).layout(self.layout);
        // SAFETY: the module and layout made above match the shader's resources
        let made = unsafe { d.create_compute_pipelines(vk::PipelineCache::null(), &[info], None) }
            .map_err(|(_, r)| ("vkCreateComputePipelines", r))?;
        self.pipeline = made[0];
        Ok(self)
    }
}

impl Drop for Objects<'_> {
    fn drop(&mut self) {
        let d = self.device;
        // SAFETY: made on `d`, not in use (nothing was submitted); null handles are ignored
        unsafe {
            d.destroy_pipeline(self.pipeline, None);
            d.destroy_pipeline_layout(self.layout, None);
            for &s in &self.sets {
                d.destroy_descriptor_set_layout(s, None);
            }
            d.destroy_shader_module(self.module, None);
        }
    }
}
