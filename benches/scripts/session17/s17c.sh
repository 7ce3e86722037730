#!/bin/bash
# session 17, call 4: chunks of 128 Ki lanes (rC) against 64 Ki (rA, HEAD): scaling medians at 16 threads
# in turns (each build generates its own mix), then the peak RSS of streaming a 10 GiB trace of each
# build's chunks on 2 and 16 threads
cd "$(dirname "$0")"
cat /proc/loadavg
for r in 1 2 3 4 5; do for b in rA rC; do
  timeout 60 ./$b --reps 7 --threads 16 --only scaling 2>&1 | grep "read + decode.*medians" | sed "s/^/$b r$r | /"
done; done
for b in rA rC; do
  timeout 150 ./$b --generate /tmp/big.bsim --gib 10
  for t in 2 16; do timeout 100 ./$b --stream /tmp/big.bsim --threads $t | sed "s/^/$b | /"; done
  rm -f /tmp/big.bsim
done
cat /proc/loadavg
