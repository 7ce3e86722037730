#!/usr/bin/env python3
"""Extra access patterns measured on the H100 to pin down the cases the original
215-pattern table leaves open: 8- and 16-byte loads whose lanes share addresses in
different arrangements, and partly masked warps with vector widths.
Same format as gen_patterns.py: NAME WIDTH NTHREADS | st idx... | ld idx..."""
import random

from patterns_common import Patterns, out_path

OUT = out_path(__doc__, "patterns_extra.txt")

W = 32
pats = Patterns()
add = pats.add

T = range(W)
# ---- 8-byte: two half-warps of 16 lanes (128 bytes each)
add("x8_halves_same_s1", 8, [t % 16 for t in T])
add("x8_halves_same_s2", 8, [(t % 16) * 2 for t in T])
add("x8_halves_same_s4", 8, [(t % 16) * 4 for t in T])
add("x8_halves_same_s16", 8, [(t % 16) * 16 for t in T])
add("x8_halves_same_mod3_s16", 8, [((t % 16) % 3) * 16 for t in T])
add("x8_half1_subset", 8, [t if t < 16 else t % 8 for t in T])
add("x8_half0_only_s1", 8, [t if t < 16 else -1 for t in T])
add("x8_half1_only_s1", 8, [t - 16 if t >= 16 else -1 for t in T])
add("x8_half0_only_s2", 8, [2 * t if t < 16 else -1 for t in T])
add("x8_overlap8", 8, [t if t < 16 else t - 8 for t in T])
add("x8_cf_plus_s2", 8, [t if t < 16 else 2 * (t - 16) for t in T])
add("x8_s2_plus_cf", 8, [2 * t if t < 16 else t - 16 for t in T])
add("x8_same0_same16", 8, [0 if t < 16 else 16 for t in T])
add("x8_same0_same1", 8, [0 if t < 16 else 1 for t in T])
add("x8_same0_stride1", 8, [0 if t < 16 else t - 16 for t in T])
add("x8_div4", 8, [t // 4 for t in T])
add("x8_div8", 8, [t // 8 for t in T])
add("x8_div16_x16", 8, [(t // 16) * 16 for t in T])
add("x8_mirror", 8, [t if t < 16 else 31 - t for t in T])
add("x8_even_odd_s2", 8, [2 * t if t < 16 else 2 * (t - 16) + 1 for t in T])
add("x8_mod8", 8, [t % 8 for t in T])
add("x8_mod4_x16", 8, [(t % 4) * 16 for t in T])
add("x8_div2_x16", 8, [(t // 2) * 16 for t in T])
add("x8_lane0_lane16_same", 8, [0 if t in (0, 16) else -1 for t in T])
add("x8_lane0_lane16_samebank", 8, [0 if t == 0 else (16 if t == 16 else -1) for t in T])
add("x8_lane0_lane16_diffbank", 8, [0 if t == 0 else (1 if t == 16 else -1) for t in T])
add("x8_lane0_lane1_samebank", 8, [0 if t == 0 else (16 if t == 1 else -1) for t in T])
add("x8_oddlanes_s1", 8, [t if t % 2 else -1 for t in T])
add("x8_oddlanes_div2", 8, [t // 2 if t % 2 else -1 for t in T])
for k in (1, 8, 15, 17, 24, 31):
    add(f"x8_active{k}_s1", 8, [t if t < k else -1 for t in T])
    add(f"x8_active{k}_s16", 8, [16 * t if t < k else -1 for t in T])
    add(f"x8_active{k}_same", 8, [0 if t < k else -1 for t in T])
# ---- 16-byte: four quarter-warps of 8 lanes (128 bytes each)
add("x16_mod16", 16, [t % 16 for t in T])
add("x16_mod8", 16, [t % 8 for t in T])
add("x16_mod4", 16, [t % 4 for t in T])
add("x16_div4", 16, [t // 4 for t in T])
add("x16_div8", 16, [t // 8 for t in T])
add("x16_div16", 16, [t // 16 for t in T])
add("x16_div8_x8", 16, [(t // 8) * 8 for t in T])
add("x16_div2_x8", 16, [(t // 2) * 8 for t in T])
add("x16_mod8_x8", 16, [(t % 8) * 8 for t in T])
add("x16_mod2_x8", 16, [(t % 2) * 8 for t in T])
add("x16_q01_same_q23_same", 16, [(t % 8) + 8 * (t // 16) for t in T])
add("x16_q02_same_q13_same", 16, [(t % 8) + 8 * ((t // 8) % 2) for t in T])
add("x16_q0_only", 16, [t if t < 8 else -1 for t in T])
add("x16_q0_q2", 16, [t % 8 if (t // 8) % 2 == 0 else -1 for t in T])
add("x16_q0_q1_s1", 16, [t if t < 16 else -1 for t in T])
add("x16_lane0_lane8_same", 16, [0 if t in (0, 8) else -1 for t in T])
add("x16_lane0_lane16_same", 16, [0 if t in (0, 16) else -1 for t in T])
add("x16_lane0_lane24_same", 16, [0 if t in (0, 24) else -1 for t in T])
add("x16_lane0_lane8_diff", 16, [0 if t == 0 else (1 if t == 8 else -1) for t in T])
add("x16_lane0_lane8_samebank", 16, [0 if t == 0 else (8 if t == 8 else -1) for t in T])
add("x16_half_same_s2", 16, [(t % 16) * 2 for t in T])
add("x16_q_same_s2", 16, [(t % 8) * 2 for t in T])
add("x16_q_same_s1_shift", 16, [(t % 8) + (t // 8) for t in T])
add("x16_cf_plus_s2", 16, [t if t < 8 else (2 * (t - 8) if t < 16 else t) for t in T])
for k in (1, 4, 8, 9, 12, 16, 17, 24, 31):
    add(f"x16_active{k}_s1", 16, [t if t < k else -1 for t in T])
    add(f"x16_active{k}_same", 16, [0 if t < k else -1 for t in T])
add("x16_active12_s8", 16, [8 * t if t < 12 else -1 for t in T])
# ---- 1/2-byte sharing words; 4-byte sanity
add("x2_div2", 2, [t // 2 for t in T])
add("x2_mod2_x64", 2, [(t % 2) * 64 for t in T])
add("x1_div4_x128", 1, [(t // 4) * 128 for t in T])
add("x1_mod4_x128", 1, [(t % 4) * 128 + t // 4 for t in T])
add("x4_halves_same_s2", 4, [(t % 16) * 2 for t in T])
# ---- random with heavy address sharing
rng = random.Random(20261123)
for i in range(10):
    add(f"x8_randsmall{i}", 8, [rng.randrange(0, 32) for _ in T])
for i in range(6):
    add(f"x8_randtiny{i}", 8, [rng.randrange(0, 8) * rng.choice((1, 16)) for _ in T])
for i in range(6):
    h = [rng.randrange(0, 64) for _ in range(16)]
    p = h[:]; rng.shuffle(p)
    add(f"x8_randhalfperm{i}", 8, h + p)
for i in range(6):
    add(f"x8_randmask{i}", 8, [rng.randrange(0, 64) if rng.random() < 0.5 else -1 for _ in T])
for i in range(10):
    add(f"x16_randsmall{i}", 16, [rng.randrange(0, 16) for _ in T])
for i in range(6):
    add(f"x16_randtiny{i}", 16, [rng.randrange(0, 4) * rng.choice((1, 8)) for _ in T])
for i in range(6):
    q = [rng.randrange(0, 32) for _ in range(8)]
    add(f"x16_randqperm{i}", 16, sum((rng.sample(q, 8) for _ in range(4)), []))
for i in range(6):
    add(f"x16_randmask{i}", 16, [rng.randrange(0, 32) if rng.random() < 0.5 else -1 for _ in T])
for i in range(4):
    add(f"x2_randsmall{i}", 2, [rng.randrange(0, 160) for _ in T])
# ---- different store and load patterns in one launch
add("x8_st_s1_ld_halves_same_s2", 8, [t for t in T], [(t % 16) * 2 for t in T])
# ---- 4 warps with vector widths
add("x8_4warps_mixed", 8, [t % 16 if t < 32 else (t * 2 if t < 64 else (t % 8 if t < 96 else t * 16)) for t in range(128)])
add("x16_4warps_mixed", 16, [t % 8 if t < 32 else (t if t < 64 else (t // 4 if t < 96 else t * 8)) for t in range(128)])

pats.write(OUT)
