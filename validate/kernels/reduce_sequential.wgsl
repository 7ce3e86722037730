// Tree reduction of a 512-element tile by 256 invocations, sequential addressing:
// at stride s the invocations t < s add sh[t + s] into sh[t]: consecutive lanes,
// consecutive words, no bank conflict.
// banksim capture validate/kernels/reduce_sequential.wgsl --dispatch 4,1,1
@group(0) @binding(0) var<storage, read> src: array<f32>;
@group(0) @binding(1) var<storage, read_write> sums: array<f32>;

var<workgroup> sh: array<f32, 512>;

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) t: u32, @builtin(workgroup_id) wg: vec3<u32>) {
    let base = wg.x * 512u;
    sh[t] = src[base + t];
    sh[t + 256u] = src[base + t + 256u];
    workgroupBarrier();
    for (var s = 256u; s > 0u; s >>= 1u) {
        if (t < s) {
            let a = sh[t];
            let b = sh[t + s];
            sh[t] = a + b;
        }
        workgroupBarrier();
    }
    if (t == 0u) {
        sums[wg.x] = sh[0];
    }
}
