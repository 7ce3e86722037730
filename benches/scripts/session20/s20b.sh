#!/bin/bash
# session 20, call 2, on the 16-core host of the H200 machine: the session's build (rS20b = 0adde38:
# tile shapes remembered, the base varint without a branch, the memo check inline) against the
# session's first (rS20 = 0fba79f). A 2 GiB trace streamed on 1 and 16 threads, three rounds
# alternating the builds; then two scaling calls of rS20b at 8 and 16 threads (medians of 7 rounds)
# and its table at 1, 2, 8 and 16 threads.
cd "$(dirname "$0")"
lscpu | grep -E "Model name|^CPU\(s\)|Thread"; cat /proc/loadavg
./rS20b --generate /tmp/big.bsim --gib 2 | tail -1
for r in 1 2 3; do
  for t in 1 16; do
    for b in rS20 rS20b; do echo "round $r, $t thread(s), $b: $(timeout 60 ./$b --stream /tmp/big.bsim --threads $t | sed 's/.*thread(s): //')"; done
  done
done
for r in 1 2; do
  echo "== scaling, round $r"; timeout 150 ./rS20b --reps 7 --threads 8,16 --only scaling 2>&1 | grep medians
done
echo "== table"; timeout 150 ./rS20b --threads 1,2,8,16 --reps 5 2>&1 | grep -vE "alone,|no memo"
cat /proc/loadavg
