// What one operation of a kind costs on the GPU: every invocation runs p.iters
// iterations of REP (8 or 16) dependent operations of kind OP (set with --override
// OP=N --override REP=N) on a divisor read at run time, so no compiler can fold it:
//   0  u32 add          x = x + d
//   1  u32 divide       x = x / d + 2^30
//   2  u32 remainder    x = x % d + 2^30 + k
//   3  f32 divide       y = y / f + 1
//   4  i32 divide       z = z / i32(d) + 2^30
//   5  u32 divide by a constant        x = x / C + 2^30        (C: an override, 7 or 8)
//   6  u32 remainder by a constant     x = x % C + 2^30 + k
//   7  u32 multiply                    x = x * (d | 1) + k
//   8  f32 fused multiply-add          y = fma(y, f, 1)
//   9  u32 multiply by a constant      x = x * C + k
//  10  f32 multiply, then add          y = y * f + 1   (two operations a compiler may fuse)
//  11  f32 multiply                    y = y * f
//  12  f32 add                         y = y + f
// The time of 8 operations is the difference between REP=16 and REP=8 (the loop's own
// cost cancels). With TRIP > 0 the loop runs TRIP iterations, a trip count known when
// the shader is compiled: `banksim shader-stats`' binary size then tells whether the
// driver unrolls it. validate/run_micro.sh measures both; docs/calibration.md has the
// results.
// banksim measure validate/kernels/op_cost.wgsl --dispatch 1056 --override OP=1 --bind 0.0=u32:7,4096
override OP: u32 = 0;
override REP: u32 = 8;
override TRIP: u32 = 0;
override C: u32 = 7;
struct Params { d: u32, iters: u32, }
@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;

struct S { x: u32, y: f32, z: i32, }

fn step(s: S, d: u32, f: f32, k: u32) -> S {
    var r = s;
    switch OP {
        case 0u: { r.x = r.x + d; }
        case 1u: { r.x = r.x / d + 0x40000000u; }
        case 2u: { r.x = r.x % d + 0x40000000u + k; }
        case 3u: { r.y = r.y / f + 1.0; }
        case 5u: { r.x = r.x / C + 0x40000000u; }
        case 6u: { r.x = r.x % C + 0x40000000u + k; }
        case 7u: { r.x = r.x * (d | 1u) + k; }
        case 8u: { r.y = fma(r.y, f, 1.0); }
        case 9u: { r.x = r.x * C + k; }
        case 10u: { r.y = r.y * f + 1.0; }
        case 11u: { r.y = r.y * f; }
        case 12u: { r.y = r.y + f; }
        default: { r.z = r.z / i32(d) + 0x40000000; }
    }
    return r;
}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let d = p.d;
    let f = f32(d) * 0.5 + 1.0;
    var s = S(gid.x | 0x40000000u, f32(gid.x) + 1.0, i32(gid.x | 0x40000000u));
    let n = select(p.iters, TRIP, TRIP > 0u);
    for (var k = 0u; k < n; k++) {
        s = step(s, d, f, k);
        s = step(s, d, f, k);
        s = step(s, d, f, k);
        s = step(s, d, f, k);
        s = step(s, d, f, k);
        s = step(s, d, f, k);
        s = step(s, d, f, k);
        s = step(s, d, f, k);
        if (REP > 8u) {
            s = step(s, d, f, k);
            s = step(s, d, f, k);
            s = step(s, d, f, k);
            s = step(s, d, f, k);
            s = step(s, d, f, k);
            s = step(s, d, f, k);
            s = step(s, d, f, k);
            s = step(s, d, f, k);
        }
    }
    out[gid.x] = s.x + u32(s.y) + u32(s.z);
}
