#!/bin/bash
# session 18, call 5: the host's memory bandwidth, 1 and 16 threads (freq bw): 1 GiB split among the threads,
# and 160 MiB (about the engine's in-memory requests for the mix) read whole by each thread, as copies do
cd "$(dirname "$0")"
grep -m1 "model name" /proc/cpuinfo; nproc; cat /proc/loadavg
./freq bw
./freq bw
cat /proc/loadavg
