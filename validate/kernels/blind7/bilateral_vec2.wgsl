// Family bilateral_vec2: a 5 x 5 bilateral (edge-preserving) smoothing of a
// 2-channel f32 field (an optical-flow field, vec2 = (u, v)): each output is
// the average of its 25 neighbours weighted by exp(-|f(q) - f(p)|^2 / 2 sr^2
// - |q - p|^2 / 2 ss^2). The input tile with a 2-pixel halo is staged in
// workgroup memory as vec2<f32> (8-byte accesses). Compute-heavy (25 exp per
// pixel).
//
// What it computes: field of 4096 rows x 2048 columns (vec2). Workgroup (gx, gy), 256
// invocations (8 warps), filters the two 8 x 32 output tiles (gx, 2 gy + m),
// m = 0, 1. Per tile:
//   stage:  the 12 x 36 input tile (clamped at the border, plus a hash so the
//           zero input is not trivial): row = it * 16 + (t >> 4), column t & 15
//           (columns 12..15 idle), it = 0..2, stored at T(row, col): a
//           half-warp stores one row. Barrier.
//   filter: invocation t = 32 w + l computes pixel x = 2 (w & 3) + (l & 1),
//           y = 16 (w >> 2) + (l >> 1): loads T(y + dy, x + dx), dy, dx = 0..4
//           (the main accesses), writes out (vec2). Barrier.
// A warp covers a 2-wide, 16-tall strip: each 8-byte request is served as two
// half-warps, each 8 rows x 2 vec2 (4 words) at word offsets 2 P r (mod 32).
//
// Layout of the tile (a fixed 864-vec2 array in every variant):
//   T(r, c) = r * P + c      (row pitch P >= 12 vec2)
//   P=14 (reference, halo width 12 padded to 14): offsets 28 r mod 32: eight
//        disjoint 4-bank groups: 1-way.
//   P=18: offsets 4 r: 1-way.
//   P=12 (unpadded): offsets 24 r: rows r and r + 4 meet: 2-way.
//   P=24: offsets 16 r: 4-way.
//   P=16: offsets 0: 8-way.
// The staging stores (a half-warp = 12 consecutive vec2 of one row) are 1-way
// in every variant.
//
// Dispatch: 256 x 64 workgroups of 256 (fin, fout: 4096 * 2048 vec2 =
// 16777216 words each).

override P: u32 = 14u;

const W: u32 = 2048u;
const H: u32 = 4096u;
const TILES: u32 = 2u;

@group(0) @binding(0) var<storage, read> fin: array<vec2<f32>>;
@group(0) @binding(1) var<storage, read_write> fout: array<vec2<f32>>;

var<workgroup> T: array<vec2<f32>, 864>;

fn hsh(g: u32) -> vec2<f32> {
    let a = (g ^ (g >> 15u)) * 2246822519u;
    return vec2<f32>(f32(a & 0xffffu), f32(a >> 16u)) * (1.0 / 65536.0) - 0.5;
}

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) t: u32,
        @builtin(workgroup_id) wg: vec3<u32>) {
    let w = t >> 5u;
    let l = t & 31u;
    let x = 2u * (w & 3u) + (l & 1u);
    let y = 16u * (w >> 2u) + (l >> 1u);
    let ox = wg.x * 8u;
    let inv2sr2 = 1.0 / (2.0 * 0.04);
    let inv2ss2 = 1.0 / (2.0 * 2.25);
    for (var m = 0u; m < TILES; m++) {
        let oy = (wg.y * TILES + m) * 32u;
        for (var it = 0u; it < 3u; it++) {
            let row = it * 16u + (t >> 4u);
            let c = t & 15u;
            if (c < 12u && row < 36u) {
                let gx = u32(clamp(i32(ox + c) - 2, 0, i32(W) - 1));
                let gy = u32(clamp(i32(oy + row) - 2, 0, i32(H) - 1));
                let g = gy * W + gx;
                T[row * P + c] = fin[g] + hsh(g);
            }
        }
        workgroupBarrier();
        let f0 = T[(y + 2u) * P + x + 2u];
        var acc = vec2<f32>(0.0);
        var ws = 0.0;
        for (var dy = 0u; dy < 5u; dy++) {
            let sy = f32(dy) - 2.0;
            for (var dx = 0u; dx < 5u; dx++) {
                let f = T[(y + dy) * P + x + dx];
                let sx = f32(dx) - 2.0;
                let d = f - f0;
                let wt = exp(-dot(d, d) * inv2sr2 - (sx * sx + sy * sy) * inv2ss2);
                acc = fma(vec2<f32>(wt), f, acc);
                ws += wt;
            }
        }
        fout[(oy + y) * W + ox + x] = acc / ws;
        workgroupBarrier();
    }
}
