#!/bin/bash
# session 17, call 2: the host's clock under load, and rA / rN in more turns.
# freq: dependent chains of scalar, ymm and zmm adds (rate = clock) and throughput-bound 512-bit
# vpermb / vgf2p8affineqb / vpopcntb (the kernel's kind of work), on 1 thread and on 16 at once
# (per thread, three runs, sorted). Then rA / rN scaling medians at 16 threads, six turns each.
cd "$(dirname "$0")"
cat /proc/loadavg
timeout 60 ./freq scalar ymm zmm heavy
for r in 1 2 3 4 5 6; do for b in rA rN; do
  timeout 60 ./$b --reps 7 --threads 16 --only scaling 2>&1 | grep medians | sed "s/^/$b r$r | /"
done; done
timeout 60 ./freq scalar zmm heavy
cat /proc/loadavg
