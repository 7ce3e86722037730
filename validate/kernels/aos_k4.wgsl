// Array of structures: 64 invocations each store, then read back, a struct of 4
// 4-byte words (stride 16 bytes), written and read whole. The driver makes each one 16-byte access (the members of
// one struct element merge: validate/kernels/smem_merge.wgsl), conflict-free; as
// 4-byte accesses a field at a time, lanes 4 words apart would be 4-way.
// Compare with soa_k4.wgsl. banksim capture validate/kernels/aos_k4.wgsl --dispatch 2,1,1
struct P {
    f0: u32, f1: u32, f2: u32, f3: u32,
}

@group(0) @binding(0) var<storage, read_write> out: array<u32>;

var<workgroup> sh: array<P, 64>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) t: u32, @builtin(workgroup_id) wg: vec3<u32>) {
    // one whole-struct store: 4 4-byte stores
    sh[t] = P(t * 4u + 0u, t * 4u + 1u, t * 4u + 2u, t * 4u + 3u);
    workgroupBarrier();
    // one whole-struct load: 4 4-byte loads
    let p = sh[t];
    out[wg.x * 64u + t] = p.f0 + p.f1 + p.f2 + p.f3;
}
