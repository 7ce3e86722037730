// Family viterbi_k7: soft-decision Viterbi decoding of the rate-1/2,
// constraint-length-7 convolutional code (generators 171, 133 octal; 64
// states), the add-compare-select (ACS) step of 8 frames at once, the path
// metrics of all frames in workgroup memory (ping-pong buffers).
//
// What it computes: workgroup g, 512 invocations (16 warps), decodes frames
// 8g .. 8g + 7; invocation t is state j = t & 63 of frame f = t >> 6. The
// metrics start at 0 for state 0 and 1e4 elsewhere (one store). Per step
// n = 0..255: every invocation of a frame reads the frame's two soft symbols
// (one vec2 from soft: the same address for the frame's 64 invocations, plus
// a value generated from the index so the zero-filled input is not trivial);
// state j has the predecessors j >> 1 and (j >> 1) + 32: it loads both
// metrics from buffer n & 1 (4-byte loads), adds the branch metrics (the
// correlation of the symbols with the expected code bits, constant per state),
// keeps the smaller, stores it at state j of buffer (n + 1) & 1 (4-byte store)
// and shifts the decision bit into a register; every 32 steps the 32 decisions
// go to dec (coalesced). Barrier. At the end the metrics go to pm_out.
//
// Layout of the metrics (a fixed 2048-word array, 8 KiB, in every variant;
// buffer b of 1024 words at b * 1024):
//   FM=1: metric of state s, frame f at b * 1024 + f * 64 + s   (frame-major)
//   FM=0: metric of state s, frame f at b * 1024 + s * FP + f   (state-major,
//         the frames of one state side by side, pitch FP >= 8)
// Lanes of a warp are 32 consecutive states j of one frame. The ACS store (the
// main access, with the loads) writes 32 words at stride FP (state-major):
// bank (j * FP + f) mod 32, 32 / gcd(FP, 32) distinct banks; the two ACS loads
// read 16 distinct words (lanes 2k and 2k + 1 share predecessor k) at stride
// FP:
//   FM=1 (reference): stores consecutive words, loads 16 consecutive words:
//        1-way.
//   FP=9:  stores 1-way, loads 1-way.
//   FP=10: stores 16 banks: 2-way; loads 1-way (10k mod 32 distinct for 16 k).
//   FP=8:  stores 4 banks: 8-way; loads 4 banks: 4-way.
//   FP=16: stores 2 banks: 16-way; loads 2 banks: 8-way.
// (expected_conflict is the store's degree, the worst of the step.)
//
// Dispatch: 1024 workgroups of 512 (soft: 8192 frames * 256 vec2 = 4194304
// words; dec: 8192 * 8 * 64 = 4194304 words; pm_out: 8192 * 64 = 524288 words;
// bound explicitly).

override FM: u32 = 1u;
override FP: u32 = 8u;

const NF: u32 = 8u;
const L: u32 = 256u;
const G0: u32 = 0x79u;
const G1: u32 = 0x5bu;

@group(0) @binding(0) var<storage, read> soft: array<vec2<f32>>;
@group(0) @binding(1) var<storage, read_write> dec: array<u32>;
@group(0) @binding(2) var<storage, read_write> pm_out: array<f32>;

var<workgroup> pm: array<f32, 2048>;

fn pidx(b: u32, f: u32, s: u32) -> u32 {
    if (FM == 1u) {
        return b * 1024u + f * 64u + s;
    }
    return b * 1024u + s * FP + f;
}

fn sgn(r: u32, g: u32) -> f32 {
    return 1.0 - 2.0 * f32(countOneBits(r & g) & 1u);
}

@compute @workgroup_size(512)
fn main(@builtin(local_invocation_index) t: u32,
        @builtin(workgroup_id) wg: vec3<u32>) {
    let f = t >> 6u;
    let j = t & 63u;
    let fg = wg.x * NF + f;
    // Expected code bits (as +-1) of the two transitions into state j.
    let e0 = vec2<f32>(sgn(j, G0), sgn(j, G1));
    let e1 = vec2<f32>(sgn(j | 64u, G0), sgn(j | 64u, G1));
    let p0 = j >> 1u;
    let p1 = p0 + 32u;

    pm[pidx(0u, f, j)] = select(1.0e4, 0.0, j == 0u);
    workgroupBarrier();

    var bits = 0u;
    for (var n = 0u; n < L; n++) {
        let cur = n & 1u;
        let si = fg * L + n;
        let h = si * 2654435761u;
        let y = soft[si] + vec2<f32>(f32(h >> 24u), f32((h >> 16u) & 255u)) * (1.0 / 128.0) - 1.0;
        let m0 = pm[pidx(cur, f, p0)] - dot(y, e0);
        let m1 = pm[pidx(cur, f, p1)] - dot(y, e1);
        let d = m1 < m0;
        pm[pidx(cur ^ 1u, f, j)] = select(m0, m1, d);
        bits |= select(0u, 1u, d) << (n & 31u);
        if ((n & 31u) == 31u) {
            dec[(fg * (L / 32u) + (n >> 5u)) * 64u + j] = bits;
            bits = 0u;
        }
        workgroupBarrier();
    }
    pm_out[fg * 64u + j] = pm[pidx(L & 1u, f, j)];
}
