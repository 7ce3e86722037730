// Tree reduction of a 512-element tile by 256 invocations, interleaved addressing:
// at stride s the active invocation t adds sh[2*s*t + s] into sh[2*s*t], so active
// lanes are 2*s words apart (2-way conflicts at s = 1, up to 16-way at s = 16).
// banksim capture validate/kernels/reduce_interleaved.wgsl --dispatch 4,1,1
@group(0) @binding(0) var<storage, read> src: array<f32>;
@group(0) @binding(1) var<storage, read_write> sums: array<f32>;

var<workgroup> sh: array<f32, 512>;

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) t: u32, @builtin(workgroup_id) wg: vec3<u32>) {
    let base = wg.x * 512u;
    sh[t] = src[base + t];
    sh[t + 256u] = src[base + t + 256u];
    workgroupBarrier();
    for (var s = 1u; s < 512u; s *= 2u) {
        let i = 2u * s * t;
        if (i + s < 512u) {
            let a = sh[i];
            let b = sh[i + s];
            sh[i] = a + b;
        }
        workgroupBarrier();
    }
    if (t == 0u) {
        sums[wg.x] = sh[0];
    }
}
