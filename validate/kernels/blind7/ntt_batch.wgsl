// Family ntt_batch: batched cyclic polynomial multiplication modulo
// q = 7681 by number-theoretic transforms (as in lattice cryptography): each
// invocation owns one polynomial of 64 coefficients (u32), transforms it
// (Gentleman-Sande DIF NTT, omega = 5413, a primitive 64th root of unity),
// multiplies it pointwise by a fixed key spectrum (uniform buffer), transforms
// back (Cooley-Tukey DIT inverse NTT, omega^-1 = 2645) and scales by
// 64^-1 = 7561. Twiddles are made on the fly (modular multiply chains): integer
// compute-heavy.
//
// What it computes: workgroup g, 64 invocations (2 warps), polynomials
// p = g * 64 + t. Invocation t:
//   load:    16 vec4<u32> of its polynomial from a (plus a hash, mod q), the
//            64 coefficients stored at A(t, c).
//   forward: 6 stages x 32 butterflies: loads A(t, i0), A(t, i1), stores both.
//   product: A(t, c) = A(t, c) * key(c) mod q (load + store).
//   inverse: 6 stages x 32 butterflies, as forward.
//   store:   loads A(t, c) * 7561 mod q, 16 vec4 to r.
// No barrier is needed (every invocation reads only its own polynomial); every
// workgroup-memory request has the 32 lanes on 32 polynomials at one
// coefficient index c.
//
// Layout of the coefficients (a fixed 4352-word u32 array in every variant):
//   ILV=1: A(t, c) = c * 64 + t      (interleaved: coefficient-major)
//   ILV=0: A(t, c) = t * PP + c      (polynomial-major, pitch PP >= 64)
//   ILV=1 (reference): consecutive words: 1-way.
//   PP=65: stride 65: 1-way.   PP=66: 2-way.   PP=68: 4-way.
//   PP=64 (unpadded): 32-way.
//
// Dispatch: 4096 workgroups of 64 (a, r: 4096 * 64 * 64 = 16777216 words
// each; key: 16 vec4 = 64 words).

override ILV: u32 = 1u;
override PP: u32 = 64u;

const Q: u32 = 7681u;
const OMEGA: u32 = 5413u;
const OMEGA_INV: u32 = 2645u;
const N_INV: u32 = 7561u;

@group(0) @binding(0) var<storage, read> a: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read_write> r: array<vec4<u32>>;
@group(0) @binding(2) var<uniform> key: array<vec4<u32>, 16>;

var<workgroup> A: array<u32, 4352>;

fn ai(t: u32, c: u32) -> u32 {
    if (ILV == 1u) {
        return c * 64u + t;
    }
    return t * PP + c;
}

fn mulm(x: u32, y: u32) -> u32 {
    return (x * y) % Q;
}

fn addm(x: u32, y: u32) -> u32 {
    let s = x + y;
    return select(s, s - Q, s >= Q);
}

fn subm(x: u32, y: u32) -> u32 {
    let s = x + Q - y;
    return select(s, s - Q, s >= Q);
}

fn hsh(g: u32) -> u32 {
    let h = (g ^ (g >> 15u)) * 2246822519u;
    return h >> 8u;
}

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) t: u32,
        @builtin(workgroup_id) wg: vec3<u32>) {
    let p = wg.x * 64u + t;
    for (var i = 0u; i < 16u; i++) {
        let g = p * 16u + i;
        let v = a[g];
        let c = 4u * i;
        A[ai(t, c)] = (v.x + hsh(4u * g)) % Q;
        A[ai(t, c + 1u)] = (v.y + hsh(4u * g + 1u)) % Q;
        A[ai(t, c + 2u)] = (v.z + hsh(4u * g + 2u)) % Q;
        A[ai(t, c + 3u)] = (v.w + hsh(4u * g + 3u)) % Q;
    }
    // forward NTT, decimation in frequency: natural order in, bit-reversed out
    var len = 32u;
    var wl = OMEGA;
    for (var st = 0u; st < 6u; st++) {
        for (var s0 = 0u; s0 < 64u; s0 += 2u * len) {
            var w = 1u;
            for (var j = 0u; j < len; j++) {
                let i0 = s0 + j;
                let u = A[ai(t, i0)];
                let v = A[ai(t, i0 + len)];
                A[ai(t, i0)] = addm(u, v);
                A[ai(t, i0 + len)] = mulm(subm(u, v), w);
                w = mulm(w, wl);
            }
        }
        len = len >> 1u;
        wl = mulm(wl, wl);
    }
    // pointwise product with the key spectrum (bit-reversed order, like A)
    for (var c = 0u; c < 64u; c++) {
        let k = (key[c >> 2u][c & 3u] + 3u * c + 1u) % Q;
        A[ai(t, c)] = mulm(A[ai(t, c)], k);
    }
    // inverse NTT, decimation in time: bit-reversed in, natural order out
    len = 1u;
    for (var st = 0u; st < 6u; st++) {
        var wi = OMEGA_INV;
        for (var e = st; e < 5u; e++) {
            wi = mulm(wi, wi);
        }
        for (var s0 = 0u; s0 < 64u; s0 += 2u * len) {
            var w = 1u;
            for (var j = 0u; j < len; j++) {
                let i0 = s0 + j;
                let u = A[ai(t, i0)];
                let v = mulm(A[ai(t, i0 + len)], w);
                A[ai(t, i0)] = addm(u, v);
                A[ai(t, i0 + len)] = subm(u, v);
                w = mulm(w, wi);
            }
        }
        len = len << 1u;
    }
    for (var i = 0u; i < 16u; i++) {
        let c = 4u * i;
        r[p * 16u + i] = vec4<u32>(mulm(A[ai(t, c)], N_INV), mulm(A[ai(t, c + 1u)], N_INV),
                                   mulm(A[ai(t, c + 2u)], N_INV), mulm(A[ai(t, c + 3u)], N_INV));
    }
}
