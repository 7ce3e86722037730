#!/bin/bash
# Engine and decode, before (runner_base: 0692256) and after (runner: 221eb1b), eight
# alternating rounds of best-of-20 (the host's 1-thread figures vary by a third from
# run to run). (run from a copy in .gl/ with the stripped runners beside it)
cd "$(dirname "$0")/.."
for r in 1 2 3 4 5 6 7 8; do
    for x in runner_base runner; do
        e=$(.gl/$x --reps 20 --only engine --threads 1,16 | grep -o "[0-9.]* M warp" | cut -d' ' -f1 | tr '\n' ' ')
        d=$(.gl/$x --reps 20 --only decode | grep "decode only" | grep -o "[0-9.]* M warp" | cut -d' ' -f1)
        echo "round $r $x: engine 1 and 16 threads $e M/s; read + decode $d M/s"
    done
done
