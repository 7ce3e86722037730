#!/bin/bash
# session 22, call 1: the committed build (rS22 = 2e820aa) on the 32-core host of an x2 machine:
# 16 threads on half its cores, with the vCPUs' steal time over each phase. Scaling at 16 threads
# (medians of 9 rounds) three times, at 32 threads once; a 2 GiB trace streamed on 1 and 16
# threads, rounds alternating; `banksim run` on it at 1 and 16 threads; the table at 1, 2, 16.
cd "$(dirname "$0")"
uname -r; lscpu | grep -E "Model name|^CPU\(s\)|Thread|Core|Socket|NUMA|L3|Hypervisor"; cat /proc/loadavg
cpu() { awk '/^cpu /{print $2+$3+$4, $5, $9}' /proc/stat; }  # busy (user+nice+system), idle, steal
phase() { # name, command...
  local name=$1; shift
  read b0 i0 s0 < <(cpu); local t0=$(date +%s.%N)
  "$@"
  read b1 i1 s1 < <(cpu); local t1=$(date +%s.%N)
  awk -v n="$name" -v t0=$t0 -v t1=$t1 -v b=$((b1-b0)) -v i=$((i1-i0)) -v s=$((s1-s0)) \
    'BEGIN { printf "## %s: %.1f s wall; jiffies busy %d idle %d steal %d (steal / busy %.3f)\n", n, t1 - t0, b, i, s, s / (b + 1) }'
}
for r in 1 2 3; do
  phase "scaling 16, $r" bash -c 'timeout 100 ./rS22 --reps 9 --threads 16 --only scaling 2>&1 | grep medians'
done
phase "scaling 32" bash -c 'timeout 100 ./rS22 --reps 5 --threads 32 --only scaling 2>&1 | grep medians'
./rS22 --generate /tmp/big.bsim --gib 2 | tail -1
for r in 1 2 3; do
  for t in 1 16; do
    phase "stream $r, $t" bash -c "echo \"$t thread(s): \$(timeout 60 ./rS22 --stream /tmp/big.bsim --threads $t | sed 's/.*thread(s): //')\""
  done
done
for t in 1 16; do
  echo "== banksim run --threads $t"; TIMEFORMAT="%R s wall"; time (./banksim run --threads $t /tmp/big.bsim 2>&1 | tail -4)
done
phase table bash -c 'timeout 120 ./rS22 --threads 1,2,16 --reps 3 2>&1 | grep -vE "alone,|no memo"'
cat /proc/loadavg
