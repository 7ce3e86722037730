#!/bin/bash
# runner_probe is a throwaway build: the committed runner with timers around the engine's phases (see the results file).
# session 8 host run: A/B (runner_base = 5104d83, runner = de8bc54), table, engine probe, ceiling
cd "$(dirname "$0")/.."
echo "== cpu"; lscpu | grep -E "Model name|^CPU\(s\)|Thread|Core|Socket|MHz|L3"; nproc
for r in 1 2 3 4 5 6; do
  for x in runner_base runner; do
    f=$(.gl/$x --reps 5 --only file --threads 1 | grep -o "[0-9.]* M warp" | cut -d' ' -f1 | tr '\n' ' ')
    e=$(.gl/$x --reps 5 --only engine --threads 1 | grep -o "[0-9.]* M warp" | cut -d' ' -f1 | tr '\n' ' ')
    echo "round $r $x: decode, decode-split, decode+model $f | engine 1 $e"
  done
done
echo "== table (runner, new)"
.gl/runner --reps 5 --threads 1,2,4,8,16
echo "== engine probe"
for t in 1 4 8 16; do ENGINE_PROBE=1 .gl/runner_probe --reps 3 --only engine --threads $t 2>&1 | grep -E "probe" | tail -1; done
echo "== ceiling"
.gl/runner --reps 3 --threads 1,16 --only ceiling
