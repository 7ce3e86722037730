#!/bin/bash
# session 18, call 1: are the host's 16 vCPUs 16 cores, or 8 cores with two hardware threads each?
# The topology the VM shows, then the throughput-bound add probe (`freq tput`, ~4.5 adds a cycle on
# a core of its own) on cpu 0 alone and on cpu 0 beside each other cpu, pinned with taskset: a sibling
# on the same core halves both. Then the committed runner's scaling at 8 and 16 threads.
cd "$(dirname "$0")"
grep -m1 "model name" /proc/cpuinfo; nproc; cat /proc/loadavg
lscpu | grep -Ei "thread|core|socket|numa|l3|l2|model name|mhz"
for c in 0 1 2 3 8 15; do echo "cpu$c siblings $(cat /sys/devices/system/cpu/cpu$c/topology/thread_siblings_list 2>/dev/null) core $(cat /sys/devices/system/cpu/cpu$c/topology/core_id 2>/dev/null)"; done
export FREQ_THREADS=1
echo "alone:"; taskset -c 0 ./freq tput
for x in $(seq 1 15); do
  taskset -c 0 ./freq tput > /tmp/a.txt & taskset -c $x ./freq tput > /tmp/b.txt; wait
  echo "cpu0 + cpu$x: medians cpu0 $(awk '{print $(NF-1)}' /tmp/a.txt), cpu$x $(awk '{print $(NF-1)}' /tmp/b.txt)"
done
for x in 0 8; do
  echo "cpu$x+cpu$((x+1)) both:"; taskset -c $x ./freq tput & taskset -c $((x+1)) ./freq tput; wait
done
unset FREQ_THREADS
./freq tput
for t in 8 16; do timeout 100 ./rA --reps 5 --threads $t --only scaling 2>&1 | grep -E "medians|thread" | sed "s/^/t$t | /"; done
cat /proc/loadavg
