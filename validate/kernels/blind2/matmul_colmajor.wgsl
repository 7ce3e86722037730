// Family 3: tiled matrix multiply C = A * B, all matrices COLUMN-MAJOR (BLAS order),
// 32 x 32 output tile per workgroup, K loop in 32-wide steps (K = 128).
//
// A is M x K (element (m, k) at k * M + m), B is K x N (at n * K + k), C is M x N
// (at n * M + m).  A workgroup of 256 invocations (8 warps) computes the 32 x 32 tile
// of C at (m0, n0): lane = m (row of C), warp w owns the columns n = 4w .. 4w+3, so
// the loads of A and the stores of C are coalesced along m.  Per K step:
//   - stage A tile (32 m x 32 k) in workgroup memory, m-major:
//       As[m * (32 + PAD) + (k ^ (SWZ * m))]    (warp: fixed k, lane = m)
//   - stage B tile (32 k x 32 n) as Bs[n * 32 + k]  (warp: fixed n, lane = k;
//       conflict-free, identical in every variant)
//   - inner loop over 32 k: a = As[row lane][k] (fixed k, lane = m: one column of
//       the m-major tile), four B values Bs[n][k] (same word for the whole warp:
//       broadcast), 4 FMAs.
// So every access to As (the store and the inner-loop load) is a warp reading or
// writing one k-column of the m-major tile: word m * (32 + PAD) + (k ^ (SWZ * m)).
//
// Overrides:
//   PAD = row padding of As in words;  SWZ = 1: XOR swizzle k ^ m of the column
//   (m < 32), SWZ = 0: no swizzle.  Bank = (m * PAD + (k ^ SWZ * m)) mod 32:
//   SWZ=1 PAD=0 : conflict-free (reference; XOR swizzle)
//   SWZ=0 PAD=2 : 2-way
//   SWZ=0 PAD=4 : 4-way
//   SWZ=0 PAD=8 : 8-way
//   SWZ=0 PAD=0 : 32-way (plain unpadded m-major tile)
// Workgroup memory: 32 * (32 + PAD) * 4 + 4096 bytes (at most 9.2 KiB).
//
// Dispatch: 64 x 32 workgroups -> M = 32 * 64 = 2048, N = 32 * 32 = 1024, K = 128
// (M = 32 * num_workgroups.x, N = 32 * num_workgroups.y).
// Buffers: 0.0 A 2048 * 128 = 262144 words, 0.1 B 128 * 1024 = 131072 words,
// 0.2 C 2048 * 1024 = 2097152 words.

override PAD: u32 = 0u;
override SWZ: u32 = 1u;

const T: u32 = 32u;
const K: u32 = 128u;

@group(0) @binding(0) var<storage, read> A: array<f32>;
@group(0) @binding(1) var<storage, read> B: array<f32>;
@group(0) @binding(2) var<storage, read_write> C: array<f32>;

var<workgroup> As: array<f32, 32u * (32u + PAD)>;
var<workgroup> Bs: array<f32, 1024>;

fn a_index(m: u32, k: u32) -> u32 {
    return m * (T + PAD) + (k ^ (SWZ * m));
}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wg: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) t: u32) {
    let M = T * nwg.x;
    let m0 = wg.x * T;
    let n0 = wg.y * T;
    let lane = t & 31u;
    let w = t >> 5u;
    let nb = 4u * w;

    var acc = vec4<f32>(0.0);
    for (var kt = 0u; kt < K / T; kt++) {
        for (var q = 0u; q < 4u; q++) {
            let k = w + 8u * q;
            As[a_index(lane, k)] = A[(kt * T + k) * M + m0 + lane];
            let n = w + 8u * q;
            Bs[n * T + lane] = B[(n0 + n) * K + kt * T + lane];
        }
        workgroupBarrier();
        for (var k = 0u; k < T; k++) {
            let a = As[a_index(lane, k)];
            let b = vec4<f32>(Bs[nb * T + k], Bs[(nb + 1u) * T + k],
                              Bs[(nb + 2u) * T + k], Bs[(nb + 3u) * T + k]);
            acc = fma(vec4<f32>(a), b, acc);
        }
        workgroupBarrier();
    }
    C[(n0 + nb) * M + m0 + lane] = acc.x;
    C[(n0 + nb + 1u) * M + m0 + lane] = acc.y;
    C[(n0 + nb + 2u) * M + m0 + lane] = acc.z;
    C[(n0 + nb + 3u) * M + m0 + lane] = acc.w;
}
