#!/bin/bash
# Before (runner_base) and after (runner: a later build): ROUNDS alternating rounds
# (default 8), then the new runner's table on TABLE_THREADS (default 1,2,4,8,16). Run
# from a copy in .gl/, beside the two stripped runners. Session 5 ran it with d50618a as
# the base (5, 6 and 8 rounds); session 6 with 2dddf33 as `host_ab.sh 6 1,16`.
cd "$(dirname "$0")/.."
rounds=${1:-8}
table=${2:-1,2,4,8,16}
echo "== cpu"; lscpu | grep -E "Model name|^CPU\(s\)"; grep -o -w 'avx512f\|avx512bw\|avx512vl\|avx512vbmi\|avx512_bitalg\|gfni\|avx512_vpopcntdq\|avx512cd' /proc/cpuinfo | sort -u | tr '\n' ' '; echo
for r in $(seq "$rounds"); do
    for x in runner_base runner; do
        c=$(.gl/$x --reps 10 --only classes | grep -o "[0-9.]* M warp" | cut -d' ' -f1 | tr '\n' ' ')
        f=$(.gl/$x --reps 10 --only file --threads 1 | grep -o "[0-9.]* M warp" | cut -d' ' -f1 | tr '\n' ' ')
        e=$(.gl/$x --reps 10 --only engine --threads 1,16 | grep -o "[0-9.]* M warp" | cut -d' ' -f1 | tr '\n' ' ')
        echo "round $r $x: classes (strided random gemm masked) $c | decode, decode-split, decode+model $f | engine 1,16 $e"
    done
done
echo "== table (runner, new)"
.gl/runner --reps 5 --threads "$table"
