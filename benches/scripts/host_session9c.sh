#!/bin/bash
# session 9: engine plans built ahead in batches; A/B runner_base (9427c8f) vs runner_new, engine 1 and 16 threads
cd "$(dirname "$0")/.."
for r in 1 2 3 4 5; do
  for x in runner_base runner_new; do
    e=$(.gl/$x --reps 5 --only engine --threads 1,8,16 | grep -o "[0-9.]* M warp" | cut -d' ' -f1 | tr '\n' ' ')
    echo "round $r $x: engine 1/8/16 threads $e"
  done
done
for x in runner_base runner_new; do
  e=$(.gl/$x --reps 3 --blocks 8192 --only engine --threads 1,16 | grep -o "[0-9.]* M warp" | cut -d' ' -f1 | tr '\n' ' ')
  echo "8192 blocks $x: engine 1/16 threads $e"
done
