// Held-out suite (validate/suite_unseen.csv): a 3x3 box blur on a 32 x 32 tile with
// wrap-around edges, ITERS passes ping-ponging between two shared tiles (a barrier
// between passes). Rows are 32 + PAD floats apart. Invocation t owns row t % 32 and the
// 4 columns 4 * (t / 32) .. +4, so the 32 lanes of a warp read and write down a column:
// every access is gcd(32 + PAD, 32)-way conflicted: PAD = 1 conflict-free, PAD = 0
// 32-way, 2: 2-way, 4: 4-way, 8: 8-way. Set with --override PAD=N.
// The tile comes from `src` (word (workgroup % 64) * 1024 + i: 256 KiB, cache-resident).
// banksim capture validate/kernels/unseen/stencil.wgsl --dispatch 2 --override PAD=0 --bind 0.0=zeros:65536 -o s.csv
override PAD: u32 = 1;
override ITERS: u32 = 3;

@group(0) @binding(0) var<storage, read> src: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;

var<workgroup> ta: array<f32, 32 * (32 + PAD)>;
var<workgroup> tb: array<f32, 32 * (32 + PAD)>;

fn blur_a(row: u32, c: u32) -> f32 {
    let pitch = 32u + PAD;
    var s = 0.0;
    for (var dy = 0u; dy < 3u; dy++) {
        for (var dx = 0u; dx < 3u; dx++) {
            s += ta[((row + dy + 31u) & 31u) * pitch + ((c + dx + 31u) & 31u)];
        }
    }
    return s * (1.0 / 9.0);
}

fn blur_b(row: u32, c: u32) -> f32 {
    let pitch = 32u + PAD;
    var s = 0.0;
    for (var dy = 0u; dy < 3u; dy++) {
        for (var dx = 0u; dx < 3u; dx++) {
            s += tb[((row + dy + 31u) & 31u) * pitch + ((c + dx + 31u) & 31u)];
        }
    }
    return s * (1.0 / 9.0);
}

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) t: u32, @builtin(workgroup_id) wg: vec3<u32>) {
    let pitch = 32u + PAD;
    let row = t & 31u;
    let c0 = 4u * (t >> 5u);
    let base = (wg.x & 63u) * 1024u;
    for (var k = 0u; k < 4u; k++) {
        // coalesced: invocation t loads word t + 256 k of the tile
        let i = t + 256u * k;
        ta[(i >> 5u) * pitch + (i & 31u)] = src[base + i];
    }
    workgroupBarrier();
    for (var it = 0u; it < ITERS; it++) {
        if ((it & 1u) == 0u) {
            for (var c = 0u; c < 4u; c++) { tb[row * pitch + c0 + c] = blur_a(row, c0 + c); }
        } else {
            for (var c = 0u; c < 4u; c++) { ta[row * pitch + c0 + c] = blur_b(row, c0 + c); }
        }
        workgroupBarrier();
    }
    var s = 0.0;
    for (var c = 0u; c < 4u; c++) {
        if ((ITERS & 1u) == 1u) { s += tb[row * pitch + c0 + c]; } else { s += ta[row * pitch + c0 + c]; }
    }
    out[wg.x * 256u + t] = s;
}
