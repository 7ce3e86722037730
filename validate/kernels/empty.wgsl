// The fixed costs of a dispatch: workgroups that do nothing but one guarded store.
// Timed at 1 workgroup it is the dispatch's fixed overhead (launch and drain); timed at
// many more workgroups than the SMs hold at once, the extra time per workgroup per SM
// is the block scheduler's launch interval (the timing's `block_launch_cycles`). The
// store keeps the kernel from being empty; it never runs (no workgroup has that id).
// Set the workgroup size with --override WG=64 (or 256, 1024).
// banksim measure validate/kernels/empty.wgsl --dispatch 16384 --override WG=256
override WG: u32 = 64;
@group(0) @binding(0) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) n: vec3<u32>) {
    if (gid.x == n.x * WG) {
        out[0] = gid.x;
    }
}
