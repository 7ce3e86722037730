// Family ell_spmm: a block-sparse times dense product C = A B, A in ELL format
// (16 stored entries per row, column indices local to a 64-column block), B a
// 64 x 64 f32 slab staged in workgroup memory and read as vec2 (8-byte) pairs of
// columns; one warp per sparse row, each lane owning two of the 64 output
// columns.
//
// What it computes: workgroup g, 256 invocations (8 warps), owns sparse rows
// g * 256 .. g * 256 + 255 and the B slab g & 63 (64 rows k x 32 column pairs
// jp; the slabs are row-major in bslab). It stages the slab: invocation t loads
// vec2 i = it * 256 + t (it = 0..7; k = i >> 5, jp = i & 31, coalesced, a value
// generated from the index added so the zero-filled input is not trivial) and
// stores it at B(k, jp). Barrier. Warp w then takes its 32 rows in turn; for
// each of a row's 16 entries it reads the column index and the value (the same
// global words for all lanes: a broadcast; index and value made non-trivial
// with a hash) and lane l accumulates value * B(k, l) (one 8-byte workgroup
// load); the row's 32 vec2 go to outc (coalesced).
//
// Layout of the slab (a fixed 2176-vec2 array, 17 KiB, in every variant; in
// vec2 units):
//   CM=0: B(k, jp) = bs[k * 32 + jp]      (row-major, as in global memory)
//   CM=1: B(k, jp) = bs[jp * PK + k]      (column-pair-major, pitch PK >= 64)
// I count an 8-byte warp access as two half-warps of 16 lanes, each
// conflict-free when its 16 vec2 cover 32 distinct banks (degree = wavefronts
// / 2). The product loads (the main access: lanes l = 0..31 at one k, vec2 l):
//   CM=0 (reference): consecutive vec2: 1-way.
//   CM=1: lane l at bank pair (l * PK + k) mod 16:
//     PK=65: 1-way.   PK=66: 8 distinct pairs: 2-way.   PK=68: 4 pairs: 4-way.
//     PK=64: one pair: 16-way.
// The staging stores (a warp writes 32 consecutive jp of one k) have the same
// degree as the product loads in every variant (1, 1, 2, 4, 16).
//
// Dispatch: 1024 workgroups of 256 (bslab: 64 * 4096 = 262144 words; cols,
// vals: 262144 rows * 16 = 4194304 words each; outc: 262144 * 64 = 16777216
// words; bound explicitly).

override CM: u32 = 0u;
override PK: u32 = 65u;

const NZ: u32 = 16u;
const KB: u32 = 64u;
const NV: u32 = 32u;
const RPW: u32 = 32u;
const NSLAB: u32 = 64u;

@group(0) @binding(0) var<storage, read> bslab: array<vec2<f32>>;
@group(0) @binding(1) var<storage, read> cols: array<u32>;
@group(0) @binding(2) var<storage, read> vals: array<f32>;
@group(0) @binding(3) var<storage, read_write> outc: array<vec2<f32>>;

var<workgroup> bs: array<vec2<f32>, 2176>;

fn hash(x: u32) -> u32 {
    var h = x;
    h ^= h >> 16u;
    h *= 0x7feb352du;
    h ^= h >> 15u;
    h *= 0x846ca68bu;
    h ^= h >> 16u;
    return h;
}

fn bidx(k: u32, jp: u32) -> u32 {
    if (CM == 1u) {
        return jp * PK + k;
    }
    return k * NV + jp;
}

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) t: u32,
        @builtin(workgroup_id) wg: vec3<u32>) {
    let slab = wg.x & (NSLAB - 1u);
    for (var it = 0u; it < 8u; it++) {
        let i = it * 256u + t;
        let g = slab * 2048u + i;
        let h = g * 2654435761u;
        bs[bidx(i >> 5u, i & 31u)] = bslab[g]
            + vec2<f32>(f32(h >> 24u), f32((h >> 16u) & 255u)) * (1.0 / 256.0) - 0.5;
    }
    workgroupBarrier();

    let w = t >> 5u;
    let l = t & 31u;
    for (var rr = 0u; rr < RPW; rr++) {
        let row = (wg.x * 8u + w) * RPW + rr;
        var acc = vec2<f32>(0.0);
        for (var e = 0u; e < NZ; e++) {
            let idx = row * NZ + e;
            let h = hash(idx);
            let k = (cols[idx] + h) & (KB - 1u);
            let v = vals[idx] + f32(h >> 24u) * (1.0 / 256.0);
            acc = fma(vec2<f32>(v), bs[bidx(k, l)], acc);
        }
        outc[row * NV + l] = acc;
    }
}
