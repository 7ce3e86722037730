// Global-memory bandwidth through Vulkan: every invocation copies one vec4<u32>
// (16 bytes) from `src` to `dst`, `dst[i] = src[i] + 1` (the add keeps it from being a
// plain buffer copy), i = (workgroup_id.y * groups_x + workgroup_id.x) * 256 + t.
// Bind both buffers with W words (W / 4 vectors) and dispatch W / 1024 workgroups, as
// X,Y with X <= 65535 (4096,Y for the large sizes). Bytes moved per run = 2 * 4 * W
// (read + write): bandwidth = 8 W / median time. A buffer pair well below the L2 cache
// (50 MiB on the H100) measures L2, one far above it DRAM; validate/run_micro.sh runs 4,
// 16, 64, 256 MiB and 1 GiB per buffer (a binding above the adapter's
// max_storage_buffer_binding_size is an error: 128 MiB on lavapipe, 2 GiB on the H100).
// banksim measure validate/kernels/stream_copy.wgsl --dispatch 1024 --bind 0.0=zeros:1048576 --bind 0.1=zeros:1048576
@group(0) @binding(0) var<storage, read> src: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec4<u32>>;

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) t: u32,
        @builtin(workgroup_id) wg: vec3<u32>,
        @builtin(num_workgroups) n: vec3<u32>) {
    let i = (wg.y * n.x + wg.x) * 256u + t;
    if (i < arrayLength(&src)) {
        dst[i] = src[i] + vec4<u32>(1u);
    }
}
