#!/bin/bash
# session 16, call 8: per-round timelines at 16 threads, instrumented builds in turns:
# b0j = HEAD before (instrument.py + dispatch marks), r16i = e390149 (instrument_shares.py)
cd "$(dirname "$0")"
cat /proc/loadavg
for r in 1 2; do for b in b0j r16i; do
  echo "== trace $b round $r"; TRACEF=$OUT/tr_${b}_$r.txt timeout 60 ./$b --only engine --threads 1,16 --reps 3 2>&1 | grep engine
done; done
cat /proc/loadavg
