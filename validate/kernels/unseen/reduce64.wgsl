// Held-out suite (validate/suite_unseen.csv): tree reductions of 64-bit integers (a
// vec2<u32> is one u64: x low, y high word, added with carry). Each workgroup of 256
// invocations sums SEGS segments of 512 values (`src`, vec2 (workgroup % 64) * 4096 + i:
// 2 MiB, cache-resident). Set the layout and the addressing with --override MODE=N:
//   0  one array of vec2<u32> (8-byte accesses), sequential addressing (t, t + h, h = 256,
//      128, .., 1): conflict-free
//   1  vec2<u32>, interleaved addressing (2 s t, 2 s t + s): active lanes 2 s vectors
//      apart, conflicts growing with s (4.2 wavefronts per ideal one on the h100 preset)
//   2  the low and high words in two u32 arrays (4-byte accesses), sequential
//   3  two u32 arrays, interleaved (4.1 per ideal one)
// banksim capture validate/kernels/unseen/reduce64.wgsl --dispatch 2 --override MODE=1 --bind 0.0=zeros:524288 -o r.csv
override MODE: u32 = 0;
override SEGS: u32 = 8;

@group(0) @binding(0) var<storage, read> src: array<vec2<u32>>;
@group(0) @binding(1) var<storage, read_write> sums: array<vec2<u32>>;

var<workgroup> v2: array<vec2<u32>, 512>;
var<workgroup> lo: array<u32, 512>;
var<workgroup> hi: array<u32, 512>;

fn add64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let l = a.x + b.x;
    return vec2<u32>(l, a.y + b.y + select(0u, 1u, l < a.x));
}

fn load64(i: u32) -> vec2<u32> {
    if (MODE < 2u) {
        return v2[i];
    }
    return vec2<u32>(lo[i], hi[i]);
}

fn store64(i: u32, v: vec2<u32>) {
    if (MODE < 2u) {
        v2[i] = v;
    } else {
        lo[i] = v.x;
        hi[i] = v.y;
    }
}

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) t: u32, @builtin(workgroup_id) wg: vec3<u32>) {
    let interleaved = (MODE & 1u) == 1u;
    var total = vec2<u32>(0u);
    for (var g = 0u; g < SEGS; g++) {
        let base = (wg.x & 63u) * 4096u + g * 512u;
        store64(t, src[base + t]);
        store64(t + 256u, src[base + t + 256u]);
        workgroupBarrier();
        for (var s = 1u; s < 512u; s *= 2u) {
            if (interleaved) {
                let i = 2u * s * t;
                if (i + s < 512u) {
                    store64(i, add64(load64(i), load64(i + s)));
                }
            } else {
                let h = 256u / s;
                if (t < h) {
                    store64(t, add64(load64(t), load64(t + h)));
                }
            }
            workgroupBarrier();
        }
        total = add64(total, load64(0u));
        workgroupBarrier();
    }
    if (t == 0u) {
        sums[wg.x] = total;
    }
}
