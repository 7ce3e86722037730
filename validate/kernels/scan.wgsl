// Blelloch work-efficient exclusive scan of 512 elements by 256 invocations
// (GPU Gems 3, ch. 39). With --override PADDED=true every index i becomes
// i + i / 32 (CONFLICT_FREE_OFFSET), which removes most bank conflicts of the
// up-sweep and down-sweep.
// banksim capture validate/kernels/scan.wgsl --dispatch 1,1,1 --override PADDED=1
override PADDED: bool = false;

@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;

const N: u32 = 512u;
var<workgroup> temp: array<u32, 528>; // N + N / 32

fn at(i: u32) -> u32 {
    if (PADDED) {
        return i + i / 32u;
    }
    return i;
}

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) t: u32, @builtin(workgroup_id) wg: vec3<u32>) {
    let base = wg.x * N;
    temp[at(t)] = src[base + t];
    temp[at(t + N / 2u)] = src[base + t + N / 2u];
    var offset = 1u;
    // up-sweep
    for (var d = N / 2u; d > 0u; d >>= 1u) {
        workgroupBarrier();
        if (t < d) {
            let ai = offset * (2u * t + 1u) - 1u;
            let bi = offset * (2u * t + 2u) - 1u;
            let a = temp[at(ai)];
            let b = temp[at(bi)];
            temp[at(bi)] = a + b;
        }
        offset *= 2u;
    }
    if (t == 0u) {
        temp[at(N - 1u)] = 0u;
    }
    // down-sweep
    for (var d = 1u; d < N; d *= 2u) {
        offset >>= 1u;
        workgroupBarrier();
        if (t < d) {
            let ai = offset * (2u * t + 1u) - 1u;
            let bi = offset * (2u * t + 2u) - 1u;
            let a = temp[at(ai)];
            let b = temp[at(bi)];
            temp[at(ai)] = b;
            temp[at(bi)] = a + b;
        }
    }
    workgroupBarrier();
    dst[base + t] = temp[at(t)];
    dst[base + t + N / 2u] = temp[at(t + N / 2u)];
}
