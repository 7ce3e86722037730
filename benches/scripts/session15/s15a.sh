#!/bin/bash
# session 15, call 1: is the 16-vCPU host 16 cores? topology, pairwise interference, pinned sets
cd "$(dirname "$0")"
echo "== topology"; lscpu | grep -E "Model name|^CPU\(s\)|Thread|Core|Socket|NUMA|MHz|L3|Hypervisor"
for c in /sys/devices/system/cpu/cpu[0-9]*; do echo "$(basename $c) sib=$(cat $c/topology/thread_siblings_list 2>/dev/null) core=$(cat $c/topology/core_id 2>/dev/null) pkg=$(cat $c/topology/physical_package_id 2>/dev/null)"; done | sort -V | tr '\n' ';'; echo
grep -E "^apicid" /proc/cpuinfo | tr '\n' ' '; echo
cat /proc/loadavg
echo "== pairs: 2 engine copies on cpus 0,j (efficiency = each copy against 1 copy)"
for j in $(seq 1 15); do
  printf "0,%s " $j; taskset -c 0,$j ./r15 --blocks 1024 --reps 5 --threads 1,2 --only ceiling 2>&1 | grep "cycle engine" | tail -1 | grep -o "efficiency [0-9.]*"
done
echo "== pairs again, cpu 5 with j"
for j in 0 1 2 3 4 6 7 8 9 10 11 12 13 14 15; do
  printf "5,%s " $j; taskset -c 5,$j ./r15 --blocks 1024 --reps 5 --threads 1,2 --only ceiling 2>&1 | grep "cycle engine" | tail -1 | grep -o "efficiency [0-9.]*"
done
for set in 0-7 8-15 0,2,4,6,8,10,12,14 1,3,5,7,9,11,13,15 0-15; do
  echo "== set $set: ceiling and engine"
  taskset -c $set ./r15 --reps 3 --threads 1,8,16 --only ceiling 2>&1 | grep "cycle engine"
  taskset -c $set ./r15 --reps 5 --threads 1,8,16 --only engine 2>&1 | grep "cycle engine"
done
cat /proc/loadavg
