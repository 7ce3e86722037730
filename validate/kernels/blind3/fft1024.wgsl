// Family fft1024: a radix-2 Stockham FFT of 1024 complex points (vec2<f32>) per
// workgroup, ping-ponging between two stage buffers in workgroup memory.
//
// What it computes: 512 invocations each generate two complex points (from the
// input vec4 and a hash of the global id) and store them at logical positions t
// and t + 512 of buffer 0. Each of the 10 stages (Ns = 1, 2, ..., 512) reads
// logical a = src[t], b = src[t + 512] (8-byte loads), multiplies b by the twiddle
// exp(-i pi (t mod Ns) / Ns) and writes a + wb, a - wb to logical positions
// d = (t / Ns) * 2Ns + (t mod Ns) and d + Ns of the other buffer (8-byte stores),
// then a barrier. The spectrum (positions t, t + 512) goes to out[global id].
//
// Layout: logical element i of buffer b is vec2 number  b * 1088 + phys(i)  of a
// fixed 2176-element (17 KiB) array in every variant (1088 * 8 B is a multiple of
// 128 B, so both buffers have the same bank alignment), where
//     r = rotate-left of the 10-bit index i by ROT,
//     s = r ^ (SWZ * ((r >> 4) & 1) * 15),
//     phys(i) = s + (s >> 4) * PAD.
// A vec2 covers two banks; I count an 8-byte warp access as two half-warps of 16
// lanes, each conflict-free when its 16 elements fall in 16 distinct bank pairs
// (element index mod 16); degree = wavefronts / 2.
// Reads t, t + 512: 16 consecutive aligned positions per half-warp. Writes for
// Ns < 16: a 32-position block with bit log2(Ns) fixed.
//   SWZ=1 (reference): bit 4 is XORed into bits 0..3: every half-warp covers 16
//       distinct bank pairs in every stage: 1-way.
//   SWZ=0 (plain): reads 1-way, writes of stages Ns = 1, 2, 4, 8: 2-way.
//   PAD=1 (one vec2 of padding after every 16): writes of Ns = 2, 4, 8 stay 2-way
//       (Ns = 1 becomes 1-way), reads 1-way.
//   ROT=2 (index rotated by 2 bits, a "transposed" 4 x 256 placement): reads
//       4-way, writes 4-way (8-way in stages Ns = 4 and 8).
//   ROT=4 (rotated by 4 bits, a 16 x 64 transposed placement): consecutive
//       logical positions are 16 elements (128 B) apart: 16-way on reads and writes.
//
// Dispatch: 4096 workgroups of 512 (inp, out: one vec4<f32> per invocation, the
// default size).

override SWZ: u32 = 1u;
override PAD: u32 = 0u;
override ROT: u32 = 0u;

const N: u32 = 1024u;
const HALF: u32 = 512u;
const BUF: u32 = 1088u;
const PI: f32 = 3.14159265358979;

@group(0) @binding(0) var<storage, read> inp: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> out: array<vec4<f32>>;

var<workgroup> buf: array<vec2<f32>, 2176>;

fn hash(x: u32) -> u32 {
    var h = x;
    h ^= h >> 16u;
    h *= 0x7feb352du;
    h ^= h >> 15u;
    h *= 0x846ca68bu;
    h ^= h >> 16u;
    return h;
}

fn phys(i: u32) -> u32 {
    let r = ((i << ROT) | (i >> (10u - ROT))) & (N - 1u);
    let s = r ^ (SWZ * ((r >> 4u) & 1u) * 15u);
    return s + (s >> 4u) * PAD;
}

fn unit(h: u32) -> f32 {
    return f32(h >> 8u) * (1.0 / 16777216.0) - 0.5;
}

@compute @workgroup_size(512)
fn main(@builtin(local_invocation_index) t: u32,
        @builtin(workgroup_id) wg: vec3<u32>) {
    let gid = wg.x * HALF + t;
    let h = hash(gid);
    let x = inp[gid] + vec4<f32>(unit(h), unit(h * 3u + 1u), unit(h * 5u + 2u), unit(h * 7u + 3u));
    buf[phys(t)] = x.xy;
    buf[phys(t + HALF)] = x.zw;
    workgroupBarrier();

    var src = 0u;
    for (var s = 0u; s < 10u; s++) {
        let ns = 1u << s;
        let a = buf[src * BUF + phys(t)];
        let b = buf[src * BUF + phys(t + HALF)];
        let k = t & (ns - 1u);
        let ang = -PI * f32(k) / f32(ns);
        let w = vec2<f32>(cos(ang), sin(ang));
        let bw = vec2<f32>(b.x * w.x - b.y * w.y, b.x * w.y + b.y * w.x);
        let d = ((t >> s) << (s + 1u)) | k;
        let dst = (1u - src) * BUF;
        buf[dst + phys(d)] = a + bw;
        buf[dst + phys(d + ns)] = a - bw;
        src = 1u - src;
        workgroupBarrier();
    }

    out[gid] = vec4<f32>(buf[phys(t)], buf[phys(t + HALF)]);
}
