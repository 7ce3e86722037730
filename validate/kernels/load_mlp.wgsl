// How long a global load waits with many in flight: every warp makes STEPS round trips,
// each of LOADS independent loads of one 128-byte line (32 lanes, 4 bytes each), and the
// next step's addresses wait for this step's values (the buffer holds zeros, which the
// compiler cannot know). A step therefore takes one loaded latency, with
// LOADS x (warps per SM) lines in flight from each SM: the dispatch's time over STEPS is
// that latency. One wave: dispatch 132 x B workgroups of 8 warps for B per SM.
// Lines: step j's k-th load of warp g (of all the dispatch's warps) reads line
// (j LOADS + k) warps + g of a buffer of 2^LINES_LOG lines (wrapping), so the warps of
// a step read consecutive lines; SCATTER = s > 0 rotates the line number left by s bits
// within LINES_LOG, putting consecutive lines 2^s lines apart. Each line is read once
// where STEPS x LOADS x warps <= 2^LINES_LOG (LINES_LOG = 22: 512 MiB, beyond the L2);
// with LINES_LOG = 17 (16 MiB) the L2 serves the re-reads.
// banksim measure validate/kernels/load_mlp.wgsl --dispatch 132 --override LOADS=4 --override STEPS=64 --override LINES_LOG=17 --bind 0.0=zeros:4194304
override LOADS: u32 = 1;
override STEPS: u32 = 64;
override LINES_LOG: u32 = 17;
override SCATTER: u32 = 0;

@group(0) @binding(0) var<storage, read> src: array<f32>;
@group(0) @binding(1) var<storage, read_write> dst: array<f32>;

fn line_of(j: u32, k: u32, warps: u32, g: u32) -> u32 {
    let mask = (1u << LINES_LOG) - 1u;
    let line = ((j * LOADS + k) * warps + g) & mask;
    if (SCATTER == 0u) {
        return line;
    }
    return ((line << SCATTER) | (line >> (LINES_LOG - SCATTER))) & mask;
}

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) t: u32,
        @builtin(workgroup_id) wg: vec3<u32>,
        @builtin(num_workgroups) n: vec3<u32>) {
    let warps = n.x * 8u;
    let g = wg.x * 8u + t / 32u;
    let lane = t % 32u;
    var carry = 0u;
    var acc = 0.0;
    for (var j = 0u; j < STEPS; j++) {
        // up to 8 loads, written out so that they issue together
        var s = src[line_of(j, 0u, warps, g) * 32u + lane + carry];
        if (LOADS > 1u) { s += src[line_of(j, 1u, warps, g) * 32u + lane + carry]; }
        if (LOADS > 2u) { s += src[line_of(j, 2u, warps, g) * 32u + lane + carry]; }
        if (LOADS > 3u) { s += src[line_of(j, 3u, warps, g) * 32u + lane + carry]; }
        if (LOADS > 4u) { s += src[line_of(j, 4u, warps, g) * 32u + lane + carry]; }
        if (LOADS > 5u) { s += src[line_of(j, 5u, warps, g) * 32u + lane + carry]; }
        if (LOADS > 6u) { s += src[line_of(j, 6u, warps, g) * 32u + lane + carry]; }
        if (LOADS > 7u) { s += src[line_of(j, 7u, warps, g) * 32u + lane + carry]; }
        carry = u32(s);
        acc += s;
    }
    if (acc == 12345.0) {
        dst[wg.x * 256u + t] = acc;
    }
}
