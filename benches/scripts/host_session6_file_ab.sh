#!/bin/bash
# Paired rounds (default 16) of base (runner_base) and new (runner): read + decode + bank model on 1
# thread, then the cycle engine on 1 thread. Run from a copy in .gl/, beside the two stripped runners.
cd "$(dirname "$0")/.."
for r in $(seq ${1:-16}); do
    for x in runner_base runner; do
        f=$(.gl/$x --reps 5 --only file --threads 1 | grep "bank model" | grep -o "[0-9.]* M warp" | cut -d' ' -f1)
        e=$(.gl/$x --reps 5 --only engine --threads 1 | grep -o "[0-9.]* M warp" | cut -d' ' -f1)
        echo "$r $x file $f engine $e"
    done
done
