// Family raybox: ray / axis-aligned-box intersection (the leaf test of a BVH
// traversal: count the boxes a ray hits and find the nearest entry distance),
// the boxes staged 128 at a time in workgroup memory and read as 16-byte vec4.
//
// What it computes: workgroup g, 128 invocations (4 warps); invocation t owns
// ray g * 128 + t (origin and direction made from a hash of the index plus the
// rays buffer, 1 / direction precomputed). For each of 2 box sets s: invocation
// t loads box b = ((2 g + s) * 128 + t) mod 262144 (min, max corners from a
// hash plus gboxes) and stores its min corner at MN(t) and its max corner at
// MX(t). Barrier. Then for k = 0..127 it tests box b = (t + k) & 127 (lanes on
// consecutive boxes, rotated each k so that every ray sees every box): loads
// MN(b) and MX(b) (the main accesses, 16-byte loads), slab test, counts the
// hit and keeps the nearest entry. Barrier. At the end hits[ray] =
// vec2(count, nearest).
//
// Layout of the boxes (a fixed 1024-vec4 array, 16 KiB, in every variant):
//   SOA=1: MN(b) = b,          MX(b) = 128 + b   (two arrays of corners)
//   SOA=0: MN(b) = b * SV,     MX(b) = b * SV + 1 (an array of node structs of
//          SV vec4 each: min, max, then SV - 2 vec4 of node payload, unused
//          here)
// I count a 16-byte warp access as four quarter-warps of 8 lanes, conflict-free
// when its 8 vec4 cover 32 distinct banks (degree = wavefronts / 4). A
// quarter-warp reads 8 consecutive boxes (mod 128; 128 * SV vec4 is a multiple
// of 32 banks, so the wrap changes nothing): vec4 starting at banks
// 4 SV b mod 32:
//   SOA=1 (reference): stride 4 words: 8 distinct 4-bank groups: 1-way.
//   SV=3: stride 12: banks 0,12,24,4,16,28,8,20: 1-way.
//   SV=2: stride 8: 4 distinct groups, each twice: 2-way.
//   SV=4: stride 16: 2 groups, each 4 times: 4-way.
//   SV=8: stride 32: one group: 8-way.
// The staging stores (one per corner per box) have the same degree.
//
// Dispatch: 2048 workgroups of 128 (gboxes: 262144 boxes * 8 = 2097152 words;
// rays: 262144 rays * 8 = 2097152 words; hits: 262144 * 2 = 524288 words).

override SOA: u32 = 1u;
override SV: u32 = 2u;

const NB: u32 = 128u;
const NSETS: u32 = 2u;
const NGB: u32 = 262144u;

@group(0) @binding(0) var<storage, read> gboxes: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> rays: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> hits: array<vec2<f32>>;

var<workgroup> bx: array<vec4<f32>, 1024>;

fn imn(b: u32) -> u32 {
    if (SOA == 1u) {
        return b;
    }
    return b * SV;
}

fn imx(b: u32) -> u32 {
    if (SOA == 1u) {
        return NB + b;
    }
    return b * SV + 1u;
}

fn hash3(i: u32) -> vec3<f32> {
    let a = i * 2654435761u;
    let b = (a ^ (a >> 15u)) * 2246822519u;
    let c = (b ^ (b >> 13u)) * 3266489917u;
    return vec3<f32>(f32(a >> 8u), f32(b >> 8u), f32(c >> 8u)) * (1.0 / 16777216.0);
}

@compute @workgroup_size(128)
fn main(@builtin(local_invocation_index) t: u32,
        @builtin(workgroup_id) wg: vec3<u32>) {
    let ri = wg.x * 128u + t;
    let o = hash3(ri) * 16.0 + rays[2u * ri].xyz;
    let d = hash3(ri ^ 0x5bd1e995u) - 0.5 + rays[2u * ri + 1u].xyz;
    let invd = 1.0 / (d + select(vec3<f32>(1e-6), vec3<f32>(-1e-6), d < vec3<f32>(0.0)));
    var cnt = 0.0;
    var best = 1e30;
    for (var s = 0u; s < NSETS; s++) {
        let gb = ((wg.x * NSETS + s) * NB + t) & (NGB - 1u);
        let c = hash3(gb * 7u + 1u) * 16.0;
        let ext = hash3(gb * 7u + 2u) * 1.5 + 0.1;
        bx[imn(t)] = vec4<f32>(c - ext, 0.0) + gboxes[2u * gb];
        bx[imx(t)] = vec4<f32>(c + ext, 0.0) + gboxes[2u * gb + 1u];
        workgroupBarrier();
        for (var k = 0u; k < NB; k++) {
            let b = (t + k) & (NB - 1u);
            let mn = bx[imn(b)];
            let mx = bx[imx(b)];
            let t0 = (mn.xyz - o) * invd;
            let t1 = (mx.xyz - o) * invd;
            let lo = min(t0, t1);
            let hi = max(t0, t1);
            let tn = max(max(lo.x, lo.y), max(lo.z, 0.0));
            let tf = min(min(hi.x, hi.y), hi.z);
            let hit = tn <= tf;
            cnt += select(0.0, 1.0, hit);
            best = select(best, min(best, tn), hit);
        }
        workgroupBarrier();
    }
    hits[ri] = vec2<f32>(cnt, best);
}
