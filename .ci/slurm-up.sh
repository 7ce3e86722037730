#!/usr/bin/env bash
# Starts a single-node Slurm on this machine for banksim/tests/slurm.rs: munged,
# slurmctld and slurmd, without systemd, listening on loopback only, with every file
# (slurm.conf, state, spool, logs) under DIR. Needs root (it installs the Debian
# packages if they are missing and runs the daemons as root, munged as `munge`).
#
#   .ci/slurm-up.sh DIR     # then: export SLURM_CONF=DIR/slurm.conf
#   .ci/slurm-down.sh DIR   # stops what this started, by PID
#
# It writes DIR/slurm.conf, DIR/pids ("NAME PID" per daemon it started: what
# slurm-down.sh stops) and DIR/env (`export SLURM_CONF=...`), and returns once `sinfo`
# shows the node idle. Ports: SLURM_CI_CTLD_PORT (6817), SLURM_CI_SLURMD_PORT (6818).
set -euo pipefail

dir=${1:?usage: .ci/slurm-up.sh DIR}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
ctld_port=${SLURM_CI_CTLD_PORT:-6817}
slurmd_port=${SLURM_CI_SLURMD_PORT:-6818}

apt_install() {
    local missing=()
    for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
    if [ ${#missing[@]} -gt 0 ]; then
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
    fi
}
apt_install slurmctld slurmd slurm-client munge

fail() {
    echo "slurm-up: $*" >&2
    for log in "$dir"/*.log; do
        [ -f "$log" ] && { echo "--- $log (last 20 lines)" >&2; tail -n 20 "$log" >&2; }
    done
    exit 1
}

: >"$dir/pids"
started() { echo "$1 $2" >>"$dir/pids"; }

# munge: reuse a running munged, else start one (it refuses to run as root).
if munge -n </dev/null 2>/dev/null | unmunge >/dev/null 2>&1; then
    echo "slurm-up: munged already running, reusing it"
else
    [ -s /etc/munge/munge.key ] || setpriv --reuid=munge --regid=munge --init-groups mungekey --create
    install -d -o munge -g munge -m 0755 /run/munge
    setpriv --reuid=munge --regid=munge --init-groups /usr/sbin/munged --foreground \
        >"$dir/munged.log" 2>&1 &
    started munged $!
    for _ in $(seq 50); do
        munge -n </dev/null 2>/dev/null | unmunge >/dev/null 2>&1 && break
        sleep 0.1
    done
    munge -n </dev/null | unmunge >/dev/null 2>&1 || fail "munged does not answer"
fi

host=$(hostname -s)
node=$(slurmd -C | head -n 1) # NodeName=HOST CPUs=... RealMemory=...: this machine as slurmd sees it
case "$node" in NodeName=*) ;; *) fail "slurmd -C printed \`$node\`" ;; esac
mkdir -p "$dir/state" "$dir/spool"
cat >"$dir/slurm.conf" <<EOF
# single-node Slurm for banksim's CI (written by .ci/slurm-up.sh)
ClusterName=banksim
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
CommunicationParameters=NoCtldInAddrAny,NoInAddrAny
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MpiDefault=none
ReturnToService=2
KillWait=5
$node NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$dir/slurm.conf"
echo "export SLURM_CONF=$SLURM_CONF" >"$dir/env"

slurmctld -D -i -f "$SLURM_CONF" >>"$dir/slurmctld.out" 2>&1 &
started slurmctld $!
slurmd -D -f "$SLURM_CONF" >>"$dir/slurmd.out" 2>&1 &
started slurmd $!

state=""
for _ in $(seq 120); do
    state=$(sinfo -h -N -n "$host" -o %T 2>/dev/null || true)
    [ "$state" = idle ] && break
    while read -r name pid; do
        kill -0 "$pid" 2>/dev/null || fail "$name (pid $pid) exited"
    done <"$dir/pids"
    sleep 0.5
done
[ "$state" = idle ] || fail "node $host is not idle after 60 s (state: ${state:-none})"
echo "slurm-up: node $host idle; SLURM_CONF=$SLURM_CONF; started: $(tr '\n' ' ' <"$dir/pids")"
