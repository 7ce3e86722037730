#!/usr/bin/env python3
"""Extra 4-byte atomic patterns (probe_atom.cu): mixed sharing and masks."""
import random
rng = random.Random(7)
out = open("atom_patterns_extra.txt", "w")
def add(name, idx):
    out.write(f"{name} 4 {len(idx)} | {' '.join(map(str, idx))} | {' '.join(map(str, idx))}\n")
for i in range(8):
    add(f"xa_randsmall{i}", [rng.randrange(0, 96) for _ in range(32)])
for i in range(4):
    add(f"xa_randmask{i}", [rng.randrange(0, 64) if rng.random() < 0.5 else -1 for _ in range(32)])
add("xa_mod4_x32_div", [(t % 4) * 32 + t // 16 for t in range(32)])
add("xa_4warps_stride1", list(range(128)))
