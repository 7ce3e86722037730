#!/bin/bash
# session 15, call 4: each parallel job against copies of its serial run, in turns (runner --only scaling)
cd "$(dirname "$0")"
cat /proc/loadavg; grep -E "^cpu " /proc/stat
for r in 1 2; do
  echo "== call round $r, 2048 blocks"; ./r15 --reps 11 --threads 8,16 --only scaling 2>&1
done
echo "== 8192 blocks"; ./r15 --blocks 8192 --reps 7 --threads 16 --only scaling 2>&1
grep -E "^cpu " /proc/stat; cat /proc/loadavg
