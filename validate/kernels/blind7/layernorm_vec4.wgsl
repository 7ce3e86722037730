// Family layernorm_vec4: layer normalisation of rows of 32 features
// (y = (x - mean) * rsqrt(var + eps) * gamma + beta, two-pass mean and
// variance), one row per invocation, the rows staged in workgroup memory as
// vec4<f32> (8 vec4 a row); mean and 1/std are also written out (as a
// training forward pass keeps them).
//
// What it computes: workgroup g, 128 invocations (4 warps), 4 blocks of 128
// rows; per block:
//   copy-in:  1024 vec4, e = it * 128 + t (it = 0..7): row e >> 3, column
//             e & 7, coalesced from x (plus a hash so the zero input is not
//             trivial), stored at T(row, col). Barrier.
//   rows:     invocation t owns row t: pass 1 loads T(t, 0..7) (sum), pass 2
//             loads them again (sum of squared deviations), pass 3 loads them
//             a third time and stores the normalised vec4 back to T(t, c)
//             (gamma, beta from a uniform buffer). stats[row] = (mean, rstd).
//             Barrier.
//   copy-out: y = T, coalesced like the copy-in. Barrier.
// The row passes have the 32 lanes on 32 consecutive rows at one column c.
//
// Layout of the tile (a fixed 1536-vec4 array, 24 KiB, in every variant):
//   SWZ=1: T(r, c) = r * 8 + (c ^ (r & 7))     (XOR swizzle of the vec4 column)
//   SWZ=0: T(r, c) = r * PV + c                (row pitch PV >= 8 vec4)
// I count a 16-byte warp access as four quarter-warps of 8 lanes (8 rows
// here), conflict-free when its 8 vec4 fall in 8 distinct 4-bank groups
// (group = T mod 8):
//   SWZ=1 (reference): groups c ^ (r & 7): 1-way.
//   PV=9:  groups r + c: 1-way.
//   PV=10: groups 2r + c: 4 distinct: 2-way.
//   PV=12: groups 4r + c: 2 distinct: 4-way.
//   PV=8:  one group: 8-way.
// The copy-in/out requests (a quarter-warp = one row's 8 vec4) are 1-way in
// every variant.
//
// Dispatch: 2048 workgroups of 128 (x, y: 2048 * 512 rows * 32 = 33554432
// words each; stats: 2048 * 512 * 2 = 2097152 words; gb: 16 vec4 = 64 words).

override SWZ: u32 = 1u;
override PV: u32 = 8u;

const BLOCKS: u32 = 4u;

@group(0) @binding(0) var<storage, read> xin: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> yout: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> stats: array<vec2<f32>>;
@group(0) @binding(3) var<uniform> gb: array<vec4<f32>, 16>;

var<workgroup> T: array<vec4<f32>, 1536>;

fn ti(r: u32, c: u32) -> u32 {
    if (SWZ == 1u) {
        return r * 8u + (c ^ (r & 7u));
    }
    return r * PV + c;
}

fn hsh(g: u32) -> vec4<f32> {
    let a = (g ^ (g >> 15u)) * 2246822519u;
    let b = (a ^ (a >> 13u)) * 3266489917u;
    return vec4<f32>(f32(a & 0xffu), f32((a >> 8u) & 0xffu), f32(b & 0xffu), f32((b >> 8u) & 0xffu)) * (1.0 / 128.0);
}

@compute @workgroup_size(128)
fn main(@builtin(local_invocation_index) t: u32,
        @builtin(workgroup_id) wg: vec3<u32>) {
    for (var b = 0u; b < BLOCKS; b++) {
        let row0 = (wg.x * BLOCKS + b) * 128u;
        for (var it = 0u; it < 8u; it++) {
            let e = it * 128u + t;
            let g = row0 * 8u + e;
            T[ti(e >> 3u, e & 7u)] = xin[g] + hsh(g);
        }
        workgroupBarrier();
        var s = vec4<f32>(0.0);
        for (var c = 0u; c < 8u; c++) {
            s += T[ti(t, c)];
        }
        let mean = dot(s, vec4<f32>(1.0)) * (1.0 / 32.0);
        var q = vec4<f32>(0.0);
        for (var c = 0u; c < 8u; c++) {
            let d = T[ti(t, c)] - vec4<f32>(mean);
            q = fma(d, d, q);
        }
        let rstd = inverseSqrt(dot(q, vec4<f32>(1.0)) * (1.0 / 32.0) + 1e-5);
        for (var c = 0u; c < 8u; c++) {
            let v = T[ti(t, c)];
            T[ti(t, c)] = fma((v - vec4<f32>(mean)) * rstd, gb[c], gb[8u + c]);
        }
        stats[row0 + t] = vec2<f32>(mean, rstd);
        workgroupBarrier();
        for (var it = 0u; it < 8u; it++) {
            let e = it * 128u + t;
            yout[row0 * 8u + e] = T[ti(e >> 3u, e & 7u)];
        }
        workgroupBarrier();
    }
}
