// Family fv_flux: a face-based finite-volume solver of the 2-D Euler equations
// (Rusanov flux) on an ensemble of small periodic 32 x 16 domains, the
// conserved variables of every cell held in workgroup memory as 16.16
// fixed-point i32 and updated by scatter-adding face fluxes with workgroup
// atomics (atomicAdd whose result is unused: reductions).
//
// What it computes: workgroup g, 512 invocations (16 warps); invocation t owns
// cell t = 32 y + x (x = t & 31, y = t >> 5: a warp is one row), its east face
// (to cell E = 32 y + (x + 1 mod 32)) and its north face (to cell N =
// 32 ((y + 1) mod 16) + x). Initial state: primitive variables from a hash plus
// prim[g * 512 + t], converted to (rho, rho u, rho v, E) and stored U(t, k),
// k = 0..3 (atomicStore). Barrier. Then 16 steps: atomicLoad the four
// components of cells t, E and N (12 loads); barrier; Rusanov fluxes across
// the east and north faces (dt / dx = 0.1); atomicAdd -(Fe + Fn) to U(t, k),
// +Fe to U(E, k), +Fn to U(N, k) (12 atomics, the main accesses with the
// loads); barrier. Finally cons[g * 512 + t] = the four components.
//
// Layout of the conserved variables (a fixed 4096-word atomic<i32> array,
// 16 KiB, in every variant):
//   SOA=1: U(c, k) = k * 512 + c      (four planes)
//   SOA=0: U(c, k) = c * S + k        (array of cell structs of S words: the
//          four components then S - 4 words of padding)
// Every load and atomic of a warp touches the 32 cells of one row (for E a
// rotation of the row) at the same component k: words S c + k, c = 32 y' + m,
// banks S m + const mod 32: gcd(S, 32)-way (distinct words, so the atomics do
// not merge).
//   SOA=1 (reference): 32 consecutive words: 1-way.
//   S=5: 1-way.   S=6: 2-way.   S=4: 4-way.   S=8: 8-way.
//
// Dispatch: 2048 workgroups of 512 (prim and cons: 2048 * 512 vec4 =
// 4194304 words each).

override SOA: u32 = 1u;
override S: u32 = 4u;

const NC: u32 = 512u;
const NSTEPS: u32 = 16u;
const SCALE: f32 = 65536.0;
const DTDX: f32 = 0.1;
const GAM: f32 = 1.4;

@group(0) @binding(0) var<storage, read> prim: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> cons: array<vec4<f32>>;

var<workgroup> U: array<atomic<i32>, 4096>;

fn ui(c: u32, k: u32) -> u32 {
    if (SOA == 1u) {
        return k * NC + c;
    }
    return c * S + k;
}

fn hashf(i: u32) -> f32 {
    let a = (i ^ (i >> 16u)) * 2654435761u;
    let b = (a ^ (a >> 13u)) * 2246822519u;
    return f32(b >> 8u) * (1.0 / 16777216.0);
}

fn load4(c: u32) -> vec4<f32> {
    return vec4<f32>(f32(atomicLoad(&U[ui(c, 0u)])), f32(atomicLoad(&U[ui(c, 1u)])),
                     f32(atomicLoad(&U[ui(c, 2u)])), f32(atomicLoad(&U[ui(c, 3u)]))) * (1.0 / SCALE);
}

fn fix(v: f32) -> i32 {
    return i32(clamp(v * SCALE, -1.0e8, 1.0e8));
}

// pressure of a conserved state, kept positive
fn pres(u: vec4<f32>, rho: f32) -> f32 {
    return max((GAM - 1.0) * (u.w - 0.5 * (u.y * u.y + u.z * u.z) / rho), 0.01);
}

// Rusanov flux in direction n (n = (1, 0) east, (0, 1) north)
fn rusanov(a: vec4<f32>, b: vec4<f32>, nx: f32, ny: f32) -> vec4<f32> {
    let ra = max(a.x, 0.05);
    let rb = max(b.x, 0.05);
    let pa = pres(a, ra);
    let pb = pres(b, rb);
    let una = (a.y * nx + a.z * ny) / ra;
    let unb = (b.y * nx + b.z * ny) / rb;
    let fa = vec4<f32>(ra * una, a.y * una + pa * nx, a.z * una + pa * ny, (a.w + pa) * una);
    let fb = vec4<f32>(rb * unb, b.y * unb + pb * nx, b.z * unb + pb * ny, (b.w + pb) * unb);
    let sa = abs(una) + sqrt(GAM * pa / ra);
    let sb = abs(unb) + sqrt(GAM * pb / rb);
    return 0.5 * (fa + fb) - 0.5 * max(sa, sb) * (b - a);
}

@compute @workgroup_size(512)
fn main(@builtin(local_invocation_index) t: u32,
        @builtin(workgroup_id) wg: vec3<u32>) {
    let x = t & 31u;
    let y = t >> 5u;
    let ce = y * 32u + ((x + 1u) & 31u);
    let cn = ((y + 1u) & 15u) * 32u + x;
    let gi = wg.x * NC + t;
    let pv = prim[gi];
    let rho = 1.0 + 0.5 * hashf(gi) + pv.x;
    let vx = 0.3 * (hashf(gi ^ 0x1234567u) - 0.5) + pv.y;
    let vy = 0.3 * (hashf(gi ^ 0x7654321u) - 0.5) + pv.z;
    let p = 1.0 + 0.5 * hashf(gi ^ 0x5bd1e995u) + pv.w;
    let e = p / (GAM - 1.0) + 0.5 * rho * (vx * vx + vy * vy);
    atomicStore(&U[ui(t, 0u)], fix(rho));
    atomicStore(&U[ui(t, 1u)], fix(rho * vx));
    atomicStore(&U[ui(t, 2u)], fix(rho * vy));
    atomicStore(&U[ui(t, 3u)], fix(e));
    workgroupBarrier();
    for (var s = 0u; s < NSTEPS; s++) {
        let uc = load4(t);
        let ue = load4(ce);
        let un = load4(cn);
        workgroupBarrier();
        let fe = DTDX * rusanov(uc, ue, 1.0, 0.0);
        let fn_ = DTDX * rusanov(uc, un, 0.0, 1.0);
        let fc = -(fe + fn_);
        atomicAdd(&U[ui(t, 0u)], fix(fc.x));
        atomicAdd(&U[ui(t, 1u)], fix(fc.y));
        atomicAdd(&U[ui(t, 2u)], fix(fc.z));
        atomicAdd(&U[ui(t, 3u)], fix(fc.w));
        atomicAdd(&U[ui(ce, 0u)], fix(fe.x));
        atomicAdd(&U[ui(ce, 1u)], fix(fe.y));
        atomicAdd(&U[ui(ce, 2u)], fix(fe.z));
        atomicAdd(&U[ui(ce, 3u)], fix(fe.w));
        atomicAdd(&U[ui(cn, 0u)], fix(fn_.x));
        atomicAdd(&U[ui(cn, 1u)], fix(fn_.y));
        atomicAdd(&U[ui(cn, 2u)], fix(fn_.z));
        atomicAdd(&U[ui(cn, 3u)], fix(fn_.w));
        workgroupBarrier();
    }
    cons[gi] = load4(t);
}
