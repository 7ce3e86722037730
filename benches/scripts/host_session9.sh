#!/bin/bash
# session 9: the same runner (HEAD code) on another host kind: is 0.7 on 16 cores the code's limit or the machine's?
cd "$(dirname "$0")/.."
echo "== cpu"; lscpu | grep -E "Model name|^CPU\(s\)|Thread|Core|Socket|MHz|L2|L3|NUMA node\(s\)|Flags" | sed 's/^\(Flags:.\{0,0\}\).*avx512f.*/\1 (has avx512f)/'; nproc
echo "== table 1"
.gl/runner --reps 5 --threads 1,2,4,8,16
echo "== ceiling"
.gl/runner --reps 3 --threads 1,8,16 --only ceiling
echo "== table 2 (file path and engine only)"
.gl/runner --reps 5 --threads 1,16 --only parallel
.gl/runner --reps 5 --threads 1,16 --only engine
