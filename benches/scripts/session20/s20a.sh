#!/bin/bash
# session 20, call 1: the committed build (rS20 = 0fba79f) on the 16-core host of the H200 machine
# (the larger kinds were not lent). A 2 GiB trace streamed on 1 and 16 threads; two scaling calls at
# 8 and 16 threads (1 thread, T threads and T independent copies, medians of 7 rounds); one table at
# 1, 2, 8 and 16 threads.
cd "$(dirname "$0")"
lscpu | grep -E "Model name|^CPU\(s\)|Thread|Core|Socket|NUMA node\(s\)"; cat /proc/loadavg
./rS20 --generate /tmp/big.bsim --gib 2 | tail -1
for r in 1 2; do
  for t in 1 16; do echo "stream $t: $(timeout 60 ./rS20 --stream /tmp/big.bsim --threads $t | sed 's/.*thread(s): //')"; done
done
for r in 1 2; do
  echo "== scaling, round $r"; timeout 150 ./rS20 --reps 7 --threads 8,16 --only scaling 2>&1 | grep medians
done
echo "== table"; timeout 150 ./rS20 --threads 1,2,8,16 --reps 5 2>&1 | grep -vE "alone,|no memo"
cat /proc/loadavg
