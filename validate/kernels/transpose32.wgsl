// 32x32 tile transpose through workgroup memory, unpadded: the column read of
// tile[tx][ty] hits one bank 32 times per warp (32-way conflict).
// Matrix of (32 * groups_x) x (32 * groups_y) floats; one workgroup per tile.
// banksim capture validate/kernels/transpose32.wgsl --dispatch 2,2,1
@group(0) @binding(0) var<storage, read> src: array<f32>;
@group(0) @binding(1) var<storage, read_write> dst: array<f32>;

var<workgroup> tile: array<array<f32, 32>, 32>;

@compute @workgroup_size(32, 32)
fn main(@builtin(local_invocation_id) l: vec3<u32>,
        @builtin(workgroup_id) wg: vec3<u32>,
        @builtin(num_workgroups) n: vec3<u32>) {
    let width = 32u * n.x;
    let height = 32u * n.y;
    let x = wg.x * 32u + l.x;
    let y = wg.y * 32u + l.y;
    tile[l.y][l.x] = src[y * width + x];
    workgroupBarrier();
    // transposed tile: the workgroup (wg.y, wg.x) of the output, read down a column
    let ox = wg.y * 32u + l.x;
    let oy = wg.x * 32u + l.y;
    dst[oy * height + ox] = tile[l.x][l.y];
}
