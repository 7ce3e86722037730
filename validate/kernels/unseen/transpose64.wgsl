// Held-out suite (validate/suite_unseen.csv): 64 x 64 tile transpose of u32 through
// workgroup memory, three layouts of the tile: rows 64 + PAD words apart, and with
// SWZ = true the column of element (r, c) XOR-swizzled to c ^ (r % 32) (a bijection
// within each row). Each of 256 invocations moves 16 words; rows are written along a
// row (conflict-free in every layout) and read down a column: SWZ = true (PAD = 0) and
// PAD = 1 conflict-free, PAD = 0 32-way, PAD = 2 2-way, PAD = 4 4-way.
// Matrix of (64 * groups_x) x (64 * groups_y) words; one workgroup per tile.
// Set with --override PAD=N --override SWZ=true.
// banksim capture validate/kernels/unseen/transpose64.wgsl --dispatch 2,2 --override SWZ=true -o t.csv
override PAD: u32 = 0;
override SWZ: bool = false;

@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;

var<workgroup> tile: array<u32, 64 * (64 + PAD)>;

fn at(r: u32, c: u32) -> u32 {
    if (SWZ) {
        return r * (64u + PAD) + (c ^ (r & 31u));
    }
    return r * (64u + PAD) + c;
}

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) t: u32,
        @builtin(workgroup_id) wg: vec3<u32>,
        @builtin(num_workgroups) n: vec3<u32>) {
    let width = 64u * n.x;
    let height = 64u * n.y;
    let c = t & 63u;
    let r0 = t >> 6u;
    for (var k = 0u; k < 16u; k++) {
        let r = r0 + 4u * k;
        tile[at(r, c)] = src[(wg.y * 64u + r) * width + wg.x * 64u + c];
    }
    workgroupBarrier();
    // the output tile (wg.y, wg.x): its row r is column r of the input tile
    for (var k = 0u; k < 16u; k++) {
        let r = r0 + 4u * k;
        dst[(wg.x * 64u + r) * height + wg.y * 64u + c] = tile[at(c, r)];
    }
}
