// The 32x32 tile transpose (transpose32_pad1.wgsl) and two variants of it that keep
// its loads and change only its writes, to tell the cost of the transposed writes from
// that of the loads: one invocation per float, 32 x 32 invocations per workgroup, each
// loads one float of `src` into a padded tile, then, after the barrier:
//   MODE = 0  writes tile[x][y] to the transposed place (transpose32_pad1.wgsl);
//   MODE = 1  writes it back in place, in order (a copy through the tile, the same
//             shared reads);
//   MODE = 2  writes nothing (only where the value is 12345, never: the loads stay).
// Matrix of (32 * groups_x) x (32 * groups_y) floats; bind both buffers with that many.
// validate/run_micro.sh runs 128 x 128 workgroups (64 MiB per buffer, beyond the L2)
// and 64 x 64 (16 MiB: L2 hits once warm): rows tile32_m<MODE>_g<groups_x>.
// banksim measure validate/kernels/tile32.wgsl --dispatch 4,4 --override MODE=2 --bind 0.0=zeros:16384 --bind 0.1=zeros:16384
override MODE: u32 = 0;

@group(0) @binding(0) var<storage, read> src: array<f32>;
@group(0) @binding(1) var<storage, read_write> dst: array<f32>;

var<workgroup> tile: array<array<f32, 33>, 32>;

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
    let v = tile[l.x][l.y];
    if (MODE == 0u) {
        dst[(wg.x * 32u + l.y) * height + wg.y * 32u + l.x] = v;
    } else if (MODE == 1u) {
        dst[y * width + x] = v;
    } else if (v == 12345.0) {
        dst[y * width + x] = v;
    }
}
