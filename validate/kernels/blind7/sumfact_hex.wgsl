// Family sumfact_hex: the element operator of a spectral-element (hexahedral,
// order 7: 8 x 8 x 8 nodes) solver by sum factorisation: the 1-D
// differentiation matrix D (8 x 8) is applied along each of the three axes of
// the element and the three results are summed,
//   r(i,j,k) = sum_m D[i][m] u(m,j,k) + D[j][m] u(i,m,k) + D[k][m] u(i,j,m),
// f32, the element u and the result r kept in workgroup memory.
//
// What it computes: workgroup g, 128 invocations (4 warps), loops over 4 pairs
// of elements; per pair: invocation t works on element e = t >> 6 and line
// (a, b) = ((t & 63) >> 3, t & 7), so a warp holds 32 lines: a = 0..3 (or
// 4..7), b = 0..7.
//   copy-in:  the 1024 nodes of the pair, coalesced (u = uin + a hash of the
//             index), stored at U(e, i, j, k). Barrier.
//   i-sweep:  line (j, k) = (a, b): loads U(0..7, a, b), stores the 8 sums
//             into R(i, a, b). Barrier.
//   j-sweep:  line (i, k) = (a, b): loads U(a, 0..7, b), then R(a, j, b) +=.
//             Barrier.
//   k-sweep:  line (i, j) = (a, b): loads U(a, b, 0..7), then R(a, b, k) +=.
//             Barrier.
//   copy-out: uout = R, coalesced. Barrier.
// D comes from a uniform buffer (dm[2 i + m / 4][m % 4]).
//
// Layout of U and R (fixed 2048-word arrays each, 1024 words per element):
//   SWZ=1: (i, j, k) -> i*64 + (j>>2)*32 + 8*((i+j)&3) + (k ^ j)
//          (an 8-word group rotated by i + j, the word XOR-ed by j)
//   SWZ=0: (i, j, k) -> (i*8 + j)*PJ + k   (row pitch PJ >= 8, plane 8*PJ)
// The lanes of a request (l = 0..31: a = l >> 3 (+4 for the second warp of an
// element), b = l & 7):
//   i-sweep / copy: words j*PJ + k, j in 4 consecutive, k in 0..7
//   j-sweep:        words i*8*PJ + k, i in 4 consecutive, k in 0..7
//   k-sweep:        words i*8*PJ + j*PJ, i in 4 consecutive, j in 0..7
//   SWZ=1 (reference): every one of them hits 32 distinct banks: 1-way.
//   PJ=9:  i-sweep 2-way (9j + k wraps), j- and k-sweep 1-way: 2-way.
//   PJ=12: i-sweep 2-way, j- and k-sweep 4-way: 4-way.
//   PJ=8:  i-sweep 1-way, j-sweep 4-way, k-sweep 8-way: 8-way.
//   PJ=16: i-sweep 2-way, j-sweep 4-way, k-sweep 16-way: 16-way.
//
// Dispatch: 8192 workgroups of 128 (uin, uout: 8192 * 4 * 1024 = 33554432
// words each; dm: 64 words).

override SWZ: u32 = 1u;
override PJ: u32 = 8u;

const ES: u32 = 1024u;
const PAIRS: u32 = 4u;

@group(0) @binding(0) var<storage, read> uin: array<f32>;
@group(0) @binding(1) var<storage, read_write> uout: array<f32>;
@group(0) @binding(2) var<uniform> dm: array<vec4<f32>, 16>;

var<workgroup> su: array<f32, 2048>;
var<workgroup> sr: array<f32, 2048>;

fn ad(e: u32, i: u32, j: u32, k: u32) -> u32 {
    if (SWZ == 1u) {
        return e * ES + i * 64u + (j >> 2u) * 32u + (((i + j) & 3u) << 3u) + (k ^ j);
    }
    return e * ES + (i * 8u + j) * PJ + k;
}

fn gen(g: u32) -> f32 {
    let h = (g ^ (g >> 13u)) * 2654435761u;
    return f32(h >> 16u) * (1.0 / 65536.0);
}

@compute @workgroup_size(128)
fn main(@builtin(local_invocation_index) t: u32,
        @builtin(workgroup_id) wg: vec3<u32>) {
    let e = t >> 6u;
    let a = (t & 63u) >> 3u;
    let b = t & 7u;
    for (var p = 0u; p < PAIRS; p++) {
        let base = (wg.x * PAIRS + p) * 1024u;
        for (var it = 0u; it < 8u; it++) {
            let n = it * 128u + t;
            let li = n & 511u;
            let g = base + n;
            su[ad(n >> 9u, li >> 6u, (li >> 3u) & 7u, li & 7u)] = uin[g] + gen(g);
        }
        workgroupBarrier();
        {
            let lo = vec4<f32>(su[ad(e, 0u, a, b)], su[ad(e, 1u, a, b)],
                               su[ad(e, 2u, a, b)], su[ad(e, 3u, a, b)]);
            let hi = vec4<f32>(su[ad(e, 4u, a, b)], su[ad(e, 5u, a, b)],
                               su[ad(e, 6u, a, b)], su[ad(e, 7u, a, b)]);
            for (var i = 0u; i < 8u; i++) {
                sr[ad(e, i, a, b)] = dot(dm[2u * i], lo) + dot(dm[2u * i + 1u], hi);
            }
        }
        workgroupBarrier();
        {
            let lo = vec4<f32>(su[ad(e, a, 0u, b)], su[ad(e, a, 1u, b)],
                               su[ad(e, a, 2u, b)], su[ad(e, a, 3u, b)]);
            let hi = vec4<f32>(su[ad(e, a, 4u, b)], su[ad(e, a, 5u, b)],
                               su[ad(e, a, 6u, b)], su[ad(e, a, 7u, b)]);
            for (var j = 0u; j < 8u; j++) {
                let r = sr[ad(e, a, j, b)];
                sr[ad(e, a, j, b)] = r + dot(dm[2u * j], lo) + dot(dm[2u * j + 1u], hi);
            }
        }
        workgroupBarrier();
        {
            let lo = vec4<f32>(su[ad(e, a, b, 0u)], su[ad(e, a, b, 1u)],
                               su[ad(e, a, b, 2u)], su[ad(e, a, b, 3u)]);
            let hi = vec4<f32>(su[ad(e, a, b, 4u)], su[ad(e, a, b, 5u)],
                               su[ad(e, a, b, 6u)], su[ad(e, a, b, 7u)]);
            for (var k = 0u; k < 8u; k++) {
                let r = sr[ad(e, a, b, k)];
                sr[ad(e, a, b, k)] = r + dot(dm[2u * k], lo) + dot(dm[2u * k + 1u], hi);
            }
        }
        workgroupBarrier();
        for (var it = 0u; it < 8u; it++) {
            let n = it * 128u + t;
            let li = n & 511u;
            uout[base + n] = sr[ad(n >> 9u, li >> 6u, (li >> 3u) & 7u, li & 7u)];
        }
        workgroupBarrier();
    }
}
