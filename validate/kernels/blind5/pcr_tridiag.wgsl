// Family pcr_tridiag: batched tridiagonal solves by parallel cyclic reduction
// (PCR), one 256-equation system at a time per workgroup, each equation
// (a, b, c, d) of a_i x_{i-1} + b_i x_i + c_i x_{i+1} = d_i kept in workgroup
// memory.
//
// What it computes: workgroup g, 256 invocations (invocation i = equation i),
// solves systems g * 8 .. g * 8 + 7 in turn. Per system: invocation i loads its
// equation (one vec4 from sys_in, coalesced; made diagonally dominant and
// non-trivial with a hash: b in [4, 5), a, c in [-0.5, 0.5), a_0 = c_255 = 0)
// and stores it at E(i). Barrier. Then 8 PCR steps, s = 1, 2, 4, .., 128: it
// loads equation i - s (if i >= s) and equation i + s (if i + s < 256), all four
// coefficients of each, eliminates x_{i-s} and x_{i+s} from its own equation
// (kept in registers), barrier, stores the new equation at E(i), barrier. After
// the last step x_i = d_i / b_i goes to x_out (coalesced).
//
// Layout of the equations (a fixed 512-vec4 array, 8 KiB, in every variant;
// scalar word w is component w & 3 of vec4 w >> 2):
//   LAYOUT=0: field f of equation i at word f * 256 + i  (structure of arrays,
//             4-byte accesses)
//   LAYOUT=1: equation i is vec4 i                   (one 16-byte access)
//   LAYOUT=2: field f of equation i at word i * R + f (array of R-word records,
//             4 words used, 4-byte accesses)
// The neighbour loads of a PCR step (the main accesses, with the stores of
// E(i)): the active lanes of a warp are on consecutive equations, one field at
// a time: bank (i * R + f) mod 32, 32 / gcd(R, 32) distinct banks. For the
// vec4 layout I count four quarter-warps of 8 lanes, conflict-free when the 8
// vec4 cover 32 distinct banks (degree = wavefronts / 4).
//   LAYOUT=0 (reference): consecutive words: 1-way.
//   LAYOUT=1: consecutive vec4: 1-way.
//   LAYOUT=2 R=6: 16 banks: 2-way.   R=4: 8 banks: 4-way.   R=8: 4 banks: 8-way.
// The stores of E(i) (initial and after each step) have the same degrees.
// (With R=4 and R=8 a record's 4 words are one aligned 16-byte group, so a
// driver may merge the four 4-byte loads of a record into one 16-byte load:
// then R=4 would be 1-way and R=8 2-way. The degrees above are for the 4-byte
// accesses as written.)
//
// Dispatch: 2048 workgroups of 256 (sys_in: 2048 * 8 * 256 vec4 = 16777216
// words; x_out: 4194304 words; bound explicitly).

override LAYOUT: u32 = 0u;
override R: u32 = 4u;

const N: u32 = 256u;
const NSYS: u32 = 8u;

@group(0) @binding(0) var<storage, read> sys_in: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> x_out: array<f32>;

var<workgroup> eq: array<vec4<f32>, 512>;

fn hash(x: u32) -> u32 {
    var h = x;
    h ^= h >> 16u;
    h *= 0x7feb352du;
    h ^= h >> 15u;
    h *= 0x846ca68bu;
    h ^= h >> 16u;
    return h;
}

fn widx(i: u32, f: u32) -> u32 {
    if (LAYOUT == 2u) {
        return i * R + f;
    }
    return f * N + i;
}

fn load_eq(i: u32) -> vec4<f32> {
    if (LAYOUT == 1u) {
        return eq[i];
    }
    let w0 = widx(i, 0u);
    let w1 = widx(i, 1u);
    let w2 = widx(i, 2u);
    let w3 = widx(i, 3u);
    return vec4<f32>(eq[w0 >> 2u][w0 & 3u], eq[w1 >> 2u][w1 & 3u],
                     eq[w2 >> 2u][w2 & 3u], eq[w3 >> 2u][w3 & 3u]);
}

fn store_eq(i: u32, v: vec4<f32>) {
    if (LAYOUT == 1u) {
        eq[i] = v;
        return;
    }
    let w0 = widx(i, 0u);
    let w1 = widx(i, 1u);
    let w2 = widx(i, 2u);
    let w3 = widx(i, 3u);
    eq[w0 >> 2u][w0 & 3u] = v.x;
    eq[w1 >> 2u][w1 & 3u] = v.y;
    eq[w2 >> 2u][w2 & 3u] = v.z;
    eq[w3 >> 2u][w3 & 3u] = v.w;
}

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) i: u32,
        @builtin(workgroup_id) wg: vec3<u32>) {
    for (var sy = 0u; sy < NSYS; sy++) {
        let g = (wg.x * NSYS + sy) * N + i;
        let h = hash(g);
        let raw = sys_in[g];
        var cur = raw + vec4<f32>(f32(h & 255u) * (1.0 / 256.0) - 0.5,
                                  4.0 + f32((h >> 8u) & 255u) * (1.0 / 256.0),
                                  f32((h >> 16u) & 255u) * (1.0 / 256.0) - 0.5,
                                  f32(h >> 24u) * (1.0 / 64.0));
        if (i == 0u) {
            cur.x = 0.0;
        }
        if (i == N - 1u) {
            cur.z = 0.0;
        }
        store_eq(i, cur);
        workgroupBarrier();

        for (var s = 1u; s < N; s <<= 1u) {
            var lo = vec4<f32>(0.0, 1.0, 0.0, 0.0);
            var hi = vec4<f32>(0.0, 1.0, 0.0, 0.0);
            if (i >= s) {
                lo = load_eq(i - s);
            }
            if (i + s < N) {
                hi = load_eq(i + s);
            }
            let k1 = cur.x / lo.y;
            let k2 = cur.z / hi.y;
            cur = vec4<f32>(-lo.x * k1,
                            cur.y - lo.z * k1 - hi.x * k2,
                            -hi.z * k2,
                            cur.w - lo.w * k1 - hi.w * k2);
            workgroupBarrier();
            store_eq(i, cur);
            workgroupBarrier();
        }
        x_out[g] = cur.w / cur.y;
    }
}
