#!/bin/bash
# session 19, call 2: what the mapped reading costs on 16 threads. rX19 is the mapped build with two
# experiment knobs (BANKSIM_WIN = window MiB, BANKSIM_NOLOOK = no look-ahead chunk); rH19 reads by pread.
# A 2 GiB trace streamed on 16 threads (rounds alternate the variants), then the small mix.
cd "$(dirname "$0")"
cat /proc/loadavg
./rX19 --generate /tmp/big.bsim --gib 2 | tail -1
./rX19 --generate /tmp/mix.bsim --blocks 2048 | tail -1
run() { local tag=$1; shift; echo "$tag $(env "$@" timeout 60 ./rX19 --stream /tmp/big.bsim --threads 16 | sed 's/.*thread(s): //')"; }
for r in 1 2 3 4; do
  echo "pread $(timeout 60 ./rH19 --stream /tmp/big.bsim --threads 16 | sed 's/.*thread(s): //')"
  run map4 X=1
  run map4-nolook BANKSIM_NOLOOK=1
  run map16 BANKSIM_WIN=16
  run map64 BANKSIM_WIN=64
  run map64-nolook BANKSIM_WIN=64 BANKSIM_NOLOOK=1
done
for r in 1 2; do
  echo "mix pread $(timeout 60 ./rH19 --file /tmp/mix.bsim --threads 1,16 --only parallel --reps 7 | grep threads)"
  echo "mix map4 $(timeout 60 ./rX19 --file /tmp/mix.bsim --threads 1,16 --only parallel --reps 7 | grep threads)"
  echo "mix map4-nolook $(BANKSIM_NOLOOK=1 timeout 60 ./rX19 --file /tmp/mix.bsim --threads 1,16 --only parallel --reps 7 | grep threads)"
  echo "mix map64 $(BANKSIM_WIN=64 timeout 60 ./rX19 --file /tmp/mix.bsim --threads 1,16 --only parallel --reps 7 | grep threads)"
done
cat /proc/loadavg
