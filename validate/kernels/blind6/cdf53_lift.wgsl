// Family cdf53_lift: one level of the reversible CDF 5/3 integer wavelet (the
// lossless lifting transform of JPEG 2000) in both directions over a 4096 x 4096
// i32 image, one 64 x 64 tile at a time in workgroup memory.
//
// What it computes: workgroup (gx, gy), 64 invocations (2 warps), transforms the
// two tiles (2 gx + m, gy), m = 0..1. Per tile: invocation t loads column t of
// the 64 rows (coalesced; a value 0..255 generated from the index is added so
// the zero-filled input is not trivial) and stores it at T(y, t). Barrier.
// Row pass (the main accesses): invocation t owns tile row r = t and walks it:
// predict d_k = x[2k+1] - ((x[2k] + x[2k+2]) >> 1) (mirrored at the edge), then
// update s_k = x[2k] + ((d_{k-1} + d_k + 2) >> 2), both in place (per k two
// 4-byte loads and one 4-byte store in each loop, 32 k). Barrier. Column pass:
// invocation t owns tile column t and does the same down the column (predict
// in place, then update), writing s and d to the four quadrants of coef
// (Mallat layout). Barrier.
//
// Layout of the tile (a fixed 4608-word i32 array, 18 KiB, in every variant;
// T(y, x) is the word of tile row y, column x):
//   SWZ=1: T(y, x) = y * 64 + (x ^ (y & 31))   (64-word rows, XOR swizzle)
//   SWZ=0: T(y, x) = y * P + x                 (row pitch P words, P >= 64)
// Row pass (main): the 32 lanes of a warp are 32 consecutive rows at the same
// column x: word r * P + x, i.e. a lane stride of P words, so the lanes fall on
// 32 / gcd(P, 32) banks: gcd(P, 32)-way.
//   SWZ=1 (reference): bank (x ^ r) mod 32, 32 distinct: 1-way.
//   P=66: 2-way.   P=68: 4-way.   P=72: 8-way.   P=64: 32-way.
// The staging stores and the column-pass loads/stores (32 consecutive columns of
// one row: consecutive words, or with SWZ=1 one aligned 32-word group permuted
// by an XOR) are 1-way in every variant.
//
// Dispatch: 32 x 64 workgroups of 64 (img and coef: 4096 * 4096 = 16777216
// words each, bound explicitly).

override SWZ: u32 = 1u;
override P: u32 = 64u;

const W: u32 = 4096u;
const TILES: u32 = 2u;

@group(0) @binding(0) var<storage, read> img: array<i32>;
@group(0) @binding(1) var<storage, read_write> coef: array<i32>;

var<workgroup> tile: array<i32, 4608>;

fn idx(y: u32, x: u32) -> u32 {
    if (SWZ == 1u) {
        return y * 64u + (x ^ (y & 31u));
    }
    return y * P + x;
}

fn gen(i: u32) -> i32 {
    let h = (i ^ (i >> 13u)) * 2654435761u;
    return i32(h >> 24u);
}

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) t: u32,
        @builtin(workgroup_id) wg: vec3<u32>) {
    let oc = (t & 1u) * 32u + (t >> 1u);
    for (var m = 0u; m < TILES; m++) {
        let tx = wg.x * TILES + m;
        let base = wg.y * 64u * W + tx * 64u;
        for (var y = 0u; y < 64u; y++) {
            let g = base + y * W + t;
            tile[idx(y, t)] = img[g] + gen(g);
        }
        workgroupBarrier();

        // Row pass: invocation t owns row t (lanes = rows: the main accesses).
        var e = tile[idx(t, 0u)];
        for (var k = 0u; k < 32u; k++) {
            let o = tile[idx(t, 2u * k + 1u)];
            let en = tile[idx(t, min(2u * k + 2u, 62u))];
            tile[idx(t, 2u * k + 1u)] = o - ((e + en) >> 1u);
            e = en;
        }
        var dp = tile[idx(t, 1u)];
        for (var k = 0u; k < 32u; k++) {
            let d = tile[idx(t, 2u * k + 1u)];
            let ev = tile[idx(t, 2u * k)];
            tile[idx(t, 2u * k)] = ev + ((dp + d + 2) >> 2u);
            dp = d;
        }
        workgroupBarrier();

        // Column pass: invocation t owns column t (lanes = consecutive columns).
        var e2 = tile[idx(0u, t)];
        for (var k = 0u; k < 32u; k++) {
            let o = tile[idx(2u * k + 1u, t)];
            let en = tile[idx(min(2u * k + 2u, 62u), t)];
            tile[idx(2u * k + 1u, t)] = o - ((e2 + en) >> 1u);
            e2 = en;
        }
        var dq = tile[idx(1u, t)];
        for (var k = 0u; k < 32u; k++) {
            let d = tile[idx(2u * k + 1u, t)];
            let ev = tile[idx(2u * k, t)];
            coef[base + k * W + oc] = ev + ((dq + d + 2) >> 2u);
            coef[base + (32u + k) * W + oc] = d;
            dq = d;
        }
        workgroupBarrier();
    }
}
