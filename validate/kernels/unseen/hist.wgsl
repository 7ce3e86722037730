// Held-out suite (validate/suite_unseen.csv): a shared-memory histogram. Each of 256
// invocations adds 1 to ITERS bins of a 1024-bin workgroup histogram with `atomicAdd`
// whose result is unused (`red` in the trace); bins are then summed into `out`.
// Lane l of warp w hits bin (l * K + 32 * ((w + i) % 32)) % 1024 at step i, so every
// step of a warp has the same bank pattern: K = 1 distinct bins on distinct banks
// (conflict-free), K = 2, 8, 32: gcd(K, 32)-way bank conflicts on distinct bins, K = 0:
// all 32 lanes on one bin (same-address atomics). Set with --override K=N.
// banksim capture validate/kernels/unseen/hist.wgsl --dispatch 2 --override K=8 -o h.csv
override K: u32 = 1;
override ITERS: u32 = 64;

@group(0) @binding(0) var<storage, read_write> out: array<u32>;

var<workgroup> bins: array<atomic<u32>, 1024>;

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) t: u32, @builtin(workgroup_id) wg: vec3<u32>) {
    let lane = t & 31u;
    let warp = t >> 5u;
    for (var i = 0u; i < ITERS; i++) {
        atomicAdd(&bins[(lane * K + 32u * ((warp + i) & 31u)) & 1023u], 1u);
    }
    workgroupBarrier();
    var s = 0u;
    for (var j = 0u; j < 4u; j++) {
        s += atomicLoad(&bins[j * 256u + t]);
    }
    out[wg.x * 256u + t] = s;
}
