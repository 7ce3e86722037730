#!/bin/bash
# session 18, calls 3 and 4: the committed build (rPin: pools of one thread per CPU pinned) on a host,
# scaling at 16 threads with the per-core baseline (three calls of 5 rounds), then one table at 1 and 16.
cd "$(dirname "$0")"
grep -m1 "model name" /proc/cpuinfo; nproc; cat /proc/loadavg
for r in 1 2 3; do
  echo "r$r"; timeout 100 ./rPin --reps 5 --threads 16 --only scaling 2>&1 | grep -E "medians" | sed "s/^/  /"
done
timeout 120 ./rPin --threads 1,16 --reps 5 2>&1 | grep -vE "alone|every lane written out, no memo"
cat /proc/loadavg
