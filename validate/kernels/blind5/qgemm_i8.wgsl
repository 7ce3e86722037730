// Family qgemm_i8: a quantised int8 matrix product C = s * (A B^T) with i32
// accumulation (the core of an int8 linear layer), A and B 2048 x 1024 signed
// bytes packed four to a u32, 32 x 32 output tiles, the operand tiles staged in
// workgroup memory and read as vec2<u32> (8 bytes = 8 int8 values).
//
// What it computes: workgroup (gx, gy), 64 invocations (2 warps), computes the
// 32 x 32 tile of C at rows 32 gy, columns 32 gx, in 8 K-tiles of 128 bytes.
// Per K-tile: invocation t stages vec2 i = it * 64 + t (it = 0..7; tile row
// i >> 4, vec2 k = i & 15) of the A rows and of the B rows (coalesced, XORed
// with a hash of the index so the zero-filled input is not trivial) at X(row,
// k). Barrier. Invocation (tx, ty) = (t & 7, t >> 3) owns rows ty + 8i and
// columns tx + 8j (i, j = 0..3); for k = 0..15 it loads the 4 A vec2 and the 4
// B vec2 it needs and adds the 16 dot products (dot4I8Packed, two per vec2
// pair). Barrier. The 16 results times 2^-14 go to c.
//
// Layout of each operand tile (two fixed 768-vec2 arrays, 6 KiB each, in every
// variant; X(r, k) in vec2 units):
//   SWZ=1: X(r, k) = r * 16 + (k ^ (r & 15))   (128-byte rows, vec2 index
//          XOR-swizzled by the row)
//   SWZ=0: X(r, k) = r * PV + k               (row pitch PV >= 16 vec2)
// I count an 8-byte warp access as two half-warps of 16 lanes, each
// conflict-free when its distinct vec2 fall in distinct bank pairs (degree =
// wavefronts / 2). The B loads of the product loop (the main access): a
// half-warp holds tx = 0..7 (twice), so 8 distinct rows r = tx + 8j at one k,
// bank pair (r * PV + k) mod 16:
//   SWZ=1 (reference): pair (k ^ r) mod 16, 8 distinct: 1-way.
//   PV=17: pair (r + k) mod 16: 1-way.
//   PV=20: 4r mod 16, 4 distinct: 2-way.   PV=24: 8r, 2 distinct: 4-way.
//   PV=16: one pair: 8-way.
// The A loads are broadcasts: a warp reads 4 distinct vec2 (rows ty = 0..3 at
// one k, 8 lanes each), one wavefront when they sit in distinct bank pairs:
// 1-way for SWZ=1, PV=17 and PV=20, 2-way for PV=24 (pairs 0, 8, 0, 8), 4-way
// for PV=16. The staging stores (16 consecutive vec2 of one row per half-warp)
// are 1-way in every variant.
//
// Dispatch: 64 x 64 workgroups of 64 (a, b: 2048 * 256 = 524288 words each;
// c: 2048 * 2048 = 4194304 words; bound explicitly).

override SWZ: u32 = 1u;
override PV: u32 = 16u;

const KT: u32 = 8u;
const KV: u32 = 128u;
const N: u32 = 2048u;

@group(0) @binding(0) var<storage, read> a: array<vec2<u32>>;
@group(0) @binding(1) var<storage, read> b: array<vec2<u32>>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>;

var<workgroup> as_: array<vec2<u32>, 768>;
var<workgroup> bs: array<vec2<u32>, 768>;

fn sidx(r: u32, k: u32) -> u32 {
    if (SWZ == 1u) {
        return r * 16u + (k ^ (r & 15u));
    }
    return r * PV + k;
}

fn mix(g: u32) -> vec2<u32> {
    let h = g * 2654435761u;
    return vec2<u32>(h, (h ^ 0x5bd1e995u) * 2246822519u);
}

fn d2(x: vec2<u32>, y: vec2<u32>) -> i32 {
    return dot4I8Packed(x.x, y.x) + dot4I8Packed(x.y, y.y);
}

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) t: u32,
        @builtin(workgroup_id) wg: vec3<u32>) {
    let tx = t & 7u;
    let ty = t >> 3u;
    let row0 = wg.y * 32u;
    let col0 = wg.x * 32u;
    var acc0 = vec4<i32>(0);
    var acc1 = vec4<i32>(0);
    var acc2 = vec4<i32>(0);
    var acc3 = vec4<i32>(0);
    for (var kt = 0u; kt < KT; kt++) {
        for (var it = 0u; it < 8u; it++) {
            let i = it * 64u + t;
            let r = i >> 4u;
            let k = i & 15u;
            let ga = (row0 + r) * KV + kt * 16u + k;
            let gb = (col0 + r) * KV + kt * 16u + k;
            as_[sidx(r, k)] = a[ga] ^ mix(ga);
            bs[sidx(r, k)] = b[gb] ^ mix(gb ^ 0x9e3779b9u);
        }
        workgroupBarrier();
        for (var k = 0u; k < 16u; k++) {
            let a0 = as_[sidx(ty, k)];
            let a1 = as_[sidx(ty + 8u, k)];
            let a2 = as_[sidx(ty + 16u, k)];
            let a3 = as_[sidx(ty + 24u, k)];
            let b0 = bs[sidx(tx, k)];
            let b1 = bs[sidx(tx + 8u, k)];
            let b2 = bs[sidx(tx + 16u, k)];
            let b3 = bs[sidx(tx + 24u, k)];
            acc0 += vec4<i32>(d2(a0, b0), d2(a0, b1), d2(a0, b2), d2(a0, b3));
            acc1 += vec4<i32>(d2(a1, b0), d2(a1, b1), d2(a1, b2), d2(a1, b3));
            acc2 += vec4<i32>(d2(a2, b0), d2(a2, b1), d2(a2, b2), d2(a2, b3));
            acc3 += vec4<i32>(d2(a3, b0), d2(a3, b1), d2(a3, b2), d2(a3, b3));
        }
        workgroupBarrier();
    }
    let s = 1.0 / 16384.0;
    let o = (row0 + ty) * N + col0 + tx;
    for (var j = 0u; j < 4u; j++) {
        c[o + 8u * j] = f32(acc0[j]) * s;
        c[o + 8u * N + 8u * j] = f32(acc1[j]) * s;
        c[o + 16u * N + 8u * j] = f32(acc2[j]) * s;
        c[o + 24u * N + 8u * j] = f32(acc3[j]) * s;
    }
}
