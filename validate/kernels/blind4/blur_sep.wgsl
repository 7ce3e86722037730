// Family blur_sep: a separable 9 x 9 box blur (radius 4) of a 4096 x 4096 f32
// image, both passes in one kernel through workgroup memory, with the
// horizontally blurred intermediate stored TRANSPOSED (column-major) so that the
// vertical pass can run a sliding sum down each column.
//
// What it computes: workgroup (bx, by) = workgroup_id.xy, 32 x 8 invocations,
// owns a 32 x 32 output tile. It stages the 40 x 40 input tile (4-pixel halo,
// clamped at the image border) row-major in inp[r * 40 + c] (coalesced loads, a
// value generated from the pixel index added so the zero-filled input is not
// what is blurred). Horizontal pass: invocation (x, y) computes, for tile rows
// r = y + 8k (k = 0..4, all 40 rows), hs = sum of inp[r][x .. x + 8] and stores it
// at tmp(x, r). Barrier. Vertical pass: invocation (x, y) owns output column x,
// rows 4y .. 4y + 3: it sums tmp(x, 4y .. 4y + 8) (9 loads), then slides the
// window 3 times (2 loads each: add the new row, subtract the old), and writes
// each of its 4 sums / 81 to dst (coalesced: lanes = 32 consecutive columns).
//
// Layout of the intermediate (a fixed 2048-word array in every variant):
//   SWZ=0: tmp(c, r) = tmp[c * TS + r]        (column pitch TS >= 40 words)
//   SWZ=1: tmp(c, r) = tmp[c * 64 + (r ^ c)]  (XOR swizzle, TS ignored)
// The horizontal pass's stores (5 per invocation) and the vertical pass's loads
// (15 per invocation) have the 32 lanes of a warp at 32 columns c of one row r:
// bank (c * TS + r) mod 32, i.e. 32 / gcd(TS, 32) distinct banks:
//   SWZ=1 (reference): bank = (r ^ c) mod 32, distinct: 1-way.
//   TS=41: 1-way.   TS=42: 2-way.   TS=48: 16-way.   TS=64: 32-way.
// The input tile's stores and loads (lanes on consecutive words) are 1-way in
// every variant.
//
// Dispatch: 128 x 128 workgroups of 32 x 8 (src, dst: 4096 * 4096 = 16777216
// words each, bound explicitly).

override TS: u32 = 64u;
override SWZ: u32 = 1u;

const W: u32 = 4096u;
const H: u32 = 4096u;
const RAD: u32 = 4u;
const TW: u32 = 32u;
const IW: u32 = 40u;

@group(0) @binding(0) var<storage, read> src: array<f32>;
@group(0) @binding(1) var<storage, read_write> dst: array<f32>;

var<workgroup> inp: array<f32, 1600>;
var<workgroup> tmp: array<f32, 2048>;

fn tidx(c: u32, r: u32) -> u32 {
    if (SWZ == 1u) {
        return c * 64u + (r ^ c);
    }
    return c * TS + r;
}

@compute @workgroup_size(32, 8)
fn main(@builtin(local_invocation_id) l: vec3<u32>,
        @builtin(workgroup_id) wg: vec3<u32>) {
    let t = l.y * 32u + l.x;
    let x0 = i32(wg.x * TW) - i32(RAD);
    let y0 = i32(wg.y * TW) - i32(RAD);
    for (var i = t; i < IW * IW; i += 256u) {
        let r = i / IW;
        let c = i % IW;
        let gy = u32(clamp(y0 + i32(r), 0, i32(H) - 1));
        let gx = u32(clamp(x0 + i32(c), 0, i32(W) - 1));
        let g = gy * W + gx;
        inp[i] = src[g] + f32((g * 2654435761u) >> 24u) * (1.0 / 256.0);
    }
    workgroupBarrier();

    // horizontal pass: 40 rows x 32 columns, written transposed
    for (var k = 0u; k < 5u; k++) {
        let r = l.y + 8u * k;
        var hs = 0.0;
        for (var dx = 0u; dx < 2u * RAD + 1u; dx++) {
            hs += inp[r * IW + l.x + dx];
        }
        tmp[tidx(l.x, r)] = hs;
    }
    workgroupBarrier();

    // vertical pass: a sliding 9-row sum down column l.x
    let r0 = 4u * l.y;
    var s = 0.0;
    for (var dy = 0u; dy < 2u * RAD + 1u; dy++) {
        s += tmp[tidx(l.x, r0 + dy)];
    }
    let gx = wg.x * TW + l.x;
    let gy = wg.y * TW + r0;
    dst[gy * W + gx] = s * (1.0 / 81.0);
    for (var k = 1u; k < 4u; k++) {
        s += tmp[tidx(l.x, r0 + k + 2u * RAD)] - tmp[tidx(l.x, r0 + k - 1u)];
        dst[(gy + k) * W + gx] = s * (1.0 / 81.0);
    }
}
