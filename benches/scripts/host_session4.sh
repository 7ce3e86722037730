#!/bin/bash
# Before (runner_base: 0692256) and after (runner: 221eb1b, block starts kept by
# `Requests`, decoder columns written by index), alternating, then the table.
# (run from a copy in .gl/ at the repository root, with the stripped runners beside it)
cd "$(dirname "$0")/.."
lscpu | grep -E "Model name|^CPU\(s\)" | cut -c1-120
for r in 1 2 3; do
    for x in runner_base runner; do
        echo "== $x, engine, round $r"; .gl/$x --reps 10 --only engine --threads 1,16 | grep "cycle engine"
        echo "== $x, decode, round $r"; .gl/$x --reps 20 --only decode | grep "decode only"
    done
done
echo "== table (runner)"; .gl/runner --reps 5 --threads 1,2,4,8,16
