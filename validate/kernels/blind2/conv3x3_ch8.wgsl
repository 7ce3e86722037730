// Family 6: 2-D convolution, 3x3 filter, 8 input channels -> 4 output channels,
// over a 32 x 8 output tile staged (with its 1-pixel halo) in workgroup memory.
//
// Input and output are planar (CHW, "NCHW" with N = 1) in global memory: channel c
// of the H x W image at c * H * W + y * W + x.  The 4 x 8 x 3 x 3 filter is in a
// uniform buffer (vec4 = the 4 output channels).  A workgroup of 256 invocations
// (32 x 8: lane = x, warp = y) computes one 32 x 8 output tile for 4 channels.  It
// stages the 34 x 10 pixel x 8 channel input tile (2720 words; clamped at the
// border) in workgroup memory at
//     s[c * CS + pix * PS],   pix = ly * 34 + lx
// Staging is a flat coalesced copy in global (CHW) order: a warp stores 32
// consecutive pixels of one channel.  The compute loop reads, for each of 8
// channels and 9 taps, s[c][ly + dy][lx + dx]: the 32 lanes of a warp read 32
// consecutive pixels of one channel.  Both are lane strides of PS words.
//
// Overrides CS (channel stride) and PS (pixel stride), in 4-byte words:
//   CS=340 PS=1  : planar CHW tile, lanes consecutive: conflict-free (reference)
//   CS=1   PS=10 : interleaved HWC tile, pixel stride 10 -> 2-way
//   CS=1   PS=12 : HWC, pixel stride 12 -> 4-way
//   CS=1   PS=8  : HWC, packed 8 channels -> 8-way
//   CS=1   PS=16 : HWC, pixel padded to 16 words (e.g. for vec4 channel access)
//                  -> 16-way
// (lane stride PS: gcd(PS, 32) words per bank).
// Workgroup memory: (7 * CS + 340 * PS) * 4 bytes (10.6 KiB reference, 21.3 KiB at
// PS = 16).
//
// Dispatch: 64 x 128 workgroups -> W = 32 * 64 = 2048, H = 8 * 128 = 1024
// (W = 32 * num_workgroups.x, H = 8 * num_workgroups.y).
// Buffers: 0.0 input 8 * 2048 * 1024 = 16777216 words, 0.1 output 4 * 2048 * 1024
// = 8388608 words, 0.2 the uniform filter (zeros by default).

override CS: u32 = 340u;
override PS: u32 = 1u;

const TW: u32 = 32u;
const TH: u32 = 8u;
const SW: u32 = 34u;
const NPIX: u32 = 340u;
const CIN: u32 = 8u;

struct Filter {
    w: array<vec4<f32>, 72>,   // index c * 9 + dy * 3 + dx; components = output channel
}

@group(0) @binding(0) var<storage, read> img: array<f32>;
@group(0) @binding(1) var<storage, read_write> outp: array<f32>;
@group(0) @binding(2) var<uniform> filt: Filter;

var<workgroup> s: array<f32, 7u * CS + 340u * PS>;

@compute @workgroup_size(32, 8)
fn main(@builtin(workgroup_id) wg: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(local_invocation_index) t: u32) {
    let W = TW * nwg.x;
    let H = TH * nwg.y;
    let x0 = i32(wg.x * TW) - 1;
    let y0 = i32(wg.y * TH) - 1;
    let plane = H * W;

    // Stage 8 channels x 34 x 10 pixels (2720 words, 11 rounds of 256).
    for (var q = 0u; q < 11u; q++) {
        let idx = t + 256u * q;
        if (idx < CIN * NPIX) {
            let c = idx / NPIX;
            let pix = idx - c * NPIX;
            let ly = pix / SW;
            let lx = pix - ly * SW;
            let gx = u32(clamp(x0 + i32(lx), 0, i32(W) - 1));
            let gy = u32(clamp(y0 + i32(ly), 0, i32(H) - 1));
            s[c * CS + pix * PS] = img[c * plane + gy * W + gx];
        }
    }
    workgroupBarrier();

    let lx = lid.x;
    let ly = lid.y;
    var acc = vec4<f32>(0.0);
    for (var c = 0u; c < CIN; c++) {
        for (var dy = 0u; dy < 3u; dy++) {
            let rowpix = (ly + dy) * SW + lx;
            for (var dx = 0u; dx < 3u; dx++) {
                let v = s[c * CS + (rowpix + dx) * PS];
                acc = fma(vec4<f32>(v), filt.w[c * 9u + dy * 3u + dx], acc);
            }
        }
    }
    let gx = wg.x * TW + lx;
    let gy = wg.y * TH + ly;
    let o = gy * W + gx;
    outp[o] = acc.x;
    outp[plane + o] = acc.y;
    outp[2u * plane + o] = acc.z;
    outp[3u * plane + o] = acc.w;
}
