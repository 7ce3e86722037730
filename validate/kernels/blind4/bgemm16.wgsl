// Family bgemm16: a batched product of small matrices, C = A B^T for 32768
// independent 16 x 16 f32 matrices (row-major A, B, C), one matrix per round in
// workgroup memory.
//
// What it computes: workgroup g, 256 invocations (8 warps), computes matrices
// g*8 .. g*8+7 in 8 rounds. In a round invocation t loads A[t] and B[t] (one
// coalesced word each, plus a value generated from the index so the zero-filled
// input is not trivial), stores A at as[t] and B at B(j', k') (j' = t / 16,
// k' = t % 16). Barrier. Invocation (i, j) = (t / 16, t % 16) computes
// C[i][j] = sum over k of as[i * 16 + k] * B(j, k) (16 iterations, two workgroup
// loads each) and writes it to c. Barrier.
//
// Layout of B in workgroup memory (a fixed 512-word array in every variant):
//   TR=1: B(j, k) = bs[k * 17 + j]   (transposed while staging, padded pitch)
//   TR=0: B(j, k) = bs[j * BS + k]   (as given, row pitch BS >= 16 words)
// A warp holds two rows i of C and all 16 columns j. The A loads are 2 distinct
// words 16 apart (1 wavefront). The B loads are 16 distinct words (two lanes
// each), one per column j:
//   TR=1 (reference): consecutive words: 1-way.
//   TR=0 BS=20: banks 20j mod 32 (8 distinct): 2-way.
//   BS=24: banks 24j mod 32 (4 distinct): 4-way.
//   BS=16: banks 16j mod 32 (2 distinct): 8-way.
//   BS=32: one bank: 16-way.
// The B staging stores (one per round) are at most 2-way in every variant; A
// stores are 1-way.
// (With TR=0 a driver may merge the 4-byte B loads of consecutive k into 16-byte
// loads, as BS is a multiple of 4 in every TR=0 variant: per quarter-warp that
// would be BS=20: 1-way, 24: 2-way, 16: 4-way, 32: 8-way. The degrees above are
// for the 4-byte loads as written.)
//
// Dispatch: 4096 workgroups of 256 (a, b, c: 32768 * 256 = 8388608 words each,
// bound explicitly).

override TR: u32 = 1u;
override BS: u32 = 20u;

const ROUNDS: u32 = 8u;

@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>;

var<workgroup> as_: array<f32, 256>;
var<workgroup> bs: array<f32, 512>;

fn bidx(j: u32, k: u32) -> u32 {
    if (TR == 1u) {
        return k * 17u + j;
    }
    return j * BS + k;
}

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) t: u32,
        @builtin(workgroup_id) wg: vec3<u32>) {
    let i = t >> 4u;
    let j = t & 15u;
    for (var m = 0u; m < ROUNDS; m++) {
        let g = (wg.x * ROUNDS + m) * 256u + t;
        as_[t] = a[g] + f32((g * 2654435761u) >> 26u) * (1.0 / 64.0);
        bs[bidx(i, j)] = b[g] + f32(((g ^ 0x5bd1e995u) * 2246822519u) >> 26u) * (1.0 / 64.0);
        workgroupBarrier();
        var acc = 0.0;
        for (var kk = 0u; kk < 16u; kk++) {
            acc = fma(as_[i * 16u + kk], bs[bidx(j, kk)], acc);
        }
        c[g] = acc;
        workgroupBarrier();
    }
}
