// Stride sweep, independent loads: as stride_dependent.wgsl, but load k of a lane
// reads sh[(lane * stride + 32 k) & 8191] and the results are only summed, so loads
// do not wait for each other (throughput, not latency). Shifting by 32 words keeps
// the bank pattern of every step: gcd(stride, 32)-way conflicts.
// Parameters in a uniform buffer: --bind 0.0=u32:STRIDE,ITERS
// banksim capture validate/kernels/stride_independent.wgsl --dispatch 2,1,1 --bind 0.0=u32:2,16
struct Params { stride: u32, iters: u32, }
@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
var<workgroup> sh: array<u32, 8192>;

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) li: u32, @builtin(global_invocation_id) gid: vec3<u32>) {
    for (var i = li; i < 8192u; i += 256u) { sh[i] = i; }
    workgroupBarrier();
    let lane = li & 31u;
    let first = lane * p.stride;
    var acc = 0u;
    for (var k = 0u; k < p.iters; k++) { acc += sh[(first + 32u * k) & 8191u]; }
    out[gid.x] = acc;
}
