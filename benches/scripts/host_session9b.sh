#!/bin/bash
# session 9: H200 host, more rounds and a 4x larger mix (8192 blocks, 4 M requests) for steadier 16-thread figures
cd "$(dirname "$0")/.."
for r in 1 2 3; do
  echo "== round $r, 2048 blocks"
  .gl/runner --reps 5 --threads 1,16 --only parallel | tail -1
  .gl/runner --reps 5 --threads 1,16 --only engine | tail -2
done
for r in 1 2; do
  echo "== round $r, 8192 blocks"
  .gl/runner --reps 3 --blocks 8192 --threads 1,16 --only parallel | tail -1
  .gl/runner --reps 3 --blocks 8192 --threads 1,16 --only engine | tail -2
done
echo "== ceiling, 8192 blocks"
.gl/runner --reps 3 --blocks 8192 --threads 1,16 --only ceiling | tail -4
