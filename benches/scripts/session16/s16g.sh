#!/bin/bash
# session 16, call 7: the committed build (r16 = e390149) against HEAD before it (b0): scaling medians
# at 16 threads, in turns, three rounds; 8192 blocks once each; the best-of-5 table of r16, twice
cd "$(dirname "$0")"
cat /proc/loadavg
for r in 1 2 3; do for b in b0 r16; do
  echo "== scaling $b round $r"; timeout 60 ./$b --reps 9 --threads 16 --only scaling 2>&1 | grep medians
done; done
for b in b0 r16; do
  echo "== scaling $b, 8192 blocks"; timeout 90 ./$b --blocks 8192 --reps 7 --threads 16 --only scaling 2>&1 | grep "engine.*medians"
done
for r in 1 2; do echo "== table r16 round $r"; timeout 120 ./r16 --reps 5 --threads 1,2,4,8,16 2>&1; done
cat /proc/loadavg
