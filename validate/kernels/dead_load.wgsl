// A loaded global value that is used, or not: every invocation loads a float of a 64 MiB
// buffer (the DRAM) and, where USE = 1, adds it into what it writes; with USE = 0 the
// branch is decided when the shader is compiled and the load feeds nothing, so the GPU's
// compiler deletes it, and with it the buffer's DRAM traffic. A compiler effect the
// capture must see too (validate/src/liveness.rs): USE = 0 runs as a kernel that only
// writes. ALU: dependent operations per invocation after the load (a longer kernel).
// banksim measure validate/kernels/dead_load.wgsl --dispatch 65536 --override USE=0 --bind 0.0=zeros:16777216 --bind 0.1=zeros:16777216
override USE: u32 = 1;
override ALU: u32 = 16;
@group(0) @binding(0) var<storage, read> src: array<f32>;
@group(0) @binding(1) var<storage, read_write> dst: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let v = src[i];
    var acc = f32(i);
    for (var k = 0u; k < ALU; k++) {
        acc = acc * 1.0001 + 0.5;
    }
    if (USE == 1u) {
        acc += v;
    }
    dst[i] = acc;
}
