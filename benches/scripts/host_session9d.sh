#!/bin/bash
# session 9: the runner with interleaved thread counts (1 thread measured in turn with each other count)
cd "$(dirname "$0")/.."
echo "== cpu"; lscpu | grep -E "Model name|^CPU\(s\)|Thread|Core|Socket|L2|L3"; nproc
for r in 1 2; do
  echo "== table, round $r"
  .gl/runner --reps 5 --threads 1,2,4,8,16
done
echo "== 8192 blocks, parallel and engine"
.gl/runner --reps 3 --blocks 8192 --threads 1,16 --only parallel | tail -1
.gl/runner --reps 3 --blocks 8192 --threads 1,16 --only engine | tail -2
echo "== ceiling"
.gl/runner --reps 3 --threads 1,16 --only ceiling | tail -4
