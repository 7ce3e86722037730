// Family downsample_rgba: one mip level of an RGBA f32 image (4096 x 2048 ->
// 2048 x 1024), each output pixel the gamma-correct mean of a 2 x 2 block, the
// input tile staged in workgroup memory channel by channel.
//
// What it computes: workgroup (bx, by), 32 x 8 invocations, owns a 32 x 8
// output tile; it stages the 64 x 16-pixel input tile (1024 pixels): invocation
// t loads pixels q = k*256 + t (k = 0..3; row q >> 6, column q & 63) as vec4
// (coalesced, plus a value generated from the index so the zero-filled input is
// not trivial) and stores the 4 channels as 4-byte words at W(q, ch). Barrier.
// Invocation (x, y) reads the 4 channels of input pixels (2x + dx, 2y + dy)
// (16 loads), squares them (sRGB-ish to linear), averages, takes the square root
// and writes the vec4 to dst (coalesced).
//
// Layout (a fixed 6144-word array in every variant; q = row * 64 + col):
//   LAYOUT=0: W = ch * 1024 + row * 64 + (col & 1) * 32 + (col >> 1)
//             (planar, each row split into even and odd columns)
//   LAYOUT=1: W = ch * 1024 + q                 (planar)
//   LAYOUT=2: W = q * PS + (q >> 3) * PADQ + ch (interleaved RGBA, pixel stride
//             PS words, PADQ words of padding after every 8 pixels)
// The 2x2 loads (lane x at column 2x + dx of one row):
//   LAYOUT=0 (reference): consecutive words: 1-way.
//   LAYOUT=2 PS=4 PADQ=1: bank 8 (x & 3) + (x >> 2) + const: 1-way.
//   LAYOUT=1: lane stride 2 words: 2-way.
//   LAYOUT=2 PS=6 PADQ=0: lane stride 12 words: 4-way.
//   LAYOUT=2 PS=4 PADQ=0: lane stride 8 words: 8-way.
// The staging stores (lane = 32 consecutive pixels of a row): LAYOUT=0: 2-way;
// PS=4 PADQ=1: 1-way; LAYOUT=1: 1-way; PS=6: 2-way; PS=4: 4-way.
// (With PS=4 PADQ=0 a pixel's four channels are one aligned 16-byte group, and
// with PS=6 two aligned 8-byte pairs, so a driver may merge those loads and
// stores into wider accesses; the degrees above are for the 4-byte accesses as
// written.)
//
// Dispatch: 64 x 128 workgroups of 32 x 8 (src: 4096 * 2048 vec4 = 33554432
// words; dst: 2048 * 1024 vec4 = 8388608 words; bound explicitly).

override LAYOUT: u32 = 0u;
override PS: u32 = 4u;
override PADQ: u32 = 0u;

const IW: u32 = 4096u;
const OW: u32 = 2048u;

@group(0) @binding(0) var<storage, read> src: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec4<f32>>;

var<workgroup> tile: array<f32, 6144>;

fn widx(q: u32, ch: u32) -> u32 {
    if (LAYOUT == 0u) {
        return ch * 1024u + (q & ~63u) + (q & 1u) * 32u + ((q & 63u) >> 1u);
    }
    if (LAYOUT == 1u) {
        return ch * 1024u + q;
    }
    return q * PS + (q >> 3u) * PADQ + ch;
}

@compute @workgroup_size(32, 8)
fn main(@builtin(local_invocation_id) l: vec3<u32>,
        @builtin(workgroup_id) wg: vec3<u32>) {
    let t = l.y * 32u + l.x;
    let x0 = wg.x * 64u;
    let y0 = wg.y * 16u;
    for (var k = 0u; k < 4u; k++) {
        let q = k * 256u + t;
        let gi = (y0 + (q >> 6u)) * IW + x0 + (q & 63u);
        let h = gi * 2654435761u;
        let p = src[gi] + vec4<f32>(f32(h >> 24u), f32((h >> 16u) & 255u),
                                    f32((h >> 8u) & 255u), 255.0) * (1.0 / 255.0);
        tile[widx(q, 0u)] = p.x;
        tile[widx(q, 1u)] = p.y;
        tile[widx(q, 2u)] = p.z;
        tile[widx(q, 3u)] = p.w;
    }
    workgroupBarrier();

    var acc = vec4<f32>(0.0);
    for (var dy = 0u; dy < 2u; dy++) {
        for (var dx = 0u; dx < 2u; dx++) {
            let q = (2u * l.y + dy) * 64u + 2u * l.x + dx;
            let c = vec4<f32>(tile[widx(q, 0u)], tile[widx(q, 1u)],
                              tile[widx(q, 2u)], tile[widx(q, 3u)]);
            acc += c * c;
        }
    }
    dst[(wg.y * 8u + l.y) * OW + wg.x * 32u + l.x] = sqrt(acc * 0.25);
}
