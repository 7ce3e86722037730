// DRAM bandwidth of short runs: a copy like stream_copy.wgsl (every invocation moves one
// vec4<u32>, `dst[.] = src[.] + 1`) with one side in order and the other cut into runs
// of 2^RUN_LOG vectors (16 << RUN_LOG bytes) laid out as a transpose: the buffer is a
// matrix of runs, 2^H_LOG rows of 2^(TOTAL_LOG - RUN_LOG - H_LOG) runs, and the run in
// row r, column c of the ordered side is the run in row c, column r of the other.
// Consecutive runs in dispatch order are then 2^H_LOG runs apart, as a tiled transpose's
// writes are. MODE = 0 copies in order on both sides (the same instructions, no runs),
// 1 writes the runs, 2 reads them. Bind both buffers with 2^TOTAL_LOG vectors
// (4 << TOTAL_LOG words) and dispatch 2^TOTAL_LOG / 256 workgroups (as X,Y). All
// arithmetic is shifts and masks, so the instructions are the same for every layout.
// validate/run_micro.sh measures 256 MiB buffers (TOTAL_LOG = 24): rows run_copy_*.
// banksim measure validate/kernels/run_copy.wgsl --dispatch 64 --override TOTAL_LOG=14 --override RUN_LOG=3 --override H_LOG=4 --override MODE=1 --bind 0.0=zeros:65536 --bind 0.1=zeros:65536
override TOTAL_LOG: u32 = 24;
override RUN_LOG: u32 = 3;
override H_LOG: u32 = 10;
override MODE: u32 = 1;

@group(0) @binding(0) var<storage, read> src: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec4<u32>>;

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) t: u32,
        @builtin(workgroup_id) wg: vec3<u32>,
        @builtin(num_workgroups) n: vec3<u32>) {
    let i = (wg.y * n.x + wg.x) * 256u + t;
    if (i >= (1u << TOTAL_LOG)) {
        return;
    }
    let cols_log = TOTAL_LOG - RUN_LOG - H_LOG;
    let j = i >> RUN_LOG;
    let r = j >> cols_log;
    let c = j & ((1u << cols_log) - 1u);
    let s = (((c << H_LOG) | r) << RUN_LOG) | (i & ((1u << RUN_LOG) - 1u));
    if (MODE == 1u) {
        dst[s] = src[i] + vec4<u32>(1u);
    } else if (MODE == 2u) {
        dst[i] = src[s] + vec4<u32>(1u);
    } else {
        dst[i] = src[i] + vec4<u32>(1u);
    }
}
