// Blind check (H200 only, docs/calibration.md "A blind check"): a tree reduction of 2048
// floats by a workgroup of 1024 invocations, one 32-warp barrier per level. MODE = 0:
// sequential addressing (active invocations t < s add sh[t + s] into sh[t]: conflict-free);
// MODE = 1: interleaved (t adds sh[2st + s] into sh[2st]: 2- to 32-way conflicts, fewer
// warps active at each level). Workgroup w reduces src[2048 w ..] into sums[w].
// banksim predict validate/kernels/blind/red1024.wgsl --dispatch 16384 --override MODE=1 --bind 0.0=zeros:33554432 --bind 0.1=zeros:16384 -c h200
override MODE: u32 = 0u;
@group(0) @binding(0) var<storage, read> src: array<f32>;
@group(0) @binding(1) var<storage, read_write> sums: array<f32>;
var<workgroup> sh: array<f32, 2048>;
@compute @workgroup_size(1024)
fn main(@builtin(local_invocation_index) t: u32, @builtin(workgroup_id) wg: vec3<u32>) {
    let base = wg.x * 2048u;
    sh[t] = src[base + t];
    sh[t + 1024u] = src[base + t + 1024u];
    workgroupBarrier();
    if (MODE == 0u) {
        for (var s = 1024u; s > 0u; s >>= 1u) {
            if (t < s) { sh[t] = sh[t] + sh[t + s]; }
            workgroupBarrier();
        }
    } else {
        for (var s = 1u; s < 2048u; s <<= 1u) {
            let i = 2u * s * t;
            if (i + s < 2048u) { sh[i] = sh[i] + sh[i + s]; }
            workgroupBarrier();
        }
    }
    if (t == 0u) { sums[wg.x] = sh[0]; }
}
