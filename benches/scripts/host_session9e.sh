#!/bin/bash
# session 9: is the engine's 16-thread efficiency the allocator's? runner (glibc malloc) vs runner_mi (mimalloc), in turns
cd "$(dirname "$0")/.."
for r in 1 2 3; do
  for x in runner runner_mi; do
    e=$(.gl/$x --reps 5 --only engine --threads 1,8,16 | grep -o "[0-9.]* M warp" | cut -d' ' -f1 | tr '\n' ' ')
    f=$(.gl/$x --reps 5 --only parallel --threads 1,16 | grep -o "[0-9.]* M warp\|efficiency [0-9.]*" | tr '\n' ' ')
    echo "round $r $x: engine 1/8/16 $e | file 16: $f"
  done
done
