// Family matvec_struct: a row-wise matrix-vector product y = A x, A of
// (2048 * 128) rows x K = 128 columns, stored in global memory as an array of
// small structs P { a, b, c, d } (four consecutive row elements per struct,
// K / 4 = 32 structs per row) that are read field by field.
//
// What it computes: workgroup g owns rows g*128 .. g*128+127, one per
// invocation. For each of the K / 32 = 4 column tiles it stages the 128 x 32
// sub-matrix in workgroup memory: invocation t copies structs q = it*128 + t
// (it = 0..7; tile row q >> 3, struct column q & 7) reading P.a, P.b, P.c, P.d as
// four 4-byte global loads, adds a value generated from (row, column) (so the
// zero-filled matrix is not trivial), and stores the four floats as scalars at
// tile[row][4 (q & 7) + f]. After a barrier, invocation t walks its own row,
// column by column (c = 0..31), accumulating tile[t][c] * x[c] with x generated
// in code; a barrier ends the tile. y[row] goes to out[global id].
// (banksim capture records the four field loads of one struct as a single
// 16-byte gld; the source reads them as four separate field accesses.)
//
// Layout: tile row stride 32 + PAD words, in a fixed 128 x 40-word array
// (20 KiB) in every variant. The column-wise loads put lane l at word
// l * (32 + PAD) + c; the staging stores put the 32 lanes of a warp on 4 rows x
// 8 structs (word row * (32 + PAD) + 4 s + f).
//   PAD=1 (reference): loads: lane stride 33: 1-way; stores: bank row + 4s + f
//       distinct for the 4 x 8 lanes: 1-way.
//   PAD=0: loads: lane stride 32: 32-way; stores: 4-way (4 rows on one bank).
//   PAD=2: loads: stride 34: 2-way; stores 2-way.
//   PAD=4: loads: stride 36: 4-way; stores 4-way.
//   PAD=8: loads: stride 40: 8-way; stores 4-way.
//
// Dispatch: 2048 workgroups of 128 (mat: 2048*128*128 = 33554432 words, bound
// explicitly; out: one f32 per invocation, the default).

override PAD: u32 = 1u;

struct P {
    a: f32,
    b: f32,
    c: f32,
    d: f32,
}

const WG: u32 = 128u;
const K: u32 = 128u;
const TC: u32 = 32u;

@group(0) @binding(0) var<storage, read> mat: array<P>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;

var<workgroup> tile: array<f32, 5120>;

fn gen(row: u32, col: u32) -> f32 {
    return f32((row * 7u + col * 13u) & 31u) * (1.0 / 32.0) - 0.5;
}

@compute @workgroup_size(128)
fn main(@builtin(local_invocation_index) t: u32,
        @builtin(workgroup_id) wg: vec3<u32>) {
    let stride = TC + PAD;
    let row0 = wg.x * WG;
    var acc = 0.0;
    for (var kt = 0u; kt < K / TC; kt++) {
        for (var it = 0u; it < (WG * TC / 4u) / WG; it++) {
            let q = it * WG + t;
            let r = q >> 3u;
            let s = q & 7u;
            let col = kt * TC + 4u * s;
            let gi = (row0 + r) * (K / 4u) + kt * (TC / 4u) + s;
            let fa = mat[gi].a;
            let fb = mat[gi].b;
            let fc = mat[gi].c;
            let fd = mat[gi].d;
            let base = r * stride + 4u * s;
            tile[base] = fa + gen(row0 + r, col);
            tile[base + 1u] = fb + gen(row0 + r, col + 1u);
            tile[base + 2u] = fc + gen(row0 + r, col + 2u);
            tile[base + 3u] = fd + gen(row0 + r, col + 3u);
        }
        workgroupBarrier();
        for (var c = 0u; c < TC; c++) {
            let xc = 1.0 + f32((kt * TC + c) & 7u) * 0.125;
            acc = fma(tile[t * stride + c], xc, acc);
        }
        workgroupBarrier();
    }
    out[row0 + t] = acc;
}
