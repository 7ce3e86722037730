#!/bin/bash
# session 20, call 3: the look-ahead of for_each_chunk, 4 chunks a thread (rS20b) against 32 (rAh32,
# not committed), 16 threads on the H200 machine's host: scaling calls alternating, medians of 7.
cd "$(dirname "$0")"
cat /proc/loadavg
for r in 1 2; do
  for b in rS20b rAh32; do
    echo "== $b, round $r"; timeout 120 ./$b --reps 7 --threads 16 --only scaling 2>&1 | grep "read + decode.*medians"
  done
done
./rS20b --generate /tmp/big.bsim --gib 2 | tail -1
for r in 1 2 3; do
  for b in rS20b rAh32; do echo "round $r, 16 threads, $b: $(timeout 60 ./$b --stream /tmp/big.bsim --threads 16 | sed 's/.*thread(s): //')"; done
done
cat /proc/loadavg
