#!/usr/bin/env bash
# mpibench across hosts: a cluster on one machine (scripts/cluster.sh), three
# hosts node1..node3 with node3's link shaped, torn down on every exit (trap),
# also when a case fails or the script is interrupted. Per MPI:
#
#   --hosts node1:2,node2:2        hosts and ranks_per_host in the JSON; --dry-run's mpiexec line
#   --hostfile (both formats)      the same hosts, run with --stall-limit 0 (off); bad --stall-limit: exit 2
#   --pairs inter / intra          PingPong at 8 B: TCP at least 3x slower than shared memory (best repetitions)
#   PingPong 4 MiB over node3      0.90 .. 1.02 of the shaped wire rate (5th percentile time)
#   mpibench mpigraph              node3 is the one outlier; --fail-on-outlier exits 6
#   a link set down mid-run        self-launch and the user's own mpiexec (one rank per host):
#                                  exit 3 (Open MPI's own mpiexec: 137, killed by mpibench's
#                                  teardown), status "aborted", the finished benchmark kept,
#                                  every process on every host gone within the stall limit + grace
# and once: srun -N 2 -n 4 across two hosts of a Slurm cluster in the namespaces (both MPIs),
# a link set down under srun -N 2 -n 2 (both MPIs: the same checks, Slurm's daemons aside),
# and `down` is idempotent and leaves no namespace, state or lock file, even after a failed script.
#
# Usage: tests/cluster.sh [OPENMPI_BINARY [MPICH_BINARY]]
#   defaults: target/release/mpibench, target/mpich/release/mpibench (the
#   MPICH leg is skipped, with a line saying so, when that binary is missing).
# Needs root (network namespaces); skipped with a line otherwise.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ompi=$(realpath "${1:-$root/target/release/mpibench}")
mpich=$(realpath -m "${2:-$root/target/mpich/release/mpibench}")
[[ -x "$ompi" ]] || { echo "cluster: $ompi not built (make build)" >&2; exit 1; }
if (( EUID != 0 )) || ! command -v ip >/dev/null || ! command -v unshare >/dev/null; then
    echo "skip - cluster tests: need root, iproute2 and util-linux (scripts/install-deps.sh --cluster)"
    exit 0
fi

cluster="bash $root/scripts/cluster.sh"
work=$(mktemp -d /tmp/mpibench-cluster-test.XXXXXX)
# A state directory and subnet of its own, so that nothing else is touched
# (not under /tmp: the Slurm hosts get a /tmp of their own).
export MPIBENCH_CLUSTER_STATE=/run/mpibench-cluster-test.$$
export MPIBENCH_CLUSTER_SUBNET=10.151.77
cleanup() {
    $cluster down >/dev/null 2>&1 || true
    # (The lock file is `down`'s to remove: case 7 checks that it does.)
    rm -rf "$work" "$MPIBENCH_CLUSTER_STATE"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# node3 shaped to 50 Mbit/s both ways: 50e6 / 8 / 2^20 = 5.96 MiB/s. (On a
# busy 2-core machine higher rates read lower fractions of the wire: the
# ranks' busy polling delays the kernel's own network work.)
RATE=50mbit RATE_BITS=50000000
$cluster up 3 node3=$RATE
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
unset OMPI_MCA_rmaps_base_oversubscribe MPIBENCH_MPIEXEC MPIBENCH_LAUNCHED OMPI_COMM_WORLD_SIZE PMI_RANK || true

passed=0 failed=0
ok() { echo "ok - $*"; passed=$((passed + 1)); }
bad() { echo "FAIL - $*"; failed=$((failed + 1)); }
show() { sed 's/^/    | /' "$@" | tail -n 15; }
# Runs on node1 with the launcher environment, bounded; once more when the
# launcher could not start the ranks (exit 4: on a busy machine a daemon's
# first TCP connection can time out).
on1() {
    local rc=0
    timeout 120 $cluster exec "$@" || rc=$?
    if ((rc == 4)); then
        echo "(launcher failed, once more)" >&2
        rc=0
        timeout 120 $cluster exec "$@" || rc=$?
    fi
    return $rc
}
# A JSON expression over a result file, e.g. J f.json 'd["world_size"]'.
J() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }
left() { for h in node1 node2 node3; do ip netns pids "$h" 2>/dev/null; done | wc -l; }
# The same without Slurm's own daemons (slurmctld, slurmd, slurmstepd, munged).
left_job() {
    local h p
    for h in node1 node2 node3; do
        for p in $(ip netns pids "$h" 2>/dev/null); do
            [[ $(cat "/proc/$p/comm" 2>/dev/null) == @(slurm*|munged) ]] || echo "$p"
        done
    done | wc -l
}

# A link that dies mid-run: Barrier finishes, then node2's link goes down
# during PingPong; the stall limit ends the job. Arguments: the leg's name,
# a label, the launcher's expected exit code (a regex), then the command up to `run`
# (the benchmarks and options follow). Passes when the launcher returns
# that code, the stall line is there, the JSON says "aborted" and keeps
# Barrier, and the last process on any host is gone within the effective
# limit the stall line states (max(S, 20 x the slowest batch)) plus the
# grace: the stalled rank's 2 s (a rank other than 0), the teardown
# helper's 4 s (MPI_Abort's 3 s deadline + 1 s) and its 1 s from SIGTERM
# to SIGKILL of a daemon, 1 s for the launcher, and 4 s of slack for a
# loaded machine.
link_down() {
    local name=$1 label=$2 want=$3 limit=3 t0 t1 t2 rc n=1 took gone eff job
    shift 3
    rm -f x.json
    on1 "$@" Barrier PingPong --sizes 4M --iter 300 --stall-limit $limit --json x.json >x.out 2>x.err &
    job=$!
    for _ in $(seq 1 600); do
        grep -q '"benchmark": "Barrier"' x.json 2>/dev/null && break
        kill -0 $job 2>/dev/null || break
        sleep 0.1
    done
    $cluster link node2 down
    t0=$(date +%s.%N)
    set +e
    wait $job
    rc=$?
    set -e
    t1=$(date +%s.%N)
    for _ in $(seq 1 100); do
        n=$(left_job)
        ((n == 0)) && break
        sleep 0.2
    done
    t2=$(date +%s.%N)
    $cluster link node2 up
    took=$(python3 -c "import sys; print(round(float(sys.argv[2]) - float(sys.argv[1]), 1))" "$t0" "$t1")
    gone=$(python3 -c "import sys; print(round(float(sys.argv[2]) - float(sys.argv[1]), 1))" "$t0" "$t2")
    # (No stall line, e.g. a launcher that killed the ranks first: the case
    # fails below with its output, rather than ending the script here.)
    eff=$(grep -o 'stall limit [0-9.]* s' x.err | head -1 | awk '{print $3}' || true)
    [[ -n $eff ]] || eff=$limit
    if [[ $rc =~ ^($want)$ ]] && python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) <= $eff + 2 + 4 + 1 + 1 + 4 else 1)" "$gone" &&
        [[ $(J x.json 'd["status"], [r["benchmark"] for r in d["results"]]') == "aborted ['Barrier']" ]] &&
        grep -Eq '^error: stalled: PingPong(, 4194304 bytes,)? (on )?2 processes on node1 \(rank 0\), node2 \(rank 1\)' x.err &&
        ((n == 0)); then
        ok "$name: link down mid-run ($label): exit $rc after $took s, last process gone after $gone s (stall limit $limit s, effective $eff s, + grace 8 s), status aborted, Barrier kept"
    else
        bad "$name: link down mid-run ($label): rc $rc (want $want), $took s, last process after $gone s against the effective limit $eff s + grace, $n processes left"
        show x.out x.err
        # Nothing left for the next case (Slurm's daemons would go too).
        [[ $name == slurm ]] || $cluster up 3 node3=$RATE >/dev/null
    fi
}

leg() {
    local name=$1 bin=$2 mpiexec=$3 t=$work/$1
    mkdir -p "$t"
    cd "$t"
    export MPIBENCH_MPIEXEC=$mpiexec

    # 1. Self-launch across hosts; the hosts in the JSON and the table header.
    if on1 "$bin" run --hosts node1:2,node2:2 PingPong Allreduce --sizes 8 --iter 20 --json h.json >h.out 2>h.err &&
        [[ $(J h.json 'd["hosts"]') == "['node1', 'node2']" ]] &&
        [[ $(J h.json 'd["ranks_per_host"]') == "[2, 2]" ]] &&
        [[ $(J h.json 'd["results"][-1]["hosts"]') == "['node1', 'node1', 'node2', 'node2']" ]] &&
        grep -q '^# hosts: node1 (ranks 0, 1); pairs intra-host' h.out; then
        ok "$name: --hosts node1:2,node2:2: hosts [node1, node2], ranks_per_host [2, 2]"
    else
        bad "$name: --hosts node1:2,node2:2"; show h.out h.err
    fi
    # A hostfile in both launchers' line formats (HOST slots=N, HOST:N), and
    # the stall limit turned off; bad stall limits are usage errors.
    printf '# two hosts\nnode1 slots=2\nnode2:2\n' >hosts.txt
    if on1 "$bin" run --hostfile hosts.txt --stall-limit 0 PingPong --sizes 8 --iter 5 --json f.json >f.out 2>f.err &&
        [[ $(J f.json 'd["hosts"], d["ranks_per_host"], d["status"]') == "['node1', 'node2'] [2, 2] ok" ]]; then
        ok "$name: --hostfile (slots=2, :2) with --stall-limit 0: hosts [node1, node2], ranks_per_host [2, 2]"
    else
        bad "$name: --hostfile with --stall-limit 0"; show f.out f.err
    fi
    local v rc
    for v in -1 x 1e9; do
        rc=0
        on1 "$bin" run --hosts node1:1,node2:1 --stall-limit "$v" PingPong --sizes 8 >l.out 2>l.err || rc=$?
        if [[ $rc == 2 ]] && [[ $(wc -l <l.err) == 1 ]] && grep -q '^error: .*--stall-limit' l.err && [[ ! -s l.out ]]; then
            ok "$name: --stall-limit $v: exit 2, one line"
        else
            bad "$name: --stall-limit $v (rc $rc)"; show l.out l.err
        fi
    done
    if on1 "$bin" run --hosts node1:2,node2:2 --dry-run PingPong >d.out 2>&1 &&
        grep -Eq -- "$mpiexec -n 4 .*(--host|-hosts) node1:2,node2:2 " d.out && ! grep -q -- '--dry-run' d.out &&
        ! grep -q -- '-bind-to' d.out; then
        ok "$name: --dry-run prints the mpiexec line (the environment's binding wins): $(cut -c1-90 d.out)..."
    else
        bad "$name: --dry-run"; show d.out
    fi

    # 2. Inter- against intra-host pairs at 8 bytes: the best repetitions
    # (the shortest round trip of the initiating rank, from --raw), which a
    # busy machine can only lengthen.
    local p
    for p in inter intra; do
        on1 "$bin" run --hosts node1:2,node2:2 --pairs $p PingPong --sizes 8 --iter 300 --timing per-call \
            --json "p_$p.json" --raw "p_$p.csv" >"p_$p.out" 2>"p_$p.err" || true
    done
    best() {
        python3 - "$1" "$2" <<'PY' 2>/dev/null || echo nan
import csv, json, sys
first = json.load(open(sys.argv[1]))["results"][0]["ranks"][0]
t = [float(r["end_s"]) - float(r["start_s"]) for r in csv.DictReader(open(sys.argv[2])) if int(r["rank"]) == first]
print(round(min(t) * 1e6 / 2, 3))
PY
    }
    local ti ta
    ti=$(best p_inter.json p_inter.csv)
    ta=$(best p_intra.json p_intra.csv)
    if [[ $(J p_inter.json 'd["results"][0]["pair"], d["results"][0]["hosts"]' 2>/dev/null) == "inter ['node1', 'node2']" ]] &&
        [[ $(J p_intra.json 'd["results"][0]["pair"], d["results"][0]["hosts"]' 2>/dev/null) == "intra ['node1', 'node1']" ]] &&
        python3 -c "import sys; i, a = map(float, sys.argv[1:]); sys.exit(0 if i >= 3 * a else 1)" "$ti" "$ta"; then
        ok "$name: PingPong 8 B, best repetition: --pairs inter $ti us >= 3 x --pairs intra $ta us"
    else
        bad "$name: --pairs inter ($ti us) against intra ($ta us)"; show p_inter.out p_inter.err p_intra.out p_intra.err
    fi
    # A placement the hosts cannot give is skipped with its reason.
    if on1 "$bin" run --hosts node1:1,node2:1 --pairs intra PingPong --sizes 8 --iter 5 --json s.json >s.out 2>s.err &&
        J s.json 'd["results"][0]["skipped"]' | grep -q 'pairs intra cannot be met'; then
        ok "$name: --pairs intra on one rank per host: skipped with the reason"
    else
        bad "$name: --pairs intra skip"; show s.out s.err
    fi

    # 3. The shaped link: PingPong at 4 MiB, the best repetition against the wire rate.
    local ratio
    on1 "$bin" run --hosts node1:1,node3:1 PingPong --sizes 4M --iter 3 --timing per-call --json w.json >w.out 2>w.err || true
    ratio=$(J w.json "round(4194304 / (d['results'][0]['rows'][0]['t_p5_us'] * 1e-6) * 8 / $RATE_BITS, 3)" 2>/dev/null || echo nan)
    if python3 -c "import sys; r = float(sys.argv[1]); sys.exit(0 if 0.90 <= r <= 1.02 else 1)" "$ratio"; then
        ok "$name: PingPong 4 MiB over the shaped link: $ratio of the wire rate"
    else
        bad "$name: PingPong 4 MiB over the shaped link: $ratio of the wire rate"; show w.out w.err
    fi

    # 4. The all-pairs matrix finds node3, and only node3; --fail-on-outlier makes it exit 6.
    set +e
    on1 "$bin" mpigraph 1M 3 2 --hosts node1:1,node2:1,node3:1 --json g.json --fail-on-outlier >g.out 2>g.err
    local rc=$?
    set -e
    if [[ $rc == 6 ]] && grep -q 'outliers (--fail-on-outlier)' g.err &&
        [[ $(J g.json '[(o["kind"], o["hosts"]) for o in d["results"][0]["outliers"]]') == "[('host', ['node3'])]" ]] &&
        [[ $(J g.json 'len(d["results"][0]["matrix"]["recv_mbs"])') == 3 ]] &&
        grep -q '^node1:0 to' g.out && grep -q '^# Outlier: host node3 (inter)' g.out; then
        ok "$name: mpigraph: $(grep '^# Outlier' g.out); --fail-on-outlier: exit 6"
    else
        bad "$name: mpigraph outliers (rc $rc)"; show g.out g.err
    fi

    # 5. A link that dies mid-run, under self-launch (mpibench's parent ends
    # mpiexec) and under the user's own mpiexec, one rank per host (the
    # ranks and mpibench's teardown helpers end the launcher and its daemons).
    link_down "$name" "self-launch" 3 "$bin" run --hosts node1:1,node2:1
    if [[ $mpiexec == *openmpi* ]]; then
        # Open MPI's mpiexec waits forever for the daemon behind the dead
        # link: the helper of rank 0 (its child) kills it, 137 (SIGKILL).
        link_down "$name" "$mpiexec --host node1,node2 -n 2 mpibench run" 137 "$mpiexec" --host node1,node2 -n 2 "$bin" run
    else
        link_down "$name" "$mpiexec -hosts node1,node2 -n 2 mpibench run" 3 "$mpiexec" -hosts node1,node2 -n 2 "$bin" run
    fi
    cd "$work"
}

leg openmpi "$ompi" mpiexec.openmpi
if [[ -x "$mpich" ]]; then
    leg mpich "$mpich" mpiexec.mpich
else
    echo "skip - MPICH leg: $mpich not built (make test-mpich builds it)"
fi

# 6. Multi-node Slurm in the cluster: slurmctld on node1, a slurmd per host.
if command -v slurmctld >/dev/null && command -v slurmd >/dev/null && command -v munged >/dev/null; then
    sl=$MPIBENCH_CLUSTER_STATE/srun
    if $cluster slurm up >"$work/slurm-up.out" 2>&1; then
        mkdir -p "$sl"
        conf=$MPIBENCH_CLUSTER_STATE/slurm/slurm.conf
        cd "$sl"
        # The Slurm hosts have a /tmp of their own: a checkout under /tmp
        # (a CI clone) is not there, so srun starts copies from the state directory.
        cp "$ompi" "$sl/mpibench-openmpi"
        [[ -x "$mpich" ]] && cp "$mpich" "$sl/mpibench-mpich"
        if timeout 120 $cluster exec env SLURM_CONF="$conf" srun -N 2 -n 4 "$sl/mpibench-openmpi" run PingPong --check \
            --sizes 8,1M --iter 20 --json "$sl/o.json" >"$sl/o.out" 2>"$sl/o.err" &&
            [[ $(J "$sl/o.json" 'd["hosts"], d["ranks_per_host"], d["status"], d["slurm"]["nodelist"]') == "['node1', 'node2'] [2, 2] ok node[1-2]" ]]; then
            ok "slurm: srun -N 2 -n 4 mpibench run PingPong --check (Open MPI, PMIx): two hosts"
        else
            bad "slurm: srun -N 2 -n 4 (Open MPI)"; show "$sl/o.out" "$sl/o.err"
        fi
        if [[ -x "$mpich" ]]; then
            if timeout 120 $cluster exec env SLURM_CONF="$conf" srun --mpi=pmi2 -N 2 -n 4 "$sl/mpibench-mpich" run PingPong --check \
                --sizes 8,1M --iter 20 --json "$sl/m.json" >"$sl/m.out" 2>"$sl/m.err" &&
                [[ $(J "$sl/m.json" 'd["hosts"], d["ranks_per_host"], d["status"]') == "['node1', 'node2'] [2, 2] ok" ]]; then
                ok "slurm: srun --mpi=pmi2 -N 2 -n 4 mpibench run PingPong --check (MPICH): two hosts"
            else
                bad "slurm: srun --mpi=pmi2 -N 2 -n 4 (MPICH)"; show "$sl/m.out" "$sl/m.err"
            fi
        fi
        # A link that dies under srun: srun ends the step (after Slurm's
        # KillWait, 5 s here, for the host it cannot reach). Its exit code is
        # the rank's 3, or 137 when slurmstepd killed the task in MPI_Abort
        # first (MPICH); node2's slurmstepd stays until the link is back.
        link_down slurm "srun -N 2 -n 2, Open MPI" 3 env SLURM_CONF="$conf" srun -N 2 -n 2 "$sl/mpibench-openmpi" run
        if [[ -x "$mpich" ]]; then
            link_down slurm "srun --mpi=pmi2 -N 2 -n 2, MPICH" "3|137" env SLURM_CONF="$conf" srun --mpi=pmi2 -N 2 -n 2 "$sl/mpibench-mpich" run
        fi
        cd "$work"
    else
        bad "slurm: scripts/cluster.sh slurm up"; show "$work/slurm-up.out"
    fi
else
    echo "skip - multi-node Slurm: slurmctld/slurmd/munged not installed (scripts/install-deps.sh --slurm)"
fi

# 7. down: idempotent, nothing left, also after a script that failed half-way.
$cluster down && $cluster down
(
    trap '$cluster down >/dev/null 2>&1' EXIT
    $cluster up 2 >/dev/null
    false
) || true
# A failed `up` (a rate that is no rate) makes nothing and leaves no lock.
$cluster up 2 node1=fast >/dev/null 2>&1 || true
if ! ip netns list | grep -Eq '^(node[0-9]+|mpibench-sw)( |$)' && [[ ! -e $MPIBENCH_CLUSTER_STATE ]] &&
    [[ ! -e $MPIBENCH_CLUSTER_STATE.lock ]] && ! pgrep -f "$MPIBENCH_CLUSTER_STATE/slurm" >/dev/null; then
    ok "down: idempotent, no namespace, state directory or lock file left, also after a failed script"
else
    bad "down left: $(ip netns list | tr '\n' ' ') $(ls -d "$MPIBENCH_CLUSTER_STATE"* 2>/dev/null | tr '\n' ' ')"
fi

echo "cluster: $passed passed, $failed failed"
((failed == 0))
