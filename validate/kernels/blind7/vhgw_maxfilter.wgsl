// Family vhgw_maxfilter: a horizontal running-maximum filter (grey-scale
// dilation with a 1 x 8 window, out[x] = max(in[x .. x+7])) by the van Herk /
// Gil-Werman algorithm: the row is cut into segments of 8, each segment gets
// its prefix maxima G and suffix maxima H, and out[x] = max(H[x], G[x + 7])
// (3 comparisons per pixel whatever the window). i32.
//
// What it computes: image 8192 rows x 4096 i32 (plus a hash of the index so the
// zero input is not trivial). Workgroup (gx, gy), 128 invocations (4 warps);
// warp w filters 256 pixels of row y = 4 gy + w starting at x0 = 256 gx (264
// inputs: 33 segments, clamped at the right edge). Lane l:
//   load:    inputs x = 32 it + l (it = 0..8) stored at G(x >> 3, x & 7).
//            Barrier.
//   scan:    lane l owns segment s = l: loads its 8 values G(s, 0..7), stores
//            the prefix maxima to G(s, i) and the suffix maxima to H(s, i);
//            lane 0 also does the prefix of segment 32. Barrier.
//   combine: lane s, i = 1..7: H(s, i) = max(H(s, i), G(s + 1, i - 1)).
//            Barrier.
//   store:   out[y][x0 + x] = H(x >> 3, x & 7), x = 32 it + l (coalesced).
//
// Layout of a warp's G and H (a fixed 4160-word array: per warp 1040 words, G
// at 0, H at 528; segment s, element i):
//   SWZ=1: pos(s, i) = 8 s + (i ^ ((s >> 2) & 7))   (XOR swizzle)
//   SWZ=0: pos(s, i) = SP * s + i                    (segment pitch SP >= 8)
// The scan and combine requests put the 32 lanes on 32 segments at one i
// (stride SP); load and store put them on 4 consecutive segments, 8 words
// each.
//   SWZ=1 (reference): segments: bank 8 (s & 3) + (i ^ ((s >> 2) & 7)),
//          distinct; load/store: a 32-word block permuted: 1-way.
//   SP=9:  segments 1-way, load/store 2-way (the 4th segment wraps): 2-way.
//   SP=12: segments 4-way, load/store 2-way: 4-way.
//   SP=8:  segments 8-way, load/store 1-way: 8-way.
//   SP=16: segments 16-way, load/store 2-way: 16-way.
//
// Dispatch: 16 x 2048 workgroups of 128 (img, out: 8192 * 4096 = 33554432
// words each).

override SWZ: u32 = 1u;
override SP: u32 = 8u;

const W: u32 = 4096u;
const WS: u32 = 1040u;
const HO: u32 = 528u;

@group(0) @binding(0) var<storage, read> img: array<i32>;
@group(0) @binding(1) var<storage, read_write> outp: array<i32>;

var<workgroup> sm: array<i32, 4160>;

fn pos(s: u32, i: u32) -> u32 {
    if (SWZ == 1u) {
        return s * 8u + (i ^ ((s >> 2u) & 7u));
    }
    return s * SP + i;
}

fn gi(w: u32, s: u32, i: u32) -> u32 {
    return w * WS + pos(s, i);
}

fn hi(w: u32, s: u32, i: u32) -> u32 {
    return w * WS + HO + pos(s, i);
}

fn hsh(g: u32) -> i32 {
    let h = (g ^ (g >> 15u)) * 2246822519u;
    return i32(h >> 20u);
}

@compute @workgroup_size(128)
fn main(@builtin(local_invocation_index) t: u32,
        @builtin(workgroup_id) wg: vec3<u32>) {
    let w = t >> 5u;
    let l = t & 31u;
    let y = wg.y * 4u + w;
    let x0 = wg.x * 256u;
    for (var it = 0u; it < 9u; it++) {
        let x = it * 32u + l;
        if (x < 264u) {
            let g = y * W + min(x0 + x, W - 1u);
            sm[gi(w, x >> 3u, x & 7u)] = img[g] + hsh(g);
        }
    }
    workgroupBarrier();
    {
        let s = l;
        let v0 = sm[gi(w, s, 0u)];
        let v1 = sm[gi(w, s, 1u)];
        let v2 = sm[gi(w, s, 2u)];
        let v3 = sm[gi(w, s, 3u)];
        let v4 = sm[gi(w, s, 4u)];
        let v5 = sm[gi(w, s, 5u)];
        let v6 = sm[gi(w, s, 6u)];
        let v7 = sm[gi(w, s, 7u)];
        let p1 = max(v0, v1);
        let p2 = max(p1, v2);
        let p3 = max(p2, v3);
        let p4 = max(p3, v4);
        let p5 = max(p4, v5);
        let p6 = max(p5, v6);
        let p7 = max(p6, v7);
        let q6 = max(v6, v7);
        let q5 = max(v5, q6);
        let q4 = max(v4, q5);
        let q3 = max(v3, q4);
        let q2 = max(v2, q3);
        let q1 = max(v1, q2);
        let q0 = max(v0, q1);
        sm[gi(w, s, 1u)] = p1;
        sm[gi(w, s, 2u)] = p2;
        sm[gi(w, s, 3u)] = p3;
        sm[gi(w, s, 4u)] = p4;
        sm[gi(w, s, 5u)] = p5;
        sm[gi(w, s, 6u)] = p6;
        sm[gi(w, s, 7u)] = p7;
        sm[hi(w, s, 0u)] = q0;
        sm[hi(w, s, 1u)] = q1;
        sm[hi(w, s, 2u)] = q2;
        sm[hi(w, s, 3u)] = q3;
        sm[hi(w, s, 4u)] = q4;
        sm[hi(w, s, 5u)] = q5;
        sm[hi(w, s, 6u)] = q6;
        sm[hi(w, s, 7u)] = v7;
        if (l == 0u) {
            var m = sm[gi(w, 32u, 0u)];
            for (var i = 1u; i < 7u; i++) {
                m = max(m, sm[gi(w, 32u, i)]);
                sm[gi(w, 32u, i)] = m;
            }
        }
    }
    workgroupBarrier();
    for (var i = 1u; i < 8u; i++) {
        let a = sm[hi(w, l, i)];
        let b = sm[gi(w, l + 1u, i - 1u)];
        sm[hi(w, l, i)] = max(a, b);
    }
    workgroupBarrier();
    for (var it = 0u; it < 8u; it++) {
        let x = it * 32u + l;
        outp[y * W + x0 + x] = sm[hi(w, x >> 3u, x & 7u)];
    }
}
