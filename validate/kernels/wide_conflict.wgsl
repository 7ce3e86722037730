// Shared-memory load throughput at 4-, 8- and 16-byte accesses (entry points w1, w2, w4)
// and 1- to 32-way bank conflicts: lane l's loads read element l * STRIDE + r * ROW of a
// 8 KiB array (wrapping), ROW being one row of the banks (32 / width elements) and r
// counting up, so every load has the pattern of the first. The values are only summed:
// the loads do not wait for each other, and 8 workgroups of 8 warps per SM (dispatch
// 132 x 8) keep the pipe busy. Each invocation makes 4 x ITERS loads.
// Conflict degree: 4 bytes, gcd(STRIDE, 32); 8 bytes, gcd(STRIDE, 16); 16 bytes,
// gcd(STRIDE, 8) (a warp's 16-byte request is served a quarter-warp at a time).
// banksim measure validate/kernels/wide_conflict.wgsl --entry w4 --dispatch 1056 --override STRIDE=4
override STRIDE: u32 = 1;
override ITERS: u32 = 64u;

@group(0) @binding(0) var<storage, read_write> out: array<u32>;

var<workgroup> s1: array<u32, 2048>;
var<workgroup> s2: array<vec2<u32>, 1024>;
var<workgroup> s4: array<vec4<u32>, 512>;

@compute @workgroup_size(256)
fn w1(@builtin(local_invocation_index) li: u32, @builtin(global_invocation_id) gid: vec3<u32>) {
    for (var i = li; i < 2048u; i += 256u) { s1[i] = i; }
    workgroupBarrier();
    var e = (li & 31u) * STRIDE;
    var acc = 0u;
    for (var k = 0u; k < ITERS; k++) {
        acc += s1[e & 2047u];
        acc += s1[(e + 32u) & 2047u];
        acc += s1[(e + 64u) & 2047u];
        acc += s1[(e + 96u) & 2047u];
        e += 128u;
    }
    out[gid.x] = acc;
}

@compute @workgroup_size(256)
fn w2(@builtin(local_invocation_index) li: u32, @builtin(global_invocation_id) gid: vec3<u32>) {
    for (var i = li; i < 1024u; i += 256u) { s2[i] = vec2<u32>(i, i + 1u); }
    workgroupBarrier();
    var e = (li & 31u) * STRIDE;
    var acc = vec2<u32>(0u);
    for (var k = 0u; k < ITERS; k++) {
        acc += s2[e & 1023u];
        acc += s2[(e + 16u) & 1023u];
        acc += s2[(e + 32u) & 1023u];
        acc += s2[(e + 48u) & 1023u];
        e += 64u;
    }
    out[gid.x] = acc.x + acc.y;
}

@compute @workgroup_size(256)
fn w4(@builtin(local_invocation_index) li: u32, @builtin(global_invocation_id) gid: vec3<u32>) {
    for (var i = li; i < 512u; i += 256u) { s4[i] = vec4<u32>(i, i + 1u, i + 2u, i + 3u); }
    workgroupBarrier();
    var e = (li & 31u) * STRIDE;
    var acc = vec4<u32>(0u);
    for (var k = 0u; k < ITERS; k++) {
        acc += s4[e & 511u];
        acc += s4[(e + 8u) & 511u];
        acc += s4[(e + 16u) & 511u];
        acc += s4[(e + 24u) & 511u];
        e += 32u;
    }
    out[gid.x] = acc.x + acc.y + acc.z + acc.w;
}
