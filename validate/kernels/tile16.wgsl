// The 16x16 tile exercise: each invocation stores sh[ty][tx] row-wise, then reads
// sh[tx][ty] down a column; rows are 16 + PAD floats apart. Set the padding with
// --override PAD=0..4. On 32 banks with 32-lane warps the column read is 8-way at
// PAD=0, 2-way at PAD=1, 3 and 4, and conflict-free at PAD=2.
// banksim capture validate/kernels/tile16.wgsl --dispatch 1,1,1 --override PAD=1
override PAD: u32 = 0;

@group(0) @binding(0) var<storage, read_write> out: array<f32>;

var<workgroup> sh: array<f32, 16 * (16 + PAD)>;

@compute @workgroup_size(16, 16)
fn main(@builtin(local_invocation_id) l: vec3<u32>,
        @builtin(local_invocation_index) t: u32,
        @builtin(workgroup_id) wg: vec3<u32>) {
    let pitch = 16u + PAD;
    sh[l.y * pitch + l.x] = f32(t);
    workgroupBarrier();
    out[wg.x * 256u + t] = sh[l.x * pitch + l.y];
}
