// Family 8: 2-D inclusive prefix sum (summed-area table / integral image) of 64 x 64
// tiles: S[r][c] = sum of in[r'][c'] over r' <= r, c' <= c, within each tile.
//
// A workgroup of 256 invocations (8 warps) stages a 64 x 64 f32 tile of a
// row-major image in workgroup memory with an XOR-swizzled column:
//     s[r * 64 + (c ^ (r & SWZ))]      (SWZ < 32: only the low 5 bits of c change)
// then scans it in two passes, each a two-level (segmented) scan:
//   row pass:    invocation t scans row r = t mod 64, columns 16 g .. 16 g + 15
//                (g = t / 64) sequentially (16 loads + 16 stores), writes the
//                segment total to seg[g][r], barrier, adds the sum of the earlier
//                segments of its row (16 loads + 16 stores).  A warp holds 32
//                consecutive rows at one column: bank = c ^ (r & SWZ) (mod 32);
//   column pass: the same with the roles of r and c exchanged (invocation t scans
//                column t mod 64, rows 16 g ..): a warp holds 32 consecutive
//                columns of one row: always conflict-free;
//   staging (coalesced load) and write-back (coalesced store): a warp touches 32
//                consecutive columns of one row: conflict-free.
//
// Override SWZ = XOR-swizzle mask (2^k - 1).  In the row pass the 32 lanes hit
// SWZ + 1 distinct banks, 32 / (SWZ + 1) words each:
//   SWZ = 31 : conflict-free (reference: full XOR swizzle)
//   SWZ = 15 : 2-way
//   SWZ = 7  : 4-way
//   SWZ = 3  : 8-way
//   SWZ = 0  : 32-way (plain row-major tile)
// Workgroup memory: 16384 + 1024 bytes (17 KiB) in every variant.
//
// Dispatch: 64 x 64 workgroups -> a 4096 x 4096 image (width = 64 * num_workgroups.x).
// Buffers: 0.0 input and 0.1 output, 16777216 words each.

override SWZ: u32 = 31u;

const T: u32 = 64u;

@group(0) @binding(0) var<storage, read> img: array<f32>;
@group(0) @binding(1) var<storage, read_write> sat: array<f32>;

var<workgroup> s: array<f32, 4096>;
var<workgroup> seg: array<f32, 256>;

fn at(r: u32, c: u32) -> u32 {
    return r * T + (c ^ (r & SWZ));
}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wg: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) t: u32) {
    let W = T * nwg.x;
    let gbase = (wg.y * T) * W + wg.x * T;

    for (var q = 0u; q < 16u; q++) {
        let idx = t + 256u * q;
        let r = idx >> 6u;
        let c = idx & 63u;
        s[at(r, c)] = img[gbase + r * W + c];
    }
    workgroupBarrier();

    let me = t & 63u;     // my row (row pass) or column (column pass)
    let g = t >> 6u;      // my 16-wide segment
    let first = 16u * g;

    // Row pass.
    var run = 0.0;
    for (var m = 0u; m < 16u; m++) {
        let a = at(me, first + m);
        run += s[a];
        s[a] = run;
    }
    seg[g * T + me] = run;
    workgroupBarrier();
    var off = 0.0;
    for (var h = 0u; h < 3u; h++) {
        off += select(0.0, seg[h * T + me], h < g);
    }
    for (var m = 0u; m < 16u; m++) {
        let a = at(me, first + m);
        s[a] += off;
    }
    workgroupBarrier();

    // Column pass.
    run = 0.0;
    for (var m = 0u; m < 16u; m++) {
        let a = at(first + m, me);
        run += s[a];
        s[a] = run;
    }
    seg[g * T + me] = run;
    workgroupBarrier();
    off = 0.0;
    for (var h = 0u; h < 3u; h++) {
        off += select(0.0, seg[h * T + me], h < g);
    }
    for (var m = 0u; m < 16u; m++) {
        let a = at(first + m, me);
        s[a] += off;
    }
    workgroupBarrier();

    for (var q = 0u; q < 16u; q++) {
        let idx = t + 256u * q;
        let r = idx >> 6u;
        let c = idx & 63u;
        sat[gbase + r * W + c] = s[at(r, c)];
    }
}
