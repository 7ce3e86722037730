// Family attn_qk: the score block of dense attention, S = Q K^T / sqrt(64), for
// 4 heads of 2048 queries x 2048 keys with head dimension 64, with 16-byte
// (vec4) workgroup-memory accesses.
//
// What it computes: workgroup (g, h) = workgroup_id.xy, 256 invocations (8 warps),
// computes the 32-query x 64-key block g of head h (query tile g >> 5, key tile
// g & 31). It stages the 32 x 64 Q block in qs[i * 16 + d4] and the 64 x 64 K
// block in K(j, d4) (both from row-major [token][dim] buffers, one vec4 per
// load, a value generated from the index added so the zero-filled input is not
// trivial). Barrier. Lane x of warp y accumulates the 4 x 2 scores of queries
// y + 8a (a = 0..3) and keys x + 32b (b = 0..1): per d4 = 0..15 it loads four Q
// vec4 (the same for every lane: broadcasts) and two K vec4 (32 consecutive keys
// across the lanes) and adds their dot products. The 8 scores times 0.125 go to
// out (coalesced: lanes = 32 consecutive keys).
//
// Layout of the K block (a fixed 1280-vec4 array in every variant; Q block 512
// vec4; 28 KiB in all):
//   KT=1: K(j, d4) = ks[d4 * 65 + j]   (transposed: the keys of one d4 in a row)
//   KT=0: K(j, d4) = ks[j * KSV + d4]  (row-major, KSV >= 16 vec4 per key)
// I count a 16-byte warp access as four quarter-warps of 8 lanes, each
// conflict-free when its 8 vec4 cover 32 distinct banks; degree = wavefronts / 4.
// The K loads of the score loop (lane x at key x + 32b):
//   KT=1 (reference): consecutive vec4: 1-way.
//   KT=0 KSV=17 (68 words per key): the 8 lanes start at banks 4x mod 32: 1-way.
//   KSV=18 (72 words): banks 8x mod 32: 2-way.
//   KSV=20 (80 words): banks 16x mod 32: 4-way.
//   KSV=16 (64 words): every lane at banks 0..3: 8-way.
// Staging stores: KT=1: the 8 lanes of a quarter-warp write 8 d4 of one key, vec4
// stride 65: 1-way; KT=0: 8 consecutive vec4: 1-way. Q stores 1-way, Q loads are
// broadcasts.
//
// Dispatch: 2048 x 4 workgroups of 256 (q, k: 4 * 2048 * 64 = 524288 words each;
// out: 4 * 2048 * 2048 = 16777216 words; bound explicitly).

override KT: u32 = 1u;
override KSV: u32 = 17u;

const L: u32 = 2048u;
const DV: u32 = 16u;

@group(0) @binding(0) var<storage, read> q: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> k: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;

var<workgroup> qs: array<vec4<f32>, 512>;
var<workgroup> ks: array<vec4<f32>, 1280>;

fn kidx(j: u32, d4: u32) -> u32 {
    if (KT == 1u) {
        return d4 * 65u + j;
    }
    return j * KSV + d4;
}

fn gen(i: u32) -> vec4<f32> {
    let h = i * 2654435761u;
    return vec4<f32>(f32(h >> 24u), f32((h >> 16u) & 255u), f32((h >> 8u) & 255u), f32(h & 255u))
        * (1.0 / 512.0) - 0.25;
}

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) t: u32,
        @builtin(workgroup_id) wg: vec3<u32>) {
    let h = wg.y;
    let q0 = (wg.x >> 5u) * 32u;
    let k0 = (wg.x & 31u) * 64u;
    for (var it = 0u; it < 2u; it++) {
        let i = it * 256u + t;
        let g = (h * L + q0) * DV + i;
        qs[i] = q[g] + gen(g);
    }
    for (var it = 0u; it < 4u; it++) {
        let i = it * 256u + t;
        let g = (h * L + k0) * DV + i;
        ks[kidx(i >> 4u, i & 15u)] = k[g] + gen(g ^ 0x9e3779b9u);
    }
    workgroupBarrier();

    let x = t & 31u;
    let y = t >> 5u;
    var acc: array<vec2<f32>, 4>;
    for (var d4 = 0u; d4 < DV; d4++) {
        let kb0 = ks[kidx(x, d4)];
        let kb1 = ks[kidx(x + 32u, d4)];
        for (var a = 0u; a < 4u; a++) {
            let qa = qs[(y + 8u * a) * DV + d4];
            acc[a] += vec2<f32>(dot(qa, kb0), dot(qa, kb1));
        }
    }
    for (var a = 0u; a < 4u; a++) {
        let row = (h * L + q0 + y + 8u * a) * L + k0 + x;
        out[row] = acc[a].x * 0.125;
        out[row + 32u] = acc[a].y * 0.125;
    }
}
