// Family kmeans_assign: the assignment step of k-means on 64-dimensional points
// (e.g. embedding vectors): each point finds its nearest of K = 8 centroids.
// The points are too wide to keep in registers, so each workgroup stages its
// 64 points in workgroup memory and re-reads them once per centroid.
//
// What it computes: workgroup g, 64 invocations, owns points g*64 .. g*64+63
// (invocation t = point t). The centroids (8 x 64 floats, generated from a hash)
// go to cent[k * 64 + d]; the points are copied coalesced from pts_in (each value
// plus a hash of its index, so the zero-filled input is not trivial) to
// pts(p, d). Barrier. Invocation t then computes, for k = 0..7, the squared
// distance sum over d of (pts(t, d) - cent[k * 64 + d])^2 (512 iterations, two
// workgroup loads each: the centroid word is the same for every lane, a
// broadcast) and writes best distance + index of the nearest centroid to out.
//
// Layout of the staged points (a fixed 64 x 72-word array, 18 KiB, in every
// variant; with the centroids 20 KiB):
//   SWZ=0: pts(p, d) = pts[p * S + d]          (point pitch S >= 64 words)
//   SWZ=1: pts(p, d) = pts[p * 64 + (d ^ (p & 31))]  (XOR swizzle, S ignored)
// The distance loop's point loads put the 32 lanes on 32 points at one d:
// bank (l * S + d) mod 32, 32 / gcd(S, 32) distinct banks:
//   S=65 (reference): 1-way.   SWZ=1: bank (d ^ l) mod 32: 1-way.
//   S=66: 2-way.   S=72: 8-way.   S=64: 32-way.
// The staging stores (a warp writes 32 consecutive d of one point) are 1-way in
// every variant; the centroid loads are broadcasts.
// (Where S is a multiple of 4 a driver may merge a point's consecutive d loads
// into 16-byte loads; the degrees above are for the 4-byte loads as written.)
//
// Dispatch: 4096 workgroups of 64 (pts_in: 4096 * 64 * 64 = 16777216 words,
// bound explicitly; out: one f32 per invocation, the default).

override S: u32 = 65u;
override SWZ: u32 = 0u;

const D: u32 = 64u;
const K: u32 = 8u;
const WG: u32 = 64u;

@group(0) @binding(0) var<storage, read> pts_in: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;

var<workgroup> pts: array<f32, 4608>;
var<workgroup> cent: array<f32, 512>;

fn hash(x: u32) -> u32 {
    var h = x;
    h ^= h >> 16u;
    h *= 0x7feb352du;
    h ^= h >> 15u;
    h *= 0x846ca68bu;
    h ^= h >> 16u;
    return h;
}

fn pidx(p: u32, d: u32) -> u32 {
    if (SWZ == 1u) {
        return p * 64u + (d ^ (p & 31u));
    }
    return p * S + d;
}

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) t: u32,
        @builtin(workgroup_id) wg: vec3<u32>) {
    for (var i = t; i < K * D; i += WG) {
        cent[i] = f32(hash(i ^ 0x5bd1e995u) & 1023u) * (1.0 / 1024.0);
    }
    let base = wg.x * WG * D;
    for (var it = 0u; it < D; it++) {
        let i = it * WG + t;
        let p = i / D;
        let d = i % D;
        pts[pidx(p, d)] = pts_in[base + i] + f32(hash(base + i) & 1023u) * (1.0 / 1024.0);
    }
    workgroupBarrier();

    var best = 3.0e38;
    var bk = 0u;
    for (var k = 0u; k < K; k++) {
        var dist = 0.0;
        for (var d = 0u; d < D; d++) {
            let diff = pts[pidx(t, d)] - cent[k * D + d];
            dist = fma(diff, diff, dist);
        }
        if (dist < best) {
            best = dist;
            bk = k;
        }
    }
    out[wg.x * WG + t] = best + f32(bk);
}
