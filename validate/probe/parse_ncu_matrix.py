#!/usr/bin/env python3
"""Join ncu CSV output of probe_matrix.cu (one profiled launch per pattern, in order) with
its pattern file (validate/probe/gen_matrix_patterns.py) into a table: pattern, shape,
kernel, then every metric ncu reported, by its name without the `.sum`."""
import csv

from patterns_common import ncu_launches, parse_args

ARGS = parse_args(__doc__)
pats = [l.split()[:2] for l in open(ARGS.patterns) if l.strip() and not l.startswith("#")]
launches = ncu_launches(ARGS.ncu_csv)
assert len(launches) == len(pats), (len(launches), len(pats))
cols = sorted({k for launch in launches for k in launch if k != "kernel"})
with open(ARGS.out, "w", newline="") as f:
    out = csv.writer(f)
    out.writerow(["pattern", "shape", "kernel"] + [c.removesuffix(".sum") for c in cols])
    for (name, shape), launch in zip(pats, launches):
        out.writerow([name, shape, launch.get("kernel", "")] + [launch.get(c, "") for c in cols])
print(f"{len(pats)} patterns, {len(cols)} metrics")
