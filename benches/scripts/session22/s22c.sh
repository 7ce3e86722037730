#!/bin/bash
# session 22, call 3, on the 32-core host of an x2 machine: the file path on a trace long enough
# that 16 threads run for a second (6 GiB), one and 16 threads in turns, three rounds, against the
# machine's own ceiling: 16 independent processes, each streaming a 1 GiB trace on one thread
# (total requests over the wall time of the 16). Then the engine at 1 and 16 threads in turns on
# the 8192-block mix (best of 5 each).
cd "$(dirname "$0")"
uname -r; lscpu | grep -E "^CPU\(s\)"; cat /proc/loadavg
./rS22 --generate /tmp/g6.bsim --gib 6 | tail -1
./rS22 --generate /tmp/g1.bsim --gib 1 | tail -1
./rS22 --generate /tmp/mix8k.bsim --blocks 8192 | tail -1
for r in 1 2 3; do
  echo "== round $r"
  for t in 1 16; do echo "6 GiB, $t thread(s): $(./rS22 --stream /tmp/g6.bsim --threads $t | sed 's/.*thread(s): //')"; done
  echo "1 GiB, 1 process alone: $(./rS22 --stream /tmp/g1.bsim --threads 1 | sed 's/.*thread(s): //')"
  rm -f /tmp/p_*.txt; t0=$(date +%s.%N)
  for i in $(seq 16); do ./rS22 --stream /tmp/g1.bsim --threads 1 > /tmp/p_$i.txt & done; wait
  t1=$(date +%s.%N)
  n=$(cat /tmp/p_*.txt | awk '{n += $4} END {print n}')
  each=$(cat /tmp/p_*.txt | awk '{for (i = 1; i <= NF; i++) if ($i == "M") print $(i-1)}' | sort -g | awk '{v[NR] = $1} END {printf "%.1f / %.1f / %.1f", v[1], v[8], v[NR]}')
  awk -v a=$t0 -v b=$t1 -v n=$n -v e="$each" 'BEGIN {printf "1 GiB, 16 processes at once: %.2f s wall, %.1f M warp-requests/s together; each %s M/s (min / median / max)\n", b - a, n / (b - a) / 1e6, e}'
done
./rS22 --only engine --threads 1,16 --reps 5 --file /tmp/mix8k.bsim
./rS22 --only engine --threads 1,16 --reps 5 --file /tmp/mix8k.bsim | grep engine
cat /proc/loadavg
