#!/bin/bash
# session 15, call 3: memory bandwidth scaling; engine scaling against the size of its input
cd "$(dirname "$0")"
cat /proc/loadavg
./spin stream 262144; echo; ./spin stream 16384; echo; ./spin alu
for r in 1 2; do
  for b in 128 256 2048; do
    echo "== round $r blocks $b engine"; ./r15 --blocks $b --reps 7 --threads 1,16 --only engine 2>&1 | grep "cycle engine"
    echo "== round $r blocks $b ceiling"; ./r15 --blocks $b --reps 5 --threads 1,16 --only ceiling 2>&1 | grep "ceiling, cycle engine"
  done
done
./spin stream 262144; echo
cat /proc/loadavg
