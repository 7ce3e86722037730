// Family fir_polyphase: a decimating FIR filter (64 taps, decimation by 8:
// y[n] = sum_k h[k] x[8 n + k]) of a long f32 signal, the input block staged in
// workgroup memory either split into its 8 polyphase components or as a plain
// (row-padded) array. The taps come from a uniform buffer.
//
// What it computes: workgroup g, 256 invocations (8 warps), 4 blocks of 256
// outputs; block b: n0 = (4 g + b) * 256.
//   stage:  input samples j = 0..2111 of the block, j = it * 256 + t
//           (it = 0..8): x[min(8 n0 + j, NX - 1)] (the signal's end clamped,
//           plus a hash so the zero input is not trivial) stored at X(j).
//           Barrier.
//   filter: invocation t: acc = sum_{k=0..63} h[k] * X(8 t + k) (64 loads, the
//           taps as vec4 from the uniform buffer); y[n0 + t] = acc. Barrier.
// A filter request has the 32 lanes on 32 consecutive outputs: samples
// 8 t + k, a stride of 8 samples.
//
// Layout of X (a fixed 4224-word f32 array in every variant):
//   POLY=1: X(j) = (j & 7) * 268 + (j >> 3)        (8 polyphase components,
//           each 264 samples, pitch 268)
//   POLY=0: X(j) = (j >> 3) * (8 + PAD) + (j & 7)  (rows of 8 samples, each
//           padded by PAD words)
//   POLY=1 (reference): filter loads consecutive words; staging stores
//          12 (j & 7) + (j >> 3) mod 32 all distinct: 1-way.
//   PAD=1: filter stride 9: 1-way; staging (4 rows of 8 per request, pitch 9,
//          the last row wraps): 2-way. Worst 2.
//   PAD=4: filter stride 12: 4-way (staging 2-way).
//   PAD=0: filter stride 8: 8-way (staging 1-way).
//   PAD=8: filter stride 16: 16-way (staging 2-way).
//
// Dispatch: 4096 workgroups of 256 (x: NX = 4096 * 4 * 2048 = 33554432
// words; y: 4096 * 1024 = 4194304 words; taps: 16 vec4 = 64 words).

override POLY: u32 = 1u;
override PAD: u32 = 0u;

const BLOCKS: u32 = 4u;
const NX: u32 = 33554432u;

@group(0) @binding(0) var<storage, read> xs: array<f32>;
@group(0) @binding(1) var<storage, read_write> ys: array<f32>;
@group(0) @binding(2) var<uniform> taps: array<vec4<f32>, 16>;

var<workgroup> X: array<f32, 4224>;

fn xi(j: u32) -> u32 {
    if (POLY == 1u) {
        return (j & 7u) * 268u + (j >> 3u);
    }
    return (j >> 3u) * (8u + PAD) + (j & 7u);
}

fn hsh(g: u32) -> f32 {
    let h = (g ^ (g >> 15u)) * 2246822519u;
    return f32(h >> 16u) * (1.0 / 32768.0) - 1.0;
}

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) t: u32,
        @builtin(workgroup_id) wg: vec3<u32>) {
    for (var b = 0u; b < BLOCKS; b++) {
        let n0 = (wg.x * BLOCKS + b) * 256u;
        for (var it = 0u; it < 9u; it++) {
            let j = it * 256u + t;
            if (j < 2112u) {
                let g = min(8u * n0 + j, NX - 1u);
                X[xi(j)] = xs[g] + hsh(g);
            }
        }
        workgroupBarrier();
        var acc = 0.0;
        for (var kk = 0u; kk < 16u; kk++) {
            let h = taps[kk] + vec4<f32>(0.015625);
            let j = 8u * t + 4u * kk;
            acc = fma(h.x, X[xi(j)], acc);
            acc = fma(h.y, X[xi(j + 1u)], acc);
            acc = fma(h.z, X[xi(j + 2u)], acc);
            acc = fma(h.w, X[xi(j + 3u)], acc);
        }
        ys[n0 + t] = acc;
        workgroupBarrier();
    }
}
