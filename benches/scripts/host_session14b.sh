#!/bin/bash
# session 14, call 2: more rounds (the host is noisy): file path r13 vs r14, engine, ceilings
cd "$(dirname "$0")/../../.gl"  # the stripped runners: r13 (session 13), r14 (HEAD)
for r in 1 2 3 4 5 6 7 8; do
  for x in r13 r14; do
    echo "== round $r $x file"; ./$x --reps 7 --threads 1,16 --only parallel 2>&1 | grep -E "bank model \("
  done
done
for r in 1 2 3 4; do
  echo "== round $r r14 engine"; ./r14 --reps 5 --threads 1,8,16 --only engine 2>&1 | grep "cycle engine"
  echo "== round $r r14 ceiling"; ./r14 --reps 3 --threads 1,16 --only ceiling 2>&1 | grep "16 copies"
done
