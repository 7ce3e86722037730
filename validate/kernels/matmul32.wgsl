// A tiled matrix product C = A B of N x N floats (N = 1024 by default): 32 x 32
// invocations per workgroup, one element of C each; per step of the K loop every
// invocation stages one float of A and one of B into 32 x 32 tiles, then reads a row of
// the A tile (a broadcast) and a column of the B tile (consecutive words): conflict-free.
// Its capture is large: 3.4 M records a workgroup (the inner loop's 32 iterations and
// 64 loads, for each of the 32 steps), more than one capture buffer holds for the two
// workgroups `predict` captures, so the capture takes a run per window of workgroups.
// Dispatch (N / 32) x (N / 32) workgroups; bind the three buffers with N * N floats.
// banksim predict validate/kernels/matmul32.wgsl --dispatch 32,32 --bind 0.0=zeros:1048576 --bind 0.1=zeros:1048576 --bind 0.2=zeros:1048576
override N: u32 = 1024u;

@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>;

var<workgroup> ta: array<f32, 1024>;
var<workgroup> tb: array<f32, 1024>;

@compute @workgroup_size(32, 32)
fn main(@builtin(local_invocation_id) l: vec3<u32>, @builtin(workgroup_id) w: vec3<u32>) {
    let row = w.y * 32u + l.y;
    let col = w.x * 32u + l.x;
    var acc = 0.0;
    for (var t = 0u; t < N / 32u; t++) {
        ta[l.y * 32u + l.x] = a[row * N + t * 32u + l.x];
        tb[l.y * 32u + l.x] = b[(t * 32u + l.y) * N + col];
        workgroupBarrier();
        for (var k = 0u; k < 32u; k++) {
            acc += ta[l.y * 32u + k] * tb[k * 32u + l.x];
        }
        workgroupBarrier();
    }
    c[row * N + col] = acc;
}
