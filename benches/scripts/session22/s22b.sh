#!/bin/bash
# session 22, call 2, on the 32-core host of an x2 machine: are the 16 copies slow because they
# share a process, or because they share the machine? The serial file path (`--stream --threads 1`,
# a 1 GiB trace, three runs each) as one process alone, as 16 processes at once on one file, and
# as 16 processes each on its own copy of the file; the same 16 as threads of one process
# (`--only ceiling`), and the parallel path on 16 threads. The serial engine (`--only engine`, best
# of 5 on an 8192-block mix) as one process and as 16. `banksim run` mapped and `--no-mmap`.
cd "$(dirname "$0")"
uname -r; lscpu | grep -E "^CPU\(s\)"; cat /proc/loadavg
./rS22 --generate /tmp/g1.bsim --gib 1 | tail -1
for i in $(seq 16); do cp /tmp/g1.bsim /tmp/g1_$i.bsim; done
./rS22 --generate /tmp/mix8k.bsim --blocks 8192 | tail -1
# rates (M/s) of files of one line per run -> "n runs, M/s min / median / max"
stats() { cat "$@" | awk '{for (i = 1; i <= NF; i++) if ($i == "M") print $(i-1)}' | sort -g | awk '{v[NR]=$1} END {printf "%d runs, M/s %.1f / %.1f / %.1f", NR, v[1], v[int((NR+1)/2)], v[NR]}'; }
s3() { for k in 1 2 3; do ./rS22 --stream $1 --threads ${2:-1} | sed 's/.*thread(s): //'; done; }
procs() { # name, command with {i} for 1..16
  rm -f /tmp/p_*.txt; local t0=$(date +%s.%N)
  for i in $(seq 16); do bash -c "${2//\{i\}/$i}" > /tmp/p_$i.txt 2>&1 & done; wait
  local t1=$(date +%s.%N)
  echo "$1: $(stats /tmp/p_*.txt) each; $(awk -v a=$t0 -v b=$t1 'BEGIN {printf "%.1f", b - a}') s wall"
}
for r in 1 2; do
  echo "== round $r"
  s3 /tmp/g1.bsim > /tmp/alone.txt; echo "file path, 1 process alone: $(stats /tmp/alone.txt)"
  procs "file path, 16 processes, one file" "$(declare -f s3); s3 /tmp/g1.bsim"
  procs "file path, 16 processes, own files" "$(declare -f s3); s3 /tmp/g1_{i}.bsim"
  s3 /tmp/g1.bsim 16 > /tmp/par.txt; echo "file path, 1 process, 16 threads: $(stats /tmp/par.txt)"
  ./rS22 --only engine --threads 1 --reps 5 --file /tmp/mix8k.bsim > /tmp/e1.txt; echo "engine, 1 process alone: $(stats /tmp/e1.txt)"
  procs "engine, 16 processes" "./rS22 --only engine --threads 1 --reps 5 --file /tmp/mix8k.bsim | grep engine"
  ./rS22 --only ceiling --threads 1,16 --reps 3 --file /tmp/mix8k.bsim | grep ceiling
  ./rS22 --only engine --threads 1,16 --reps 3 --file /tmp/mix8k.bsim | grep engine
done
TIMEFORMAT="%R s wall"
for t in 1 16; do for m in "" --no-mmap; do
  echo "banksim run --threads $t $m: $( { time ./banksim run --threads $t $m /tmp/g1.bsim > /dev/null; } 2>&1 )"
done; done
cat /proc/loadavg
