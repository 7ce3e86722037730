// Family knn_topk: brute-force k-nearest-neighbour search (k = 8) of 3-D query
// points against the reference points of their grid cell, each invocation
// keeping its sorted top-8 list of (squared distance, index) pairs in workgroup
// memory as vec2<u32> entries (8-byte accesses; the distance as its f32 bits,
// which order like the floats for non-negative values).
//
// What it computes: workgroup g, 256 invocations (8 warps), one query point per
// invocation (qpts, coalesced, + a value generated from the index so the
// zero-filled input is not trivial), 128 reference points of cell g in 2 tiles
// of 64. The list is filled with (+inf, 0) (8 stores). Per tile: invocations
// 0..63 stage the tile's points (vec4, coalesced), barrier; then for each of
// the 64 points (a broadcast vec4 load) the invocation computes the squared
// distance and bubbles the candidate through its list, branch-free: for
// m = 0..7 it loads entry m, stores the smaller of (candidate, entry) there and
// carries the larger on (8 loads + 8 stores of 8 bytes per candidate); barrier.
// Finally the 8 entries go to knn (entry m of query q at m * 262144 + q,
// coalesced).
//
// Layout of the lists (a fixed 3072-vec2 array, 24 KiB, in every variant; in
// vec2 units):
//   INTER=1: entry m of invocation t at m * 256 + t   (interleaved)
//   INTER=0: entry m of invocation t at t * S + m     (one record of S >= 8
//            entries per invocation)
// I count an 8-byte warp access as two half-warps of 16 lanes, each
// conflict-free when its 16 vec2 cover 32 distinct banks (degree = wavefronts
// / 2). The list loads and stores (the main accesses) put the lanes on 32
// consecutive invocations at one m: bank pair (t * S + m) mod 16:
//   INTER=1 (reference): consecutive vec2: 1-way.
//   S=9: 16 distinct pairs: 1-way.   S=10: 8 pairs: 2-way.
//   S=12: 4 pairs: 4-way.            S=8 (unpadded): 2 pairs: 8-way.
// The point loads are broadcasts (1 wavefront), the tile stores 1-way.
//
// Dispatch: 1024 workgroups of 256 (qpts: 262144 vec4 = 1048576 words; rpts:
// 1024 * 128 vec4 = 524288 words; knn: 8 * 262144 vec2 = 4194304 words; bound
// explicitly).

override INTER: u32 = 1u;
override S: u32 = 8u;

const WG: u32 = 256u;
const K: u32 = 8u;
const RT: u32 = 64u;
const NT: u32 = 2u;
const NQ: u32 = 262144u;

@group(0) @binding(0) var<storage, read> qpts: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> rpts: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> knn: array<vec2<u32>>;

var<workgroup> lst: array<vec2<u32>, 3072>;
var<workgroup> refs: array<vec4<f32>, 64>;

fn lidx(t: u32, m: u32) -> u32 {
    if (INTER == 1u) {
        return m * WG + t;
    }
    return t * S + m;
}

fn gen(i: u32) -> vec4<f32> {
    let h = i * 2654435761u;
    return vec4<f32>(f32(h >> 24u), f32((h >> 16u) & 255u), f32((h >> 8u) & 255u), 0.0)
        * (1.0 / 256.0);
}

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) t: u32,
        @builtin(workgroup_id) wg: vec3<u32>) {
    let gid = wg.x * WG + t;
    let q = qpts[gid] + gen(gid);
    for (var m = 0u; m < K; m++) {
        lst[lidx(t, m)] = vec2<u32>(0x7f800000u, 0u);
    }
    for (var tile = 0u; tile < NT; tile++) {
        let rbase = (wg.x * NT + tile) * RT;
        if (t < RT) {
            refs[t] = rpts[rbase + t] + gen((rbase + t) ^ 0x9e3779b9u);
        }
        workgroupBarrier();
        for (var r = 0u; r < RT; r++) {
            let dv = refs[r].xyz - q.xyz;
            var cand = vec2<u32>(bitcast<u32>(dot(dv, dv)), rbase + r);
            for (var m = 0u; m < K; m++) {
                let e = lst[lidx(t, m)];
                let sw = cand.x < e.x;
                lst[lidx(t, m)] = select(e, cand, sw);
                cand = select(cand, e, sw);
            }
        }
        workgroupBarrier();
    }
    for (var m = 0u; m < K; m++) {
        knn[m * NQ + gid] = lst[lidx(t, m)];
    }
}
