// Family median3x3: a 3 x 3 median filter (salt-and-pepper denoising) of a
// 4096 x 4096 8-bit image held as u32, by Paeth's 19-exchange median-of-9
// sorting network, a 16 x 16 output tile at a time from an 18 x 18 tile (with a
// one-pixel halo, clamped at the image edge) in workgroup memory.
//
// What it computes: workgroup (gx, gy), 256 invocations (8 warps), filters the
// four tiles (gx, 4 gy + m), m = 0..3. Per tile: invocations stage the 324
// halo-tile pixels (item e = t and t + 256 when < 324: row e / 18, column
// e % 18, a value generated from the index added so the zero-filled input is
// not trivial, masked to 8 bits) at T(row, col). Barrier. Each invocation
// loads its 9 neighbours T(y + dy, x + dx), dy, dx = 0..2 (the main accesses,
// 4-byte loads), runs the sorting network and stores the median to out.
// Barrier. Invocation t = 32 w + l computes output pixel
//   x = 4 (w & 3) + (l & 3),  y = 8 (w >> 2) + (l >> 2)
// so a warp covers a 4-wide, 8-tall block of the tile.
//
// Layout of the tile (a fixed 648-word u32 array in every variant):
//   T(y, x) = y * P + x       (row pitch P words, P >= 18)
// A main load of a warp reads 8 rows of 4 consecutive words: row r (0..7) at
// word offset r * P + const (mod 32), each row covering 4 consecutive banks.
// The degree is the most rows that share a bank:
//   P=20 (reference, padded 18 -> 20): offsets 0,20,8,28,16,4,24,12: eight
//        disjoint 4-bank groups: 1-way.
//   P=36: offsets 4r: 1-way.
//   P=18: offsets 0,18,4,22,8,26,12,30: the last row wraps onto banks 0,1 of
//        the first: 2-way.
//   P=33: offsets r, 4-wide: banks 3..7 hit by four rows: 4-way.
//   P=32: every row on the same 4 banks: 8-way.
// The staging stores (lanes on consecutive items, a row break inside a warp)
// are 1- or 2-way, a small share of the accesses.
//
// Dispatch: 256 x 64 workgroups of 256 (img and out: 4096 * 4096 = 16777216
// words each).

override P: u32 = 20u;

const W: u32 = 4096u;
const TILES: u32 = 4u;

@group(0) @binding(0) var<storage, read> img: array<u32>;
@group(0) @binding(1) var<storage, read_write> outp: array<u32>;

var<workgroup> tile: array<u32, 648>;

fn gen(i: u32) -> u32 {
    let h = (i ^ (i >> 15u)) * 2246822519u;
    return h >> 24u;
}

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) t: u32,
        @builtin(workgroup_id) wg: vec3<u32>) {
    let w = t >> 5u;
    let l = t & 31u;
    let x = (w & 3u) * 4u + (l & 3u);
    let y = (w >> 2u) * 8u + (l >> 2u);
    let ox = wg.x * 16u;
    for (var m = 0u; m < TILES; m++) {
        let oy = (wg.y * TILES + m) * 16u;
        for (var r = 0u; r < 2u; r++) {
            let e = r * 256u + t;
            if (e < 324u) {
                let ty = e / 18u;
                let tx = e % 18u;
                let gx = u32(clamp(i32(ox + tx) - 1, 0, i32(W) - 1));
                let gy = u32(clamp(i32(oy + ty) - 1, 0, i32(W) - 1));
                let g = gy * W + gx;
                tile[ty * P + tx] = (img[g] + gen(g)) & 255u;
            }
        }
        workgroupBarrier();
        {
            var p0 = tile[(y + 0u) * P + x + 0u];
            var p1 = tile[(y + 0u) * P + x + 1u];
            var p2 = tile[(y + 0u) * P + x + 2u];
            var p3 = tile[(y + 1u) * P + x + 0u];
            var p4 = tile[(y + 1u) * P + x + 1u];
            var p5 = tile[(y + 1u) * P + x + 2u];
            var p6 = tile[(y + 2u) * P + x + 0u];
            var p7 = tile[(y + 2u) * P + x + 1u];
            var p8 = tile[(y + 2u) * P + x + 2u];
            { let lo = min(p1, p2); p2 = max(p1, p2); p1 = lo; }
            { let lo = min(p4, p5); p5 = max(p4, p5); p4 = lo; }
            { let lo = min(p7, p8); p8 = max(p7, p8); p7 = lo; }
            { let lo = min(p0, p1); p1 = max(p0, p1); p0 = lo; }
            { let lo = min(p3, p4); p4 = max(p3, p4); p3 = lo; }
            { let lo = min(p6, p7); p7 = max(p6, p7); p6 = lo; }
            { let lo = min(p1, p2); p2 = max(p1, p2); p1 = lo; }
            { let lo = min(p4, p5); p5 = max(p4, p5); p4 = lo; }
            { let lo = min(p7, p8); p8 = max(p7, p8); p7 = lo; }
            { let lo = min(p0, p3); p3 = max(p0, p3); p0 = lo; }
            { let lo = min(p5, p8); p8 = max(p5, p8); p5 = lo; }
            { let lo = min(p4, p7); p7 = max(p4, p7); p4 = lo; }
            { let lo = min(p3, p6); p6 = max(p3, p6); p3 = lo; }
            { let lo = min(p1, p4); p4 = max(p1, p4); p1 = lo; }
            { let lo = min(p2, p5); p5 = max(p2, p5); p2 = lo; }
            { let lo = min(p4, p7); p7 = max(p4, p7); p4 = lo; }
            { let lo = min(p4, p2); p2 = max(p4, p2); p4 = lo; }
            { let lo = min(p6, p4); p4 = max(p6, p4); p6 = lo; }
            { let lo = min(p4, p2); p2 = max(p4, p2); p4 = lo; }
            outp[(oy + y) * W + ox + x] = p4;
        }
        workgroupBarrier();
    }
}
