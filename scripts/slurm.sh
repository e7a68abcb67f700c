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
# MPIBENCH_SLURM_ACCOUNTING=1: job accounting as a site has it, so that sacct
# answers (ReFrame's slurm scheduler polls jobs with sacct): a private
# MariaDB (its data, socket and port in the state directory; 127.0.0.1
# only) and slurmdbd, started before slurmctld and stopped with it.
set -euo pipefail

dir=${MPIBENCH_SLURM_DIR:-/tmp/mpibench-slurm-$(id -u)}
conf=$dir/slurm.conf
node=$(hostname -s)

log() { echo "slurm.sh: $*" >&2; }

port_free() {
    ! ss -Hltn "sport = :$1" 2>/dev/null | grep -q .
}

# The first free port pair from $1 (up to 1000 ports on).
free_pair() {
    local p=$1 last=$(($1 + 1000))
    while ! { port_free "$p" && port_free $((p + 1)); }; do
        p=$((p + 2))
        if ((p > last)); then
            log "no free port pair between $1 and $last"
            exit 1
        fi
    done
    echo "$p"
}

pick_ports() {
    if [[ -n "${MPIBENCH_SLURM_PORT:-}" ]]; then
        echo "$MPIBENCH_SLURM_PORT"
    else
        free_pair 16817
    fi
}

write_conf() { # write_conf PORT [SLURMDBD_PORT]
    local port=$1 dbd=${2:-} cpus mem acct
    cpus=$(nproc)
    # Memory the node advertises (MiB): what is there, less a margin.
    mem=$(awk '/MemTotal/ { printf "%d", $2 / 1024 * 0.9 }' /proc/meminfo)
    mkdir -p "$dir/state" "$dir/spool" "$dir/log"
    acct="AccountingStorageType=accounting_storage/none"
    if [[ -n "$dbd" ]]; then
        acct="AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=127.0.0.1
AccountingStoragePort=$dbd
AccountingStoragePass=$dir/munge/munge.sock"
    fi
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
$acct
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

# Job accounting (MPIBENCH_SLURM_ACCOUNTING=1): a MariaDB of our own (data,
# socket, pid and log in $dir; TCP on 127.0.0.1 only), its database user
# for slurmdbd, and slurmdbd itself (slurmdbd.conf beside slurm.conf, where
# it looks for it), then the cluster registered. Prints slurmdbd's port.
start_accounting() {
    local db=$dir/db ports dbport dbd pw i t
    for t in mariadbd mariadb-install-db mariadb slurmdbd sacctmgr; do
        command -v "$t" >/dev/null || { log "$t not found: run scripts/install-deps.sh --packaging"; return 1; }
    done
    ports=$(free_pair 17917) || return 1
    dbport=$ports dbd=$((ports + 1))
    pw=$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')
    mkdir -p "$db"
    mariadb-install-db --no-defaults --datadir="$db/data" --user=root --skip-test-db \
        --auth-root-authentication-method=socket >"$dir/log/mariadb-install.log" 2>&1 ||
        { log "mariadb-install-db failed:"; tail -n 5 "$dir/log/mariadb-install.log" >&2; return 1; }
    setsid mariadbd --no-defaults --datadir="$db/data" --socket="$db/mysqld.sock" --pid-file="$db/mariadbd.pid" \
        --port="$dbport" --bind-address=127.0.0.1 --skip-name-resolve --user=root \
        --innodb-buffer-pool-size=32M --log-error="$dir/log/mariadb.log" </dev/null >/dev/null 2>&1 &
    for i in $(seq 150); do
        mariadb --no-defaults -S "$db/mysqld.sock" -u root -e 'select 1' >/dev/null 2>&1 && break
        sleep 0.2
    done
    mariadb --no-defaults -S "$db/mysqld.sock" -u root -e \
        "CREATE USER 'slurm'@'127.0.0.1' IDENTIFIED BY '$pw'; GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';" ||
        { log "MariaDB did not start; its log:"; tail -n 5 "$dir/log/mariadb.log" >&2; return 1; }
    cat >"$dir/slurmdbd.conf" <<EOF
# Written by scripts/slurm.sh: the private cluster's accounting.
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.sock
DbdHost=localhost
DbdAddr=127.0.0.1
DbdPort=$dbd
SlurmUser=root
PidFile=$dir/slurmdbd.pid
LogFile=$dir/log/slurmdbd.log
DebugLevel=info
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=$dbport
StorageUser=slurm
StoragePass=$pw
StorageLoc=slurm_acct_db
EOF
    chmod 600 "$dir/slurmdbd.conf"
    # sacctmgr finds slurmdbd through slurm.conf (the final one is written after).
    write_conf "$1" "$dbd"
    SLURM_CONF=$conf slurmdbd </dev/null >/dev/null 2>&1
    # At most about a minute: a slurmdbd that does not answer by then will not.
    for i in $(seq 30); do
        SLURM_CONF=$conf timeout 2 sacctmgr -n list cluster >/dev/null 2>&1 && break
        sleep 0.2
    done
    SLURM_CONF=$conf timeout 10 sacctmgr -i add cluster mpibench >/dev/null 2>&1 ||
        { log "slurmdbd did not answer; its log:"; tail -n 5 "$dir/log/slurmdbd.log" >&2; return 1; }
    echo "$dbd"
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
        local port dbd=""
        port=$(pick_ports)
        mkdir -p "$dir/log"
        start_munge
        if [[ "${MPIBENCH_SLURM_ACCOUNTING:-0}" == 1 ]]; then
            dbd=$(start_accounting "$port") || { down quiet; exit 1; }
        fi
        write_conf "$port" "$dbd"
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
    stop_daemon "$dir/slurmdbd.pid" slurmdbd
    stop_daemon "$dir/db/mariadbd.pid" mariadbd
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
