// Structure of arrays: the 4 fields of 64 structs in 4 arrays, field f of struct t at
// word f * 64 + t. Every field read is 64 consecutive words: conflict-free.
// Compare with aos_k4.wgsl. banksim capture validate/kernels/soa_k4.wgsl --dispatch 2,1,1
struct Soa {
    f0: array<u32, 64>,
    f1: array<u32, 64>,
    f2: array<u32, 64>,
    f3: array<u32, 64>,
}

@group(0) @binding(0) var<storage, read_write> out: array<u32>;

var<workgroup> sh: Soa;

// a helper that touches workgroup memory: the capture specialises it per call site,
// so its four calls are four instructions
fn put(field: u32, t: u32, v: u32) {
    switch field {
        case 0u: { sh.f0[t] = v; }
        case 1u: { sh.f1[t] = v; }
        case 2u: { sh.f2[t] = v; }
        default: { sh.f3[t] = v; }
    }
}

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) t: u32, @builtin(workgroup_id) wg: vec3<u32>) {
    put(0u, t, t * 4u + 0u);
    put(1u, t, t * 4u + 1u);
    put(2u, t, t * 4u + 2u);
    put(3u, t, t * 4u + 3u);
    workgroupBarrier();
    let s = sh.f0[t] + sh.f1[t] + sh.f2[t] + sh.f3[t];
    out[wg.x * 64u + t] = s;
}
