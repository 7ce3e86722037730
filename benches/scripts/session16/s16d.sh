#!/bin/bash
# session 16, call 4: scaling medians at 16 threads, in turns, b0 / b2 / b3 (as in s16c.sh), six rounds
cd "$(dirname "$0")"
lscpu | grep -E "Model name|^CPU\(s\)|Thread|Core|Socket|NUMA"; cat /proc/loadavg
for r in 1 2 3 4 5 6; do for b in b0 b2 b3; do
  echo "== scaling $b round $r"; timeout 60 ./$b --reps 9 --threads 16 --only scaling 2>&1 | grep "engine.*medians"
done; done
cat /proc/loadavg
