// Held-out suite (validate/suite_unseen.csv): shared-memory matrix-vector steps with
// 16-byte (vec4) accesses. A 256 x 8 f32 block of A sits in workgroup memory, row t
// at vec4 (2 + PADV) * t (rows 8 + 4 PADV floats apart); invocation t owns row t.
// Each of ITERS steps reads its row (2 vec4 loads), a slice of x (2 vec4 loads, every
// lane the same words: broadcast) and writes its row back updated (2 vec4 stores).
// A 16-byte access is served a quarter-warp (8 lanes, 128 bytes) at a time: lanes
// 2 + PADV vectors apart give gcd(2 + PADV, 8)-way conflicts: PADV = 1 (pitch 3)
// conflict-free, PADV = 0 2-way, PADV = 2 4-way, PADV = 5 (pitch 7) conflict-free with
// a larger tile (29 KiB: fewer workgroups per SM). Set with --override PADV=N.
// A and x come from `a` (vec4 (workgroup % 64) * 512 + i: 512 KiB, cache-resident).
// banksim capture validate/kernels/unseen/matvec.wgsl --dispatch 2 --override PADV=0 --bind 0.0=zeros:131072 -o m.csv
override PADV: u32 = 1;
override ITERS: u32 = 32;

@group(0) @binding(0) var<storage, read> a: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;

var<workgroup> am: array<vec4<f32>, 256 * (2 + PADV)>;
var<workgroup> xv: array<vec4<f32>, 64>;

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) t: u32, @builtin(workgroup_id) wg: vec3<u32>) {
    let pitch = 2u + PADV;
    let base = (wg.x & 63u) * 512u;
    // coalesced fill: vector t + 256 k of the block is row (t + 256 k) / 2, half t % 2
    for (var k = 0u; k < 2u; k++) {
        let i = t + 256u * k;
        am[(i >> 1u) * pitch + (i & 1u)] = a[base + i];
    }
    if (t < 64u) {
        xv[t] = a[base + t];
    }
    workgroupBarrier();
    var acc = 0.0;
    for (var i = 0u; i < ITERS; i++) {
        let r0 = am[t * pitch];
        let r1 = am[t * pitch + 1u];
        let x0 = xv[(2u * i) & 63u];
        let x1 = xv[(2u * i + 1u) & 63u];
        let d = dot(r0, x0) + dot(r1, x1);
        acc += d;
        am[t * pitch] = r0 + vec4<f32>(d * 0.001);
        am[t * pitch + 1u] = r1 - vec4<f32>(d * 0.001);
    }
    y[wg.x * 256u + t] = acc;
}
