// Family 2: row softmax, y[r, :] = exp(x[r, :] - max_r) / sum_r, rows of 64 f32.
//
// A workgroup of 256 invocations (8 warps) handles 32 consecutive rows (2048 values).
// It stages the 32 x 64 block in workgroup memory, row-major with a padded pitch
// P = 64 + PAD: tile[r * P + c].  The row reductions use the classic "thread per
// row segment" mapping for short rows: lane = row (0..31), warp = 8-column segment,
// so every reduction access of a warp reads one column of the block across its 32
// rows (addresses lane * P + const); per-segment partials go through a second
// workgroup array part[seg][row] (consecutive, conflict-free) and are combined by
// every invocation of the row.  Passes:
//   1. stage: flat coalesced copy, warp = 32 consecutive columns of one row
//      (conflict-free for any PAD);
//   2. max:   8 loads per invocation down the block (lane * P stride);
//   3. exp:   8 loads + 8 stores of exp(x - max) back into the tile (same stride),
//             partial sums;
//   4. normalize: flat coalesced read of the tile times 1/sum (conflict-free),
//             written to y.
//
// Override PAD = row padding in 4-byte words.  Pitch P = 64 + PAD; the column
// accesses of passes 2 and 3 hit gcd(P, 32) distinct words per bank:
//   PAD = 1 : P = 65, conflict-free (reference)
//   PAD = 2 : P = 66, 2-way
//   PAD = 4 : P = 68, 4-way
//   PAD = 8 : P = 72, 8-way
//   PAD = 0 : P = 64, 32-way (unpadded)
// Workgroup memory: 32 * (64 + PAD) * 4 + 1024 + 128 bytes (at most 10.4 KiB).
//
// Dispatch: 8192 workgroups -> 262144 rows (16777216 values).
// Buffers: 0.0 input x and 0.1 output y, 16777216 words each.

override PAD: u32 = 1u;

const COLS: u32 = 64u;

@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;

var<workgroup> tile: array<f32, 32u * (64u + PAD)>;
var<workgroup> part: array<f32, 256>;
var<workgroup> inv_sum: array<f32, 32>;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wg: vec3<u32>,
        @builtin(local_invocation_index) t: u32) {
    let P = COLS + PAD;
    let base = wg.x * 2048u;

    for (var q = 0u; q < 8u; q++) {
        let idx = t + 256u * q;
        tile[(idx >> 6u) * P + (idx & 63u)] = x[base + idx];
    }
    workgroupBarrier();

    let row = t & 31u;
    let seg = t >> 5u;
    let rbase = row * P + seg * 8u;

    var m = -3.0e38;
    for (var j = 0u; j < 8u; j++) {
        m = max(m, tile[rbase + j]);
    }
    part[seg * 32u + row] = m;
    workgroupBarrier();

    var rmax = part[row];
    for (var s = 1u; s < 8u; s++) {
        rmax = max(rmax, part[s * 32u + row]);
    }
    workgroupBarrier();

    var sum = 0.0;
    for (var j = 0u; j < 8u; j++) {
        let e = exp(tile[rbase + j] - rmax);
        tile[rbase + j] = e;
        sum += e;
    }
    part[seg * 32u + row] = sum;
    workgroupBarrier();

    if (seg == 0u) {
        var s_all = part[row];
        for (var s = 1u; s < 8u; s++) {
            s_all += part[s * 32u + row];
        }
        inv_sum[row] = 1.0 / s_all;
    }
    workgroupBarrier();

    for (var q = 0u; q < 8u; q++) {
        let idx = t + 256u * q;
        let r = idx >> 6u;
        y[base + idx] = tile[r * P + (idx & 63u)] * inv_sum[r];
    }
}
