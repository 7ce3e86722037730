// Bank conflicts on the critical path, as in a tree reduction: in each of ITERS phases,
// the first ACTIVE warps of a 256-invocation workgroup each read two words and store
// their sum (a = sh[i]; b = sh[i + 1]; sh[i] = a + b), then the workgroup meets at a
// barrier. Lane l of warp w uses i = (w * 32 + l) * STRIDE (wrapping in 1024 words), so
// every access is gcd(STRIDE, 32)-way conflicted. With few warps active and few
// workgroups per SM (dispatch 132 x B for B per SM, one wave) a phase is latency, not
// pipe throughput: what a conflict adds to a dependent chain that a barrier ends.
// WG sets the workgroup's invocations (a multiple of 32). ROTATE = r > 0 makes warp w
// active where (w + workgroup / r) mod warps < ACTIVE: with r the SMs (132), the
// workgroups of one SM have different active warps, on different schedulers.
// banksim measure validate/kernels/phase_conflict.wgsl --dispatch 132 --override STRIDE=16
override STRIDE: u32 = 1;
override ACTIVE: u32 = 1;
override ITERS: u32 = 256u;
override WG: u32 = 256u;
override ROTATE: u32 = 0u;

@group(0) @binding(0) var<storage, read_write> out: array<f32>;

var<workgroup> sh: array<f32, 1024>;

@compute @workgroup_size(WG)
fn main(@builtin(local_invocation_index) li: u32, @builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(workgroup_id) wg: vec3<u32>) {
    for (var j = li; j < 1024u; j += WG) { sh[j] = f32(j); }
    workgroupBarrier();
    let i = (li * STRIDE) & 1023u;
    var w = li >> 5u;
    if (ROTATE > 0u) {
        w = (w + wg.x / max(ROTATE, 1u)) % (WG / 32u);
    }
    for (var k = 0u; k < ITERS; k++) {
        if (w < ACTIVE) {
            let a = sh[i];
            let b = sh[(i + 1u) & 1023u];
            sh[i] = a + b;
        }
        workgroupBarrier();
    }
    out[gid.x] = sh[li];
}
