// Bank conflicts on the critical path, as in a tree reduction: in each of ITERS phases,
// the first ACTIVE warps of a 256-invocation workgroup each read two words and store
// their sum (a = sh[i]; b = sh[i + 1]; sh[i] = a + b), then the workgroup meets at a
// barrier. Lane l of warp w uses i = (w * 32 + l) * STRIDE (wrapping in 1024 words), so
// every access is gcd(STRIDE, 32)-way conflicted. With few warps active and few
// workgroups per SM (dispatch 132 x B for B per SM, one wave) a phase is latency, not
// pipe throughput: what a conflict adds to a dependent chain that a barrier ends.
// banksim measure validate/kernels/phase_conflict.wgsl --dispatch 132 --override STRIDE=16
override STRIDE: u32 = 1;
override ACTIVE: u32 = 1;
override ITERS: u32 = 256u;

@group(0) @binding(0) var<storage, read_write> out: array<f32>;

var<workgroup> sh: array<f32, 1024>;

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) li: u32, @builtin(global_invocation_id) gid: vec3<u32>) {
    for (var j = li; j < 1024u; j += 256u) { sh[j] = f32(j); }
    workgroupBarrier();
    let i = (li * STRIDE) & 1023u;
    for (var k = 0u; k < ITERS; k++) {
        if ((li >> 5u) < ACTIVE) {
            let a = sh[i];
            let b = sh[(i + 1u) & 1023u];
            sh[i] = a + b;
        }
        workgroupBarrier();
    }
    out[gid.x] = sh[li];
}
