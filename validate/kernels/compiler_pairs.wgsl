// Which of a compiler's standard optimisations the GPU's driver makes, beyond those the
// capture already takes from the IR (validate/src/ops.rs): each pair of modes computes
// the same value, written two ways, so the pair runs alike where the driver makes the
// optimisation and apart where it does not. Every invocation runs p.iters iterations of
// a loop of REP (8 or 16) dependent steps on a value read at run time (as op_cost.wgsl
// does: the time of 8 steps is the difference between REP=16 and REP=8):
//   0  x = (x ^ d) * 3 + ((x ^ d) * 3 >> 7)     a subexpression written twice
//   1  t = (x ^ d) * 3; x = t + (t >> 7)         written once: 0 = 1 where the driver
//                                                eliminates common subexpressions
//   2  an 8-operation hash of d (the same every iteration) computed inside the loop and
//      added into x at the first step
//   3  the same hash computed once before the loop: 2 = 3 where the driver hoists
//      loop-invariant code (compare the absolute times, not the REP difference)
//   4  x = g(x, 3) with g(x, q) = x * (q * 2 + 1) + q, a function called with a constant
//   5  x = x * 7 + 3, the same by hand: 4 = 5 where the driver folds a constant argument
//      into the inlined function
// validate/run_micro.sh measures it (PAIRS_ONLY=1): rows compiler_pairs_op<OP>_rep<REP>_n<N>.
// banksim measure validate/kernels/compiler_pairs.wgsl --dispatch 132 --override OP=0 --bind 0.0=u32:7,4096
override OP: u32 = 0;
override REP: u32 = 8;
struct Params { d: u32, iters: u32, }
@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;

fn g(x: u32, q: u32) -> u32 {
    return x * (q * 2u + 1u) + q;
}

// an 8-operation dependent chain on `d`
fn hash(d: u32) -> u32 {
    var h = d * 0x9e3779b1u;
    h = h ^ (h >> 15u);
    h = h * 0x85ebca6bu;
    h = h ^ (h >> 13u);
    return h;
}

fn step(x: u32, d: u32) -> u32 {
    switch OP {
        case 0u: { return (x ^ d) * 3u + (((x ^ d) * 3u) >> 7u); }
        case 1u: {
            let t = (x ^ d) * 3u;
            return t + (t >> 7u);
        }
        case 4u: { return g(x, 3u); }
        case 5u: { return x * 7u + 3u; }
        default: { return x * 7u + d; }
    }
}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let d = p.d;
    var x = gid.x | 0x40000000u;
    let hoisted = hash(d + 1u);
    for (var k = 0u; k < p.iters; k++) {
        if (OP == 2u) {
            x = x + hash(d + 1u);
        } else if (OP == 3u) {
            x = x + hoisted;
        }
        x = step(x, d);
        x = step(x, d);
        x = step(x, d);
        x = step(x, d);
        x = step(x, d);
        x = step(x, d);
        x = step(x, d);
        x = step(x, d);
        if (REP > 8u) {
            x = step(x, d);
            x = step(x, d);
            x = step(x, d);
            x = step(x, d);
            x = step(x, d);
            x = step(x, d);
            x = step(x, d);
            x = step(x, d);
        }
    }
    out[gid.x] = x;
}
