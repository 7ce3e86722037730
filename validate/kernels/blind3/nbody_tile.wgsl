// Family nbody_tile: an N-body all-pairs tile. Each workgroup stages the
// positions (xyz) and masses (w) of its 256 particles in workgroup memory and
// every invocation accumulates the softened gravitational acceleration that the
// whole tile exerts on its own particle.
//
// What it computes: invocation t generates particle t (input vec4 + a hash of the
// global id), stores it in the tile, barrier, then loops j = 0..255 over the tile
// starting at its own particle (jj = (j + t) & 255, a staggered traversal, so the
// 32 lanes of a warp read 32 consecutive particles rather than one broadcast
// word), computes d = q.xyz - p.xyz, r2 = dot(d, d) + eps,
// acc += d * q.w * r2^-3/2, and writes acc to out[global id].
//
// Layout: one fixed array<vec4<f32>, 2048> (32 KiB) in every variant.
//   SOA=0: particle j is the vec4 number j * VSTRIDE (one 16-byte load per
//       particle). I count a 16-byte warp access as four quarter-warps of 8 lanes,
//       each conflict-free when its 8 vec4 cover 32 distinct banks; degree =
//       wavefronts / 4.
//     VSTRIDE=1 (reference, packed array of vec4): 1-way.
//     VSTRIDE=2 (one vec4 of padding per particle): 2-way.
//     VSTRIDE=4: 4-way.     VSTRIDE=8 (128 B per particle): 8-way.
//   SOA=1: separate x, y, z, w arrays (component c of particle j is word
//       c * 1024 + j * SSTRIDE, read and written as 4-byte scalars: four loads per
//       particle).
//     SSTRIDE=4 (each component array padded to 4 words per particle): 4-way on
//       each of the four scalar loads.
// The initial stores follow the same layout (same degree).
//
// Dispatch: 2048 workgroups of 256 (inp, out: one vec4<f32> per invocation, the
// default size).

override SOA: u32 = 0u;
override VSTRIDE: u32 = 1u;
override SSTRIDE: u32 = 1u;

const TILE: u32 = 256u;
const EPS: f32 = 0.01;

@group(0) @binding(0) var<storage, read> inp: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> out: array<vec4<f32>>;

var<workgroup> tile: array<vec4<f32>, 2048>;

fn hash(x: u32) -> u32 {
    var h = x;
    h ^= h >> 16u;
    h *= 0x7feb352du;
    h ^= h >> 15u;
    h *= 0x846ca68bu;
    h ^= h >> 16u;
    return h;
}

fn unit(h: u32) -> f32 {
    return f32(h >> 8u) * (1.0 / 16777216.0);
}

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) t: u32,
        @builtin(workgroup_id) wg: vec3<u32>) {
    let gid = wg.x * TILE + t;
    let h = hash(gid);
    let p = inp[gid] + vec4<f32>(unit(h), unit(h * 3u + 1u), unit(h * 5u + 2u), 0.5 + unit(h * 7u + 3u));

    if (SOA == 0u) {
        tile[t * VSTRIDE] = p;
    } else {
        let w = t * SSTRIDE;
        tile[(w >> 2u)][w & 3u] = p.x;
        tile[(w >> 2u) + 256u][w & 3u] = p.y;
        tile[(w >> 2u) + 512u][w & 3u] = p.z;
        tile[(w >> 2u) + 768u][w & 3u] = p.w;
    }
    workgroupBarrier();

    var acc = vec3<f32>(0.0);
    for (var j = 0u; j < TILE; j++) {
        let jj = (j + t) & (TILE - 1u);
        var q: vec4<f32>;
        if (SOA == 0u) {
            q = tile[jj * VSTRIDE];
        } else {
            let w = jj * SSTRIDE;
            q = vec4<f32>(tile[(w >> 2u)][w & 3u],
                          tile[(w >> 2u) + 256u][w & 3u],
                          tile[(w >> 2u) + 512u][w & 3u],
                          tile[(w >> 2u) + 768u][w & 3u]);
        }
        let d = q.xyz - p.xyz;
        let r2 = dot(d, d) + EPS;
        let inv = inverseSqrt(r2);
        acc += d * (q.w * inv * inv * inv);
    }
    out[gid] = vec4<f32>(acc, p.w);
}
