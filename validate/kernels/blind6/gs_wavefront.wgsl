// Family gs_wavefront: Gauss-Seidel (SOR, omega 1.5) smoothing of a batch of
// independent 32 x 32 Poisson subproblems (the local solves of a Schwarz
// preconditioner; periodic in j, zero Dirichlet rows above and below), one
// subproblem per warp, swept in the wrapped anti-diagonal (wavefront) order:
// colour d = 0..31 updates the 32 cells (i, j) with i + j = d (mod 32), which
// are mutually independent, one per lane.
//
// What it computes: workgroup g, 128 invocations (4 warps); warp w owns tile
// s = 4 g + w, lane l owns row i = l + 1 (rows 1..32; rows 0 and 33 are the
// zero boundary). Staging: for rows i = 0..33 lane l stores U(i, l) (the
// initial guess from u0 plus a hash, 0 on the boundary rows). Barrier. Then 6
// sweeps of 32 colours: lane l updates cell (i, j), j = (d - l) mod 32: loads
// U(i, j), U(i - 1, j), U(i + 1, j), U(i, j - 1 mod 32), U(i, j + 1 mod 32)
// (the main accesses, 4-byte loads), adds an analytic right-hand side, stores
// the SOR update at U(i, j) (main access); barrier. Finally lane l writes
// U(i, l), i = 1..32, to u1 (coalesced).
//
// Layout of a tile (warp w's tile starts at word 1394 w of a fixed 5576-word
// f32 array, 21.8 KiB, in every variant):
//   U(i, j) = i * P + j        (row pitch P words, P >= 32)
// On colour d lane l reads word (l + 1) P + ((d - l) mod 32) + const; the mod
// adds multiples of 32 words, which leave the bank unchanged, so the bank is
// l (P - 1) + const mod 32: an anti-diagonal is a lane stride of P - 1 words:
// gcd(P - 1, 32)-way (the same for all five loads and the store).
//   P=34 (reference, two words of pad; odd stride 33): 1-way.
//   P=35 (stride 34): 2-way.   P=37 (36): 4-way.   P=41 (40): 8-way.
//   P=33 (one word of pad, stride 32): every lane on one bank: 32-way.
// The staging stores and the final loads (32 consecutive words of one row)
// are 1-way in every variant.
//
// Dispatch: 2048 workgroups of 128 (u0 and u1: 8192 tiles * 1024 = 8388608
// words each).

override P: u32 = 34u;

const TSZ: u32 = 1394u;
const NSW: u32 = 6u;
const OMEGA: f32 = 1.5;

@group(0) @binding(0) var<storage, read> u0: array<f32>;
@group(0) @binding(1) var<storage, read_write> u1: array<f32>;

var<workgroup> U: array<f32, 5576>;

fn hashf(i: u32) -> f32 {
    let a = (i ^ (i >> 16u)) * 2654435761u;
    let b = (a ^ (a >> 13u)) * 2246822519u;
    return f32(b >> 8u) * (1.0 / 16777216.0);
}

@compute @workgroup_size(128)
fn main(@builtin(local_invocation_index) t: u32,
        @builtin(workgroup_id) wg: vec3<u32>) {
    let w = t >> 5u;
    let l = t & 31u;
    let tb = w * TSZ;
    let gs = (wg.x * 4u + w) * 1024u;
    for (var i = 0u; i < 34u; i++) {
        var v = 0.0;
        if (i >= 1u && i <= 32u) {
            let g = gs + (i - 1u) * 32u + l;
            v = u0[g] + hashf(g);
        }
        U[tb + i * P + l] = v;
    }
    workgroupBarrier();
    let i = l + 1u;
    for (var s = 0u; s < NSW; s++) {
        for (var d = 0u; d < 32u; d++) {
            let j = (d + 32u - l) & 31u;
            let jm = (j + 31u) & 31u;
            let jp = (j + 1u) & 31u;
            let c = U[tb + i * P + j];
            let n = U[tb + (i - 1u) * P + j];
            let so = U[tb + (i + 1u) * P + j];
            let we = U[tb + i * P + jm];
            let ea = U[tb + i * P + jp];
            let f = 0.01 * f32((i * 7u + j * 13u) & 15u);
            U[tb + i * P + j] = c + OMEGA * (0.25 * (n + so + we + ea + f) - c);
            workgroupBarrier();
        }
    }
    for (var r = 1u; r <= 32u; r++) {
        u1[gs + (r - 1u) * 32u + l] = U[tb + r * P + l];
    }
}
