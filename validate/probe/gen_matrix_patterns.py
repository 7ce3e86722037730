#!/usr/bin/env python3
"""Patterns for probe_matrix.cu: the row addresses of ldmatrix / stmatrix and the shared
elements of cp.async, measured with ncu by validate/probe/run_probe.sh --matrix.

One line per pattern: `NAME SHAPE N | a0 .. a(N-1)`. For ldsm/stsm, a_l is the row lane l
supplies in 16-byte units (8 rows per matrix: .x1 8 lanes, .x2 16, .x4 32); for cp.async
the element (in units of the copy's width) lane l writes, -1 for none.

Families, for every shape: rows of a tile at a pitch (8 fp16 = 16 B per row chunk; pitches
of 1 to 64 chunks, with and without a chunk of padding), the TMA swizzle modes (32, 64 and
128 B: chunk c of row r at c ^ (r / k % n)), the two operand orientations of a 64 x 64 fp16
tile, random rows (seeded), and rows repeated by several lanes (pairs, quads, all).

Usage: gen_matrix_patterns.py > fixtures/h100/matrix_patterns.txt
"""
import random
import sys

LDSM = ["ldsm_x1", "ldsm_x2", "ldsm_x4"]
STSM = ["stsm_x1", "stsm_x2", "stsm_x4"]
TRANS = [s + "_t" for s in LDSM + STSM]
CPASYNC = [("cpasync4_ca", 4), ("cpasync8_ca", 8), ("cpasync16_ca", 16), ("cpasync16_cg", 16)]
# the same copies with other global sources (lane l's at byte W l, or in a line of its own):
# whether the shared-memory writes are grouped by the global lines they come from
CPASYNC_SOURCES = [
    ("cpasync4_ca_packed", 4),
    ("cpasync8_ca_packed", 8),
    ("cpasync4_ca_lines", 4),
    ("cpasync8_ca_lines", 8),
    ("cpasync16_ca_lines", 16),
]
SMEM_CHUNKS = 49152 // 16


def swizzle(row, chunk, mode):
    """TMA swizzle of 16-byte chunk `chunk` of row `row` (rows of 128 B = 8 chunks):
    32B mode XORs the chunk's bit 0 with row bit 2... as CUTLASS's Swizzle<1,4,3>,
    64B Swizzle<2,4,3>, 128B Swizzle<3,4,3> (in 16-byte units: bits 0..B-1 of the chunk
    XOR bits 3.. of its byte address >> 7, i.e. of the row)."""
    bits = {0: 0, 32: 1, 64: 2, 128: 3}[mode]
    if bits == 0:
        return row * 8 + chunk
    addr = row * 8 + chunk  # in chunks
    return addr ^ ((addr >> 3) & ((1 << bits) - 1))


def ldsm_rows(kind, n, rng):
    """Yield (name, rows) for n lanes."""
    # a tile's rows at a pitch of p chunks, plus a chunk of padding or not
    for p in [1, 2, 4, 8, 16, 32, 64]:
        yield f"pitch{p}", [(r * p) % SMEM_CHUNKS for r in range(n)]
        yield f"pitch{p}_pad1", [(r * (p + 1)) % SMEM_CHUNKS for r in range(n)]
    for p in [3, 5, 7, 9, 12, 17, 24, 33, 40]:
        yield f"pitch{p}", [(r * p) % SMEM_CHUNKS for r in range(n)]
    # a 64x64 fp16 tile: rows of 128 B (8 chunks); matrix m of the load is 8 rows x 16 B
    for mode in [0, 32, 64, 128]:
        # A operand (K-major): lane l reads row l % 8 + 8 * (l // 16), chunk (l // 8) % 2
        rows_a = [swizzle(l % 8 + 8 * (l // 16), (l // 8) % 2, mode) for l in range(n)]
        yield f"tile64_k_sw{mode}", rows_a
        # the same matrices one K step further (chunks 2, 3)
        yield f"tile64_k2_sw{mode}", [swizzle(l % 8 + 8 * (l // 16), 2 + (l // 8) % 2, mode) for l in range(n)]
        # B operand (N-major, read with .trans in practice): lane l reads row l, chunk 0
        yield f"tile64_n_sw{mode}", [swizzle(l, 0, mode) for l in range(n)]
        yield f"tile64_n3_sw{mode}", [swizzle(l, 3, mode) for l in range(n)]
    # rows repeated by several lanes
    for rep in [2, 4, 8]:
        yield f"repeat{rep}_pitch8", [(r // rep) * 8 for r in range(n)]
        yield f"repeat{rep}_pitch9", [(r // rep) * 9 for r in range(n)]
    yield "all_same", [0] * n
    yield "pairs_adjacent", [(r // 2) for r in range(n)]
    yield "lanes_reversed", [(n - 1 - r) * 8 for r in range(n)]
    # random rows, seeded
    for k in range(12):
        yield f"random{k}", [rng.randrange(SMEM_CHUNKS) for _ in range(n)]
    for k in range(6):
        yield f"random_small{k}", [rng.randrange(64) for _ in range(n)]


def cp_elems(width, rng):
    units = 49152 // width
    per_line = 128 // width
    for s in [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 16, 17, 24, 31, 32, 33, 48, 63, 64, 65, 96, 128]:
        yield f"stride{s}", [(l * s) % units for l in range(32)]
    for half in [16, 8]:
        yield f"first{half}", [l if l < half else -1 for l in range(32)]
    yield "reversed", [31 - l for l in range(32)]
    yield "pairs_same", [l // 2 for l in range(32)]
    yield "all_same", [0] * 32
    yield "odd_lanes", [l if l % 2 else -1 for l in range(32)]
    for mode in [32, 64, 128]:
        bits = {32: 1, 64: 2, 128: 3}[mode]
        # 16-byte chunks of rows of 128 B, swizzled (in units of the width)
        yield f"swizzle{mode}", [((l * 8 + (l % 8)) ^ ((l & ((1 << bits) - 1)))) % units for l in range(32)]
    for k in range(12):
        yield f"random{k}", [rng.randrange(units) for _ in range(32)]
    for k in range(6):
        yield f"random_line{k}", [rng.randrange(per_line * 4) for _ in range(32)]
    for k in range(4):
        yield f"random_some{k}", [rng.randrange(units) if rng.random() < 0.6 else -1 for _ in range(32)]


def main():
    rng = random.Random(2025)
    out = sys.stdout
    out.write("# validate/probe/gen_matrix_patterns.py: NAME SHAPE N | addresses (see probe_matrix.cu)\n")
    for shape in LDSM + STSM:
        n = 8 * int(shape[-1])
        for name, rows in ldsm_rows(shape, n, rng):
            out.write(f"{shape}_{name} {shape} {n} | {' '.join(map(str, rows))}\n")
    for shape in TRANS:
        n = 8 * int(shape[-3])
        for i, (name, rows) in enumerate(ldsm_rows(shape, n, rng)):
            if i % 3 == 0:  # a third of the set: .trans addresses the banks as the plain form
                out.write(f"{shape}_{name} {shape} {n} | {' '.join(map(str, rows))}\n")
    for shape, width in CPASYNC:
        for name, elems in cp_elems(width, rng):
            out.write(f"{shape}_{name} {shape} 32 | {' '.join(map(str, elems))}\n")
    # (after the others, so that their random patterns stay as they were)
    for shape, width in CPASYNC_SOURCES:
        for name, elems in cp_elems(width, rng):
            out.write(f"{shape}_{name} {shape} 32 | {' '.join(map(str, elems))}\n")


if __name__ == "__main__":
    main()
