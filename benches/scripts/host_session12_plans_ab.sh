#!/bin/bash
# session 12: engine A/B at 16 threads: HEAD (r12_base) against plans built ahead in
# parallel (r12_plans3: beside the SMs' runs, rayon::join; r12_probe5: in their own
# phase before each round, PROBE prints the phases), alternating
# (r12_base: 13f92d3; r12_plans3 and r12_probe5: 13f92d3 with benches/scripts/session12/
# plans_ahead_join.patch and plans_ahead_phase_probe.patch; runner binaries stripped into .gl/)
cd "$(dirname "$0")/.."
lscpu | grep -E "Model name|^CPU\(s\)"
for r in 1 2 3; do
  for x in r12_base r12_plans3 r12_probe5; do
    echo "round $r $x: $(.gl/$x --reps 5 --threads 1,16 --only engine | grep -o '[0-9.]* M warp.*' | tr '\n' ' ')"
  done
done
PROBE=1 .gl/r12_probe5 --reps 3 --threads 1,16 --only engine 2>&1 | grep -E "threads (1|16) rounds" | tail -4
