#!/bin/bash
# session 16, call 12 (H200 machine's host): b0 (729374e) and r17 (732a936) in turns, scaling medians at 16 threads
cd "$(dirname "$0")"
cat /proc/loadavg
for r in 1 2 3; do for b in b0 r17; do
  out=$(timeout 60 ./$b --reps 9 --threads 16 --only scaling 2>&1 | grep "engine.*medians")
  echo "$b r$r | ${out#*medians of 9 rounds: }"
done; done
cat /proc/loadavg
