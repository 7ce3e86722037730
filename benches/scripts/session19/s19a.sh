#!/bin/bash
# session 19, call 1: pread (rH19 = session 18's HEAD) against mapped windows with the next chunk
# prefetched (rM19), alternating, on the mix (2048 blocks) and a 4x larger mix, 1 and 16 threads;
# then a 2 GiB trace streamed on 16 threads by each (time and peak RSS).
cd "$(dirname "$0")"
grep -m1 "model name" /proc/cpuinfo; nproc; uname -r; cat /proc/loadavg
./rM19 --generate /tmp/mix.bsim --blocks 2048 | tail -1
./rM19 --generate /tmp/mix8k.bsim --blocks 8192 | tail -1
for r in 1 2 3; do
  for f in mix mix8k; do
    for b in rH19 rM19; do
      echo "$b $f r$r"
      timeout 60 ./$b --file /tmp/$f.bsim --threads 1,16 --only parallel --reps 5 | grep threads | sed "s/^/  /"
      timeout 60 ./$b --file /tmp/$f.bsim --only file --reps 5 | grep -v "every\|^/tmp" | sed "s/^/  /"
    done
  done
done
./rM19 --generate /tmp/big.bsim --gib 2 | tail -1
for b in rH19 rM19 rH19 rM19; do timeout 60 ./$b --stream /tmp/big.bsim --threads 16; done
cat /proc/loadavg
