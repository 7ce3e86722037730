// Stride sweep, dependent loads (the kernel of validate/probe/wgpu_stridebench.rs):
// fill sh[i] = i, then every lane chases v = sh[v] from (lane * stride) & 8191, so
// each load needs the previous one and every step has the same bank pattern:
// stride s on 32 banks gives gcd(s, 32)-way conflicts (2: 2-way, 32: 32-way, odd: none).
// Parameters in a uniform buffer: --bind 0.0=u32:STRIDE,ITERS
// banksim capture validate/kernels/stride_dependent.wgsl --dispatch 2,1,1 --bind 0.0=u32:2,16
struct Params { stride: u32, iters: u32, }
@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
var<workgroup> sh: array<u32, 8192>;

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) li: u32, @builtin(global_invocation_id) gid: vec3<u32>) {
    for (var i = li; i < 8192u; i += 256u) { sh[i] = i; }
    workgroupBarrier();
    let lane = li & 31u;
    var v = (lane * p.stride) & 8191u;
    for (var k = 0u; k < p.iters; k++) { v = sh[v]; }
    out[gid.x] = v;
}
