// Family 7: sparse matrix - dense vector product y = A x, row by row (scalar
// CSR-style: one invocation per row, fixed 9 nonzeros per row), batched over many
// right-hand sides with one matrix.
//
// The 4096 x 4096 sparse matrix couples unknowns of a 64 x 64 grid.  Rows are
// numbered column-major over the grid (row r <-> grid point (i, j) = (r mod 64,
// r / 64)), the vector x row-major (grid point (i, j) <-> x[i * 64 + j]): a matrix
// assembled in one ordering applied to a vector in the other.  Row r has 9
// nonzeros, k = 0..8, with column indices computed in code in place of a col_idx
// array (zero buffers would make them trivial):
//     ii = (i + k mod 3 - 1) mod 64                       (neighbour in i)
//     jj = (j * 7919 + k * 104729) mod 64                 (pseudo-random j coupling)
//     col = ii * 64 + jj
// and its values in global memory, one 9-wide slice per row stored nonzero-major
// (vals[k * 4096 + r], the ELLPACK order of a fixed-length CSR, coalesced).
// Each workgroup (256 invocations) multiplies A by one right-hand side: it stages
// that 4096-word x in workgroup memory as a 64 x 64 array with padded rows,
//     x_s[ii * (64 + PAD) + jj]
// (staging: flat coalesced copy, a warp stores 32 consecutive words of one row:
// conflict-free), then invocation t computes rows r = t + 256 m, m = 0..15.  The
// 32 lanes of a warp take consecutive i with the same j, so each of the 9 x loads
// of a warp reads one column of x_s: addresses lane * (64 + PAD) + const.
//
// Override PAD = row padding of the staged x in words (pitch 64 + PAD; the column
// reads hit gcd(64 + PAD, 32) words per bank):
//   PAD = 1 : conflict-free (reference)
//   PAD = 2 : 2-way
//   PAD = 4 : 4-way
//   PAD = 8 : 8-way
//   PAD = 0 : 32-way (unpadded)
// Workgroup memory: 64 * (64 + PAD) * 4 bytes (at most 18 KiB).
//
// Dispatch: 2048 workgroups (2048 right-hand sides).
// Buffers: 0.0 values 9 * 4096 = 36864 words, 0.1 x and 0.2 y 2048 * 4096 = 8388608
// words each.

override PAD: u32 = 1u;

const G: u32 = 64u;
const NROWS: u32 = 4096u;
const NNZ: u32 = 9u;

@group(0) @binding(0) var<storage, read> vals: array<f32>;
@group(0) @binding(1) var<storage, read> xv: array<f32>;
@group(0) @binding(2) var<storage, read_write> yv: array<f32>;

var<workgroup> x_s: array<f32, 64u * (64u + PAD)>;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wg: vec3<u32>,
        @builtin(local_invocation_index) t: u32) {
    let P = G + PAD;
    let vbase = wg.x * NROWS;

    for (var q = 0u; q < 16u; q++) {
        let idx = t + 256u * q;
        x_s[(idx >> 6u) * P + (idx & 63u)] = xv[vbase + idx];
    }
    workgroupBarrier();

    for (var m = 0u; m < 16u; m++) {
        let r = t + 256u * m;
        let i = r & 63u;
        let j = r >> 6u;
        var sum = 0.0;
        for (var k = 0u; k < NNZ; k++) {
            let ii = (i + 63u + k % 3u) & 63u;
            let jj = (j * 7919u + k * 104729u) & 63u;
            sum = fma(vals[k * NROWS + r], x_s[ii * P + jj], sum);
        }
        yv[vbase + r] = sum;
    }
}
