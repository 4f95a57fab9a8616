#!/usr/bin/env bash
# A one-node SLURM cluster in a scratch directory, for testing the workflow's SLURM profile.
#
#   scripts/slurm-local.sh start DIR   # munged + slurmctld + slurmd, all state under DIR; prints
#                                      # the SLURM_CONF to export
#   scripts/slurm-local.sh stop DIR    # stops exactly the daemons started in DIR (by their pid
#                                      # files) and removes DIR
#
# Needs Debian's slurm-wlm and munge packages (apt-get install slurm-wlm munge) and root (the
# daemons run as root, jobs as the submitting user). No accounting database: sacct is
# unavailable, so Snakemake's SLURM executor must query squeue (see tests/test_slurm.py), and
# MinJobAge keeps finished jobs visible to squeue for 10 minutes.
#
# Snakemake's job step removes every SLURM_* variable (SLURM_CONF included) before it calls srun
# inside a job, so srun must find the configuration at the default path: when
# /etc/slurm/slurm.conf does not exist, start links it to DIR's and stop removes that link (an
# existing configuration, i.e. a real cluster, is never touched: start refuses instead).
set -euo pipefail

cmd=${1:?usage: slurm-local.sh start|stop DIR}
dir=${2:?usage: slurm-local.sh start|stop DIR}

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

stop_pidfile() {
    local f=$1
    [ -f "$f" ] || return 0
    local pid
    pid=$(cat "$f")
    if kill -0 "$pid" 2>/dev/null; then
        kill "$pid" 2>/dev/null || true
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$pid" 2>/dev/null || true
    fi
}

case "$cmd" in
start)
    for tool in munged mungekey slurmctld slurmd sinfo; do
        command -v "$tool" >/dev/null || { echo "slurm-local.sh: $tool not found (apt-get install slurm-wlm munge)" >&2; exit 3; }
    done
    [ "$(id -u)" -eq 0 ] || { echo "slurm-local.sh: the daemons need root" >&2; exit 3; }
    mkdir -p "$dir"/{munge,state,spool,log}
    dir=$(cd "$dir" && pwd)
    chmod 700 "$dir/munge"
    mungekey --create --keyfile="$dir/munge/munge.key" --force
    chmod 600 "$dir/munge/munge.key"
    munged --force --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.socket" \
        --pid-file="$dir/munge/munged.pid" --log-file="$dir/log/munged.log" --seed-file="$dir/munge/munged.seed"
    host=$(hostname -s)
    cpus=$(nproc)
    mem=$(awk '/MemTotal/ {print int($2 / 1024 * 0.8)}' /proc/meminfo)
    cat > "$dir/slurm.conf" <<EOF
ClusterName=isdp-local
SlurmctldHost=$host
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket
CryptoType=crypto/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU_Memory
MpiDefault=none
ReturnToService=2
MinJobAge=600
SchedulerType=sched/backfill
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
NodeName=$host CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=local Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
    export SLURM_CONF=$dir/slurm.conf
    if [ -e /etc/slurm/slurm.conf ] || [ -L /etc/slurm/slurm.conf ]; then
        echo "slurm-local.sh: /etc/slurm/slurm.conf exists (a real cluster?); not starting a test cluster" >&2
        munged --stop --socket="$dir/munge/munge.socket" >/dev/null 2>&1 || true
        exit 3
    fi
    mkdir -p /etc/slurm
    ln -s "$SLURM_CONF" /etc/slurm/slurm.conf
    echo /etc/slurm/slurm.conf > "$dir/etc-link"
    slurmctld -f "$SLURM_CONF"
    slurmd -f "$SLURM_CONF"
    for _ in $(seq 100); do
        if sinfo -h -o %T 2>/dev/null | grep -q -E '^(idle|mixed|allocated)'; then
            echo "SLURM_CONF=$SLURM_CONF"
            exit 0
        fi
        sleep 0.2
    done
    echo "slurm-local.sh: the node did not become idle; logs in $dir/log" >&2
    exit 1
    ;;
stop)
    [ -d "$dir" ] || exit 0
    stop_pidfile "$dir/slurmd.pid"
    stop_pidfile "$dir/slurmctld.pid"
    stop_pidfile "$dir/munge/munged.pid"
    if [ -f "$dir/etc-link" ] && [ -L /etc/slurm/slurm.conf ] && [ "$(readlink /etc/slurm/slurm.conf)" = "$dir/slurm.conf" ]; then
        rm -f /etc/slurm/slurm.conf
    fi
    rm -rf "$dir"
    ;;
*)
    echo "usage: slurm-local.sh start|stop DIR" >&2
    exit 2
    ;;
esac
