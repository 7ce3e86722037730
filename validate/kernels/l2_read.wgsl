// Read bandwidth of a buffer that the L2 cache holds (or not): every invocation reads R
// vec4<u32> (16 bytes each) of `src` and writes one u32 of their sum to `dst`, so the
// reads are R times the writes. Read k of invocation i is element (i + k * S) mod L of
// the L elements of `src`, S = L / R rounded down to a multiple of 256: a warp reads
// 512 consecutive bytes each time, and one invocation's R reads fall in different
// parts of the buffer, so that its SM's L1 seldom holds them. With many more
// invocations than L / R, every element is read many times over, by many SMs: a
// buffer well below the L2 (50 MiB on the H100) measures the L2's read bandwidth, one
// far above it DRAM's.
// Bytes read per run = 16 * R * invocations; bandwidth = that / median time.
// Bind `src` with the buffer's words, `dst` with one word per invocation:
// banksim measure validate/kernels/l2_read.wgsl --dispatch 4096,4 --bind 0.0=zeros:1048576 --bind 0.1=zeros:4194304
override R: u32 = 16u;

@group(0) @binding(0) var<storage, read> src: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) t: u32,
        @builtin(workgroup_id) wg: vec3<u32>,
        @builtin(num_workgroups) n: vec3<u32>) {
    let i = (wg.y * n.x + wg.x) * 256u + t;
    let len = arrayLength(&src);
    let stride = max(len / R / 256u, 1u) * 256u;
    var j = i % len;
    var acc = vec4<u32>(0u);
    for (var k = 0u; k < R; k++) {
        acc += src[j];
        j += stride;
        if (j >= len) {
            j -= len;
        }
    }
    if (i < arrayLength(&dst)) {
        dst[i] = acc.x + acc.y + acc.z + acc.w;
    }
}
