#!/bin/bash
# session 11, H100 host: engine A/B, bb72db2's engine (runner) against 1d6fe18 (runner_new), alternating;
# then the new runner's table and the ceiling
cd "$(dirname "$0")/.."
lscpu | grep -E "Model name|^CPU\(s\)"
for r in 1 2 3 4; do
  for x in runner runner_new; do
    echo "round $r $x: $(.gl/$x --reps 5 --threads 1,16 --only engine | grep -o '[0-9.]* M warp.*' | tr '\n' ' ')"
  done
done
echo "== table (runner_new)"
.gl/runner_new --reps 5 --threads 1,2,4,8,16
echo "== ceiling"
.gl/runner_new --reps 3 --threads 1,16 --only ceiling | tail -4
