// `banksim probe`: the microbenchmark that finds a GPU's shared-memory banks by timing.
// Every lane of every warp loads, again and again, from the element of a 4 KiB row that
// its entry in the pattern table names, in each of four rows at once (rows are 4 KiB
// apart, a multiple of every bank row, so the four loads have one bank pattern); the
// next step's element is (entry + x) where x, the OR of what the four loads read, is
// zero (the rows hold zeros read from the table at run time, which the compiler cannot
// know). So each step is four independent loads of one pattern, a dependent chain step
// to the next, and nothing the compiler can hoist: with many warps the shared-memory
// pipe is the bound, and time is proportional to the wavefronts of one load.
// One entry point per access width, each with its own workgroup array (16 KiB, the
// WebGPU default limit): w4 (u32), w8 (vec2<u32>), w16 (vec4<u32>).
// Table: probe.lanes[l] is the element (of the row, in units of the width) read by the
// lanes l mod 64 of the workgroup; probe.zero is 0; probe.iters the loop's trip count
// (four steps each, 16 loads a lane; 0 times the dispatch's fixed cost).
// Capture (lane l reads element 2l: a 2-way conflict on 32 banks):
// banksim predict validate/kernels/probe_banks.wgsl --entry w4 --dispatch 1056 --override WG=1024 \
//   --bind 0.0=u32:0,2,4,...,126,0,64   (64 lane entries, zero, iters)
override WG: u32 = 256u;

struct Probe {
    lanes: array<u32, 64>,
    zero: u32,
    iters: u32,
}

@group(0) @binding(0) var<storage, read> probe: Probe;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;

var<workgroup> s4: array<array<u32, 1024>, 4>;
var<workgroup> s8: array<array<vec2<u32>, 512>, 4>;
var<workgroup> s16: array<array<vec4<u32>, 256>, 4>;

@compute @workgroup_size(WG)
fn w4(@builtin(local_invocation_index) li: u32, @builtin(global_invocation_id) gid: vec3<u32>) {
    let zero = probe.zero;
    for (var i = li; i < 1024u; i += WG) {
        s4[0][i] = zero;
        s4[1][i] = zero;
        s4[2][i] = zero;
        s4[3][i] = zero;
    }
    workgroupBarrier();
    let base = probe.lanes[li & 63u];
    let iters = probe.iters;
    var x = zero;
    for (var k = 0u; k < iters; k++) {
        var t = (base + x) & 1023u;
        x = s4[0][t] | s4[1][t] | s4[2][t] | s4[3][t];
        t = (base + x) & 1023u;
        x = s4[0][t] | s4[1][t] | s4[2][t] | s4[3][t];
        t = (base + x) & 1023u;
        x = s4[0][t] | s4[1][t] | s4[2][t] | s4[3][t];
        t = (base + x) & 1023u;
        x = s4[0][t] | s4[1][t] | s4[2][t] | s4[3][t];
    }
    out[gid.x] = x;
}

@compute @workgroup_size(WG)
fn w8(@builtin(local_invocation_index) li: u32, @builtin(global_invocation_id) gid: vec3<u32>) {
    let zero = vec2<u32>(probe.zero);
    for (var i = li; i < 512u; i += WG) {
        s8[0][i] = zero;
        s8[1][i] = zero;
        s8[2][i] = zero;
        s8[3][i] = zero;
    }
    workgroupBarrier();
    let base = probe.lanes[li & 63u];
    let iters = probe.iters;
    var x = probe.zero;
    for (var k = 0u; k < iters; k++) {
        var t = (base + x) & 511u;
        var v = s8[0][t] | s8[1][t] | s8[2][t] | s8[3][t];
        x = v.x | v.y;
        t = (base + x) & 511u;
        v = s8[0][t] | s8[1][t] | s8[2][t] | s8[3][t];
        x = v.x | v.y;
        t = (base + x) & 511u;
        v = s8[0][t] | s8[1][t] | s8[2][t] | s8[3][t];
        x = v.x | v.y;
        t = (base + x) & 511u;
        v = s8[0][t] | s8[1][t] | s8[2][t] | s8[3][t];
        x = v.x | v.y;
    }
    out[gid.x] = x;
}

@compute @workgroup_size(WG)
fn w16(@builtin(local_invocation_index) li: u32, @builtin(global_invocation_id) gid: vec3<u32>) {
    let zero = vec4<u32>(probe.zero);
    for (var i = li; i < 256u; i += WG) {
        s16[0][i] = zero;
        s16[1][i] = zero;
        s16[2][i] = zero;
        s16[3][i] = zero;
    }
    workgroupBarrier();
    let base = probe.lanes[li & 63u];
    let iters = probe.iters;
    var x = probe.zero;
    for (var k = 0u; k < iters; k++) {
        var t = (base + x) & 255u;
        var v = s16[0][t] | s16[1][t] | s16[2][t] | s16[3][t];
        x = v.x | v.y | v.z | v.w;
        t = (base + x) & 255u;
        v = s16[0][t] | s16[1][t] | s16[2][t] | s16[3][t];
        x = v.x | v.y | v.z | v.w;
        t = (base + x) & 255u;
        v = s16[0][t] | s16[1][t] | s16[2][t] | s16[3][t];
        x = v.x | v.y | v.z | v.w;
        t = (base + x) & 255u;
        v = s16[0][t] | s16[1][t] | s16[2][t] | s16[3][t];
        x = v.x | v.y | v.z | v.w;
    }
    out[gid.x] = x;
}
