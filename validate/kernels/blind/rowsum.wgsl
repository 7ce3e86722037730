// Blind check (H200 only, docs/calibration.md "A blind check"): each of a workgroup's 4
// warps stages a 32 x 32 float tile from global memory row by row (coalesced), then lane
// l sums row l of it. Rows are 32 + PAD floats apart, so the row sums are
// gcd(32 + PAD, 32)-way conflicted: PAD = 1 conflict-free, 0 32-way, 2 2-way, 4 4-way,
// 8 8-way. The tile's size sets the occupancy: 16 KiB at PAD = 0 (three workgroups per
// SM through Vulkan), 16.5 to 20 KiB otherwise (two).
// banksim predict validate/kernels/blind/rowsum.wgsl --dispatch 4096 --override PAD=0 --bind 0.0=zeros:16777216 --bind 0.1=zeros:524288 -c h200
override PAD: u32 = 1u;
@group(0) @binding(0) var<storage, read> src: array<f32>;
@group(0) @binding(1) var<storage, read_write> dst: array<f32>;
var<workgroup> tile: array<f32, 4u * 32u * (32u + PAD)>;
@compute @workgroup_size(128)
fn main(@builtin(local_invocation_index) t: u32, @builtin(workgroup_id) wg: vec3<u32>) {
    let warp = t / 32u;
    let lane = t % 32u;
    let pitch = 32u + PAD;
    let tb = warp * 32u * pitch;
    let gb = (wg.x * 4u + warp) * 1024u;
    for (var r = 0u; r < 32u; r++) {
        tile[tb + r * pitch + lane] = src[gb + r * 32u + lane];
    }
    workgroupBarrier();
    var acc = 0.0;
    for (var c = 0u; c < 32u; c++) {
        acc += tile[tb + lane * pitch + c];
    }
    dst[(wg.x * 4u + warp) * 32u + lane] = acc;
}
