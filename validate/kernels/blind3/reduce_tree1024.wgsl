// Family reduce_tree1024: tree reductions of 1024 floats per workgroup in
// workgroup memory, ROUNDS = 16 independent reductions per workgroup.
//
// What it computes: in each round the 512 invocations generate two floats each
// (input word + a hash of global id and round) and store them at words t and
// t + 512 (1-way in every variant); then 10 levels k = 0..9 (half = 512 >> k
// active invocations, t < half) each do sh[a] = sh[a] + sh[b] followed by a
// barrier; invocation 0 writes the sum (word 0) to out[wg * 512 + round]; a
// barrier separates the rounds.
//
// Addressing, by LOG_SPREAD = L (the only override):
//   levels k < L use interleaved addressing: a = t << (k + 1), b = a + (1 << k)
//       (lane stride 2^(k+1) words);
//   levels k >= L use sequential addressing over the partial sums left at
//       multiples of 2^L: a = t << L, b = (t + half) << L (lane stride 2^L).
// Degree per warp request = min(lane stride, 32, active lanes in the warp):
//   L=0 (reference): pure sequential addressing: 1-way at every level.
//   L=1: level 0 stride 2, then sequential at stride 2: 2-way (levels with >= 2
//       active lanes).
//   L=2: strides 2, 4, then 4: 4-way.
//   L=3: strides 2, 4, 8, then 8: 8-way.
//   L=10: pure interleaved addressing (the classic strided-index version):
//       2, 4, 8, 16, 32-way at levels 0..4 (32-way at level 4, one warp of 32
//       active lanes), then 16, 8, 4, 2, 1 as the active lanes shrink.
//
// Dispatch: 4096 workgroups of 512 (inp, out: one f32 per invocation).

override LOG_SPREAD: u32 = 0u;

const WG: u32 = 512u;
const ROUNDS: u32 = 16u;

@group(0) @binding(0) var<storage, read> inp: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;

var<workgroup> sh: array<f32, 1024>;

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

@compute @workgroup_size(512)
fn main(@builtin(local_invocation_index) t: u32,
        @builtin(workgroup_id) wg: vec3<u32>) {
    let gid = wg.x * WG + t;
    let base = inp[gid];
    for (var r = 0u; r < ROUNDS; r++) {
        let h = hash(gid * ROUNDS + r);
        sh[t] = base + unit(h);
        sh[t + WG] = base + unit(h ^ 0x5bd1e995u);
        workgroupBarrier();
        for (var k = 0u; k < 10u; k++) {
            let half = WG >> k;
            if (t < half) {
                var a: u32;
                var b: u32;
                if (k < LOG_SPREAD) {
                    a = t << (k + 1u);
                    b = a + (1u << k);
                } else {
                    a = t << LOG_SPREAD;
                    b = (t + half) << LOG_SPREAD;
                }
                sh[a] = sh[a] + sh[b];
            }
            workgroupBarrier();
        }
        if (t == 0u) {
            out[wg.x * WG + r] = sh[0];
        }
        workgroupBarrier();
    }
}
