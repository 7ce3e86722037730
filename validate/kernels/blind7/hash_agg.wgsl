// Family hash_agg: group-by aggregation (SUM, COUNT, MAX of a value per key)
// of records into an open-addressing hash table in workgroup memory, built
// with workgroup atomics (compare-exchange to claim a slot, linear probing),
// then probed (hash-join style lookups) and dumped. u32.
//
// What it computes: workgroup g, 256 invocations (8 warps), 2048 records.
//   init:   invocation t clears slots t and t + 256 (key = EMPTY, the three
//           aggregates 0). Barrier.
//   build:  8 records per invocation; record it of invocation t has key
//           k = 5 * x + 1 + g * 1280, x = (t & 63) + 64 * (it & 3) (256
//           distinct keys per workgroup, each seen 8 times) and value
//           vals[g * 2048 + it * 256 + t] + ((t ^ it) & 255). Slot
//           s = (k * 2654435761) & 511; compare-exchange EMPTY -> k on KEY(s)
//           (probing on if another key holds it), then atomicAdd SUM(s),
//           atomicAdd CNT(s), atomicMax MAX(s). Barrier.
//   probe:  4 lookups per invocation of key x = (3 t + j) & 255: atomicLoad
//           KEY(s) until it matches, then atomicLoad SUM(s); the total goes
//           to res[g * 256 + t].
//   dump:   slots t and t + 256 as vec4(key, sum, count, max) to
//           table[g * 512 + s].
// The multiplicative hash is a bijection on the 256 keys (no collisions, one
// probe each, whatever the data), and the 32 lanes of a request always fall on
// 32 slots that are distinct mod 32.
//
// Layout of the table (a fixed 4096-word atomic<u32> array in every variant):
//   SOA=1: KEY(s) = s, SUM(s) = 512 + s, CNT(s) = 1024 + s, MAX(s) = 1536 + s
//   SOA=0: KEY(s) = s * S, SUM(s) = s * S + 1, CNT = +2, MAX = +3 (an array of
//          slot structs of S words, S >= 4, padded)
// Every table access (init, CAS, the atomics, probe loads, dump) is a stride-S
// access over 32 slots distinct mod 32:
//   SOA=1 (reference): 1-way.   S=5: 1-way.   S=6: 2-way.   S=4: 4-way.
//   S=8: 8-way.
//
// Dispatch: 8192 workgroups of 256 (vals: 8192 * 2048 = 16777216 words; table:
// 8192 * 512 vec4 = 16777216 words; res: 8192 * 256 = 2097152 words).

override SOA: u32 = 1u;
override S: u32 = 4u;

const NS: u32 = 512u;
const EMPTY: u32 = 0xffffffffu;
const HM: u32 = 2654435761u;

@group(0) @binding(0) var<storage, read> vals: array<u32>;
@group(0) @binding(1) var<storage, read_write> table: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read_write> res: array<u32>;

var<workgroup> tab: array<atomic<u32>, 4096>;

fn fi(s: u32, f: u32) -> u32 {
    if (SOA == 1u) {
        return f * NS + s;
    }
    return s * S + f;
}

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) t: u32,
        @builtin(workgroup_id) wg: vec3<u32>) {
    let kb = wg.x * 1280u;
    for (var i = 0u; i < 2u; i++) {
        let s = i * 256u + t;
        atomicStore(&tab[fi(s, 0u)], EMPTY);
        atomicStore(&tab[fi(s, 1u)], 0u);
        atomicStore(&tab[fi(s, 2u)], 0u);
        atomicStore(&tab[fi(s, 3u)], 0u);
    }
    workgroupBarrier();
    for (var it = 0u; it < 8u; it++) {
        let x = (t & 63u) + 64u * (it & 3u);
        let k = 5u * x + 1u + kb;
        let v = vals[wg.x * 2048u + it * 256u + t] + ((t ^ it) & 255u);
        var s = (k * HM) & (NS - 1u);
        loop {
            let r = atomicCompareExchangeWeak(&tab[fi(s, 0u)], EMPTY, k);
            if (r.exchanged || r.old_value == k) {
                break;
            }
            if (r.old_value != EMPTY) {
                s = (s + 1u) & (NS - 1u);
            }
        }
        atomicAdd(&tab[fi(s, 1u)], v);
        atomicAdd(&tab[fi(s, 2u)], 1u);
        atomicMax(&tab[fi(s, 3u)], v);
    }
    workgroupBarrier();
    var tot = 0u;
    for (var j = 0u; j < 4u; j++) {
        let k = 5u * ((3u * t + j) & 255u) + 1u + kb;
        var s = (k * HM) & (NS - 1u);
        loop {
            let kk = atomicLoad(&tab[fi(s, 0u)]);
            if (kk == k || kk == EMPTY) {
                break;
            }
            s = (s + 1u) & (NS - 1u);
        }
        tot += atomicLoad(&tab[fi(s, 1u)]) ^ (j * 0x9e3779b9u);
    }
    res[wg.x * 256u + t] = tot;
    for (var i = 0u; i < 2u; i++) {
        let s = i * 256u + t;
        table[wg.x * NS + s] = vec4<u32>(atomicLoad(&tab[fi(s, 0u)]), atomicLoad(&tab[fi(s, 1u)]),
                                         atomicLoad(&tab[fi(s, 2u)]), atomicLoad(&tab[fi(s, 3u)]));
    }
}
