#!/bin/bash
# session 18, call 2: does pinning the parallel pool's threads (one a core) change the engine's
# and the file path's 16-thread efficiency on the host? rP = HEAD's library with the runner's
# per-core baseline; RUNNER_PIN=1 pins the 16-thread pool (the copies stay unpinned), in turns.
cd "$(dirname "$0")"
grep -m1 "model name" /proc/cpuinfo; nproc; cat /proc/loadavg
for r in 1 2 3; do
  echo "unpinned r$r"; timeout 100 ./rP --reps 5 --threads 16 --only scaling 2>&1 | grep -E "medians" | sed "s/^/  /"
  echo "pinned r$r"; RUNNER_PIN=1 timeout 100 ./rP --reps 5 --threads 16 --only scaling 2>&1 | grep -E "medians" | sed "s/^/  /"
done
cat /proc/loadavg
