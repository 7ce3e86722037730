#!/bin/bash
# session 15, call 8: the committed build (r21) on the 32-core host of an H200 x2 machine:
# 16 threads on half its cores; scaling at 8, 16 (and 32) threads; the table
cd "$(dirname "$0")"
lscpu | grep -E "Model name|^CPU\(s\)|Thread|Core|Socket|NUMA"; cat /proc/loadavg
for r in 1 2; do
  echo "== scaling, round $r"; timeout 150 ./r21 --reps 11 --threads 8,16,32 --only scaling 2>&1 | grep medians
done
echo "== table"; timeout 200 ./r21 --reps 5 --threads 1,2,4,8,16,32 2>&1
cat /proc/loadavg
