#!/bin/bash
# session 15, call 2: does the host scale plain ALU and cache-resident work? engine vs 16 copies, alternating
cd "$(dirname "$0")"
cat /proc/loadavg
for r in 1 2; do
  for j in "alu" "chase 16" "chase 512" "chase 2048" "chase 8192"; do ./spin $j; done
done
for r in 1 2 3 4; do
  echo "== round $r engine"; ./r15 --reps 5 --threads 1,16 --only engine 2>&1 | grep "cycle engine"
  echo "== round $r ceiling"; ./r15 --reps 5 --threads 1,16 --only ceiling 2>&1 | grep "ceiling, cycle engine"
done
./spin alu
cat /proc/loadavg
