#!/bin/bash
# session 21, call 1: the committed build (rS21 = bf493aa) on a 16-vCPU host, with what the host
# does under it: kernel (Firecracker or gVisor), and the vCPUs' steal time (/proc/stat) over each
# phase, to see whether 16 busy vCPUs are backed by 16 physical cores.
# Scaling (16 threads, medians of 9 rounds) twice on the standard mix, once on 8192 blocks; the
# ceiling (16 copies) once.
cd "$(dirname "$0")"
uname -r; lscpu | grep -E "Model name|^CPU\(s\)|Thread|MHz|L3"; cat /proc/loadavg
cpu() { awk '/^cpu /{print $2+$3+$4, $5, $9}' /proc/stat; }  # busy (user+nice+system), idle, steal
phase() { # name, command...
  local name=$1; shift
  read b0 i0 s0 < <(cpu); local t0=$(date +%s.%N)
  "$@"
  read b1 i1 s1 < <(cpu); local t1=$(date +%s.%N)
  awk -v n="$name" -v w="$t1 - $t0" -v t0=$t0 -v t1=$t1 -v b=$((b1-b0)) -v i=$((i1-i0)) -v s=$((s1-s0)) \
    'BEGIN { printf "## %s: %.1f s wall; jiffies busy %d idle %d steal %d (steal / busy %.3f)\n", n, t1 - t0, b, i, s, s / (b + 1) }'
}
phase spin16 bash -c 'for i in $(seq 16); do timeout 5 sh -c "while :; do :; done" & done; wait'
for r in 1 2; do
  phase "scaling $r" bash -c 'timeout 170 ./rS21 --reps 9 --threads 16 --only scaling 2>&1 | grep -E "medians|round [0-9]:"'
done
phase "scaling 8192 blocks" bash -c 'timeout 150 ./rS21 --reps 7 --blocks 8192 --threads 16 --only scaling 2>&1 | grep medians'
phase ceiling bash -c 'timeout 100 ./rS21 --reps 3 --threads 1,16 --only ceiling 2>&1 | grep ceiling'
cat /proc/loadavg
