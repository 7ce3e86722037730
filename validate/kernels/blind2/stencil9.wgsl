// Family 1: 2-D 9-point stencil (3x3 weighted average, one Jacobi step) on a tile
// staged in workgroup memory, halo included.
//
// The image is H x W f32, stored COLUMN-MAJOR in global memory (row index fastest,
// Fortran/BLAS order: element (r, c) at c * H + r).  A workgroup of 256 invocations
// (8 warps of 32) computes a 32 x 32 output tile.  It stages the 34 x 34 input tile
// (1-cell halo, clamped at the image border) in workgroup memory, ROW-MAJOR:
// tile[sr * P + sc].  Lanes of a warp walk down a column (lane = tile row), which
// keeps every global load and store coalesced, so each shared access of a warp
// touches 32 consecutive tile rows of one column: addresses lane * P + const.
//   staging: warp w stores columns w, w+8, ..., (< 34), lane = row 0..31; lanes 0,1
//            also store rows 32, 33;
//   compute: warp w computes output columns w, w+8, w+16, w+24; for each, 9 loads
//            tile[(lane + dy) * P + c + dx], dy, dx in 0..2.
//
// Override P = row pitch of the staged tile in 4-byte words (>= 34).
// Bank of lane l = (l * P + const) mod 32 -> the 32 lanes hit 32 / gcd(P, 32)
// distinct banks, gcd(P, 32) distinct words each:
//   P = 35 : conflict-free (reference; odd pitch)
//   P = 34 : 2-way
//   P = 36 : 4-way
//   P = 40 : 8-way
//   P = 48 : 16-way
// (the 2-lane halo-row stores are conflict-free for all of these).
// Workgroup memory: 34 * P * 4 bytes (6.5 KiB at P = 48).
//
// Dispatch: 128 x 128 workgroups -> H = 32 * 128 = 4096 rows, W = 4096 columns
// (H = 32 * num_workgroups.x, W = 32 * num_workgroups.y).
// Buffers: 0.0 input and 0.1 output, 4096 * 4096 = 16777216 words each.

override P: u32 = 35u;

const TILE: u32 = 32u;
const TH: u32 = 34u;

@group(0) @binding(0) var<storage, read> src: array<f32>;
@group(0) @binding(1) var<storage, read_write> dst: array<f32>;

var<workgroup> tile: array<f32, 34u * P>;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wg: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) t: u32) {
    let H = TILE * nwg.x;
    let W = TILE * nwg.y;
    let r0 = wg.x * TILE;
    let c0 = wg.y * TILE;
    let lane = t & 31u;
    let w = t >> 5u;

    // Stage the 34 x 34 tile (tile row sr <-> global row r0 + sr - 1, same for columns).
    let gr_a = u32(clamp(i32(r0 + lane) - 1, 0, i32(H) - 1));
    let gr_b = min(r0 + 31u + lane, H - 1u);
    for (var k = 0u; k < 5u; k++) {
        let c = w + 8u * k;
        if (c < TH) {
            let gc = u32(clamp(i32(c0 + c) - 1, 0, i32(W) - 1));
            tile[lane * P + c] = src[gc * H + gr_a];
            if (lane < 2u) {
                tile[(32u + lane) * P + c] = src[gc * H + gr_b];
            }
        }
    }
    workgroupBarrier();

    for (var j = 0u; j < 4u; j++) {
        let c = w + 8u * j;
        var acc = 0.0;
        for (var dy = 0u; dy < 3u; dy++) {
            let row = (lane + dy) * P + c;
            let wy = select(0.125, 0.25, dy == 1u);
            acc += wy * (0.5 * tile[row] + tile[row + 1u] + 0.5 * tile[row + 2u]);
        }
        dst[(c0 + c) * H + r0 + lane] = acc * 0.5;
    }
}
