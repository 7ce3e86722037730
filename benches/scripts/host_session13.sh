#!/bin/bash
# session 13: file path and engine, r12_base (5246a32) vs r13 (two-warp kernel + xor hash), alternating
cd "$(dirname "$0")/../../.gl"  # the stripped runners: r12_base (5246a32), r13 (HEAD)
nproc; grep -m1 "model name" /proc/cpuinfo
for r in 1 2 3; do
  for x in r12_base r13; do
    echo "== round $r $x file"; ./$x --reps 5 --threads 1,16 --only parallel 2>&1 | grep -E "bank model \(|warp requests \("
  done
done
for r in 1 2; do
  for b in 2048 8192; do
    echo "== round $r r13 engine blocks $b"; ./r13 --blocks $b --reps 3 --threads 1,16 --only engine 2>&1 | grep "cycle engine"
  done
done
echo "== r13 ceiling"; ./r13 --reps 3 --threads 1,16 --only ceiling 2>&1 | grep ceiling
