// Family harris: the Harris corner response of a 4096 x 4096 f32 image: image
// gradients by central differences into a tile of vec2 (Ix, Iy) in workgroup
// memory, then the 3 x 3 window sums of the structure tensor read back as
// 8-byte vec2, a 16 x 16 output tile at a time.
//
// What it computes: workgroup (gx, gy), 256 invocations (8 warps), processes
// the four output tiles (gx, 4 gy + m), m = 0..3. Per tile: stage the 20 x 20
// image tile (halo 2, clamped at the image edge; a value generated from the
// index added so the zero-filled input is not trivial) in the scalar array im
// (pitch 20 words, the same in every variant). Barrier. Gradient items
// e = t, t + 256 (< 360): row e / 20, column e % 20 (active when < 18), four
// loads from im, store G(row, col) = vec2(Ix, Iy). Barrier. Each invocation loads the nine
// vec2 G(y + dy, x + dx), dy, dx = 0..2 (the main accesses, 8-byte loads),
// sums Ix^2, Iy^2, Ix Iy and stores det - 0.04 trace^2 to resp. Barrier.
// Invocation t = 32 w + l owns output pixel x = 2 w + (l & 1), y = l >> 1: a
// warp covers a 2-wide, 16-tall column strip (its vertical window sums share
// loads), a half-warp a 2 x 8 block.
//
// Layout of the gradient tile (a fixed 576-vec2 array in every variant):
//   G(y, x) = y * PV + x       (row pitch PV vec2 = 2 PV words, PV >= 18)
// I count an 8-byte warp access as two half-warps of 16 lanes, conflict-free
// when its 16 vec2 cover 32 distinct banks (degree = wavefronts / 2). A
// half-warp reads 8 rows of 2 consecutive vec2 (4 consecutive words): row r at
// word offset 2 PV r + const (mod 32). The degree is the most rows that share
// a bank:
//   PV=22 (reference, padded 18 -> 22): offsets 12 r: 0,12,24,4,16,28,8,20:
//          eight disjoint 4-bank groups: 1-way.
//   PV=18: offsets 4 r: 1-way.
//   PV=20: offsets 8 r: four groups, each twice: 2-way.
//   PV=24: offsets 16 r: two groups, each four times: 4-way.
//   PV=32: every row on the same 4 banks: 8-way.
// The im stores and loads (lanes on consecutive words of the 20-word rows)
// are 1-way in every variant. The gradient stores (consecutive items, a row
// break inside a half-warp) are 1- or 2-way depending on PV, 2 stores per 9
// main loads.
//
// Dispatch: 256 x 64 workgroups of 256 (img and resp: 4096 * 4096 = 16777216
// words each).

override PV: u32 = 22u;

const W: u32 = 4096u;
const TILES: u32 = 4u;
const IP: u32 = 20u;

@group(0) @binding(0) var<storage, read> img: array<f32>;
@group(0) @binding(1) var<storage, read_write> resp: array<f32>;

var<workgroup> im: array<f32, 400>;
var<workgroup> G: array<vec2<f32>, 576>;

fn genf(i: u32) -> f32 {
    let h = (i ^ (i >> 15u)) * 2246822519u;
    return f32(h >> 24u) * (1.0 / 255.0);
}

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) t: u32,
        @builtin(workgroup_id) wg: vec3<u32>) {
    let w = t >> 5u;
    let l = t & 31u;
    let x = 2u * w + (l & 1u);
    let y = l >> 1u;
    let ox = wg.x * 16u;
    for (var m = 0u; m < TILES; m++) {
        let oy = (wg.y * TILES + m) * 16u;
        for (var r = 0u; r < 2u; r++) {
            let e = r * 256u + t;
            if (e < 400u) {
                let iy = e / 20u;
                let ix = e % 20u;
                let gx = u32(clamp(i32(ox + ix) - 2, 0, i32(W) - 1));
                let gy = u32(clamp(i32(oy + iy) - 2, 0, i32(W) - 1));
                let g = gy * W + gx;
                im[iy * IP + ix] = img[g] + genf(g);
            }
        }
        workgroupBarrier();
        for (var r = 0u; r < 2u; r++) {
            let e = r * 256u + t;
            let gy = e / 20u;
            let gx = e % 20u;
            if (e < 360u && gx < 18u) {
                let c = (gy + 1u) * IP + gx + 1u;
                let ix = im[c + 1u] - im[c - 1u];
                let iy = im[c + IP] - im[c - IP];
                G[gy * PV + gx] = vec2<f32>(ix, iy);
            }
        }
        workgroupBarrier();
        var sxx = 0.0;
        var syy = 0.0;
        var sxy = 0.0;
        for (var dy = 0u; dy < 3u; dy++) {
            for (var dx = 0u; dx < 3u; dx++) {
                let g = G[(y + dy) * PV + x + dx];
                sxx += g.x * g.x;
                syy += g.y * g.y;
                sxy += g.x * g.y;
            }
        }
        let tr = sxx + syy;
        resp[(oy + y) * W + ox + x] = sxx * syy - sxy * sxy - 0.04 * tr * tr;
        workgroupBarrier();
    }
}
