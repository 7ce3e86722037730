// Whether the driver merges neighbouring 4-byte workgroup loads into one 8- or 16-byte
// load, and when. Every step, each invocation loads F neighbouring words of a record at
// word R * S + OFF (R its row, 0..127, moved by the previous step's value, which is zero
// at run time but unknown to the compiler) and ORs them into that value: a dependent
// chain of independent loads. With two 1024-invocation workgroups per SM the
// shared-memory pipe is the bound, so the time follows the wavefronts of a step.
// Four 4-byte loads at a stride of S = 4 words are 4-way conflicts each (16 wavefronts a
// warp); merged into one 16-byte load they are 1-way (4 wavefronts: 8 lanes a wavefront).
//
// MODE picks how the record is read:
//   0  scalar array `array<u32>`, words R * S + OFF + k, S and OFF constants
//   1  the same words, the record's start R * S' with S' read from the buffer at run
//      time (equal to S): aligned at run time, but the compiler cannot know it
//   2  `array<vec4<u32>>`, component k of vector (R * S + OFF) / 4 (OFF a multiple of 4)
//   3  an array of structs of S words (4 or 8), fields 0 .. F-1 (OFF = 0)
//   4  one vec4 load of the record (F = 4, OFF a multiple of 4): the 16-byte reference
// params[0] is S (for MODE 1), params[1] zero. ITERS steps of 4 per invocation.
// validate/run_micro.sh measures it (MERGE_ONLY=1): rows smem_merge_*.
// banksim measure validate/kernels/smem_merge.wgsl --dispatch 1056 --override MODE=0 --override S=4 \
//   --bind 0.0=u32:4,0 --bind 0.1=zeros:1081344
// (S at most 16, OFF at most 3)
override MODE: u32 = 0u;
override S: u32 = 4u;
override OFF: u32 = 0u;
override F: u32 = 4u;
override ITERS: u32 = 64u;

struct R4 { f0: u32, f1: u32, f2: u32, f3: u32 }
struct R8 { f0: u32, f1: u32, f2: u32, f3: u32, f4: u32, f5: u32, f6: u32, f7: u32 }

@group(0) @binding(0) var<storage, read> params: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;

// 8 KiB each: 128 rows of up to 16 words
var<workgroup> w: array<u32, 2048>;
var<workgroup> v: array<vec4<u32>, 512>;
var<workgroup> r4: array<R4, 128>;
var<workgroup> r8: array<R8, 128>;

fn step(r: u32, sd: u32) -> u32 {
    switch MODE {
        case 0u: {
            let t = r * S + OFF;
            var x = w[t];
            if (F > 1u) { x |= w[t + 1u]; }
            if (F > 2u) { x |= w[t + 2u]; }
            if (F > 3u) { x |= w[t + 3u]; }
            return x;
        }
        case 1u: {
            let t = r * sd + OFF;
            var x = w[t];
            if (F > 1u) { x |= w[t + 1u]; }
            if (F > 2u) { x |= w[t + 2u]; }
            if (F > 3u) { x |= w[t + 3u]; }
            return x;
        }
        case 2u: {
            let q = (r * S + OFF) >> 2u;
            var x = v[q].x;
            if (F > 1u) { x |= v[q].y; }
            if (F > 2u) { x |= v[q].z; }
            if (F > 3u) { x |= v[q].w; }
            return x;
        }
        case 3u: {
            if (S == 4u) {
                var x = r4[r].f0;
                if (F > 1u) { x |= r4[r].f1; }
                if (F > 2u) { x |= r4[r].f2; }
                if (F > 3u) { x |= r4[r].f3; }
                return x;
            }
            var x = r8[r].f0;
            if (F > 1u) { x |= r8[r].f1; }
            if (F > 2u) { x |= r8[r].f2; }
            if (F > 3u) { x |= r8[r].f3; }
            return x;
        }
        default: {
            let a = v[(r * S + OFF) >> 2u];
            return a.x | a.y | a.z | a.w;
        }
    }
}

@compute @workgroup_size(1024)
fn main(@builtin(local_invocation_index) li: u32, @builtin(global_invocation_id) gid: vec3<u32>) {
    let zero = params[1];
    for (var i = li; i < 2048u; i += 1024u) {
        w[i] = zero;
    }
    for (var i = li; i < 512u; i += 1024u) {
        v[i] = vec4<u32>(zero);
    }
    for (var i = li; i < 128u; i += 1024u) {
        r4[i] = R4(zero, zero, zero, zero);
        r8[i] = R8(zero, zero, zero, zero, zero, zero, zero, zero);
    }
    workgroupBarrier();
    let sd = params[0];
    let row = li & 127u;
    var x = zero;
    for (var k = 0u; k < ITERS; k++) {
        x = step((row + x) & 127u, sd);
        x = step((row + x) & 127u, sd);
        x = step((row + x) & 127u, sd);
        x = step((row + x) & 127u, sd);
    }
    out[gid.x] = x;
}
