// Family 4: permutation gather network in workgroup memory.
//
// A workgroup of 256 invocations loads 1024 f32 into workgroup memory and applies a
// permutation 8 times (ping-pong between two halves of buf):
//     dst[i] = 0.75 * src[perm[i ^ (round << 5)]] + x_i
// The permutation table perm (1024 u32) is built in code once, then read back from
// workgroup memory every round, so the gather index is data-dependent (a shared
// load feeds the address).  Invocation t handles i = t + 256 q (q = 0..3): a warp
// handles one 32-element "row" i = 32 a + b (a warp-uniform, lane b).  The round
// XOR (round << 5) only changes which row a warp takes its indices from.
//
// perm(32a + b) is built so that, for every row a, the 32 lanes read 32 distinct
// words spread over exactly 32 / DEG banks, DEG words per bank:
//     b2 = (13 b + 7 a) mod 32                     (scrambles lanes; bijective in b)
//     Q = 32 / DEG
//     bank  = (b2 mod Q) + Q * (a mod DEG)
//     row   = (b2 / Q)   + DEG * (a / DEG)
//     perm  = 32 * ((5 row + 3) mod 32) + bank     (rows scrambled; bijective)
// It is a bijection of 0..1023 for every DEG (a power of 2 up to 32).
//
// Override DEG = conflict degree of the gather (perm loads and buf stores are
// always consecutive, conflict-free):
//   DEG = 1  : conflict-free (reference; every warp reads one row, lanes scrambled)
//   DEG = 2  : 2-way
//   DEG = 4  : 4-way
//   DEG = 8  : 8-way
//   DEG = 32 : 32-way (every warp reads one column: a transpose-like permutation)
// Workgroup memory: 4096 + 8192 bytes = 12 KiB in every variant.
//
// Dispatch: 8192 workgroups (1024 values each).
// Buffers: 0.0 input and 0.1 output, 8192 * 1024 = 8388608 words each.

override DEG: u32 = 1u;

const ROUNDS: u32 = 8u;

@group(0) @binding(0) var<storage, read> xin: array<f32>;
@group(0) @binding(1) var<storage, read_write> yout: array<f32>;

var<workgroup> perm: array<u32, 1024>;
var<workgroup> buf: array<f32, 2048>;

fn make_perm(i: u32) -> u32 {
    let a = i >> 5u;
    let b = i & 31u;
    let q = 32u / DEG;
    let b2 = (b * 13u + a * 7u) & 31u;
    let bank = (b2 % q) + q * (a % DEG);
    let row = (b2 / q) + DEG * (a / DEG);
    return ((row * 5u + 3u) & 31u) * 32u + bank;
}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wg: vec3<u32>,
        @builtin(local_invocation_index) t: u32) {
    let base = wg.x * 1024u;
    var xv: array<f32, 4>;
    for (var q = 0u; q < 4u; q++) {
        let i = t + 256u * q;
        perm[i] = make_perm(i);
        let v = xin[base + i];
        xv[q] = v;
        buf[i] = v;
    }
    workgroupBarrier();

    for (var round = 0u; round < ROUNDS; round++) {
        let src = (round & 1u) * 1024u;
        let dst = 1024u - src;
        for (var q = 0u; q < 4u; q++) {
            let i = t + 256u * q;
            let p = perm[i ^ (round << 5u)];
            buf[dst + i] = 0.75 * buf[src + p] + xv[q];
        }
        workgroupBarrier();
    }

    // ROUNDS is even: the result is in the first half.
    for (var q = 0u; q < 4u; q++) {
        let i = t + 256u * q;
        yout[base + i] = buf[i];
    }
}
