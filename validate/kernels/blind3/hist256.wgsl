// Family hist256: a 256-bin histogram built with workgroup-memory atomicAdd.
//
// What it computes: every invocation draws ITEMS = 64 pseudo-random bytes
// (bin = hash(seed, item) & 255, seed = input word ^ global id, so the zero-filled
// input does not make the bins trivial) and increments its bin with a
// workgroup-memory atomicAdd whose result is unused. The workgroup keeps COPIES
// replicated sub-histograms; lane l of every warp uses copy (l & (COPIES - 1)).
// Bin b of copy c lives at word  b * BIN_STRIDE + c  of a fixed 8192-word
// (32 KiB) array in every variant. After a barrier, thread t (= bin t) sums the
// COPIES copies of its bin, visiting them rotated by t so that the merge is
// conflict-free whenever the layout allows it, and writes out[global id].
//
// Overrides (power-of-two COPIES; 32 banks x 4 bytes):
//   BIN_STRIDE=32 COPIES=32 (reference): bank = lane, one private copy per lane:
//       1-way for any data; merge 1-way.
//   BIN_STRIDE=32 COPIES=16: bank = lane & 15: lanes l and l+16 share a bank with
//       distinct words (unless they draw the same bin, p = 1/256): 2-way.
//   BIN_STRIDE=32 COPIES=4: 8 lanes per bank: 8-way (merge 8-way too).
//   BIN_STRIDE=32 COPIES=1: one copy, bins at a 32-word stride: every lane in bank 0,
//       ~30 distinct words among 32 random bins (same bin = same word): ~30-way,
//       32 at worst; the merge is 32-way.
//   BIN_STRIDE=1 COPIES=1: the plain shared histogram (word = bin): bank = bin & 31,
//       random: the busiest bank holds ~3.5 distinct words on average (worst
//       requests ~6-7); same-bin lanes hit one word. Merge 1-way.
// The clear (atomicStore of word k*256 + t) is 1-way in every variant.
//
// Dispatch: 4096 workgroups of 256 (out: one u32 per invocation, the default size).

override BIN_STRIDE: u32 = 32u;
override COPIES: u32 = 32u;

const ITEMS: u32 = 64u;
const WG: u32 = 256u;

@group(0) @binding(0) var<storage, read> seed_in: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;

var<workgroup> hist: array<atomic<u32>, 8192>;

fn hash(x: u32) -> u32 {
    var h = x;
    h ^= h >> 16u;
    h *= 0x7feb352du;
    h ^= h >> 15u;
    h *= 0x846ca68bu;
    h ^= h >> 16u;
    return h;
}

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) t: u32,
        @builtin(workgroup_id) wg: vec3<u32>) {
    for (var k = 0u; k < 8192u / WG; k++) {
        atomicStore(&hist[k * WG + t], 0u);
    }
    workgroupBarrier();

    let gid = wg.x * WG + t;
    let seed = seed_in[gid] ^ (gid * 0x9e3779b9u);
    let copy = (t & 31u) & (COPIES - 1u);
    for (var k = 0u; k < ITEMS; k++) {
        let bin = hash(seed + k * 0x632be5abu) & 255u;
        atomicAdd(&hist[bin * BIN_STRIDE + copy], 1u);
    }
    workgroupBarrier();

    var sum = 0u;
    for (var c = 0u; c < COPIES; c++) {
        let cc = (c + t) & (COPIES - 1u);
        sum += atomicLoad(&hist[t * BIN_STRIDE + cc]);
    }
    out[gid] = sum;
}
