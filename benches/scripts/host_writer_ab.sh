#!/bin/bash
# A/B on the 16-core host: runner_base (6f78c18) against runner (2628c23), alternating.
cd "$(dirname "$0")/.."
# (run from a copy in .gl/ at the repository root, with the stripped runner binaries beside it)
G=.gl
lscpu | grep -E "Model name|^CPU\(s\)|MHz" | cut -c1-120
for round in 1 2 3; do
  for v in runner_base runner; do
    echo -n "$v file (decode only, + model): "
    $G/$v --blocks 4096 --reps 5 --threads 1 --only file | grep -E "decode only|bank model \(" | grep -oE "[0-9.]+ M warp" | tr '\n' ' '
    echo -n " | random decode: "
    $G/$v --blocks 2048 --reps 5 --threads 1 --only decode --class random-4B | grep -E "decode only" | grep -oE "[0-9.]+ M warp" | tr '\n' ' '
    echo -n " | generate 4096 blocks: "
    TIMEFORMAT="%R s"; { time $G/$v --generate /tmp/g.bsim --blocks 4096 >/dev/null; } 2>&1 | tail -1
  done
done
echo "== full table, new build"
$G/runner --reps 5 --threads 1,2,4,8,16
for round in 1 2; do
  for v in runner_base runner; do
    echo -n "$v engine 1,16 threads: "
    $G/$v --blocks 2048 --reps 5 --threads 1,16 --only engine | grep -oE "[0-9.]+ M warp.*" | tr '\n' ' '
    echo
  done
done
