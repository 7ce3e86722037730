// Whether the driver merges neighbouring 4-byte workgroup stores into one 16-byte store,
// and when: the stores' counterpart of smem_merge.wgsl. Every step, each invocation
// stores 4 neighbouring words of a record at word R * S (R its row, 0..127, moved by the
// previous step's loaded value, which is zero at run time but unknown to the compiler),
// then loads one word of another array (conflict-free) for the next step's row. With
// two 1024-invocation workgroups per SM the shared-memory pipe is the bound, so the time
// follows the wavefronts of a step. Four 4-byte stores at a stride of S = 4 words are
// 4-way conflicts each (16 wavefronts a warp); merged into one 16-byte store they are
// 1-way (4 wavefronts: 8 lanes a wavefront).
//
// MODE picks how the record is written:
//   0  scalar array `array<u32>`, words R * S + k (neighbouring elements of an array)
//   1  the 4 first fields of a struct of S words (4 or 8), one by one
//   2  the 4 components of vec4 element R * S / 4, one by one
//   3  one vec4 store (the 16-byte reference)
// params[0] is zero. ITERS steps of 4 per invocation. The arrays are read back at the end
// so that no store is dead.
// validate/run_micro.sh measures it (MERGE_ONLY=1): rows smem_merge_store_m<MODE>_s<S>.
// banksim measure validate/kernels/smem_merge_store.wgsl --dispatch 1056 --override MODE=0 --override S=4 \
//   --bind 0.0=u32:0 --bind 0.1=zeros:1081344
// (S 4, 8 or 16; MODE 1 takes S 4 or 8)
override MODE: u32 = 3u;
override S: u32 = 4u;
override ITERS: u32 = 64u;

struct R4 { f0: u32, f1: u32, f2: u32, f3: u32 }
struct R8 { f0: u32, f1: u32, f2: u32, f3: u32, f4: u32, f5: u32, f6: u32, f7: u32 }

@group(0) @binding(0) var<storage, read> params: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;

// 24 KiB in all: two workgroups per SM
var<workgroup> w: array<u32, 2048>;
var<workgroup> v: array<vec4<u32>, 512>;
var<workgroup> r4: array<R4, 128>;
var<workgroup> r8: array<R8, 128>;
var<workgroup> src: array<u32, 512>;

fn put(r: u32, x: u32) {
    switch MODE {
        case 0u: {
            let t = r * S;
            w[t] = x;
            w[t + 1u] = x;
            w[t + 2u] = x;
            w[t + 3u] = x;
        }
        case 1u: {
            if (S == 4u) {
                r4[r].f0 = x;
                r4[r].f1 = x;
                r4[r].f2 = x;
                r4[r].f3 = x;
            } else {
                r8[r].f0 = x;
                r8[r].f1 = x;
                r8[r].f2 = x;
                r8[r].f3 = x;
            }
        }
        case 2u: {
            let q = (r * S) >> 2u;
            v[q].x = x;
            v[q].y = x;
            v[q].z = x;
            v[q].w = x;
        }
        default: {
            v[(r * S) >> 2u] = vec4<u32>(x);
        }
    }
}

@compute @workgroup_size(1024)
fn main(@builtin(local_invocation_index) li: u32, @builtin(global_invocation_id) gid: vec3<u32>) {
    let zero = params[0];
    for (var i = li; i < 512u; i += 1024u) {
        src[i] = zero;
    }
    workgroupBarrier();
    var row = li & 127u;
    var x = zero;
    for (var k = 0u; k < ITERS; k++) {
        put(row, x);
        x = src[(li + x) & 511u];
        row = (row + x) & 127u;
        put(row, x);
        x = src[(li + x) & 511u];
        row = (row + x) & 127u;
        put(row, x);
        x = src[(li + x) & 511u];
        row = (row + x) & 127u;
        put(row, x);
        x = src[(li + x) & 511u];
        row = (row + x) & 127u;
    }
    workgroupBarrier();
    let r = li & 127u;
    out[gid.x] = x + w[(li * 2u) & 2047u] + v[li & 511u].y + r4[r].f1 + r8[r].f2;
}
