#!/bin/bash
# session 19, call 3: the committed build (rC19: mapped payloads, the load check) on the host: a 2 GiB
# trace streamed on 16 threads against session 18's build (rH19, pread), four rounds alternating; two
# scaling calls at 16 threads (medians of 5 rounds); one table at 1 and 16 threads.
cd "$(dirname "$0")"
grep -m1 "model name" /proc/cpuinfo; nproc; cat /proc/loadavg
./rC19 --generate /tmp/big.bsim --gib 2 | tail -1
for r in 1 2 3 4; do
  echo "pread  $(timeout 60 ./rH19 --stream /tmp/big.bsim --threads 16 | sed 's/.*thread(s): //')"
  echo "mapped $(timeout 60 ./rC19 --stream /tmp/big.bsim --threads 16 | sed 's/.*thread(s): //')"
done
for r in 1 2; do
  echo "scaling r$r"; timeout 150 ./rC19 --reps 5 --threads 16 --only scaling 2>&1 | grep -E "medians" | sed "s/^/  /"
done
timeout 120 ./rC19 --threads 1,16 --reps 5 2>&1 | grep -vE "alone,|no memo"
cat /proc/loadavg
