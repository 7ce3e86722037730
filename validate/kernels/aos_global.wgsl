// Arrays of structures in a storage buffer, read field by field: every invocation sums
// the K float fields of its own struct (K = 1, 2, 3 or 4: structs of 4, 8, 12 or 16
// bytes) and writes the sum; VEC = 1 reads the same 16 bytes as one vec4<f32> instead.
// A compiler merges neighbouring loads of one invocation into one wider load where the
// first is aligned to the whole (8-byte structs: LDG.64; 16-byte ones: LDG.128); 12-byte
// structs are read as three 4-byte loads (validate/src/vectorize.rs). 2^24 structs: the
// DRAM.
// banksim measure validate/kernels/aos_global.wgsl --dispatch 65536 --override K=4 --bind 0.0=zeros:67108864 --bind 0.1=zeros:16777216
override K: u32 = 4;
override VEC: u32 = 0;
struct S1 { a: f32, }
struct S2 { a: f32, b: f32, }
struct S3 { a: f32, b: f32, c: f32, }
struct S4 { a: f32, b: f32, c: f32, d: f32, }
@group(0) @binding(0) var<storage, read> src: array<f32>;
@group(0) @binding(1) var<storage, read_write> dst: array<f32>;
@group(0) @binding(2) var<storage, read> s1: array<S1>;
@group(0) @binding(3) var<storage, read> s2: array<S2>;
@group(0) @binding(4) var<storage, read> s3: array<S3>;
@group(0) @binding(5) var<storage, read> s4: array<S4>;
@group(0) @binding(6) var<storage, read> v4: array<vec4<f32>>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    var sum = 0.0;
    if (VEC == 1u) {
        let v = v4[i];
        sum = v.x + v.y + v.z + v.w;
    } else if (K == 1u) {
        sum = s1[i].a;
    } else if (K == 2u) {
        sum = s2[i].a + s2[i].b;
    } else if (K == 3u) {
        sum = s3[i].a + s3[i].b + s3[i].c;
    } else {
        sum = s4[i].a + s4[i].b + s4[i].c + s4[i].d;
    }
    dst[i] = sum + src[0];
}
