#!/bin/bash
# session 16, call 6: scaling medians at 16 threads, in turns: b0 = HEAD, b3 = broadcast + shares +
# dispatcher arrays, b6 = b3 with a scope of spawned workers instead of a broadcast (no spinning)
cd "$(dirname "$0")"
cat /proc/loadavg
for r in 1 2 3 4 5; do for b in b0 b3 b6; do
  out=$(timeout 60 ./$b --reps 9 --threads 16 --only scaling 2>&1 | grep "engine.*medians")
  echo "$b r$r | ${out#*medians of 9 rounds: }"
done; done
cat /proc/loadavg
