// Family sw_align: Smith-Waterman local alignment with affine gaps, one pair of
// DNA sequences per invocation (inter-task parallelism, as for many short
// reads), query 48 bases, target 64 bases, the DP column state of each
// invocation (previous row's H and the vertical-gap score E for each of the 48
// query positions, packed as two 16-bit halves of a u32) kept in workgroup
// memory.
//
// What it computes: workgroup g, 128 invocations (4 warps), aligns pairs
// p = g * 128 + t. Invocation t reads its query (3 words of 16 2-bit bases) and
// target (4 words) from interleaved arrays (word w of pair p at w * 65536 + p,
// coalesced; XORed with a hash of the index so the zero-filled input is random)
// and clears its 48 cells C(t, j). Then for each target base i = 0..63 it
// sweeps j = 0..47: load C(t, j) (H of row i - 1 and E), E = max(E - 1,
// H - 3), F = max(F - 1, H_left - 3), H = max(0, H_diag + (2 on a match, -1
// otherwise), E, F), store C(t, j) = H | E << 16 (one 4-byte load and one
// 4-byte store per cell, 3072 each per invocation), keeping the best H. The
// best score goes to best_out. No barriers: every invocation owns its cells.
//
// Layout of the cells (a fixed 7168-word array, 28 KiB, in every variant):
//   INTER=1: C(t, j) = j * 128 + t     (interleaved by invocation)
//   INTER=0: C(t, j) = t * S + j       (one row of S >= 48 words per invocation)
// Every cell access puts the 32 lanes of a warp on 32 consecutive invocations
// at one j: bank (t * S + j) mod 32, 32 / gcd(S, 32) distinct banks:
//   INTER=1 (reference): consecutive words: 1-way.
//   S=49: 1-way.   S=50: 2-way.   S=56: 8-way.   S=48 (unpadded): 16-way.
// (Loads and stores alike.)
//
// Dispatch: 512 workgroups of 128 (qry: 3 * 65536 = 196608 words; tgt:
// 4 * 65536 = 262144 words; best_out: 65536 words; bound explicitly).

override INTER: u32 = 1u;
override S: u32 = 48u;

const WG: u32 = 128u;
const QL: u32 = 48u;
const TL: u32 = 64u;
const NP: u32 = 65536u;
const OPEN: i32 = 3;
const EXT: i32 = 1;

@group(0) @binding(0) var<storage, read> qry: array<u32>;
@group(0) @binding(1) var<storage, read> tgt: array<u32>;
@group(0) @binding(2) var<storage, read_write> best_out: array<u32>;

var<workgroup> cells: array<u32, 7168>;

fn hash(x: u32) -> u32 {
    var h = x;
    h ^= h >> 16u;
    h *= 0x7feb352du;
    h ^= h >> 15u;
    h *= 0x846ca68bu;
    h ^= h >> 16u;
    return h;
}

fn cidx(t: u32, j: u32) -> u32 {
    if (INTER == 1u) {
        return j * WG + t;
    }
    return t * S + j;
}

@compute @workgroup_size(128)
fn main(@builtin(local_invocation_index) t: u32,
        @builtin(workgroup_id) wg: vec3<u32>) {
    let p = wg.x * WG + t;
    let q = vec3<u32>(qry[p] ^ hash(p), qry[NP + p] ^ hash(NP + p),
                      qry[2u * NP + p] ^ hash(2u * NP + p));
    for (var j = 0u; j < QL; j++) {
        cells[cidx(t, j)] = 0u;
    }

    var best = 0;
    var tw = 0u;
    for (var i = 0u; i < TL; i++) {
        if ((i & 15u) == 0u) {
            let gi = (i >> 4u) * NP + p;
            tw = tgt[gi] ^ hash(gi ^ 0x68e31da4u);
        }
        let tb = (tw >> (2u * (i & 15u))) & 3u;
        var diag = 0;
        var hleft = 0;
        var f = 0;
        for (var jb = 0u; jb < 3u; jb++) {
            let qw = q[jb];
            for (var jj = 0u; jj < 16u; jj++) {
                let j = jb * 16u + jj;
                let cell = cells[cidx(t, j)];
                let hup = i32(cell & 0xffffu);
                let e = max(max(i32(cell >> 16u) - EXT, hup - OPEN), 0);
                f = max(max(f - EXT, hleft - OPEN), 0);
                let sc = select(-1, 2, ((qw >> (2u * jj)) & 3u) == tb);
                let h = max(max(diag + sc, 0), max(e, f));
                cells[cidx(t, j)] = u32(h) | (u32(e) << 16u);
                diag = hup;
                hleft = h;
                best = max(best, h);
            }
        }
    }
    best_out[p] = u32(best);
}
