#!/bin/bash
# session 19, call 4: what makes mapped reading slow on 16 threads, and from how many threads on.
# rK19 = the committed build with throwaway knobs: BANKSIM_WIN (window MiB; 4096 maps the 2 GiB trace
# whole: no unmaps during the run), BANKSIM_NOPOP (no MADV_POPULATE_READ: pages fault in on first touch),
# BANKSIM_NOLOOK (no look-ahead chunk). rH19 reads by pread. A 2 GiB trace streamed, rounds alternating.
cd "$(dirname "$0")"
cat /proc/loadavg
./rK19 --generate /tmp/big.bsim --gib 2 | tail -1
one() { local tag=$1 t=$2; shift 2; echo "$t $tag $(env "$@" timeout 60 ./rK19 --stream /tmp/big.bsim --threads $t | sed 's/.*thread(s): //')"; }
for r in 1 2 3 4; do
  for t in 16 8 4 2; do
    echo "$t pread $(timeout 60 ./rH19 --stream /tmp/big.bsim --threads $t | sed 's/.*thread(s): //')"
    one map4 $t X=1
    one map4-nopop $t BANKSIM_NOPOP=1
    one map4-nolook $t BANKSIM_NOLOOK=1
    one whole $t BANKSIM_WIN=4096
    one whole-nopop $t BANKSIM_WIN=4096 BANKSIM_NOPOP=1
  done
done
cat /proc/loadavg
