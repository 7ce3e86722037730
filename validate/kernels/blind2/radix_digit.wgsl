// Family 5: one radix-sort pass on a 4-bit digit (bits 4..7 of the key): a stable
// per-workgroup partition of 2048 keys by digit.
//
// A workgroup of 256 invocations (8 warps) handles 2048 u32 keys, 8 per invocation:
// key i = t + 256 j (j = 0..7).  key = input ^ hash(global index), so zero input
// still gives pseudo-random digits.  The keys form 64 "segments" of 32 keys (one
// warp instruction each: segment s = 8 j + warp).
//   1. histogram: per-segment digit counters in workgroup memory, incremented with
//      workgroup atomics (atomicAdd, result unused) at hist[d * DS + s];  the digits
//      of each segment are also packed, 8 nibbles per word, into packed[4 s + lane/8]
//      with atomicOr (4 consecutive words per warp, conflict-free);
//   2. local scan: lanes 0..15 of warp 0 (lane = digit d) walk the 64 segments in
//      order, turning hist[d * DS + s] into exclusive offsets within the digit
//      (load + store per step), then the 16 digit totals are scanned into digit
//      bases (base[16]);
//   3. rank and scatter: each key's rank among the earlier keys of its segment with
//      the same digit comes from the 4 packed words (broadcast loads, nibble-compare
//      and popcount); position = base[d] + hist[d * DS + s] + rank (a load of the
//      histogram); the key is written to its position within the workgroup's output
//      block, and the 16 digit counts to a second buffer.
//
// Override DS = the digit stride of the histogram (segment index is the fast one,
// DS >= 64).  Every histogram access of a warp (the atomics of pass 1, the scan of
// pass 2, the loads of pass 3) touches hist[d * DS + s] for one segment s and the
// lanes' digits d (16 possible): bank = (d * DS + s) mod 32, so the 16 digits
// fall on the distinct values of d * DS mod 32:
//   DS = 65 : 16 digits on 16 banks -> conflict-free (reference)
//   DS = 68 : 8 banks, 2 digits each  -> 2-way
//   DS = 72 : 4 banks, 4 digits each  -> 4-way
//   DS = 80 : 2 banks, 8 digits each  -> 8-way
//   DS = 64 : 1 bank, 16 digits       -> 16-way (the unpadded [digit][segment] array)
// The scan of pass 2 always touches all 16 digits (exactly these degrees); for the
// data-dependent atomics and loads of passes 1 and 3 a random warp holds ~14 of
// the 16 digits, so the degree is that or slightly less.  Lanes with the same digit
// hit the same word (same-address atomics merge; same-word loads broadcast).
// Workgroup memory: 16 * DS * 4 + 1024 + 128 bytes (at most 6.3 KiB).
//
// Dispatch: 4096 workgroups (8388608 keys).
// Buffers: 0.0 input keys and 0.1 output keys, 4096 * 2048 = 8388608 words each;
// 0.2 digit counts, 16 per workgroup (65536 words: the default size at this dispatch).

override DS: u32 = 65u;

const ITEMS: u32 = 8u;
const SEGS: u32 = 64u;
const SHIFT: u32 = 4u;

@group(0) @binding(0) var<storage, read> keys_in: array<u32>;
@group(0) @binding(1) var<storage, read_write> keys_out: array<u32>;
@group(0) @binding(2) var<storage, read_write> counts_out: array<u32>;

var<workgroup> hist: array<atomic<u32>, 16u * DS>;
var<workgroup> packed: array<atomic<u32>, 256>;
var<workgroup> tot: array<u32, 16>;
var<workgroup> base: array<u32, 16>;

fn hash(x: u32) -> u32 {
    var h = x * 0x9E3779B1u;
    h = h ^ (h >> 15u);
    h = h * 0x85EBCA77u;
    return h ^ (h >> 13u);
}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wg: vec3<u32>,
        @builtin(local_invocation_index) t: u32) {
    let lane = t & 31u;
    let w = t >> 5u;
    let gbase = wg.x * 2048u;

    // Zero the counters (consecutive words, conflict-free).
    for (var z = 0u; z < 5u; z++) {
        let i = t + 256u * z;
        if (i < 16u * DS) {
            atomicStore(&hist[i], 0u);
        }
    }
    atomicStore(&packed[t], 0u);
    workgroupBarrier();

    // 1. Histogram and packed digits.
    var key: array<u32, 8>;
    for (var j = 0u; j < ITEMS; j++) {
        let g = gbase + t + 256u * j;
        let k = keys_in[g] ^ hash(g);
        key[j] = k;
        let d = (k >> SHIFT) & 15u;
        let s = 8u * j + w;
        atomicAdd(&hist[d * DS + s], 1u);
        atomicOr(&packed[4u * s + (lane >> 3u)], d << (4u * (lane & 7u)));
    }
    workgroupBarrier();

    // 2. Local scan: per digit over the segments, then over the digits.
    if (t < 16u) {
        var run = 0u;
        for (var s = 0u; s < SEGS; s++) {
            let c = atomicLoad(&hist[t * DS + s]);
            atomicStore(&hist[t * DS + s], run);
            run += c;
        }
        tot[t] = run;
        counts_out[wg.x * 16u + t] = run;
    }
    workgroupBarrier();
    if (t < 16u) {
        var b = 0u;
        for (var e = 0u; e < 16u; e++) {
            b += select(0u, tot[e], e < t);
        }
        base[t] = b;
    }
    workgroupBarrier();

    // 3. Rank within the segment, position, scatter.
    for (var j = 0u; j < ITEMS; j++) {
        let k = key[j];
        let d = (k >> SHIFT) & 15u;
        let s = 8u * j + w;
        let rep = d * 0x11111111u;
        var rank = 0u;
        for (var q = 0u; q < 4u; q++) {
            let x = atomicLoad(&packed[4u * s + q]) ^ rep;
            // high bit of each nibble set where the nibble is zero (digit equal)
            let y = (x & 0x77777777u) + 0x77777777u;
            let eq = ~(y | x | 0x77777777u);
            let n = u32(clamp(i32(lane) - i32(8u * q), 0, 8));
            let mask = select((1u << (4u * n)) - 1u, 0xFFFFFFFFu, n == 8u);
            rank += countOneBits(eq & mask);
        }
        let pos = base[d] + atomicLoad(&hist[d * DS + s]) + rank;
        keys_out[gbase + pos] = k;
    }
}
