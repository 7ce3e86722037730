#!/usr/bin/env python3
"""Extra 4-byte atomic patterns (probe_atom.cu): mixed sharing and masks.
Same format as gen_patterns.py: NAME WIDTH NTHREADS | st idx... | ld idx..."""
import random

from patterns_common import out_path, pattern_line

rng = random.Random(7)
out = open(out_path(__doc__, "atom_patterns_extra.txt"), "w")
def add(name, idx):
    out.write(pattern_line(name, 4, idx, idx))
for i in range(8):
    add(f"xa_randsmall{i}", [rng.randrange(0, 96) for _ in range(32)])
for i in range(4):
    add(f"xa_randmask{i}", [rng.randrange(0, 64) if rng.random() < 0.5 else -1 for _ in range(32)])
add("xa_mod4_x32_div", [(t % 4) * 32 + t // 16 for t in range(32)])
add("xa_4warps_stride1", list(range(128)))
