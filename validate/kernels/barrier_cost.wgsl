// What a barrier costs by itself: every invocation of a workgroup of WG invocations
// meets at ITERS barriers with nothing between them but the loop's counter. One wave
// of B workgroups per SM (dispatch 132 x B): the time over ITERS is a phase, from one
// release to the next, with WG / 32 warps arriving per workgroup and B workgroups
// sharing the SM.
// banksim measure validate/kernels/barrier_cost.wgsl --dispatch 132 --override WG=1024
override WG: u32 = 256;
override ITERS: u32 = 1024u;

@group(0) @binding(0) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(WG)
fn main(@builtin(local_invocation_index) li: u32, @builtin(global_invocation_id) gid: vec3<u32>) {
    var acc = li;
    for (var k = 0u; k < ITERS; k++) {
        workgroupBarrier();
        acc += k;
    }
    out[gid.x] = acc;
}
