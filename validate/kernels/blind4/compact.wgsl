// Family compact: stream compaction (keep the elements that pass a predicate,
// in order) of 16M u32, one 2048-element tile per workgroup, with a blocked
// per-invocation arrangement read through workgroup memory and a workgroup
// prefix sum of the per-invocation counts.
//
// What it computes: workgroup g, 256 invocations, owns elements g*2048 ..
// g*2048+2047. Invocation t loads elements k*256 + t (k = 0..7, coalesced),
// hashes each with its index (so the zero-filled input gives random values) and
// stores it at buf[f(i)]. Barrier. It then reads its BLOCKED items
// buf[f(8t + j)], j = 0..7 (8 loads), keeps those whose low bit is 1 (about
// half), and counts them. A Hillis-Steele scan of the 256 counts (8 steps,
// ping-pong, 1-way) gives each invocation its output offset; it writes its kept
// items (times 3) in order to obuf[offset ..] (data-dependent, the same in every
// variant). Barrier. The compacted tile is written to outv[g*2048 ..] coalesced,
// its length to counts[g].
//
// Layout of the staging array buf (a fixed 2304-word array in every variant):
//   XOR=0: f(i) = i + (i >> 5) * PAD     (PAD words after every 32)
//   XOR=1: f(i) = i ^ ((i >> 5) & 7)     (XOR swizzle, PAD ignored)
// The blocked loads put lane l at word f(8l + j): with a = l & 3, b = l >> 2,
// bank (8a + PAD * b + j + const) mod 32:
//   PAD=1 (reference): 8a + b distinct: 1-way.
//   XOR=1: bank 8a + (j ^ b): distinct: 1-way.
//   PAD=2: 8a + 2b covers 16 banks: 2-way.
//   PAD=4: 4-way.
//   PAD=0: 8a: 4 banks: 8-way.
// The striped stores buf[f(k*256 + t)] are 1-way in every variant (a warp writes
// 32 consecutive i, shifted or permuted within 8-word groups as one).
// (An invocation's 8 words are contiguous in every XOR=0 variant; with PAD=0 or
// PAD=4 they are 16-byte aligned and with PAD=2 8-byte aligned, so a driver may
// merge them into wider loads; the degrees above are for the 4-byte loads as
// written.)
//
// Dispatch: 8192 workgroups of 256 (inp, outv: 8192 * 2048 = 16777216 words,
// counts: 8192 words; bound explicitly).

override PAD: u32 = 1u;
override XOR: u32 = 0u;

const WG: u32 = 256u;
const ITEMS: u32 = 8u;
const TILE: u32 = 2048u;

@group(0) @binding(0) var<storage, read> inp: array<u32>;
@group(0) @binding(1) var<storage, read_write> outv: array<u32>;
@group(0) @binding(2) var<storage, read_write> counts: array<u32>;

var<workgroup> buf: array<u32, 2304>;
var<workgroup> obuf: array<u32, 2048>;
var<workgroup> sc: array<u32, 512>;

fn hash(x: u32) -> u32 {
    var h = x;
    h ^= h >> 16u;
    h *= 0x7feb352du;
    h ^= h >> 15u;
    h *= 0x846ca68bu;
    h ^= h >> 16u;
    return h;
}

fn f(i: u32) -> u32 {
    if (XOR == 1u) {
        return i ^ ((i >> 5u) & 7u);
    }
    return i + (i >> 5u) * PAD;
}

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) t: u32,
        @builtin(workgroup_id) wg: vec3<u32>) {
    let base = wg.x * TILE;
    for (var k = 0u; k < ITEMS; k++) {
        let i = k * WG + t;
        buf[f(i)] = hash(inp[base + i] ^ (base + i));
    }
    workgroupBarrier();

    var v: array<u32, 8>;
    var cnt = 0u;
    for (var j = 0u; j < ITEMS; j++) {
        let x = buf[f(t * ITEMS + j)];
        v[j] = x;
        cnt += x & 1u;
    }

    // inclusive scan of the counts
    sc[t] = cnt;
    var src = 0u;
    for (var off = 1u; off < WG; off <<= 1u) {
        workgroupBarrier();
        var s = sc[src + t];
        if (t >= off) {
            s += sc[src + t - off];
        }
        sc[(src ^ 256u) + t] = s;
        src ^= 256u;
    }
    workgroupBarrier();
    var pos = sc[src + t] - cnt;
    let total = sc[src + WG - 1u];

    for (var j = 0u; j < ITEMS; j++) {
        if ((v[j] & 1u) == 1u) {
            obuf[pos] = v[j] * 3u;
            pos += 1u;
        }
    }
    workgroupBarrier();

    for (var k = 0u; k < ITEMS; k++) {
        let i = k * WG + t;
        if (i < total) {
            outv[base + i] = obuf[i];
        }
    }
    if (t == 0u) {
        counts[wg.x] = total;
    }
}
