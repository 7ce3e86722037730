#!/bin/bash
# session 21, call 2: the bank model's file path with the in-order merge (rS21 = bf493aa) against
# the fold (rS21f: `traces::parallel::fold_chunks`, no merge to wait for) on the 16-vCPU host,
# with the vCPUs' steal time over each phase. Scaling (16 threads, medians of 9 rounds) in turns,
# twice each; then a 2 GiB trace streamed on 16 threads, builds alternating, 4 rounds.
cd "$(dirname "$0")"
uname -r; lscpu | grep -E "Model name|^CPU\(s\)"; cat /proc/loadavg
cpu() { awk '/^cpu /{print $2+$3+$4, $5, $9}' /proc/stat; }  # busy (user+nice+system), idle, steal
phase() { # name, command...
  local name=$1; shift
  read b0 i0 s0 < <(cpu); local t0=$(date +%s.%N)
  "$@"
  read b1 i1 s1 < <(cpu); local t1=$(date +%s.%N)
  awk -v n="$name" -v t0=$t0 -v t1=$t1 -v b=$((b1-b0)) -v i=$((i1-i0)) -v s=$((s1-s0)) \
    'BEGIN { printf "## %s: %.1f s wall; jiffies busy %d idle %d steal %d (steal / busy %.3f)\n", n, t1 - t0, b, i, s, s / (b + 1) }'
}
for r in 1 2; do
  for b in rS21 rS21f; do
    phase "scaling $r $b" bash -c "timeout 100 ./$b --reps 9 --threads 16 --only scaling 2>&1 | grep medians | sed 's/^/$b: /'"
  done
done
./rS21f --generate /tmp/big.bsim --gib 2 | tail -1
for r in 1 2 3 4; do
  for b in rS21 rS21f; do
    phase "stream $r $b" bash -c "echo \"$b: \$(timeout 60 ./$b --stream /tmp/big.bsim --threads 16 | sed 's/.*thread(s): //')\""
  done
done
for b in rS21 rS21f; do echo "$b 1 thread: $(timeout 60 ./$b --stream /tmp/big.bsim --threads 1 | sed 's/.*thread(s): //')"; done
cat /proc/loadavg
