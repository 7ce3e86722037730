// Shared-memory atomics by their collision structure: each of a workgroup's 256
// invocations makes ITERS atomicAdd's to workgroup memory, REP (8 or 16) per loop
// iteration, lane l of a warp to word (l / LANES) * STRIDE + the warp's offset:
//   LANES   lanes on one word (1, 2, 4, 8, 32): they collide on it
//   STRIDE  words between the words of a warp (1: consecutive, distinct banks; 32: one
//           bank, distinct words)
//   RET     1: the old value is used (summed into the output: ATOMS.ADD), 0: it is not
//           (a reduction: ATOMS.POPC.INC or RED)
// The time of 8 atomics per warp = REP=16 minus REP=8 (the loop cancels). At 132
// workgroups (8 warps per SM) a warp's atomics wait for each other: latency; at 1056
// (64 warps per SM) the pipe is the limit: throughput. validate/run_micro.sh
// (ATOMS_ONLY=1) measures them; docs/calibration.md has the results.
// banksim measure validate/kernels/atom_collide.wgsl --dispatch 1056 --override LANES=4 --override STRIDE=1 --bind 0.0=u32:4096 --bind 0.1=zeros:270336
override LANES: u32 = 1;
override STRIDE: u32 = 1;
override RET: u32 = 1;
override REP: u32 = 8;
struct Params { iters: u32, }
@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
var<workgroup> sh: array<atomic<u32>, 8192>;

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) t: u32, @builtin(global_invocation_id) gid: vec3<u32>) {
    let lane = t % 32u;
    let warp = t / 32u;
    // (each warp on its own 1024 words: warps never collide with each other)
    let word = (warp * 1024u + (lane / LANES) * STRIDE) % 8192u;
    var acc = 0u;
    for (var k = 0u; k < p.iters; k++) {
        for (var r = 0u; r < REP; r++) {
            if (RET == 1u) {
                acc += atomicAdd(&sh[word], 1u);
            } else {
                atomicAdd(&sh[word], 1u);
            }
        }
    }
    workgroupBarrier();
    out[gid.x] = acc + atomicLoad(&sh[t]);
}
