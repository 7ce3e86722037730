// Family trsm_pivot: a batched forward substitution with row pivoting, the
// triangular-solve step of an LU solve: for 262144 right-hand sides b of length
// 32 it solves L y = P b in place, with one 32 x 32 lower-triangular L (its
// diagonal stored as reciprocals) and a row permutation P shared by all.
//
// What it computes: workgroup g, 128 invocations (4 warps), owns right-hand
// sides g*128 .. g*128+127 (invocation t = rhs t). It generates L (lower part
// from a hash, small; diagonal 1 / (2 + (i & 3))) in ls[i * 32 + j] and the
// permutation piv[i] = (13 i + 7) & 31, and stages its 128 right-hand sides
// (each a contiguous 32-float column of bin, + a value generated from the index)
// at X(r, i). Barrier. Invocation t then runs, for i = 0..31:
//     acc = X(t, piv[i]); for j < i: acc -= ls[i*32 + j] * X(t, piv[j]);
//     X(t, piv[i]) = acc * ls[i*33]
// (528 inner iterations: one X load each, plus the L and piv words, the same for
// every lane: broadcasts). The solution is written back to xout coalesced.
// (The pivot makes every X address unknown to the compiler, so the solved
// values are reloaded from workgroup memory, as written.)
//
// Layout of X (a fixed 5120-word array in every variant):
//   COL=1: X(r, i) = x[r * S + i]     (each rhs contiguous, pitch S >= 32)
//   COL=0: X(r, i) = x[i * 129 + r]   (row-major: one equation's 128 rhs in a row)
// The solve's X loads and stores put the 32 lanes on 32 right-hand sides at one
// equation:
//   COL=1 S=33 (reference): bank (33 l + i) mod 32: 1-way.
//   COL=0: consecutive words: 1-way.
//   S=34: 2-way.   S=40: 8-way.   S=32: 32-way.
// Staging and write-back: a warp touches one rhs's 32 equations (COL=1:
// consecutive words; COL=0: pitch 129): 1-way in every variant.
//
// Dispatch: 2048 workgroups of 128 (bin, xout: 2048 * 128 * 32 = 8388608 words
// each, bound explicitly).

override COL: u32 = 1u;
override S: u32 = 33u;

const N: u32 = 32u;
const WG: u32 = 128u;

@group(0) @binding(0) var<storage, read> bin: array<f32>;
@group(0) @binding(1) var<storage, read_write> xout: array<f32>;

var<workgroup> x: array<f32, 5120>;
var<workgroup> ls: array<f32, 1024>;
var<workgroup> piv: array<u32, 32>;

fn hash(v: u32) -> u32 {
    var h = v;
    h ^= h >> 16u;
    h *= 0x7feb352du;
    h ^= h >> 15u;
    h *= 0x846ca68bu;
    h ^= h >> 16u;
    return h;
}

fn xi(r: u32, i: u32) -> u32 {
    if (COL == 1u) {
        return r * S + i;
    }
    return i * 129u + r;
}

@compute @workgroup_size(128)
fn main(@builtin(local_invocation_index) t: u32,
        @builtin(workgroup_id) wg: vec3<u32>) {
    for (var k = 0u; k < N * N / WG; k++) {
        let e = k * WG + t;
        let i = e >> 5u;
        let j = e & 31u;
        var v = 0.0;
        if (j < i) {
            v = (f32(hash(e) & 255u) - 128.0) * (1.0 / 4096.0);
        } else if (j == i) {
            v = 1.0 / (2.0 + f32(i & 3u));
        }
        ls[e] = v;
    }
    if (t < N) {
        piv[t] = (t * 13u + 7u) & 31u;
    }
    let base = wg.x * WG * N;
    for (var k = 0u; k < N; k++) {
        let e = k * WG + t;
        x[xi(e >> 5u, e & 31u)] = bin[base + e] + f32((base + e) & 63u) * (1.0 / 64.0);
    }
    workgroupBarrier();

    for (var i = 0u; i < N; i++) {
        let pi = piv[i];
        var acc = x[xi(t, pi)];
        for (var j = 0u; j < i; j++) {
            acc -= ls[i * N + j] * x[xi(t, piv[j])];
        }
        x[xi(t, pi)] = acc * ls[i * (N + 1u)];
    }
    workgroupBarrier();

    for (var k = 0u; k < N; k++) {
        let e = k * WG + t;
        xout[base + e] = x[xi(e >> 5u, e & 31u)];
    }
}
