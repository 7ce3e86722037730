// Family lbm_d2q9: lattice-Boltzmann D2Q9 (BGK collision, pull streaming) of an
// ensemble of small periodic 32 x 8 flow domains, one domain per workgroup,
// the nine distributions of every cell in workgroup memory for 32 time steps.
//
// What it computes: workgroup g, 256 invocations (8 warps); invocation t owns
// cell t = 32 y + x (x = t & 31, y = t >> 5: a warp is one row of the domain).
// It makes the initial density (1 + 0.2 hash + rho0[g * 256 + t]) and a small
// velocity from a hash, stores the nine equilibrium distributions F(t, q).
// Barrier. Then 32 steps: pull f_q = F(cell - e_q, q) from the neighbour
// (periodic: x +- 1 mod 32, y +- 1 mod 8), nine 4-byte loads (main accesses);
// barrier; density, velocity (plus a constant body force), BGK relaxation
// towards the equilibrium (omega 1.6); nine 4-byte stores F(t, q) = f_q (main
// accesses); barrier. Finally fout[(g * 9 + q) * 256 + t] = f_q.
//
// Layout of the distributions (a fixed 4096-word f32 array, 16 KiB, in every
// variant):
//   SOA=1: F(c, q) = q * 256 + c    (structure of arrays: nine planes)
//   SOA=0: F(c, q) = c * S + q      (array of cell structs of S words: the nine
//          distributions then S - 9 words of padding)
// Every load and store of a warp touches the 32 cells of one row (the loads a
// rotation of the row by the direction's x offset), same q: words
// S * c + q. Cells 32 y' + m, m = 0..31, so the banks are S m + const mod 32:
// gcd(S, 32)-way.
//   SOA=1 (reference): 32 consecutive words (rotated): 1-way.
//   S=9: 1-way.   S=10: 2-way.   S=12: 4-way.   S=16: 16-way.
//
// Dispatch: 4096 workgroups of 256 (rho0: 4096 * 256 = 1048576 words; fout:
// 4096 * 9 * 256 = 9437184 words).

override SOA: u32 = 1u;
override S: u32 = 9u;

const NC: u32 = 256u;
const NSTEPS: u32 = 32u;
const OMEGA: f32 = 1.6;
const FX: f32 = 1e-5;

@group(0) @binding(0) var<storage, read> rho0: array<f32>;
@group(0) @binding(1) var<storage, read_write> fout: array<f32>;

var<workgroup> F: array<f32, 4096>;

fn fi(c: u32, q: u32) -> u32 {
    if (SOA == 1u) {
        return q * NC + c;
    }
    return c * S + q;
}

fn hashf(i: u32) -> f32 {
    let a = (i ^ (i >> 16u)) * 2654435761u;
    let b = (a ^ (a >> 13u)) * 2246822519u;
    return f32(b >> 8u) * (1.0 / 16777216.0);
}

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) t: u32,
        @builtin(workgroup_id) wg: vec3<u32>) {
    let x = t & 31u;
    let y = t >> 5u;
    let xm = (x + 31u) & 31u;
    let xp = (x + 1u) & 31u;
    let ym = (y + 7u) & 7u;
    let yp = (y + 1u) & 7u;
    let gi = wg.x * NC + t;
    let r0 = 1.0 + 0.2 * hashf(gi) + rho0[gi];
    let u0x = 0.05 * (hashf(gi ^ 0x1234567u) - 0.5);
    let u0y = 0.05 * (hashf(gi ^ 0x7654321u) - 0.5);
    let usq0 = 1.5 * (u0x * u0x + u0y * u0y);
    F[fi(t, 0u)] = (4.0 / 9.0) * r0 * (1.0 + 3.0 * (0.0) + 4.5 * (0.0) * (0.0) - usq0);
    F[fi(t, 1u)] = (1.0 / 9.0) * r0 * (1.0 + 3.0 * (u0x) + 4.5 * (u0x) * (u0x) - usq0);
    F[fi(t, 2u)] = (1.0 / 9.0) * r0 * (1.0 + 3.0 * (u0y) + 4.5 * (u0y) * (u0y) - usq0);
    F[fi(t, 3u)] = (1.0 / 9.0) * r0 * (1.0 + 3.0 * (-u0x) + 4.5 * (-u0x) * (-u0x) - usq0);
    F[fi(t, 4u)] = (1.0 / 9.0) * r0 * (1.0 + 3.0 * (-u0y) + 4.5 * (-u0y) * (-u0y) - usq0);
    F[fi(t, 5u)] = (1.0 / 36.0) * r0 * (1.0 + 3.0 * (u0x + u0y) + 4.5 * (u0x + u0y) * (u0x + u0y) - usq0);
    F[fi(t, 6u)] = (1.0 / 36.0) * r0 * (1.0 + 3.0 * (-u0x + u0y) + 4.5 * (-u0x + u0y) * (-u0x + u0y) - usq0);
    F[fi(t, 7u)] = (1.0 / 36.0) * r0 * (1.0 + 3.0 * (-u0x - u0y) + 4.5 * (-u0x - u0y) * (-u0x - u0y) - usq0);
    F[fi(t, 8u)] = (1.0 / 36.0) * r0 * (1.0 + 3.0 * (u0x - u0y) + 4.5 * (u0x - u0y) * (u0x - u0y) - usq0);
    workgroupBarrier();
    var f0 = 0.0;
    var f1 = 0.0;
    var f2 = 0.0;
    var f3 = 0.0;
    var f4 = 0.0;
    var f5 = 0.0;
    var f6 = 0.0;
    var f7 = 0.0;
    var f8 = 0.0;
    for (var s = 0u; s < NSTEPS; s++) {
        f0 = F[fi(y * 32u + x, 0u)];
        f1 = F[fi(y * 32u + xm, 1u)];
        f2 = F[fi(ym * 32u + x, 2u)];
        f3 = F[fi(y * 32u + xp, 3u)];
        f4 = F[fi(yp * 32u + x, 4u)];
        f5 = F[fi(ym * 32u + xm, 5u)];
        f6 = F[fi(ym * 32u + xp, 6u)];
        f7 = F[fi(yp * 32u + xp, 7u)];
        f8 = F[fi(yp * 32u + xm, 8u)];
        workgroupBarrier();
        let rho = f0 + f1 + f2 + f3 + f4 + f5 + f6 + f7 + f8;
        let ir = 1.0 / rho;
        let ux = (f1 - f3 + f5 - f6 - f7 + f8) * ir + FX;
        let uy = (f2 - f4 + f5 + f6 - f7 - f8) * ir;
        let usq = 1.5 * (ux * ux + uy * uy);
        f0 = f0 - OMEGA * (f0 - (4.0 / 9.0) * rho * (1.0 + 3.0 * (0.0) + 4.5 * (0.0) * (0.0) - usq));
        f1 = f1 - OMEGA * (f1 - (1.0 / 9.0) * rho * (1.0 + 3.0 * (ux) + 4.5 * (ux) * (ux) - usq));
        f2 = f2 - OMEGA * (f2 - (1.0 / 9.0) * rho * (1.0 + 3.0 * (uy) + 4.5 * (uy) * (uy) - usq));
        f3 = f3 - OMEGA * (f3 - (1.0 / 9.0) * rho * (1.0 + 3.0 * (-ux) + 4.5 * (-ux) * (-ux) - usq));
        f4 = f4 - OMEGA * (f4 - (1.0 / 9.0) * rho * (1.0 + 3.0 * (-uy) + 4.5 * (-uy) * (-uy) - usq));
        f5 = f5 - OMEGA * (f5 - (1.0 / 36.0) * rho * (1.0 + 3.0 * (ux + uy) + 4.5 * (ux + uy) * (ux + uy) - usq));
        f6 = f6 - OMEGA * (f6 - (1.0 / 36.0) * rho * (1.0 + 3.0 * (-ux + uy) + 4.5 * (-ux + uy) * (-ux + uy) - usq));
        f7 = f7 - OMEGA * (f7 - (1.0 / 36.0) * rho * (1.0 + 3.0 * (-ux - uy) + 4.5 * (-ux - uy) * (-ux - uy) - usq));
        f8 = f8 - OMEGA * (f8 - (1.0 / 36.0) * rho * (1.0 + 3.0 * (ux - uy) + 4.5 * (ux - uy) * (ux - uy) - usq));
        F[fi(t, 0u)] = f0;
        F[fi(t, 1u)] = f1;
        F[fi(t, 2u)] = f2;
        F[fi(t, 3u)] = f3;
        F[fi(t, 4u)] = f4;
        F[fi(t, 5u)] = f5;
        F[fi(t, 6u)] = f6;
        F[fi(t, 7u)] = f7;
        F[fi(t, 8u)] = f8;
        workgroupBarrier();
    }
    fout[(wg.x * 9u + 0u) * NC + t] = f0;
    fout[(wg.x * 9u + 1u) * NC + t] = f1;
    fout[(wg.x * 9u + 2u) * NC + t] = f2;
    fout[(wg.x * 9u + 3u) * NC + t] = f3;
    fout[(wg.x * 9u + 4u) * NC + t] = f4;
    fout[(wg.x * 9u + 5u) * NC + t] = f5;
    fout[(wg.x * 9u + 6u) * NC + t] = f6;
    fout[(wg.x * 9u + 7u) * NC + t] = f7;
    fout[(wg.x * 9u + 8u) * NC + t] = f8;
}
