// Family im2col_gemm: a 3 x 3 convolution (4 input channels -> 32 output
// channels, zero padding, bias + ReLU) as an implicit GEMM: the workgroup
// builds the im2col tile of 128 output pixels x K = 36 (channel, ky, kx) taps
// in workgroup memory, then each invocation multiplies its pixel's row by the
// 36 x 32 weight matrix (uniform buffer). f32, compute-heavy (1152 FMA per
// pixel).
//
// What it computes: image 4 x 512 x 1024 (planar). Workgroup (gx, gy), 128
// invocations (4 warps), does rows 2 gy and 2 gy + 1, pixels x = gx * 128 + p
// (invocation p). Per row:
//   build: for k = 0..35 (c = k / 9, ky, kx): invocation p stores
//          img[c][y + ky - 1][x + kx - 1] (0 outside; plus a hash so the zero
//          input is not trivial) at COL(p, k). Barrier.
//   gemm:  for k = 0..35: a = COL(p, k); acc[m] += a * w[k][m], m = 0..31
//          (8 vec4 accumulators, the weights as vec4 from the uniform buffer).
//          out[m][y][x] = max(acc[m] + bias, 0) (coalesced). Barrier.
// Both the build stores and the gemm loads have lanes on 32 consecutive
// pixels p at one k.
//
// Layout of the im2col tile (a fixed 5120-word f32 array in every variant):
//   KM=1: COL(p, k) = k * 128 + p      (k-major: the GEMM's A^T)
//   KM=0: COL(p, k) = p * PK + k       (pixel-major rows of the im2col matrix,
//                                       row pitch PK >= 36)
//   KM=1 (reference): consecutive words: 1-way.
//   PK=37: 1-way.   PK=38: 2-way.   PK=36 (unpadded): 4-way.   PK=40: 8-way.
//
// Dispatch: 8 x 256 workgroups of 128 (img: 4 * 512 * 1024 = 2097152 words;
// out: 32 * 512 * 1024 = 16777216 words; w: 288 vec4 = 1152 words).

override KM: u32 = 1u;
override PK: u32 = 36u;

const W: u32 = 1024u;
const H: u32 = 512u;

@group(0) @binding(0) var<storage, read> img: array<f32>;
@group(0) @binding(1) var<storage, read_write> outp: array<f32>;
@group(0) @binding(2) var<uniform> w: array<vec4<f32>, 288>;

var<workgroup> col: array<f32, 5120>;

fn ci(p: u32, k: u32) -> u32 {
    if (KM == 1u) {
        return k * 128u + p;
    }
    return p * PK + k;
}

fn hsh(g: u32) -> f32 {
    let h = (g ^ (g >> 16u)) * 2246822519u;
    return f32(h >> 20u) * (1.0 / 4096.0) - 0.5;
}

@compute @workgroup_size(128)
fn main(@builtin(local_invocation_index) p: u32,
        @builtin(workgroup_id) wg: vec3<u32>) {
    let x = wg.x * 128u + p;
    for (var r = 0u; r < 2u; r++) {
        let y = wg.y * 2u + r;
        for (var k = 0u; k < 36u; k++) {
            let c = k / 9u;
            let ky = (k % 9u) / 3u;
            let kx = k % 3u;
            let yy = i32(y + ky) - 1;
            let xx = i32(x + kx) - 1;
            var v = 0.0;
            if (yy >= 0 && yy < i32(H) && xx >= 0 && xx < i32(W)) {
                let g = (c * H + u32(yy)) * W + u32(xx);
                v = img[g] + hsh(g);
            }
            col[ci(p, k)] = v;
        }
        workgroupBarrier();
        var a0 = vec4<f32>(0.0);
        var a1 = vec4<f32>(0.0);
        var a2 = vec4<f32>(0.0);
        var a3 = vec4<f32>(0.0);
        var a4 = vec4<f32>(0.0);
        var a5 = vec4<f32>(0.0);
        var a6 = vec4<f32>(0.0);
        var a7 = vec4<f32>(0.0);
        for (var k = 0u; k < 36u; k++) {
            let a = col[ci(p, k)];
            let wb = k * 8u;
            a0 = fma(vec4<f32>(a), w[wb], a0);
            a1 = fma(vec4<f32>(a), w[wb + 1u], a1);
            a2 = fma(vec4<f32>(a), w[wb + 2u], a2);
            a3 = fma(vec4<f32>(a), w[wb + 3u], a3);
            a4 = fma(vec4<f32>(a), w[wb + 4u], a4);
            a5 = fma(vec4<f32>(a), w[wb + 5u], a5);
            a6 = fma(vec4<f32>(a), w[wb + 6u], a6);
            a7 = fma(vec4<f32>(a), w[wb + 7u], a7);
        }
        let o = y * W + x;
        let bias = vec4<f32>(0.01, -0.02, 0.03, -0.04);
        let z = vec4<f32>(0.0);
        let r0 = max(a0 + bias, z);
        let r1 = max(a1 + bias, z);
        let r2 = max(a2 + bias, z);
        let r3 = max(a3 + bias, z);
        let r4 = max(a4 + bias, z);
        let r5 = max(a5 + bias, z);
        let r6 = max(a6 + bias, z);
        let r7 = max(a7 + bias, z);
        let HW = H * W;
        outp[o] = r0.x; outp[o + HW] = r0.y; outp[o + 2u * HW] = r0.z; outp[o + 3u * HW] = r0.w;
        outp[o + 4u * HW] = r1.x; outp[o + 5u * HW] = r1.y; outp[o + 6u * HW] = r1.z; outp[o + 7u * HW] = r1.w;
        outp[o + 8u * HW] = r2.x; outp[o + 9u * HW] = r2.y; outp[o + 10u * HW] = r2.z; outp[o + 11u * HW] = r2.w;
        outp[o + 12u * HW] = r3.x; outp[o + 13u * HW] = r3.y; outp[o + 14u * HW] = r3.z; outp[o + 15u * HW] = r3.w;
        outp[o + 16u * HW] = r4.x; outp[o + 17u * HW] = r4.y; outp[o + 18u * HW] = r4.z; outp[o + 19u * HW] = r4.w;
        outp[o + 20u * HW] = r5.x; outp[o + 21u * HW] = r5.y; outp[o + 22u * HW] = r5.z; outp[o + 23u * HW] = r5.w;
        outp[o + 24u * HW] = r6.x; outp[o + 25u * HW] = r6.y; outp[o + 26u * HW] = r6.z; outp[o + 27u * HW] = r6.w;
        outp[o + 28u * HW] = r7.x; outp[o + 29u * HW] = r7.y; outp[o + 30u * HW] = r7.z; outp[o + 31u * HW] = r7.w;
        workgroupBarrier();
    }
}
