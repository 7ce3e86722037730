#!/bin/bash
# session 17, call 1: does AVX-512 cost scaling on the host? rA (HEAD, AVX-512 kernels where the CPU
# has them) and rN (the same with avx512_available() false: the AVX2 kernels) in turns, scaling medians
# at 16 threads (1 thread alone, 16 threads, 16 single-threaded copies), both jobs
cd "$(dirname "$0")"
grep -m1 "model name" /proc/cpuinfo; nproc; cat /proc/loadavg
for r in 1 2 3; do for b in rA rN; do
  timeout 90 ./$b --reps 7 --threads 16 --only scaling 2>&1 | grep medians | sed "s/^/$b r$r | /"
done; done
cat /proc/loadavg
