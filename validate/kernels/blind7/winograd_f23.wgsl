// Family winograd_f23: the input transform of a Winograd F(2x2, 3x3)
// convolution: every 4 x 4 input tile d (stride 2) of every channel becomes
// U = B^T d B (16 values), written out as V[xi][tile][channel] (channel
// innermost: the layout the 16 batched GEMMs over channels read). f32. The
// workgroup turns its (tile, channel) results around in workgroup memory so
// that the global stores run along channels.
//
// What it computes: image of 128 channels x 256 x 256 (planar), 128 x 128
// tiles. Workgroup (gx, gy), 256 invocations (8 warps), takes the 8 tiles
// gx*8 .. gx*8+7 (one tile row) of the 32 channels gy*32 .. gy*32+31.
//   phase 1: invocation t: tile = t & 7, channel c = t >> 3 (a warp: 8 tiles x
//            4 channels); 16 global loads (clamped at the image edge, plus a
//            hash so the zero input is not trivial), U = B^T d B.
//   for each half h = 0, 1 (xi = 8h .. 8h+7): store its 8 values at
//            S(xi - 8h, tile, c). Barrier. Then 8 rounds: lane = channel,
//            (xi, tile) = (t >> 5) + 8 * round: load S and store
//            V[((xi * 16384) + tile) * 128 + channel] (128-byte rows).
//            Barrier.
//
// Layout of S (a fixed 3072-word f32 array in every variant):
//   SWZ=1: S(x, tile, c) = (x*8 + tile)*32 + (c ^ (tile << 2))  (XOR swizzle)
//   SWZ=0: S(x, tile, c) = (x*8 + tile)*CP + c                  (pitch CP >= 32)
// The phase-1 stores (lanes: 8 tiles x 4 channels) decide the degree; the
// phase-2 loads (lanes: 32 channels of one row) are 1-way in every variant.
//   SWZ=1 (reference): banks 4*((c>>2) ^ tile) + (c & 3): 1-way.
//   CP=36: 4*tile + c: 1-way.
//   CP=34: 2*tile + c: 2-way.
//   CP=48: 16*tile + c: 4-way.
//   CP=32: every tile on the same 4 banks: 8-way.
//
// Dispatch: 2048 x 4 workgroups of 256 (img: 128 * 256 * 256 = 8388608 words;
// V: 16 * 16384 * 128 = 33554432 words).

override SWZ: u32 = 1u;
override CP: u32 = 32u;

const HW: u32 = 256u;
const NT: u32 = 16384u;
const NC: u32 = 128u;

@group(0) @binding(0) var<storage, read> img: array<f32>;
@group(0) @binding(1) var<storage, read_write> vout: array<f32>;

var<workgroup> S: array<f32, 3072>;

fn sidx(x: u32, tile: u32, c: u32) -> u32 {
    if (SWZ == 1u) {
        return (x * 8u + tile) * 32u + (c ^ (tile << 2u));
    }
    return (x * 8u + tile) * CP + c;
}

fn put(x: u32, tile: u32, c: u32, v: vec4<f32>) {
    S[sidx(x, tile, c)] = v.x;
    S[sidx(x + 1u, tile, c)] = v.y;
    S[sidx(x + 2u, tile, c)] = v.z;
    S[sidx(x + 3u, tile, c)] = v.w;
}

fn colt(v: vec4<f32>) -> vec4<f32> {
    return vec4<f32>(v.x - v.z, v.y + v.z, v.z - v.y, v.y - v.w);
}

fn hsh(g: u32) -> f32 {
    let h = (g ^ (g >> 15u)) * 2246822519u;
    return f32(h >> 20u) * (1.0 / 4096.0);
}

fn ld(c: u32, y: u32, x: u32) -> vec4<f32> {
    let row = min(y, HW - 1u);
    let b = (c * HW + row) * HW;
    let i0 = b + min(x, HW - 1u);
    let i1 = b + min(x + 1u, HW - 1u);
    let i2 = b + min(x + 2u, HW - 1u);
    let i3 = b + min(x + 3u, HW - 1u);
    return vec4<f32>(img[i0] + hsh(i0), img[i1] + hsh(i1), img[i2] + hsh(i2), img[i3] + hsh(i3));
}

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) t: u32,
        @builtin(workgroup_id) wg: vec3<u32>) {
    let tile = t & 7u;
    let c = t >> 3u;
    let gt = wg.x * 8u + tile;
    let ty = gt >> 7u;
    let tx = gt & 127u;
    let ch = wg.y * 32u + c;
    let d0 = ld(ch, 2u * ty, 2u * tx);
    let d1 = ld(ch, 2u * ty + 1u, 2u * tx);
    let d2 = ld(ch, 2u * ty + 2u, 2u * tx);
    let d3 = ld(ch, 2u * ty + 3u, 2u * tx);
    let sc = 1.0 + 0.0078125 * f32(ch & 15u);
    let u0 = colt(d0 - d2) * sc;
    let u1 = colt(d1 + d2) * sc;
    let u2 = colt(d2 - d1) * sc;
    let u3 = colt(d1 - d3) * sc;
    let lane = t & 31u;
    for (var h = 0u; h < 2u; h++) {
        var ra = u0;
        var rb = u1;
        if (h == 1u) {
            ra = u2;
            rb = u3;
        }
        put(0u, tile, c, ra);
        put(4u, tile, c, rb);
        workgroupBarrier();
        for (var r = 0u; r < 8u; r++) {
            let q = r * 8u + (t >> 5u);
            let x = q >> 3u;
            let tl = q & 7u;
            let v = S[sidx(x, tl, lane)];
            vout[((h * 8u + x) * NT + wg.x * 8u + tl) * NC + wg.y * 32u + lane] = v;
        }
        workgroupBarrier();
    }
}
