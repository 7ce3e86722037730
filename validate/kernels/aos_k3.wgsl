// Array of structures: 64 invocations each store, then read back, a struct of 3
// 4-byte words (stride 12 bytes), one field per instruction. Lanes reading one
// field are 3 words apart: odd, so conflict-free.
// Compare with soa_k4.wgsl. banksim capture validate/kernels/aos_k3.wgsl --dispatch 2,1,1
struct P {
    f0: u32, f1: u32, f2: u32,
}

@group(0) @binding(0) var<storage, read_write> out: array<u32>;

var<workgroup> sh: array<P, 64>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) t: u32, @builtin(workgroup_id) wg: vec3<u32>) {
    // one whole-struct store: 3 4-byte stores
    sh[t] = P(t * 3u + 0u, t * 3u + 1u, t * 3u + 2u);
    workgroupBarrier();
    // one whole-struct load: 3 4-byte loads
    let p = sh[t];
    out[wg.x * 64u + t] = p.f0 + p.f1 + p.f2;
}
