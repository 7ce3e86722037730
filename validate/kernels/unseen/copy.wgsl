// Held-out suite (validate/suite_unseen.csv): a memory-bound copy-and-scale through
// workgroup memory, where global traffic dominates. Each workgroup moves ITERS tiles of
// 256 vec4<u32> (4 KiB) from `src` to `dst` (tile i of workgroup w at (i * groups + w) *
// 256: every load and store coalesced), through a 4 KiB shared tile: invocation t
// stores vector t, then reads vector (t * S + t * S / 256) % 256 (a permutation) and
// writes it times 3. A 16-byte access is served 8 lanes at a time: S = 1 conflict-free,
// S = 3 nearly (1.06 wavefronts per ideal one: where the permutation wraps), S = 2, 4,
// 8: 2-, 4-, 8-way on the read. Set with --override S=N.
// Bind src and dst with ITERS * groups * 1024 words each.
// banksim capture validate/kernels/unseen/copy.wgsl --dispatch 2 --override S=4 --bind 0.0=zeros:8192 --bind 0.1=zeros:8192 -o c.csv
override S: u32 = 1;
override ITERS: u32 = 4;

@group(0) @binding(0) var<storage, read> src: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec4<u32>>;

var<workgroup> tile: array<vec4<u32>, 256>;

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) t: u32,
        @builtin(workgroup_id) wg: vec3<u32>,
        @builtin(num_workgroups) n: vec3<u32>) {
    let p = (t * S + ((t * S) >> 8u)) & 255u;
    for (var i = 0u; i < ITERS; i++) {
        let g = (i * n.x + wg.x) * 256u;
        tile[t] = src[g + t];
        workgroupBarrier();
        dst[g + t] = tile[p] * 3u;
        workgroupBarrier();
    }
}
