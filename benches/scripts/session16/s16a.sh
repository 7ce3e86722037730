#!/bin/bash
# session 16, call 1: per-round timeline of the engine at 16 threads (instrumented b0i = HEAD,
# b1i = rayon splitting to single SMs), and scaling medians of b0 / b1 in turns
cd "$(dirname "$0")"
lscpu | grep -E "Model name|^CPU\(s\)|Thread|Core|Socket|NUMA"; cat /proc/loadavg
for b in b0i b1i; do
  echo "== trace $b"; TRACEF=$OUT/tr_$b.txt timeout 60 ./$b --only engine --threads 1,16 --reps 3 2>&1 | grep engine
done
for r in 1 2; do for b in b0 b1; do
  echo "== scaling $b round $r"; timeout 60 ./$b --reps 9 --threads 16 --only scaling 2>&1 | grep medians
done; done
cat /proc/loadavg
