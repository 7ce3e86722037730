#!/bin/bash
# session 15, call 7: the committed build (r21): runner --only scaling at 8 and 16 threads, twice; the table
cd "$(dirname "$0")"
cat /proc/loadavg
for r in 1 2; do
  echo "== scaling, round $r"; timeout 120 ./r21 --reps 11 --threads 8,16 --only scaling 2>&1
done
echo "== table"; timeout 200 ./r21 --reps 5 --threads 1,2,4,8,16 2>&1
cat /proc/loadavg
