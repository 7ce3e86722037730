// Tiled matrix multiply C = A x B (row-major f32, A: M x K, B: K x N) with a skewed
// shared tile. A workgroup of 256 invocations computes a 64 x 16 tile of C; invocation t
// owns row t % 64 and the 4 columns 4 * (t / 64) .. +4. For each 16-wide slice of K:
// As[64][16 + SKEW] and Bs[16][16] are filled with 16-byte vectors, then every
// invocation reads As[row][k..k+4] as one vector: lanes read down a column of As,
// 16 + SKEW floats apart. SKEW = 0 puts 8 lanes of a quarter-warp on 2 bank groups
// (4-way conflict); SKEW = 4 (--override SKEW=4) spreads them (conflict-free).
// M = 64 * groups_y, N = 16 * groups_x, K = --override K (multiple of 16).
// banksim capture validate/kernels/gemm_skew.wgsl --dispatch 1,1,1 --override SKEW=4
override SKEW: u32 = 0; // floats of padding per row of As: a multiple of 4
override K: u32 = 32u;

@group(0) @binding(0) var<storage, read> a: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> b: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> c: array<vec4<f32>>;

var<workgroup> As: array<vec4<f32>, 64 * (16 + SKEW) / 4>;
var<workgroup> Bs: array<vec4<f32>, 64>; // 16 x 16 floats, 4 vectors per row

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) t: u32,
        @builtin(workgroup_id) wg: vec3<u32>,
        @builtin(num_workgroups) n: vec3<u32>) {
    let N = 16u * n.x;
    let row = t % 64u;
    let colv = t / 64u;
    let pa = (16u + SKEW) / 4u; // vectors per row of As
    var acc = vec4<f32>(0.0);
    for (var k0 = 0u; k0 < K; k0 += 16u) {
        // As: 64 x 16 floats = 256 vectors, vector t = row t / 4, columns 4 * (t % 4)
        As[(t / 4u) * pa + t % 4u] = a[((wg.y * 64u + t / 4u) * K + k0) / 4u + t % 4u];
        // Bs: 16 x 16 floats = 64 vectors
        if (t < 64u) {
            Bs[t] = b[((k0 + t / 4u) * N + wg.x * 16u) / 4u + t % 4u];
        }
        workgroupBarrier();
        for (var kv = 0u; kv < 4u; kv++) {
            let av = As[row * pa + kv];
            acc += av.x * Bs[(4u * kv + 0u) * 4u + colv];
            acc += av.y * Bs[(4u * kv + 1u) * 4u + colv];
            acc += av.z * Bs[(4u * kv + 2u) * 4u + colv];
            acc += av.w * Bs[(4u * kv + 3u) * 4u + colv];
        }
        workgroupBarrier();
    }
    c[((wg.y * 64u + row) * N + wg.x * 16u) / 4u + colv] = acc;
}
