#!/bin/bash
# session 17, call 5: streaming a 4 GiB trace in chunks of 64 Ki lanes (written by rA) and of 128 Ki
# (written by rC), each read by its own build, in turns: 16 threads four times, 2 threads twice
cd "$(dirname "$0")"
cat /proc/loadavg
timeout 100 ./rA --generate /tmp/a.bsim --gib 4
timeout 100 ./rC --generate /tmp/c.bsim --gib 4
sync; cat /tmp/a.bsim /tmp/c.bsim > /dev/null
for r in 1 2 3 4; do for b in A C; do
  f=/tmp/$(echo $b | tr AC ac).bsim
  timeout 60 ./r$b --stream $f --threads 16 | sed "s/^/r$b r$r | /"
done; done
for r in 1 2; do for b in A C; do
  f=/tmp/$(echo $b | tr AC ac).bsim
  timeout 60 ./r$b --stream $f --threads 2 | sed "s/^/r$b r$r | /"
done; done
rm -f /tmp/a.bsim /tmp/c.bsim
cat /proc/loadavg
