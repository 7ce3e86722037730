#!/bin/bash
# session 16, call 2: b0j = HEAD instrumented, with the dispatch (1000003) and snapshot (1000004) marks
cd "$(dirname "$0")"
cat /proc/loadavg
TRACEF=$OUT/tr_b0j.txt timeout 60 ./b0j --only engine --threads 1,16 --reps 3 2>&1 | grep engine
cat /proc/loadavg
