#!/bin/bash
# session 16, call 5: scaling medians at 16 threads, in turns: b0 = HEAD, b3 = broadcast + shares +
# dispatcher arrays, b4 = b3 + threads spin until the step is over, b5 = b4 with a scope of spawned
# workers instead of a broadcast; with the host's steal time (jiffies, all CPUs) over each run
cd "$(dirname "$0")"
cat /proc/loadavg
st() { awk '/^cpu /{print $9, $2+$3+$4+$5+$6+$7+$8+$9}' /proc/stat; }
for r in 1 2 3 4; do for b in b0 b3 b4 b5; do
  a=($(st)); out=$(timeout 60 ./$b --reps 9 --threads 16 --only scaling 2>&1 | grep "engine.*medians"); z=($(st))
  echo "$b r$r steal $((z[0]-a[0])) of $((z[1]-a[1])) | ${out#*medians of 9 rounds: }"
done; done
cat /proc/loadavg
