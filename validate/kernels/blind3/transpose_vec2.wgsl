// Family transpose_vec2: out-of-place transpose of a 4096 x 4096 matrix of
// vec2<f32> (complex) elements through a 32 x 32 workgroup tile, with 8-byte
// (vec2) shared-memory accesses.
//
// What it computes: workgroup (bx, by) = workgroup_id.xy, 32 x 8 invocations.
// Invocation (x, y) reads src rows by*32 + y + 8r (r = 0..3), column bx*32 + x,
// adds a value generated from its coordinates (so the zero-filled input is not
// what is moved), and stores it at tile[row][x]; after a barrier it reads the
// tile column-wise, tile[x][y + 8r], and writes dst row bx*32 + y + 8r, column
// by*32 + x. Global loads and stores are coalesced (256 B per warp).
//
// Layout: tile row stride 32 + PAD vec2 elements, in a fixed 32 x 40 vec2 array
// (10 KiB) in every variant. I count an 8-byte warp access as two half-warps
// (16 lanes), each conflict-free when its elements cover 16 distinct bank pairs;
// degree = wavefronts / 2. The row-wise stores are 1-way in every variant; the
// column-wise loads (lane stride 64 + 2 PAD words) are:
//   PAD=1 (reference): lane stride 66 words = 2 banks: 1-way.
//   PAD=0: stride 64 words: all 16 lanes of a half-warp on one bank pair: 16-way.
//   PAD=2: stride 68 words: 8 distinct bank pairs: 2-way.
//   PAD=4: stride 72 words: 4 distinct bank pairs: 4-way.
//   PAD=8: stride 80 words: 2 distinct bank pairs: 8-way.
//
// Dispatch: 128 x 128 workgroups of 32 x 8 (src, dst: 4096*4096 vec2 = 33554432
// words each, bound explicitly).

override PAD: u32 = 1u;

const TS: u32 = 32u;
const W: u32 = 4096u;

@group(0) @binding(0) var<storage, read> src: array<vec2<f32>>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec2<f32>>;

var<workgroup> tile: array<vec2<f32>, 1280>;

@compute @workgroup_size(32, 8)
fn main(@builtin(local_invocation_id) l: vec3<u32>,
        @builtin(workgroup_id) wg: vec3<u32>) {
    let stride = TS + PAD;
    for (var r = 0u; r < 4u; r++) {
        let row = l.y + 8u * r;
        let gr = wg.y * TS + row;
        let gc = wg.x * TS + l.x;
        let v = src[gr * W + gc] + vec2<f32>(f32(gr) * 0.001, f32(gc ^ gr) * 0.5);
        tile[row * stride + l.x] = v;
    }
    workgroupBarrier();
    for (var r = 0u; r < 4u; r++) {
        let row = l.y + 8u * r;
        let v = tile[l.x * stride + row];
        dst[(wg.x * TS + row) * W + wg.y * TS + l.x] = v;
    }
}
