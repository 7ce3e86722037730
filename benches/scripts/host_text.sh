#!/bin/bash
# text-trace path on the host: old (ccd3627) vs new banksim, run and convert on a 1.27 GB CSV
set -e
G=$(pwd)/.gl; W=/tmp/tx; mkdir -p $W; cd $W
nproc; lscpu | grep -E "Model name|^CPU\(s\)"
$G/runner --generate $W/mix.bsim --gib 0.05 2>&1 | tail -1
/usr/bin/time -f "bsim->csv %e s %M KB" $G/banksim convert $W/mix.bsim $W/mix.csv 2>&1 | tail -2
head -c 300000000 $W/mix.csv | head -n 10000000 > $W/mix10m.csv; ls -la $W/mix10m.csv $W/mix.csv
for round in 1 2; do
  for b in banksim_old banksim; do
    /usr/bin/time -f "$b run 10M (16 thr) %e s %U user %M KB" $G/$b run $W/mix10m.csv 2>&1 | tail -2
  done
done
for b in banksim_old banksim; do
  RAYON_NUM_THREADS=1 /usr/bin/time -f "$b run 10M (1 thr) %e s %U user %M KB" $G/$b run $W/mix10m.csv 2>&1 | tail -1
done
for b in banksim_old banksim; do
  /usr/bin/time -f "$b run full (16 thr) %e s %U user %M KB" $G/$b run $W/mix.csv 2>&1 | tail -2
  /usr/bin/time -f "$b convert full csv->bsim (16 thr) %e s %U user %M KB" $G/$b convert $W/mix.csv $W/$b.bsim 2>&1 | tail -2
done
cmp $W/banksim.bsim $W/banksim_old.bsim && echo "converted files identical"
