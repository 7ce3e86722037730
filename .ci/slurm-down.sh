#!/usr/bin/env bash
# Stops the daemons .ci/slurm-up.sh DIR started, by the PIDs in DIR/pids (slurmd and
# slurmctld first, munged last): SIGTERM, then SIGKILL after 10 s.
#
#   .ci/slurm-down.sh DIR
set -uo pipefail

dir=${1:?usage: .ci/slurm-down.sh DIR}
[ -f "$dir/pids" ] || { echo "slurm-down: no $dir/pids, nothing to stop"; exit 0; }

stop() { # NAME PID
    kill -0 "$2" 2>/dev/null || return 0
    kill -TERM "$2" 2>/dev/null
    for _ in $(seq 100); do
        kill -0 "$2" 2>/dev/null || { echo "slurm-down: stopped $1 (pid $2)"; return 0; }
        sleep 0.1
    done
    kill -KILL "$2" 2>/dev/null
    echo "slurm-down: killed $1 (pid $2) after 10 s"
}

# reverse start order: slurmd, slurmctld, munged
tac "$dir/pids" | while read -r name pid; do
    [ -n "${pid:-}" ] && stop "$name" "$pid"
done
rm -f "$dir/pids"
