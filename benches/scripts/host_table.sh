#!/bin/bash
# The table with 2628c23 + the runner's pools built outside the timed runs (503eb0b), twice; then the ceiling.
cd "$(dirname "$0")/.."
# (run from a copy in .gl/ at the repository root, with the stripped runner binaries beside it)
lscpu | grep -E "Model name|^CPU\(s\)" | cut -c1-120
for r in 1 2; do echo "== table, call round $r"; .gl/runner --reps 5 --threads 1,2,4,8,16; done
echo "== ceiling"; .gl/runner --reps 3 --threads 16 --only ceiling | tail -4
