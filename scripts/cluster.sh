#!/usr/bin/env bash
# A cluster on one machine: hosts node1 .. nodeN, each a network namespace
# with its own hostname and address, joined by a bridge; real TCP between
# them and, optionally, a real rate limit (tbf) on a host's link.
#
#   scripts/cluster.sh up N [HOST=RATE ...]   create node1..nodeN (RATE in tc units: 400mbit, 1gbit)
#   scripts/cluster.sh exec CMD...            run CMD on node1 with the launcher environment
#   scripts/cluster.sh on HOST CMD...         run CMD on HOST (same environment)
#   scripts/cluster.sh link HOST up|down      set HOST's link up or down (both ends)
#   scripts/cluster.sh status                 one line per host: name address rate_bits_per_s
#   scripts/cluster.sh env                    the launcher environment, as NAME=VALUE lines
#   scripts/cluster.sh down                   remove everything `up` made (idempotent)
#   scripts/cluster.sh slurm up|down          Slurm across the hosts: slurmctld on node1, one
#                                             slurmd per host; `exec srun -N 2 ...` then works
#
# What it makes, and nothing else: network namespaces nodeK (one veth end
# `eth0` each, address SUBNET.K/24) and mpibench-sw (the bridge and the
# other veth ends), /etc/netns/nodeK/hosts (so that every host resolves
# every other by name), its state directory and the lock file beside it
# (STATE.lock). No address or interface is added outside these namespaces.
# `down` kills what still runs inside them, deletes them and the files, its
# lock file last; it is safe to call any number of times and from traps.
#
# The launcher environment (`exec`, `on`, `env`):
#   Open MPI  plm_rsh_agent = the agent script (runs orted inside the host's
#             namespace with its hostname), btl/oob TCP interfaces selected
#             by subnet, binding policy none (every host shares the same
#             cores: bound ranks of different hosts would share core 0)
#   MPICH     Hydra's ssh launcher with the agent as launcher-exec,
#             UCX_TLS=tcp,self,sm, binding none, and UCX_NET_DEVICES=eth0:
#             with lo among its TCP devices as well, UCX's endpoints between
#             hosts with two ranks or more never drain, and MPI_Finalize
#             spins forever on the ranks of the second host
#
# Every host also has a boot id of its own (/proc/sys/kernel/random/boot_id,
# bind-mounted in the host's mount namespace): UCX takes it for the
# machine's identity, and with the real one, which all namespaces share,
# it reaches the other hosts through shared memory (0.36 us, 10 GB/s).
# With one boot id per host, UCX uses TCP between hosts and shared memory
# within a host, as on a real cluster.
#
# Needs root, iproute2 (ip, tc) and util-linux (unshare); scripts/install-deps.sh
# --cluster installs them. Environment: MPIBENCH_CLUSTER_STATE (state
# directory, default /run/mpibench-cluster), MPIBENCH_CLUSTER_SUBNET (the
# first three octets, default 10.151.15).
set -euo pipefail

STATE=${MPIBENCH_CLUSTER_STATE:-/run/mpibench-cluster}
SUBNET=${MPIBENCH_CLUSTER_SUBNET:-10.151.15}
SWITCH=mpibench-sw
MARK="# made by mpibench scripts/cluster.sh"   # first line of /etc/netns/nodeK/hosts

die() { echo "cluster: $*" >&2; exit 2; }

usage() {
    sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'
}

need_tools() {
    local t missing=()
    for t in ip tc unshare; do
        command -v "$t" >/dev/null 2>&1 || missing+=("$t")
    done
    if (( ${#missing[@]} )); then
        die "missing ${missing[*]}: run scripts/install-deps.sh --cluster (iproute2, util-linux)"
    fi
    (( EUID == 0 )) || die "needs root (network namespaces)"
}

# Serialises up/down of concurrent callers ($STATE.lock, which `down`
# removes when it is done).
lock() {
    mkdir -p "$(dirname "$STATE")"
    exec 9>"$STATE.lock"
    flock 9 2>/dev/null || true
}

hosts() {
    [[ -f $STATE/hosts ]] && cat "$STATE/hosts" || true
}

# Host names this script made, from its state or, if that is gone, from
# the markers it leaves in /etc/netns.
made_hosts() {
    {
        hosts
        local d
        for d in /etc/netns/node*; do
            [[ $(head -n1 "$d/hosts" 2>/dev/null) == "$MARK" ]] && basename "$d"
        done
    } 2>/dev/null | sort -u
}

kill_inside() {
    local ns=$1 pids round
    for round in 1 2 3 4 5; do
        pids=$(ip netns pids "$ns" 2>/dev/null || true)
        [[ -z $pids ]] && return 0
        # SIGKILL: these are processes started inside the test cluster.
        kill -9 $pids 2>/dev/null || true
        sleep 0.2
    done
}

cmd_down() {
    local h
    cmd_slurm down
    for h in $(made_hosts); do
        if ip netns list 2>/dev/null | grep -qw "^$h"; then
            kill_inside "$h"
            ip netns delete "$h" 2>/dev/null || true
        fi
        rm -rf "/etc/netns/$h"
    done
    if ip netns list 2>/dev/null | grep -qw "^$SWITCH"; then
        kill_inside "$SWITCH"
        ip netns delete "$SWITCH" 2>/dev/null || true
    fi
    rm -rf "$STATE"
}

# tbf on one device: RATE in tc units; the bucket holds 64 KiB (a GSO
# segment) so that short bursts do not run ahead of the rate, the queue
# 100 ms of traffic so that TCP is paced rather than dropped.
shape() {
    local ns=$1 dev=$2 rate=$3
    ip netns exec "$ns" tc qdisc replace dev "$dev" root tbf rate "$rate" burst 64kb latency 100ms
}

# tc rate units → bits per second (what `status` reports).
rate_bits() {
    local r=${1,,} n unit
    n=${r%%[a-z]*}
    unit=${r#"$n"}
    [[ $n =~ ^[0-9]+(\.[0-9]+)?$ ]] || return 1
    case $unit in
        bit | "") awk -v n="$n" 'BEGIN { printf "%.0f", n }' ;;
        kbit) awk -v n="$n" 'BEGIN { printf "%.0f", n * 1e3 }' ;;
        mbit) awk -v n="$n" 'BEGIN { printf "%.0f", n * 1e6 }' ;;
        gbit) awk -v n="$n" 'BEGIN { printf "%.0f", n * 1e9 }' ;;
        bps) awk -v n="$n" 'BEGIN { printf "%.0f", n * 8 }' ;;
        kbps) awk -v n="$n" 'BEGIN { printf "%.0f", n * 8e3 }' ;;
        mbps) awk -v n="$n" 'BEGIN { printf "%.0f", n * 8e6 }' ;;
        gbps) awk -v n="$n" 'BEGIN { printf "%.0f", n * 8e9 }' ;;
        *) return 1 ;;
    esac
}

cmd_up() {
    local n=${1:-}
    [[ $n =~ ^[0-9]+$ ]] && (( n >= 1 && n <= 200 )) || die "up needs a host count from 1 to 200, not '${n}'"
    shift
    declare -A rate=()
    local spec h r i
    for spec in "$@"; do
        [[ $spec == *=* ]] || die "'$spec' is not HOST=RATE (e.g. node3=400mbit)"
        h=${spec%%=*} r=${spec#*=}
        [[ $h =~ ^node([0-9]+)$ ]] && (( BASH_REMATCH[1] >= 1 && BASH_REMATCH[1] <= n )) \
            || die "no host '$h' in node1..node$n"
        rate_bits "$r" >/dev/null || die "'$r' is not a rate (e.g. 400mbit, 1gbit, 50mbps)"
        rate[$h]=$r
    done
    cmd_down
    mkdir -p "$STATE"
    ip netns add "$SWITCH"
    ip -n "$SWITCH" link set lo up
    ip -n "$SWITCH" link add br0 type bridge
    ip -n "$SWITCH" link set br0 up
    local hostsfile="$MARK"$'\n'"127.0.0.1 localhost"$'\n'
    for ((i = 1; i <= n; i++)); do
        hostsfile+="$SUBNET.$i node$i"$'\n'
    done
    for ((i = 1; i <= n; i++)); do
        h=node$i
        # Recorded before it exists, so that a failure half-way is undone by `down`.
        echo "$h" >>"$STATE/hosts"
        mkdir -p "/etc/netns/$h"
        printf '%s' "$hostsfile" >"/etc/netns/$h/hosts"
        ip netns add "$h"
        ip -n "$h" link set lo up
        ip -n "$SWITCH" link add "p$i" type veth peer name eth0 netns "$h"
        ip -n "$SWITCH" link set "p$i" master br0 up
        ip -n "$h" addr add "$SUBNET.$i/24" dev eth0
        ip -n "$h" link set eth0 up
        r=${rate[$h]:-}
        if [[ -n $r ]]; then
            shape "$h" eth0 "$r"        # host -> bridge
            shape "$SWITCH" "p$i" "$r"  # bridge -> host
        fi
        cat /proc/sys/kernel/random/uuid >"$STATE/boot_id.$h"
        echo "$h $SUBNET.$i ${r:+$(rate_bits "$r")}" >>"$STATE/status"
    done
    write_agent
    # A veth pair is up once both ends are; wait for it (no traffic needed).
    for ((i = 1; i <= n; i++)); do
        local tries=0
        until ip -n "node$i" link show eth0 | grep -q 'state UP'; do
            (( ++tries < 50 )) || die "node$i's link does not come up"
            sleep 0.1
        done
    done
    echo "cluster: up: $(tr '\n' ' ' <"$STATE/hosts")(subnet $SUBNET.0/24${*:+, shaped: $*})"
}

# The remote-shell agent both launchers call: Open MPI as `agent HOST CMD...`,
# Hydra as `agent -x HOST CMD...`. Like ssh, the command is the remaining
# words joined by spaces, run by a shell on that host: here, inside the
# host's namespace, with the host's name and the host's boot id.
write_agent() {
    {
        echo '#!/bin/sh'
        echo "state='$STATE'"
        cat <<'AGENT'
while [ $# -gt 0 ]; do
    case $1 in
        -o | -l | -p | -i | -F) shift 2 ;;
        -*) shift ;;
        *) break ;;
    esac
done
host=$1
shift
exec ip netns exec "$host" unshare --uts sh -c \
    'hostname "$0" && mount --bind "$1" /proc/sys/kernel/random/boot_id && exec sh -c "$2"' \
    "$host" "$state/boot_id.$host" "$*"
AGENT
    } >"$STATE/agent"
    chmod 755 "$STATE/agent"
}

launcher_env() {
    cat <<EOF
OMPI_MCA_plm_rsh_agent=$STATE/agent
OMPI_MCA_btl_tcp_if_include=$SUBNET.0/24
OMPI_MCA_oob_tcp_if_include=$SUBNET.0/24
OMPI_MCA_hwloc_base_binding_policy=none
HYDRA_LAUNCHER=ssh
HYDRA_LAUNCHER_EXEC=$STATE/agent
HYDRA_BINDING=none
UCX_TLS=tcp,self,sm
UCX_NET_DEVICES=eth0
EOF
}

cmd_on() {
    local h=${1:-}
    shift || true
    [[ -n $h ]] && grep -qx "$h" "$STATE/hosts" 2>/dev/null || die "no host '$h' (is the cluster up?)"
    (( $# )) || die "no command to run"
    local envs=()
    mapfile -t envs < <(launcher_env)
    exec ip netns exec "$h" unshare --uts sh -c \
        'hostname "$0" && mount --bind "$1" /proc/sys/kernel/random/boot_id && shift && exec env "$@"' \
        "$h" "$STATE/boot_id.$h" "${envs[@]}" "$@"
}

cmd_link() {
    local h=${1:-} state=${2:-}
    grep -qx "$h" "$STATE/hosts" 2>/dev/null || die "no host '$h' (is the cluster up?)"
    [[ $state == up || $state == down ]] || die "link $h needs up or down"
    ip -n "$h" link set eth0 "$state"
    ip -n "$SWITCH" link set "p${h#node}" "$state"
}

# Multi-node Slurm in the cluster (Debian's slurmctld/slurmd/munge, as
# scripts/slurm.sh uses them): slurmctld on node1, one slurmd per host, each
# in its host's namespace under its hostname. Three things a namespace host
# lacks, and this gives it: the cgroup v1 hierarchies (`ip netns exec`
# mounts a fresh /sys, and slurmd's cgroup plugin then finds no
# /sys/fs/cgroup; a cgroup2 mount there is "hybrid mode" to it, refused), a
# /tmp of its own (every node's slurmstepd makes the same PMIx directory
# /tmp/spmix_appdir_UID_JOB.STEP: on a shared /tmp the second node's step
# fails with "File exists"), and, like every host here, binding none and a
# boot id of its own (without it UCX joins the tasks of different hosts
# through shared memory, and a link set down stops nothing).
# The state lives in $STATE/slurm, which must not be under /tmp.
SLURM_PORT=${MPIBENCH_CLUSTER_SLURM_PORT:-16917}

slurm_conf() {
    local d=$1 n i
    n=$(wc -l <"$STATE/hosts")
    cat <<C
# Written by scripts/cluster.sh: Slurm across the namespace hosts.
ClusterName=mpibenchns
SlurmctldHost=node1($SUBNET.1)
SlurmctldPort=$SLURM_PORT
SlurmdPort=$((SLURM_PORT + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$d/munge/munge.sock
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool.%n
SlurmctldPidFile=$d/slurmctld.pid
SlurmdPidFile=$d/slurmd.%n.pid
SlurmctldLogFile=$d/log/slurmctld.log
SlurmdLogFile=$d/log/slurmd.%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=pmix
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
C
    for ((i = 1; i <= n; i++)); do
        echo "NodeName=node$i NodeAddr=$SUBNET.$i CPUs=$(nproc) RealMemory=1000 State=UNKNOWN"
    done
    echo "PartitionName=test Nodes=node[1-$n] Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4"
}

# A host's environment for slurmd: cgroup v1 hierarchies as on the machine, its own /tmp.
SLURMD_SETUP='mount -t tmpfs -o mode=755 tmpfs /sys/fs/cgroup &&
for c in $(awk '"'"'$1 == "cgroup" && $2 ~ "^/sys/fs/cgroup/" { sub("^/sys/fs/cgroup/", "", $2); print $2 }'"'"' /proc/1/mounts); do
    o=$(awk -v m="/sys/fs/cgroup/$c" '"'"'$2 == m { print $4 }'"'"' /proc/1/mounts)
    mkdir -p "/sys/fs/cgroup/$c" && mount -t cgroup -o "$o" cgroup "/sys/fs/cgroup/$c"
done; mount --bind "$2" /tmp && mount --bind "$3" /proc/sys/kernel/random/boot_id'

cmd_slurm() {
    local d=$STATE/slurm h i
    case ${1:-} in
        up)
            [[ -f $STATE/hosts ]] || die "the cluster is not up"
            [[ $d != /tmp/* ]] || die "slurm: the state directory $STATE must not be under /tmp (each host gets its own /tmp)"
            for h in slurmctld slurmd srun munged; do
                command -v "$h" >/dev/null || die "$h not found: scripts/install-deps.sh --slurm"
            done
            cmd_slurm down
            mkdir -p "$d/munge" "$d/log" "$d/state"
            chmod 755 "$d" "$d/munge"
            mungekey --create --keyfile="$d/munge/munge.key" >/dev/null 2>&1 ||
                dd if=/dev/urandom of="$d/munge/munge.key" bs=1 count=128 status=none
            chmod 600 "$d/munge/munge.key"
            munged --force --key-file="$d/munge/munge.key" --socket="$d/munge/munge.sock" \
                --pid-file="$d/munge/munged.pid" --log-file="$d/munge/munged.log" --seed-file="$d/munge/munged.seed"
            slurm_conf "$d" >"$d/slurm.conf"
            ip netns exec node1 unshare --uts sh -c 'hostname node1 && exec slurmctld -f "$0" -i' "$d/slurm.conf"
            for h in $(hosts); do
                mkdir -p "$d/spool.$h" "$d/tmp.$h"
                ip netns exec "$h" unshare --uts sh -c "hostname \"\$0\" && $SLURMD_SETUP"' && exec slurmd -f "$1" -N "$0"' \
                    "$h" "$d/slurm.conf" "$d/tmp.$h" "$STATE/boot_id.$h"
            done
            for i in $(seq 100); do
                if SLURM_CONF=$d/slurm.conf ip netns exec node1 sinfo -h -o '%T' 2>/dev/null | grep -qx idle; then
                    echo "export SLURM_CONF=$d/slurm.conf"
                    return 0
                fi
                sleep 0.2
            done
            tail -n 5 "$d"/log/*.log >&2 || true
            die "slurm: the nodes did not become idle"
            ;;
        down)
            [[ -d $d ]] || return 0
            local f p
            for f in "$d"/slurmd.*.pid "$d/slurmctld.pid" "$d/munge/munged.pid"; do
                p=$(cat "$f" 2>/dev/null) || continue
                [[ -n $p ]] && kill "$p" 2>/dev/null || true
            done
            sleep 0.5
            for f in "$d"/slurmd.*.pid "$d/slurmctld.pid" "$d/munge/munged.pid"; do
                p=$(cat "$f" 2>/dev/null) || continue
                [[ -n $p ]] && kill -9 "$p" 2>/dev/null || true
            done
            rm -rf "$d"
            ;;
        *) die "slurm up|down" ;;
    esac
}

main() {
    local cmd=${1:-}
    shift || true
    case $cmd in
        # A failed `up` that made no cluster leaves no lock file either
        # (die exits from anywhere: an EXIT trap sees every way out).
        up) need_tools; lock; trap '[[ -e $STATE ]] || rm -f "$STATE.lock"' EXIT; cmd_up "$@" ;;
        # `down` removes its own lock file last: nothing `up` or `down` made is left.
        down) need_tools; lock; cmd_down; rm -f "$STATE.lock" ;;
        slurm) need_tools; cmd_slurm "${1:-}" ;;
        exec) need_tools; cmd_on node1 "$@" ;;
        on) need_tools; cmd_on "$@" ;;
        link) need_tools; cmd_link "$@" ;;
        status) [[ -f $STATE/status ]] || die "the cluster is not up"; cat "$STATE/status" ;;
        env) launcher_env ;;
        -h | --help | help) usage ;;
        *) usage >&2; exit 2 ;;
    esac
}

main "$@"
