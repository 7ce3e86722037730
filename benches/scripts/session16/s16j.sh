#!/bin/bash
# session 16, call 10: the committed engine (r17 = 732a936, the same code as HEAD): scaling medians at 16
# threads, three rounds (both jobs); the best-of-5 table at 1, 2, 4, 8, 16 threads, twice
cd "$(dirname "$0")"
cat /proc/loadavg
for r in 1 2 3; do echo "== scaling r17 round $r"; timeout 60 ./r17 --reps 9 --threads 16 --only scaling 2>&1 | grep medians; done
for r in 1 2; do echo "== table r17 round $r"; timeout 120 ./r17 --reps 5 --threads 1,2,4,8,16 2>&1; done
cat /proc/loadavg
