// Global-memory load latency: one invocation chases i = buf[i] + STRIDE (mod the
// buffer) through a storage buffer filled with iota (word i = i), so every load needs
// the previous one. Time / iterations = the latency of one dependent global load plus
// two ALU operations. A buffer larger than the L2 cache (50 MiB on the H100) and a
// stride beyond a cache line measure DRAM; a small buffer measures L2 (and L1) hits.
// Parameters in a uniform buffer: --bind 0.0=u32:STRIDE,ITERS,WORDS (WORDS a power of two)
// banksim measure validate/kernels/global_chase.wgsl --dispatch 1 --bind 0.0=u32:4099,4096,16777216 --bind 0.1=iota:16777216
struct Params { stride: u32, iters: u32, words: u32, }
@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read_write> buf: array<u32>;

@compute @workgroup_size(1)
fn main() {
    var i = 0u;
    for (var k = 0u; k < p.iters; k++) {
        i = (buf[i] + p.stride) & (p.words - 1u);
    }
    buf[0] = i;
}
