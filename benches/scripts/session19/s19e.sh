#!/bin/bash
# session 19, call 5: the file mapped whole with its pages let go by MADV_DONTNEED 4 MiB at a time (rD19),
# against 4 MiB windows each unmapped (rC19, which holds the process's memory map exclusively at each
# unmap) and pread (rH19). A 2 GiB trace streamed, rounds alternating, 16, 8 and 2 threads.
cd "$(dirname "$0")"
cat /proc/loadavg
./rD19 --generate /tmp/big.bsim --gib 2 | tail -1
for r in 1 2 3 4 5 6; do
  for t in 16 8 2; do
    for b in rH19 rC19 rD19; do
      echo "$t $b $(timeout 60 ./$b --stream /tmp/big.bsim --threads $t | sed 's/.*thread(s): //')"
    done
  done
done
cat /proc/loadavg
