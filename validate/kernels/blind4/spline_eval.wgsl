// Family spline_eval: evaluation of a 512-segment cubic spline (e.g. a tone
// curve or a tabulated potential) at 64 points per invocation, the segment
// coefficients staged in workgroup memory and read per point for Horner's rule.
//
// What it computes: workgroup g, 256 invocations, copies the 512 x 4
// coefficients (coef[seg * 4 + k], + a value generated from the index so the
// zero-filled input is not trivial) into the table (8 words per invocation).
// Barrier. Invocation gid then evaluates 64 points m = 0..63: segment
// seg = (gid + 61 m) & 511 (the lanes of a warp sample 32 consecutive segments,
// as along a smooth ramp), local coordinate u from a hash of (gid, m) and the
// invocation's xin value; it reads the segment's 4 coefficients and accumulates
// ((c3 u + c2) u + c1) u + c0. The sum goes to out[gid].
//
// Layout (a fixed array<vec4<f32>, 2048> (32 KiB) in every variant; a scalar
// word w is component w & 3 of vec4 w >> 2):
//   LAYOUT=0: segment seg is vec4 seg, read as one 16-byte load.
//   LAYOUT=1: coefficient k of seg at word k * 512 + seg  (split arrays, four
//             4-byte loads per point).
//   LAYOUT=2: coefficient k of seg at word seg * S + k   (array of segment
//             records, S words each, 4 used; four 4-byte loads per point).
// Per point loads (lanes on 32 consecutive segments). I count a 16-byte warp
// access as four quarter-warps of 8 lanes, conflict-free when the 8 vec4 cover
// 32 distinct banks (degree = wavefronts / 4):
//   LAYOUT=0 (reference): consecutive vec4: 1-way.
//   LAYOUT=1: consecutive words: 1-way.
//   LAYOUT=2 S=4: lane stride 4 words: 4-way.
//   S=8: 8-way.   S=16: 16-way.
// Staging stores (8 per invocation; a warp writes the 4 words of 8 consecutive
// segments): LAYOUT=0: 1-way; LAYOUT=1: 4-way; S=4: 1-way; S=8: 2-way; S=16:
// 4-way.
// (With LAYOUT=2 a segment's 4 words are one aligned 16-byte group and a driver
// may merge the 4-byte loads into one 16-byte load: per quarter-warp S=4 would
// then be 1-way, S=8 2-way, S=16 4-way. The degrees above are for the 4-byte
// loads as written.)
//
// Dispatch: 4096 workgroups of 256 (coef: 2048 words, bound explicitly; xin, out:
// one f32 per invocation, the default).

override LAYOUT: u32 = 0u;
override S: u32 = 4u;

const NSEG: u32 = 512u;
const WG: u32 = 256u;
const M: u32 = 64u;

@group(0) @binding(0) var<storage, read> coef: array<f32>;
@group(0) @binding(1) var<storage, read> xin: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;

var<workgroup> tab: array<vec4<f32>, 2048>;

fn hash(x: u32) -> u32 {
    var h = x;
    h ^= h >> 16u;
    h *= 0x7feb352du;
    h ^= h >> 15u;
    h *= 0x846ca68bu;
    h ^= h >> 16u;
    return h;
}

fn word(seg: u32, k: u32) -> u32 {
    if (LAYOUT == 1u) {
        return k * NSEG + seg;
    }
    if (LAYOUT == 2u) {
        return seg * S + k;
    }
    return seg * 4u + k;
}

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) t: u32,
        @builtin(workgroup_id) wg: vec3<u32>) {
    for (var it = 0u; it < NSEG * 4u / WG; it++) {
        let i = it * WG + t;
        let v = coef[i] + f32(hash(i) & 1023u) * (1.0 / 1024.0) - 0.5;
        let w = word(i >> 2u, i & 3u);
        tab[w >> 2u][w & 3u] = v;
    }
    workgroupBarrier();

    let gid = wg.x * WG + t;
    let x0 = xin[gid];
    var acc = 0.0;
    for (var m = 0u; m < M; m++) {
        let seg = (gid + 61u * m) & (NSEG - 1u);
        let u = fract(x0 + f32(hash(gid * M + m) >> 8u) * (1.0 / 16777216.0));
        var c: vec4<f32>;
        if (LAYOUT == 0u) {
            c = tab[seg];
        } else {
            let w0 = word(seg, 0u);
            let w1 = word(seg, 1u);
            let w2 = word(seg, 2u);
            let w3 = word(seg, 3u);
            c = vec4<f32>(tab[w0 >> 2u][w0 & 3u], tab[w1 >> 2u][w1 & 3u],
                          tab[w2 >> 2u][w2 & 3u], tab[w3 >> 2u][w3 & 3u]);
        }
        acc += ((c.w * u + c.z) * u + c.y) * u + c.x;
    }
    out[gid] = acc;
}
