// How many workgroups an SM holds at once, by the workgroup memory they declare. Each
// workgroup of 256 invocations declares N words of workgroup memory (wgpu zeroes them
// all); its first warp then runs a dependent chain of STEPS u32 divisions by a value
// read at run time (about 92 cycles each on the H100), the other warps nothing. At most
// 8 such warps per SM (2048 invocations) never fill a scheduler, so a workgroup takes
// the same time however many share its SM: a dispatch of 132 x k workgroups takes
// ceil(k / b) times one of 132, b the workgroups an SM holds. validate/run_micro.sh
// (OCC_ONLY=1) times k = 1, 7 and 24 at sizes from 4 to 48 KiB: rows
// occ_smem_<bytes>b_k<k>; b follows from the ratios (24 / b, rounded up: 24, 12, 8, 6,
// 5, 4, 4, 3 for b = 1 .. 8; 7 / b tells 6 from 7).
// banksim measure validate/kernels/occ_smem.wgsl --dispatch 3168 --override N=4352 --bind 0.0=u32:7,4096
override N: u32 = 4096u;
struct Params { d: u32, steps: u32, }
@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;

var<workgroup> sh: array<u32, N>;

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) li: u32, @builtin(workgroup_id) wg: vec3<u32>) {
    // one word per invocation, so the array is used (the rest stays as wgpu zeroed it)
    sh[li] = li;
    workgroupBarrier();
    if (li >= 32u) {
        return;
    }
    let d = p.d;
    var x = sh[(li + 1u) & 255u] | 0x40000000u;
    for (var k = 0u; k < p.steps; k++) {
        x = x / d + 0x40000000u;
    }
    out[wg.x * 32u + li] = x;
}
