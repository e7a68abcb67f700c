#!/usr/bin/env bash
# mpibench under a real Slurm: a private one-node cluster from Debian's
# packages (scripts/slurm.sh), started here and stopped on every exit (trap),
# also when a case fails or the script is interrupted.
#
#   srun -n 2 mpibench run PingPong --check          srun starts the ranks (PMIx), no re-launch
#   salloc -n 2 mpiexec mpibench run PingPong        a launcher inside the allocation, no re-launch
#   salloc -n 2 mpibench run -n 2 PingPong           the self-launch uses the allocation
#   salloc -n 2 mpibench run -n 2 --launches 2 ...   every launch in the allocation, combined
#   salloc -n 2 mpibench tune Allreduce -n 2 ...     tune's launches in the allocation
#   ... and the interactive step, IMB output under srun, MPICH through PMI2,
#   and the one-line error when srun's tasks did not get a PMI.
#
# Usage: tests/slurm.sh [OPENMPI_BINARY [MPICH_BINARY]]
#   defaults: target/release/mpibench, target/mpich/release/mpibench (MPICH
#   cases are skipped, with a line saying so, when that binary is missing).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ompi=$(realpath "${1:-$root/target/release/mpibench}")
mpich=$(realpath -m "${2:-$root/target/mpich/release/mpibench}")
[[ -x "$ompi" ]] || { echo "slurm: $ompi not built (make build)" >&2; exit 1; }

work=$(mktemp -d /tmp/mpibench-slurm-test.XXXXXX)
export MPIBENCH_SLURM_DIR=$work/cluster
cleanup() {
    bash "$root/scripts/slurm.sh" down >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

eval "$(bash "$root/scripts/slurm.sh" up)"
echo "slurm: cluster up ($SLURM_CONF): $(sinfo -h -o '%P %D %T %c CPUs')"

# The ranks' environment: run as root where CI does; no inherited launcher
# variables; no oversubscription, so that the allocation's slots count.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
unset OMPI_MCA_rmaps_base_oversubscribe MPIBENCH_MPIEXEC MPIBENCH_LAUNCHED MPIBENCH_ARGV0 \
    OMPI_COMM_WORLD_SIZE PMI_RANK PMI_SIZE PMIX_RANK SLURM_JOB_ID SLURM_STEP_ID SLURM_PROCID || true

passed=0 failed=0
ok() { echo "ok - $*"; passed=$((passed + 1)); }
bad() { echo "FAIL - $*"; failed=$((failed + 1)); }
T() { timeout 300 "$@"; }
# The value of a JSON field (first occurrence), e.g. jget f.json world_size.
jget() { sed -n "s/^ *\"$2\": \"\{0,1\}\([^\",]*\)\"\{0,1\},\{0,1\}$/\1/p" "$1" | head -n1; }
show() { sed 's/^/    | /' "$@" | tail -n 15; }

# ---------------------------------------------------------------- Open MPI
cd "$work"

# 1. srun starts the two ranks itself (PMIx); mpibench never re-launches.
if T srun -n 2 "$ompi" run PingPong --check --sizes 0,1K --iter 20 --json s1.json >s1.out 2>s1.err &&
    [[ "$(jget s1.json world_size)" == 2 && "$(jget s1.json status)" == ok ]] &&
    [[ -n "$(jget s1.json step_id)" && -n "$(jget s1.json job_id)" ]] &&
    [[ $(grep -c '^# Benchmarking PingPong' s1.out) == 1 ]]; then
    ok "srun -n 2 mpibench run PingPong --check (job $(jget s1.json job_id), step $(jget s1.json step_id))"
else
    bad "srun -n 2 mpibench run PingPong --check"; show s1.out s1.err
fi
# ... and -n asks for a re-launch it does not get: srun's two ranks run.
if T srun -n 2 "$ompi" run -n 3 PingPong --sizes 8 --iter 5 --json s2.json >s2.out 2>s2.err &&
    grep -q -- '-n 3 ignored: the launcher started 2 processes' s2.err &&
    [[ "$(jget s2.json world_size)" == 2 ]]; then
    ok "srun -n 2 mpibench run -n 3: no re-launch, -n ignored with a warning"
else
    bad "srun -n 2 mpibench run -n 3"; show s2.out s2.err
fi

# 2. A launcher inside an allocation: mpiexec starts the ranks, no re-launch.
if T salloc -n 2 bash -c "echo \"\$SLURM_JOB_ID\" >a1.job; exec mpiexec.openmpi '$ompi' run PingPong --sizes 0,1K --iter 20 --json a1.json" \
    >a1.out 2>a1.err &&
    [[ "$(jget a1.json world_size)" == 2 && "$(jget a1.json job_id)" == "$(cat a1.job)" ]] &&
    [[ $(grep -c '^# Benchmarking PingPong' a1.out) == 1 ]]; then
    ok "salloc -n 2 mpiexec mpibench run PingPong (job $(cat a1.job))"
else
    bad "salloc -n 2 mpiexec mpibench run PingPong"; show a1.out a1.err
fi

# 3. Self-launch inside an allocation: through the allocation's slots.
if T salloc -n 2 bash -c "echo \"\$SLURM_JOB_ID\" >a2.job; exec '$ompi' run -n 2 PingPong --sizes 0,1K --iter 20 --json a2.json" \
    >a2.out 2>a2.err &&
    [[ "$(jget a2.json world_size)" == 2 && "$(jget a2.json job_id)" == "$(cat a2.job)" ]]; then
    ok "salloc -n 2 mpibench run -n 2 PingPong: the ranks run in allocation $(cat a2.job)"
else
    bad "salloc -n 2 mpibench run -n 2 PingPong"; show a2.out a2.err
fi
# ... --launches 2 runs both launches in the allocation and combines them ...
if T salloc -n 2 bash -c "echo \"\$SLURM_JOB_ID\" >a4.job; exec '$ompi' run -n 2 --launches 2 PingPong --sizes 0,1K --iter 20 --json a4.json" \
    >a4.out 2>a4.err &&
    python3 - a4.json "$(cat a4.job)" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["status"] == "ok" and d["slurm"]["job_id"] == sys.argv[2], (d["status"], d.get("slurm"))
assert [l["launch"] for l in d["launches"]] == [1, 2], d["launches"]
rows = d["results"][0]["rows"]
assert rows and all(len(r["launch_medians_us"]) == 2 for r in rows), rows
EOF
then
    ok "salloc -n 2 mpibench run -n 2 --launches 2: both launches in allocation $(cat a4.job), combined"
else
    bad "salloc -n 2 mpibench run -n 2 --launches 2"; show a4.out a4.err
fi
# ... mpibench tune's launches, one per algorithm, run in the allocation too ...
if T salloc -n 2 bash -c "echo \"\$SLURM_JOB_ID\" >a6.job; exec '$ompi' tune Allreduce -n 2 --sizes 8 --iter 5 --rules a6.conf --json a6.json" \
    >a6.out 2>a6.err &&
    python3 - a6.json a6.conf <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
assert open(sys.argv[2]).read().strip(), "empty rules file"
assert "Allreduce" in json.dumps(d), d
EOF
then
    ok "salloc -n 2 mpibench tune Allreduce -n 2: every launch in allocation $(cat a6.job), rules written"
else
    bad "salloc -n 2 mpibench tune Allreduce -n 2"; show a6.out a6.err
fi
# ... without -n it starts the allocation's tasks (not one per core) ...
if T salloc -n 1 "$ompi" run Barrier --iter 5 --json a3.json >a3.out 2>a3.err &&
    [[ "$(jget a3.json world_size)" == 1 ]]; then
    ok "salloc -n 1 mpibench run: 1 rank, the allocation's task count"
else
    bad "salloc -n 1 mpibench run did not start the allocation's tasks"; show a3.out a3.err
fi
# ... and more ranks than the allocation has are refused in one line.
set +e
T salloc -n 1 "$ompi" run -n 2 PingPong --sizes 8 --iter 5 >a5.out 2>a5.err
rc=$?
set -e
if [[ $rc == 2 ]] && grep -q '^error: -n 2 is more than the 1 task of Slurm job' a5.err; then
    ok "salloc -n 1 mpibench run -n 2: refused ($(grep '^error' a5.err))"
else
    bad "salloc -n 1 mpibench run -n 2 (rc $rc)"; show a5.out a5.err
fi

# 4. An interactive step (salloc with LaunchParameters=use_interactive_step
#    puts the shell in step 4294967290): that is no srun task, so mpibench
#    re-launches into the allocation instead of running as a world of 1.
if T salloc -n 2 env SLURM_STEP_ID=4294967290 SLURM_STEPID=4294967290 SLURM_PROCID=0 \
    "$ompi" run -n 2 PingPong --sizes 8 --iter 5 --json a4.json >a4.out 2>a4.err &&
    [[ "$(jget a4.json world_size)" == 2 ]]; then
    ok "interactive step: mpibench run -n 2 launches 2 ranks"
else
    bad "interactive step: mpibench run -n 2"; show a4.out a4.err
fi

# 5. IMB-MPI1's command line and tables under srun.
if T srun -n 2 "$ompi" imb -msglog 0:4 -iter 50 PingPong Allreduce >i1.out 2>i1.err &&
    [[ $(grep -c '^# Benchmarking ' i1.out) == 2 ]] && grep -q '^# #processes = 2 $' i1.out &&
    grep -q '^# All processes entering MPI_Finalize$' i1.out; then
    ok "srun -n 2 mpibench imb -msglog 0:4 PingPong Allreduce"
else
    bad "srun -n 2 mpibench imb"; show i1.out i1.err
fi

# 6. Open MPI without PMIx (srun --mpi=pmi2): Debian's Open MPI has no PMI-1/2
#    client, so its MPI_Init fails; this documents that the direct launch
#    needs --mpi=pmix (the cluster's default).
if ! T srun --mpi=pmi2 -n 2 "$ompi" run PingPong --sizes 8 --iter 5 >o1.out 2>o1.err; then
    ok "Open MPI under srun --mpi=pmi2 fails in MPI_Init (Debian's Open MPI speaks PMIx only)"
else
    bad "Open MPI under srun --mpi=pmi2 unexpectedly ran"; show o1.out o1.err
fi

# ------------------------------------------------------------------ MPICH
if [[ -x "$mpich" ]]; then
    # Debian's MPICH speaks PMI-1/2 (not PMIx): srun --mpi=pmi2.
    if T srun --mpi=pmi2 -n 2 "$mpich" run PingPong --check --sizes 0,1K --iter 20 --json m1.json >m1.out 2>m1.err &&
        [[ "$(jget m1.json world_size)" == 2 && "$(jget m1.json status)" == ok ]] &&
        grep -q MPICH m1.json; then
        ok "MPICH: srun --mpi=pmi2 -n 2 mpibench run PingPong --check"
    else
        bad "MPICH: srun --mpi=pmi2 -n 2 mpibench run PingPong --check"; show m1.out m1.err
    fi
    # Under PMIx each MPICH task is a world of 1: one line, exit 2, nothing run twice.
    set +e
    T srun --mpi=pmix -n 2 "$mpich" run PingPong --sizes 8 --iter 5 >m2.out 2>m2.err
    rc=$?
    set -e
    if [[ $rc == 2 ]] && [[ $(grep -c 'each is an MPI world of 1' m2.err) == 1 ]] && [[ ! -s m2.out ]]; then
        ok "MPICH under srun --mpi=pmix: one line, exit 2 ($(grep -o 'srun started.*world of 1' m2.err))"
    else
        bad "MPICH under srun --mpi=pmix (rc $rc)"; show m2.out m2.err
    fi
    if T salloc -n 2 bash -c "echo \"\$SLURM_JOB_ID\" >m3.job; exec mpiexec.mpich '$mpich' run PingPong --sizes 8 --iter 5 --json m3.json" \
        >m3.out 2>m3.err &&
        [[ "$(jget m3.json world_size)" == 2 && "$(jget m3.json job_id)" == "$(cat m3.job)" ]]; then
        ok "MPICH: salloc -n 2 mpiexec mpibench run PingPong"
    else
        bad "MPICH: salloc -n 2 mpiexec mpibench run PingPong"; show m3.out m3.err
    fi
else
    echo "skip - MPICH cases: $mpich not built (make test-mpich builds it)"
fi

echo "slurm: $passed passed, $failed failed"
((failed == 0))
