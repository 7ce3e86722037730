#!/bin/bash
# session 14: file path, r13 (session 13's HEAD) vs r14 (tile mode), alternating; engine; ceiling
cd "$(dirname "$0")/../../.gl"  # the stripped runners: r13 (session 13), r14 (HEAD)
nproc; grep -m1 "model name" /proc/cpuinfo
for r in 1 2 3; do
  for x in r13 r14; do
    echo "== round $r $x file"; ./$x --reps 5 --threads 1,16 --only parallel 2>&1 | grep -E "bank model \(|warp requests \("
  done
done
for r in 1 2; do
  echo "== round $r r14 engine blocks 2048"; ./r14 --blocks 2048 --reps 3 --threads 1,16 --only engine 2>&1 | grep "cycle engine"
done
echo "== r14 ceiling"; ./r14 --reps 3 --threads 1,16 --only ceiling 2>&1 | grep ceiling
