#!/bin/bash
# session 16, call 9: r17 = e390149 + the dispatcher's buffers kept between rounds and blocks per SM
# (no sorting of handed-out blocks); timelines of r17i (instrument_shares.py) at 16 threads; then
# scaling medians at 16 threads in turns: b0 (before e390149), r16 (e390149), r17
cd "$(dirname "$0")"
cat /proc/loadavg
for r in 1 2; do
  echo "== trace r17i round $r"; TRACEF=$OUT/tr_r17i_$r.txt timeout 60 ./r17i --only engine --threads 1,16 --reps 3 2>&1 | grep engine
done
for r in 1 2 3; do for b in b0 r16 r17; do
  out=$(timeout 60 ./$b --reps 9 --threads 16 --only scaling 2>&1 | grep "engine.*medians")
  echo "$b r$r | ${out#*medians of 9 rounds: }"
done; done
cat /proc/loadavg
