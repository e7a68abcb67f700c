#!/usr/bin/env bash
# A private single-node Slurm cluster on this machine, for the tests:
# slurmctld + slurmd from Debian's packages (scripts/install-deps.sh --slurm),
# with every file in one state directory and no change under /etc.
#
#   scripts/slurm.sh up       write the configuration, start both daemons, wait
#                             until the node is idle; prints the SLURM_CONF line
#   scripts/slurm.sh down     stop the daemons this script started, remove the state
#   scripts/slurm.sh status   sinfo of the private cluster (exit 1 if it is not up)
#   scripts/slurm.sh env      the line to eval: export SLURM_CONF=...
#
# Client commands (srun, salloc, sinfo, scancel) find the cluster through
# SLURM_CONF, so the machine's own /etc/slurm is never read or written.
# srun uses PMIx by default (MpiDefault=pmix: Open MPI; MPICH needs
# srun --mpi=pmi2). Authentication is munge, with a private munged, key and
# socket in the state directory; the daemons bind to 127.0.0.1 only.
#
# Environment: MPIBENCH_SLURM_DIR (state directory, default
# /tmp/mpibench-slurm-$UID), MPIBENCH_SLURM_PORT (slurmctld port; slurmd
# uses the next one; default: the first free pair from 16817 on).
set -euo pipefail

dir=${MPIBENCH_SLURM_DIR:-/tmp/mpibench-slurm-$(id -u)}
conf=$dir/slurm.conf
node=$(hostname -s)

log() { echo "slurm.sh: $*" >&2; }

port_free() {
    ! ss -Hltn "sport = :$1" 2>/dev/null | grep -q .
}

pick_ports() {
    local p=${MPIBENCH_SLURM_PORT:-16817}
    if [[ -n "${MPIBENCH_SLURM_PORT:-}" ]]; then
        echo "$p"
        return
    fi
    while ! { port_free "$p" && port_free $((p + 1)); }; do
        p=$((p + 2))
        if ((p > 17817)); then
            log "no free port pair between 16817 and 17817"
            exit 1
        fi
    done
    echo "$p"
}

write_conf() {
    local port=$1 cpus mem
    cpus=$(nproc)
    # Memory the node advertises (MiB): what is there, less a margin.
    mem=$(awk '/MemTotal/ { printf "%d", $2 / 1024 * 0.9 }' /proc/meminfo)
    mkdir -p "$dir/state" "$dir/spool" "$dir/log"
    cat >"$conf" <<EOF
# Written by scripts/slurm.sh: a private one-node cluster for mpibench's tests.
ClusterName=mpibench
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.sock
CommunicationParameters=NoCtldInAddrAny,NoInAddrAny
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=pmix
LaunchParameters=use_interactive_step
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
JobAcctGatherType=jobacct_gather/none
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
KillWait=5
MinJobAge=30
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=test Nodes=$node Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
EOF
}

# PID from a pid file, if that process is alive and is the named daemon.
alive() {
    local f=$1 name=$2 pid
    [[ -f "$f" ]] || return 1
    pid=$(cat "$f" 2>/dev/null) || return 1
    [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null || return 1
    [[ "$(cat /proc/"$pid"/comm 2>/dev/null)" == "$name"* ]] || return 1
    echo "$pid"
}

stop_daemon() {
    local f=$1 name=$2 pid i
    pid=$(alive "$f" "$name") || return 0
    kill "$pid" 2>/dev/null || true
    for i in $(seq 50); do
        kill -0 "$pid" 2>/dev/null || return 0
        sleep 0.1
    done
    kill -9 "$pid" 2>/dev/null || true
}

# A munged of our own: its key, socket, pid, log and seed in $dir/munge.
start_munge() {
    local m=$dir/munge
    mkdir -p "$m"
    chmod 755 "$dir" "$m"
    mungekey --create --keyfile="$m/munge.key" >/dev/null 2>&1 ||
        dd if=/dev/urandom of="$m/munge.key" bs=1 count=128 status=none
    chmod 600 "$m/munge.key"
    munged --force --key-file="$m/munge.key" --socket="$m/munge.sock" \
        --pid-file="$m/munged.pid" --log-file="$m/munged.log" --seed-file="$m/munged.seed"
}

up() {
    for t in slurmctld slurmd sinfo srun munged mungekey; do
        if ! command -v "$t" >/dev/null; then
            log "$t not found: run scripts/install-deps.sh --slurm"
            exit 1
        fi
    done
    if alive "$dir/slurmctld.pid" slurmctld >/dev/null && alive "$dir/slurmd.pid" slurmd >/dev/null; then
        log "already up ($conf)"
    else
        down quiet
        write_conf "$(pick_ports)"
        start_munge
        export SLURM_CONF=$conf
        slurmctld -f "$conf" -i
        slurmd -f "$conf"
    fi
    export SLURM_CONF=$conf
    local i state=""
    for i in $(seq 150); do
        state=$(sinfo -h -N -o '%T' 2>/dev/null | head -n1 || true)
        if [[ "$state" == idle* || "$state" == mixed* || "$state" == allocated* ]]; then
            echo "export SLURM_CONF=$conf"
            return 0
        fi
        sleep 0.2
    done
    log "the node did not become idle (state '${state:-none}'); logs:"
    tail -n 20 "$dir/log/slurmctld.log" "$dir/log/slurmd.log" >&2 2>/dev/null || true
    down quiet
    exit 1
}

down() {
    if [[ -f "$conf" ]]; then
        SLURM_CONF=$conf scancel --quiet --full --user "$(id -un)" 2>/dev/null || true
    fi
    stop_daemon "$dir/slurmd.pid" slurmd
    stop_daemon "$dir/slurmctld.pid" slurmctld
    stop_daemon "$dir/munge/munged.pid" munged
    # Steps the daemons started and left behind (slurmstepd of this cluster only).
    local p
    for p in $(pgrep -x slurmstepd 2>/dev/null || true); do
        if tr '\0' ' ' <"/proc/$p/environ" 2>/dev/null | grep -q "SLURM_CONF=$conf"; then
            kill -9 "$p" 2>/dev/null || true
        fi
    done
    rm -rf "$dir"
    [[ "${1:-}" == quiet ]] || log "down"
}

case "${1:-}" in
    up) up ;;
    down) down ;;
    status)
        [[ -f "$conf" ]] || { log "not up"; exit 1; }
        SLURM_CONF=$conf sinfo
        ;;
    env) echo "export SLURM_CONF=$conf" ;;
    *)
        echo "usage: scripts/slurm.sh up|down|status|env" >&2
        exit 2
        ;;
esac
