#!/bin/bash
# session 15, call 6: engine A/B: r15 (rayon par_iter rounds) against r20 (a crew of spinning threads,
# SMs kept on their thread; plans built ahead in round tails, or not with AHEAD_OFF=1)
cd "$(dirname "$0")"
cat /proc/loadavg
for r in 1 2 3 4; do
  for x in "./r15" "./r20" "env AHEAD_OFF=1 ./r20"; do
    echo "== round $r $x"; timeout 60 $x --reps 5 --threads 1,8,16 --only engine 2>&1 | grep "cycle engine" | sed 's/ warp-requests//'
  done
done
for x in "./r15" "env AHEAD_OFF=1 ./r20" "./r20"; do
  echo "== scaling $x"; timeout 90 $x --reps 9 --threads 16 --only scaling 2>&1 | grep "cycle engine.*medians"
done
cat /proc/loadavg
