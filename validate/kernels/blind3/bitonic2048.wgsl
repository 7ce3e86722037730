// Family bitonic2048: a bitonic sort of 2048 u32 keys per workgroup, entirely in
// workgroup memory.
//
// What it computes: 1024 invocations each generate two keys (a hash of the
// input word and the global id), store them at logical positions t and t + 1024,
// then run the 66 compare-exchange stages of a bitonic sorting network
// (k = 2..2048, j = k/2..1): invocation t compares logical positions
// i = ((t & ~(j-1)) << 1) | (t & (j-1)) and i + j, and writes both back (min/max
// by direction (i & k) == 0), with a barrier after every stage. Finally it writes
// logical positions t and t + 1024 (sorted keys) to out[global id] as a vec2<u32>.
//
// Layout: logical key i lives at word
//     phys(i) = (i ^ (SWZ * ((i >> 5) & 1) * 31)) * KSTRIDE + (i >> PAD_SHIFT) * PAD
// of a fixed 8192-word (32 KiB) array in every variant.
// For j >= 32 a warp touches 32 consecutive aligned positions; for j <= 16 it
// touches a 64-position block with bit log2(j) fixed (32 positions), i.e. i and
// i + 32 are both touched.
//   SWZ=1 (reference): bit 5 is XORed into bits 0..4, so the 32 positions of a warp
//       fall in 32 distinct banks at every stage: 1-way.
//   SWZ=0 (no padding): for j <= 16, i and i+32 share a bank: 2-way (45 of 66
//       stages); j >= 32 and the initial / final accesses: 1-way.
//   SWZ=0 PAD=1 PAD_SHIFT=5 (one pad word after every 32 keys, the usual fix):
//       j = 1 becomes 1-way, but j = 2..16 stay 2-way (positions x and x+1 of
//       the two 32-key halves collide): 2-way in 34 of 66 stages.
//   SWZ=0 KSTRIDE=2 (a pad word after every key): j >= 32 and the initial /
//       final accesses 2-way; j <= 8: 4-way; j = 16: 2-way.
//   SWZ=0 KSTRIDE=4 (three pad words after every key): j >= 8 and the initial /
//       final accesses 4-way; j <= 4: 8-way (30 of 66 stages).
//
// Dispatch: 2048 workgroups of 1024 (out: one vec2<u32> per invocation, the default).

override SWZ: u32 = 1u;
override KSTRIDE: u32 = 1u;
override PAD: u32 = 0u;
override PAD_SHIFT: u32 = 5u;

const NKEYS: u32 = 2048u;
const WG: u32 = 1024u;

@group(0) @binding(0) var<storage, read> seed_in: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<vec2<u32>>;

var<workgroup> keys: array<u32, 8192>;

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
    let s = i ^ (SWZ * ((i >> 5u) & 1u) * 31u);
    return s * KSTRIDE + (i >> PAD_SHIFT) * PAD;
}

@compute @workgroup_size(1024)
fn main(@builtin(local_invocation_index) t: u32,
        @builtin(workgroup_id) wg: vec3<u32>) {
    let gid = wg.x * WG + t;
    let seed = seed_in[gid] ^ gid;
    keys[phys(t)] = hash(seed * 2u);
    keys[phys(t + WG)] = hash(seed * 2u + 1u);
    workgroupBarrier();

    for (var k = 2u; k <= NKEYS; k = k << 1u) {
        for (var j = k >> 1u; j > 0u; j = j >> 1u) {
            let i = ((t & ~(j - 1u)) << 1u) | (t & (j - 1u));
            let pi = phys(i);
            let pl = phys(i + j);
            let a = keys[pi];
            let b = keys[pl];
            let up = (i & k) == 0u;
            let swap = (a > b) == up;
            keys[pi] = select(a, b, swap);
            keys[pl] = select(b, a, swap);
            workgroupBarrier();
        }
    }

    out[gid] = vec2<u32>(keys[phys(t)], keys[phys(t + WG)]);
}
