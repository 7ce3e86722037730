// Family dct8x8: the forward 2-D DCT-II of 8 x 8 blocks with quantisation (the
// transform stage of a JPEG-like encoder) over an 8192 x 4096 f32 image, a
// 64 x 64-pixel tile (64 blocks) at a time in workgroup memory, the row pass
// with 16-byte (vec4) accesses.
//
// What it computes: workgroup (gx, gy), 512 invocations (16 warps), transforms
// the two tiles (2 gx + m, gy), m = 0..1. Per tile: invocation t loads vec4
// chunks i = t and t + 512 of the tile (row i >> 4, chunk i & 15, coalesced, a
// value generated from the index added so the zero-filled input is not
// trivial) and stores them at V(row, chunk). Barrier. Row pass: invocation t
// owns row r = t & 7 of block (bx, by) = ((t >> 3) & 7, t >> 6): it loads the
// row as two vec4 (chunks 2 bx and 2 bx + 1 of tile row 8 by + r), applies the
// 8-point DCT (even/odd factorisation) and stores the 8 results back in place
// (two vec4 stores). Barrier. Column pass: invocation t owns tile column
// x = t & 63 of block row by: it loads the 8 words of rows 8 by .. 8 by + 7 of
// that column (4-byte loads), transforms them, scales coefficient (v, u) by
// 255 / (1 + 2 (u + v)) (the quantiser), rounds, and writes the 8 values to coef
// (coalesced: the lanes of a warp are 32 consecutive columns). Barrier.
//
// Layout of the tile (a fixed 1280-vec4 array, 20 KiB, in every variant; V(y, c)
// is the vec4 holding pixels 4c .. 4c + 3 of tile row y; a scalar pixel (y, x)
// is component x & 3 of V(y, x >> 2)):
//   SWZ=1: V(y, c) = y * 16 + (c ^ (y & 7))    (64-word rows, the chunk index
//          XOR-swizzled by the row within the block)
//   SWZ=0: V(y, c) = y * (P / 4) + c          (row pitch P words, P a multiple
//          of 4, >= 64)
// I count a 16-byte warp access as four quarter-warps of 8 lanes, conflict-free
// when its 8 vec4 cover 32 distinct banks (degree = wavefronts / 4). The row
// pass loads and stores (the main accesses): a quarter-warp is the 8 rows
// r = 0..7 of one block at the same chunk, vec4 starting at bank
// (y * P + 8 bx) mod 32, y = 8 by + r:
//   SWZ=1 (reference): bank 4 ((2 bx + h) ^ r) mod 32, 8 distinct: 1-way.
//   P=68: banks 4r + const: 1-way.      P=72: 8r: 4 distinct: 2-way.
//   P=80: 16r: 2 distinct: 4-way.       P=64: one bank group: 8-way.
// The staging stores (a quarter-warp writes 8 consecutive chunks of one row)
// are 1-way in every variant; the column-pass loads (32 consecutive columns of
// one row: consecutive words, or with SWZ=1 8 consecutive chunks permuted by one
// XOR) are 1-way in every variant.
//
// Dispatch: 64 x 64 workgroups of 512 (img: 8192 * 4096 = 33554432 words;
// coef: 33554432 words; bound explicitly).

override SWZ: u32 = 1u;
override P: u32 = 64u;

const W: u32 = 8192u;
const W4: u32 = 2048u;
const TILES: u32 = 2u;

const C1: f32 = 0.49039264;
const C2: f32 = 0.46193977;
const C3: f32 = 0.41573481;
const C4: f32 = 0.35355339;
const C5: f32 = 0.27778512;
const C6: f32 = 0.19134172;
const C7: f32 = 0.09754516;

@group(0) @binding(0) var<storage, read> img: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> coef: array<f32>;

var<workgroup> tile: array<vec4<f32>, 1280>;

struct Row8 {
    lo: vec4<f32>,
    hi: vec4<f32>,
}

fn vidx(y: u32, c: u32) -> u32 {
    if (SWZ == 1u) {
        return y * 16u + (c ^ (y & 7u));
    }
    return y * (P >> 2u) + c;
}

fn gen(i: u32) -> vec4<f32> {
    let h = i * 2654435761u;
    return vec4<f32>(f32(h >> 24u), f32((h >> 16u) & 255u), f32((h >> 8u) & 255u), f32(h & 255u))
        * (1.0 / 255.0) - 0.5;
}

// 8-point orthonormal DCT-II of (a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w).
fn dct8(a: vec4<f32>, b: vec4<f32>) -> Row8 {
    let s0 = a.x + b.w;
    let s1 = a.y + b.z;
    let s2 = a.z + b.y;
    let s3 = a.w + b.x;
    let d0 = a.x - b.w;
    let d1 = a.y - b.z;
    let d2 = a.z - b.y;
    let d3 = a.w - b.x;
    let e0 = s0 + s3;
    let e1 = s1 + s2;
    let e2 = s1 - s2;
    let e3 = s0 - s3;
    var o: Row8;
    o.lo = vec4<f32>((e0 + e1) * C4,
                     d0 * C1 + d1 * C3 + d2 * C5 + d3 * C7,
                     e3 * C2 + e2 * C6,
                     d0 * C3 - d1 * C7 - d2 * C1 - d3 * C5);
    o.hi = vec4<f32>((e0 - e1) * C4,
                     d0 * C5 - d1 * C1 + d2 * C7 + d3 * C3,
                     e3 * C6 - e2 * C2,
                     d0 * C7 - d1 * C5 + d2 * C3 - d3 * C1);
    return o;
}

@compute @workgroup_size(512)
fn main(@builtin(local_invocation_index) t: u32,
        @builtin(workgroup_id) wg: vec3<u32>) {
    let r = t & 7u;
    let bx = (t >> 3u) & 7u;
    let by = t >> 6u;
    let x = t & 63u;
    let ty = wg.y;
    for (var m = 0u; m < TILES; m++) {
        let tx = wg.x * TILES + m;
        for (var it = 0u; it < 2u; it++) {
            let i = it * 512u + t;
            let g = (ty * 64u + (i >> 4u)) * W4 + tx * 16u + (i & 15u);
            tile[vidx(i >> 4u, i & 15u)] = img[g] + gen(g);
        }
        workgroupBarrier();

        // Row pass: two 16-byte loads, two 16-byte stores.
        let y = by * 8u + r;
        let v0 = vidx(y, 2u * bx);
        let v1 = vidx(y, 2u * bx + 1u);
        let rw = dct8(tile[v0], tile[v1]);
        tile[v0] = rw.lo;
        tile[v1] = rw.hi;
        workgroupBarrier();

        // Column pass: eight 4-byte loads, results to global memory.
        let yb = by * 8u;
        let cx = x >> 2u;
        let cc = x & 3u;
        let ca = vec4<f32>(tile[vidx(yb, cx)][cc], tile[vidx(yb + 1u, cx)][cc],
                           tile[vidx(yb + 2u, cx)][cc], tile[vidx(yb + 3u, cx)][cc]);
        let cb = vec4<f32>(tile[vidx(yb + 4u, cx)][cc], tile[vidx(yb + 5u, cx)][cc],
                           tile[vidx(yb + 6u, cx)][cc], tile[vidx(yb + 7u, cx)][cc]);
        let cl = dct8(ca, cb);
        let u = f32(x & 7u);
        let q0 = vec4<f32>(1.0, 3.0, 5.0, 7.0) + 2.0 * u;
        let q1 = vec4<f32>(9.0, 11.0, 13.0, 15.0) + 2.0 * u;
        let z0 = round(cl.lo * 255.0 / q0);
        let z1 = round(cl.hi * 255.0 / q1);
        let ob = (ty * 64u + yb) * W + tx * 64u + x;
        coef[ob] = z0.x;
        coef[ob + W] = z0.y;
        coef[ob + 2u * W] = z0.z;
        coef[ob + 3u * W] = z0.w;
        coef[ob + 4u * W] = z1.x;
        coef[ob + 5u * W] = z1.y;
        coef[ob + 6u * W] = z1.z;
        coef[ob + 7u * W] = z1.w;
        workgroupBarrier();
    }
}
