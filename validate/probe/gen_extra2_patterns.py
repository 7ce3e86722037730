#!/usr/bin/env python3
"""Second batch of H100 probe patterns (see gen_extra_patterns.py): tells apart the
candidate load-merge rules for 8- and 16-byte loads that the first batch left open
(lanes that pair up across a quad, two-address broadcasts, masks of mixed parity)."""
import random

from patterns_common import Patterns, out_path

OUT = out_path(__doc__, "patterns_extra2.txt")

W = 32
pats = Patterns()
add = pats.add
T = range(W)
def half_pattern(h):  # 16-lane pattern repeated for both halves
    return [h[t % 16] for t in T]
# ---- 16-byte (merge scope: half-warp of 16 lanes)
add("y16_alt01", 16, [t % 2 for t in T])
add("y16_alt08_q1_alt19", 16, [(t % 2) * 8 + ((t // 8) % 2) for t in T])
add("y16_alt08_q1_uniform", 16, [(t % 2) * 8 if (t % 16) < 8 else 0 for t in T])
add("y16_alt08_pairs_active", 16, [(t % 2) * 8 if t % 4 < 2 else -1 for t in T])
add("y16_mod3_x8", 16, [(t % 3) * 8 for t in T])
add("y16_mod4_x8", 16, [(t % 4) * 8 for t in T])
add("y16_mod2_x8_halfdiff", 16, [(t % 2) * 8 + t // 16 for t in T])
add("y16_even_only_distinct", 16, [t // 2 if t % 2 == 0 else -1 for t in T])
add("y16_odd_only_distinct", 16, [t // 2 if t % 2 == 1 else -1 for t in T])
add("y16_mixed_parity_distinct", 16, [t // 2 if (t % 4) in (0, 3) else -1 for t in T])
add("y16_mixed_parity_same", 16, [0 if (t % 4) in (0, 3) else -1 for t in T])
add("y16_mixed_parity_alt08", 16, [((t // 4) % 2) * 8 if (t % 4) in (0, 3) else -1 for t in T])
add("y16_pairs_then_even", 16, half_pattern([0, 0, 1, 1, 2, 2, 3, 3, 4, -1, 5, -1, 6, -1, 7, -1]))
add("y16_pairs_then_odd", 16, half_pattern([0, 0, 1, 1, 2, 2, 3, 3, -1, 4, -1, 5, -1, 6, -1, 7]))
add("y16_xor2pairs", 16, [(t // 4) * 2 + (t % 2) for t in T])
add("y16_xor2pairs_x8", 16, [((t // 4) * 2 + (t % 2)) * 8 for t in T])
add("y16_0110", 16, half_pattern([0, 1, 1, 0] * 4))
add("y16_one_outlier", 16, half_pattern([0] * 15 + [8]))
add("y16_one_outlier_nc", 16, half_pattern([0] * 15 + [1]))
add("y16_alt08_q0_only", 16, [(t % 2) * 8 if t < 8 else -1 for t in T])
add("y16_alt01_q0_only", 16, [t % 2 if t < 8 else -1 for t in T])
add("y16_two_quads", 16, half_pattern([0, 8, 0, 8, 1, 9, 1, 9] * 2))
# ---- 8-byte (merge scope: the warp)
add("y8_alt_x16", 8, [(t % 2) * 16 for t in T])
add("y8_alt01", 8, [t % 2 for t in T])
add("y8_mod3_x16", 8, [(t % 3) * 16 for t in T])
add("y8_xor2pairs", 8, [(t // 4) * 2 + (t % 2) for t in T])
add("y8_xor2pairs_x16", 8, [((t // 4) * 2 + (t % 2)) * 16 for t in T])
add("y8_even_only_distinct", 8, [t // 2 if t % 2 == 0 else -1 for t in T])
add("y8_mixed_parity_distinct", 8, [t // 2 if (t % 4) in (0, 3) else -1 for t in T])
add("y8_mixed_parity_same", 8, [0 if (t % 4) in (0, 3) else -1 for t in T])
add("y8_pairs_then_even", 8, [t // 2 if t < 16 else (t // 2 if t % 2 == 0 else -1) for t in T])
add("y8_pairs_then_odd", 8, [t // 2 if t < 16 else (t // 2 if t % 2 == 1 else -1) for t in T])
add("y8_alt_x16_halfdiff", 8, [(t % 2) * 16 + t // 16 for t in T])
add("y8_one_outlier", 8, [0] * 31 + [16])
add("y8_one_outlier_nc", 8, [0] * 31 + [1])
add("y8_alt01_half0_only", 8, [t % 2 if t < 16 else -1 for t in T])
add("y8_0110", 8, [[0, 1, 1, 0][t % 4] for t in T])
# ---- random with few distinct addresses
rng = random.Random(99)
for i in range(6):
    add(f"y16_rand2addr{i}", 16, [rng.choice((0, 8)) for _ in T])
for i in range(4):
    add(f"y16_rand2addrnc{i}", 16, [rng.choice((0, 1)) for _ in T])
for i in range(4):
    vals = rng.sample(range(32), 3)
    add(f"y16_rand3addr{i}", 16, [rng.choice(vals) for _ in T])
for i in range(6):
    add(f"y8_rand2addr{i}", 8, [rng.choice((0, 16)) for _ in T])
for i in range(4):
    vals = rng.sample(range(64), 3)
    add(f"y8_rand3addr{i}", 8, [rng.choice(vals) for _ in T])
for i in range(6):  # masked, one active lane per pair, random parity
    add(f"y16_randparity{i}", 16, [rng.randrange(0, 32) if (t % 2) == par else -1 for t in T for par in [rng.randrange(2)]][:32] if False else
        [v for p in range(16) for v in ((lambda par, a: (a, -1) if par == 0 else (-1, a))(rng.randrange(2), rng.randrange(0, 32)))])
for i in range(6):
    add(f"y8_randparity{i}", 8, [v for p in range(16) for v in ((lambda par, a: (a, -1) if par == 0 else (-1, a))(rng.randrange(2), rng.randrange(0, 64)))])

assert all(len(st) == W for _, _, st, _ in pats.pats)
pats.write(OUT)
