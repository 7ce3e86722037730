// Family dna_shiftand: approximate search of a 16-base pattern in a 2-bit
// packed DNA text (16 bases per u32 word) with the bit-parallel Shift-And
// algorithm extended to one substitution (Wu-Manber, k = 1), the text staged
// in workgroup memory in chunks of 4 words per invocation.
//
// What it computes: workgroup g, 1024 invocations (32 warps), scans 4 rounds of
// 4096 text words. Per round: invocation t loads chunk t (one vec4 of 4 words,
// coalesced, each word XORed with a hash of its index so the zero-filled input
// is a random text) and stores its 4 words at T(t, o), o = 0..3 (4-byte
// stores). Barrier. Then invocation t loads its 4 words T(t, 0..3) and the first
// word of the next chunk T(t + 1, 0) (the last invocation reads that word from
// global memory instead), runs the two Shift-And state words over the 80 bases
// (64 of its chunk + 16 look-ahead, so every match that starts in its chunk is
// seen) with the 4 character masks of the pattern in registers, and counts the
// exact and the one-mismatch matches that start in its chunk. Barrier. The two
// counts go to hits (one word per invocation).
//
// Layout of the staged text (a fixed 8192-word array, 32 KiB, in every
// variant):
//   INTER=1: T(c, o) = o * 1024 + c     (interleaved: word o of every chunk in
//            one row)
//   INTER=0: T(c, o) = c * S + o        (chunk-major, S >= 4 words per chunk)
// Every workgroup access (4 stores, 5 loads per invocation and round) puts the
// 32 lanes of a warp on 32 consecutive chunks c at one o: bank
// (c * S + o) mod 32, 32 / gcd(S, 32) distinct banks:
//   INTER=1 (reference): consecutive words: 1-way.
//   S=5: 1-way.   S=6: 2-way.   S=4 (packed chunks): 4-way.   S=8: 8-way.
// (With S=4 and S=8 a chunk's 4 words are one aligned 16-byte group, so a
// driver may merge the four 4-byte loads into one 16-byte load: 1-way for S=4
// and 2-way for S=8 per quarter-warp. The degrees above are for the 4-byte
// accesses as written.)
//
// Dispatch: 2048 workgroups of 1024 (text: 2048 * 4 * 4096 = 33554432 words;
// hits: 2097152 words; bound explicitly).

override INTER: u32 = 1u;
override S: u32 = 4u;

const WG: u32 = 1024u;
const ROUNDS: u32 = 4u;
const NV4: u32 = 8388608u;
const M: u32 = 16u;

@group(0) @binding(0) var<storage, read> text: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read_write> hits: array<u32>;

var<workgroup> buf: array<u32, 8192>;

fn hash(x: u32) -> u32 {
    var h = x;
    h ^= h >> 16u;
    h *= 0x7feb352du;
    h ^= h >> 15u;
    h *= 0x846ca68bu;
    h ^= h >> 16u;
    return h;
}

fn tidx(c: u32, o: u32) -> u32 {
    if (INTER == 1u) {
        return o * WG + c;
    }
    return c * S + o;
}

fn word_at(v: u32) -> vec4<u32> {
    let w = 4u * v;
    return text[v] ^ vec4<u32>(hash(w), hash(w + 1u), hash(w + 2u), hash(w + 3u));
}

@compute @workgroup_size(1024)
fn main(@builtin(local_invocation_index) t: u32,
        @builtin(workgroup_id) wg: vec3<u32>) {
    // Character masks of the pattern (bit j set where pattern base j is c).
    let pat = hash(0x2545f491u);
    var masks = vec4<u32>(0u);
    for (var j = 0u; j < M; j++) {
        let b = (pat >> (2u * j)) & 3u;
        masks[b] |= 1u << j;
    }

    var exact = 0u;
    var approx = 0u;
    for (var rnd = 0u; rnd < ROUNDS; rnd++) {
        let v = (wg.x * ROUNDS + rnd) * WG + t;
        let ch = word_at(v);
        buf[tidx(t, 0u)] = ch.x;
        buf[tidx(t, 1u)] = ch.y;
        buf[tidx(t, 2u)] = ch.z;
        buf[tidx(t, 3u)] = ch.w;
        workgroupBarrier();

        var r0 = 0u;
        var r1 = 0u;
        for (var o = 0u; o < 5u; o++) {
            var wd: u32;
            if (o < 4u) {
                wd = buf[tidx(t, o)];
            } else if (t + 1u < WG) {
                wd = buf[tidx(t + 1u, 0u)];
            } else {
                wd = word_at((v + 1u) & (NV4 - 1u)).x;
            }
            for (var b = 0u; b < 16u; b++) {
                let bm = masks[(wd >> (2u * b)) & 3u];
                let s0 = (r0 << 1u) | 1u;
                r1 = (((r1 << 1u) | 1u) & bm) | s0;
                r0 = s0 & bm;
                let p = o * 16u + b;
                if (p >= M - 1u && p < 64u + M - 1u) {
                    exact += (r0 >> (M - 1u)) & 1u;
                    approx += (r1 >> (M - 1u)) & 1u;
                }
            }
        }
        workgroupBarrier();
    }
    hits[wg.x * WG + t] = (exact << 16u) | approx;
}
