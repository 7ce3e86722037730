#!/bin/bash
# text-trace path on the host after 1 MiB parse blocks: new banksim (and old on the 10M file)
set -e
G=$(pwd)/.gl; W=/tmp/tx; mkdir -p $W; cd $W
[ -f $W/mix.csv ] || { $G/runner --generate $W/mix.bsim --gib 0.05 2>&1 | tail -1; $G/banksim convert $W/mix.bsim $W/mix.csv; head -c 300000000 $W/mix.csv | head -n 10000000 > $W/mix10m.csv; }
ls -la $W/mix10m.csv $W/mix.csv
for round in 1 2 3; do
  for b in banksim_old banksim; do
    /usr/bin/time -f "$b run 10M (16 thr) %e s %U user %M KB" $G/$b run $W/mix10m.csv 2>&1 | tail -1
  done
done
for t in 1 2 4 8; do
  RAYON_NUM_THREADS=$t /usr/bin/time -f "banksim run 10M ($t thr) %e s %U user %M KB" $G/banksim run $W/mix10m.csv 2>&1 | tail -1
done
for round in 1 2; do
  /usr/bin/time -f "banksim run full (16 thr) %e s %U user %M KB" $G/banksim run $W/mix.csv 2>&1 | tail -2
  /usr/bin/time -f "banksim convert full csv->bsim (16 thr) %e s %U user %M KB" $G/banksim convert $W/mix.csv $W/new.bsim 2>&1 | tail -1
done
RAYON_NUM_THREADS=1 /usr/bin/time -f "banksim run full (1 thr) %e s %U user %M KB" $G/banksim run $W/mix.csv 2>&1 | tail -1
