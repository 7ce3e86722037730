#!/bin/bash
# session 16, call 3: scaling medians at 16 threads, in turns: b0 = HEAD, b1 = rayon splits to single
# SMs, b2 = SMs run through rayon::broadcast with a share per thread (then stealing), b3 = b2 + the
# dispatcher's own arrays of waits and free slots; then best-of-5 tables (engine, 1 and 16 threads)
cd "$(dirname "$0")"
cat /proc/loadavg
for r in 1 2 3; do for b in b0 b1 b2 b3; do
  echo "== scaling $b round $r"; timeout 60 ./$b --reps 9 --threads 16 --only scaling 2>&1 | grep "engine.*medians"
done; done
for r in 1 2; do for b in b0 b3; do
  echo "== table $b round $r"; timeout 60 ./$b --reps 5 --threads 1,16 --only engine 2>&1 | grep engine
done; done
cat /proc/loadavg
