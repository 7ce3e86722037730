// Family pic_deposit: the charge and current deposition step of a
// particle-in-cell code: every particle adds its charge density and its three
// current components to the two nearest cells (linear, cloud-in-cell weights)
// of a 16 x 32-cell grid tile accumulated with workgroup-memory atomics.
//
// What it computes: workgroup g, 256 invocations (8 warps), owns a 16 x 32 cell
// tile (512 cells, 4 fields: rho, jx, jy, jz) and 16 * 256 particles; the
// particles are sorted by cell, so lane l of warp w holds, in its round p, a
// particle of cell (row (2w + p) & 15, column l). All 8192 grid words are
// cleared (atomicStore, 1-way), barrier. In each of 16 rounds an invocation reads
// its particle's charge (coalesced, + 1 so the zero-filled input is not
// trivial), derives its position in the cell and velocity from a hash, and does
// 8 atomicAdd (i32 fixed point, result unused): 4 fields x the cells at columns
// l and (l + 1) & 31 of its row. Barrier. The tile is read back with atomicLoad
// and written to grid_out as f32, field-major (8 words per invocation,
// coalesced).
//
// Layout of the grid (a fixed array of 8192 atomic<i32>, 32 KiB, in every
// variant):
//   CS=0: field f of cell c at g[f * 512 + c]    (split arrays)
//   CS>0: field f of cell c at g[c * CS + f]     (array of cell structs, CS
//         words per cell, 4 used)
// Each atomic (and each read-back load) puts the 32 lanes of a warp on 32
// consecutive cells (cyclically) of one field: bank (c * CS + f) mod 32,
// 32 / gcd(CS, 32) distinct banks, always distinct words:
//   CS=0 (reference): 1-way.   CS=6: 2-way.   CS=4: 4-way.   CS=8: 8-way.
//   CS=16: 16-way.
// No two lanes of an atomic hit the same word.
//
// Dispatch: 4096 workgroups of 256 (part: 4096 * 16 * 256 = 16777216 words;
// grid_out: 4096 * 2048 = 8388608 words; bound explicitly).

override CS: u32 = 0u;

const NCELL: u32 = 512u;
const WG: u32 = 256u;
const P: u32 = 16u;
const SCALE: f32 = 4096.0;

@group(0) @binding(0) var<storage, read> part: array<f32>;
@group(0) @binding(1) var<storage, read_write> grid_out: array<f32>;

var<workgroup> g: array<atomic<i32>, 8192>;

fn hash(x: u32) -> u32 {
    var h = x;
    h ^= h >> 16u;
    h *= 0x7feb352du;
    h ^= h >> 15u;
    h *= 0x846ca68bu;
    h ^= h >> 16u;
    return h;
}

fn gi(c: u32, f: u32) -> u32 {
    if (CS == 0u) {
        return f * NCELL + c;
    }
    return c * CS + f;
}

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) t: u32,
        @builtin(workgroup_id) wg: vec3<u32>) {
    for (var k = 0u; k < 8192u / WG; k++) {
        atomicStore(&g[k * WG + t], 0);
    }
    workgroupBarrier();

    let w = t >> 5u;
    let l = t & 31u;
    for (var p = 0u; p < P; p++) {
        let pid = (wg.x * P + p) * WG + t;
        let q = part[pid] + 1.0;
        let h = hash(pid);
        let fx = f32(h & 0xffffu) * (1.0 / 65536.0);
        let v = vec3<f32>(f32((h >> 16u) & 255u), f32((h >> 8u) & 255u), f32(h >> 24u))
            * (1.0 / 128.0) - 1.0;
        let row = (2u * w + p) & 15u;
        let c0 = row * 32u + l;
        let c1 = row * 32u + ((l + 1u) & 31u);
        let q0 = q * (1.0 - fx) * SCALE;
        let q1 = q * fx * SCALE;
        atomicAdd(&g[gi(c0, 0u)], i32(q0));
        atomicAdd(&g[gi(c1, 0u)], i32(q1));
        atomicAdd(&g[gi(c0, 1u)], i32(q0 * v.x));
        atomicAdd(&g[gi(c1, 1u)], i32(q1 * v.x));
        atomicAdd(&g[gi(c0, 2u)], i32(q0 * v.y));
        atomicAdd(&g[gi(c1, 2u)], i32(q1 * v.y));
        atomicAdd(&g[gi(c0, 3u)], i32(q0 * v.z));
        atomicAdd(&g[gi(c1, 3u)], i32(q1 * v.z));
    }
    workgroupBarrier();

    for (var k = 0u; k < 8u; k++) {
        let i = k * WG + t;
        let f = i >> 9u;
        let c = i & (NCELL - 1u);
        grid_out[wg.x * 2048u + i] = f32(atomicLoad(&g[gi(c, f)])) * (1.0 / SCALE);
    }
}
