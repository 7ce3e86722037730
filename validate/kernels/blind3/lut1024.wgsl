// Family lut1024: a lookup-table transform. A 1024-entry table of bytes (an
// S-box-like map from 10-bit to 8-bit values, 4 entries packed per u32 word, so
// 256 table words) lives in workgroup memory and is read at data-dependent
// indices.
//
// What it computes: the 256 invocations first fill the whole fixed 8192-word
// (32 KiB) array: word A holds table word w = (A / WSTRIDE) & 255, whose 4 bytes
// are a hash of w (the same 32 stores per invocation, 1-way, in every variant).
// After a barrier every invocation transforms ITEMS = 128 values: idx =
// hash(seed, k) & 1023 (seed = input word ^ global id), byte (idx & 3) of table
// word idx >> 2 is looked up, and the bytes are folded into a checksum written to
// out[global id]. The loads are independent of each other (no pointer chase).
//
// Layout: table word w as seen by lane l (= t & 31) is read from word
//     w * WSTRIDE + (l & (COPIES - 1))
// i.e. COPIES replicas of the table interleaved word by word (lane l reads replica
// l mod COPIES).
//   WSTRIDE=32 COPIES=32 (reference): one replica per lane, bank = lane: 1-way
//       for any index.
//   WSTRIDE=32 COPIES=8: 4 lanes per bank, distinct words unless two of them draw
//       the same table word (p ~ 1/256 per pair): 4-way.
//   WSTRIDE=32 COPIES=2: 16 lanes per bank: 16-way (~15.6 on average).
//   WSTRIDE=1 COPIES=1: the plain unreplicated 256-word table: bank = w & 31 with w
//       random: ~3.5-way on average (balls in bins; worst requests 6-7), lanes on
//       the same word are served by one broadcast.
//   WSTRIDE=32 COPIES=1: one replica spread at a 32-word stride: all lanes in one
//       bank, ~30 distinct words among 32 random ones: ~30-way (32 at worst).
//
// Dispatch: 2048 workgroups of 256 (seed_in, out: one u32 per invocation).

override WSTRIDE: u32 = 32u;
override COPIES: u32 = 32u;

const ITEMS: u32 = 128u;
const WG: u32 = 256u;

@group(0) @binding(0) var<storage, read> seed_in: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;

var<workgroup> lut: array<u32, 8192>;

fn hash(x: u32) -> u32 {
    var h = x;
    h ^= h >> 16u;
    h *= 0x7feb352du;
    h ^= h >> 15u;
    h *= 0x846ca68bu;
    h ^= h >> 16u;
    return h;
}

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) t: u32,
        @builtin(workgroup_id) wg: vec3<u32>) {
    for (var k = 0u; k < 8192u / WG; k++) {
        let a = k * WG + t;
        let w = (a / WSTRIDE) & 255u;
        lut[a] = hash(w * 0x9e3779b9u + 0x7f4a7c15u);
    }
    workgroupBarrier();

    let gid = wg.x * WG + t;
    let seed = seed_in[gid] ^ (gid * 0x85ebca6bu);
    let copy = (t & 31u) & (COPIES - 1u);
    var acc = 0u;
    for (var k = 0u; k < ITEMS; k++) {
        let idx = hash(seed + k * 0x632be5abu) & 1023u;
        let word = lut[(idx >> 2u) * WSTRIDE + copy];
        let b = (word >> ((idx & 3u) * 8u)) & 255u;
        acc = (acc ^ b) * 0x01000193u;
    }
    out[gid] = acc;
}
