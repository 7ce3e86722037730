// Stride sweep with other work between the loads: as stride_dependent.wgsl, every step
// chases v = sh[v] (gcd(stride, 32)-way conflicts), and after each load the invocation
// does ALU dependent multiply-adds on a float (set with --override ALU=N). Bank time
// per step grows with the conflict degree, other work with ALU: where the two cross
// tells how shared-memory time overlaps the rest, which calibration fits.
// WORDS (a power of two, default 8192 = 32 KiB) sets the shared array's size: one
// 32 KiB workgroup per SM through Vulkan on the H100, eight of 4 KiB (--override
// WORDS=1024), where the warps of eight workgroups share the issue slots.
// Parameters in a uniform buffer: --bind 0.0=u32:STRIDE,ITERS
// banksim capture validate/kernels/stride_alu.wgsl --dispatch 2,1,1 --override ALU=8 --bind 0.0=u32:2,16
override ALU: u32 = 0;
override WORDS: u32 = 8192;
struct Params { stride: u32, iters: u32, }
@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
var<workgroup> sh: array<u32, WORDS>;

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) li: u32, @builtin(global_invocation_id) gid: vec3<u32>) {
    for (var i = li; i < WORDS; i += 256u) { sh[i] = i; }
    workgroupBarrier();
    let lane = li & 31u;
    var v = (lane * p.stride) & (WORDS - 1u);
    var acc = f32(li);
    for (var k = 0u; k < p.iters; k++) {
        v = sh[v];
        for (var j = 0u; j < ALU; j++) { acc = fma(acc, 1.0001, f32(v)); }
    }
    out[gid.x] = v + u32(acc);
}
