#!/usr/bin/env bash
# ReFrame against an installed mpibench (make test-packaging):
#   1. ReFrame's own hpctestlib OSU checks (tests/fixtures/reframe/osu.py,
#      unchanged): the four osu_run checks against make install's prefix;
#   2. contrib/reframe/mpibench.py's checks (JSON sanity and performance),
#      launches 1 and 2;
#   3. planted failures, each a ReFrame failure: a validation error (mpibench's
#      hidden --corrupt) and a figure outside its reference;
# on the local system (scheduler local, launcher mpirun) and under the test
# Slurm of tests/slurm.sh (scripts/slurm.sh with job accounting: ReFrame's
# slurm scheduler, which polls jobs with sacct, and its srun launcher), under
# Open MPI and, when its binary is there, MPICH (srun through PMI2). A step
# that cannot run says why.
#
#   tests/reframe.sh OPENMPI_BINARY [MPICH_BINARY]
#   REFRAME: the reframe command (default: a venv in target/reframe-venv,
#   made with pip install reframe-hpc==4.10.4)
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
ompi=$(realpath "${1:?usage: tests/reframe.sh OPENMPI_BINARY [MPICH_BINARY]}")
mpich=$(realpath -m "${2:-$root/target/mpich/release/mpibench}")
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
passed=0 failed=0
ok() { echo "ok - $*"; passed=$((passed + 1)); }
bad() { echo "FAIL - $*"; failed=$((failed + 1)); }
show() { sed 's/^/    | /' "$@" | tail -n 25; }

reframe=${REFRAME:-}
if [ -z "$reframe" ]; then
    venv=$root/target/reframe-venv
    if [ ! -x "$venv/bin/reframe" ]; then
        python3 -m venv "$venv" && "$venv/bin/pip" install -q reframe-hpc==4.10.4 ||
            { echo "SKIP - ReFrame: pip install reframe-hpc into $venv failed (no PyPI here?)"; exit 0; }
    fi
    reframe=$venv/bin/reframe
fi
work=$(mktemp -d /tmp/mpibench-reframe.XXXXXX)
trap 'rm -rf "$work"' EXIT
config=$root/contrib/reframe/config/site.py
# hpctestlib's checks leave valid_systems to the site; num_tasks is theirs
# to require for the collectives; fewer iterations than ReFrame's 1000 keep
# osu_bw's 4 MiB windows short on a loaded CI machine (the checks' code is
# unchanged: these are their variables).
# The test Slurm has one node: the point-to-point checks' one task per node
# becomes two.
osu_vars=(-S valid_systems='*' -S valid_prog_environs='*' -S num_tasks=2
    -S num_tasks_per_node=2 -S num_iters=5 -S num_warmup_iters=1)
system=local

rfm() { # rfm LOG ARGS...: reframe on the local system, in $work
    local log=$1; shift
    (cd "$work" && MPIBENCH_PREFIX=$prefix MPIBENCH_EXTRA_PATH=$shims \
        timeout 600 "$reframe" -C "$config" --system "$system" "$@" >"$log" 2>&1)
}

leg() { # leg NAME BINARY MPIEXEC: on $system
    local name=$1 bin=$2 mpiexec=$3
    prefix=$work/$name-prefix shims=$work/$name-shims
    if [ ! -d "$prefix" ]; then
        # A wrapper, not a link: MPICH's mpiexec finds hydra_pmi_proxy beside argv[0].
        mkdir -p "$shims" && printf '#!/bin/sh\nexec %s "$@"\n' "$(command -v "$mpiexec")" >"$shims/mpirun" &&
            chmod +x "$shims/mpirun"
        make -C "$root" --no-print-directory install PREFIX="$prefix" NO_BUILD=1 INSTALL_BIN="$bin" >/dev/null ||
            { bad "$name: make install"; return; }
    fi
    name="$name@$system"
    export MPIBENCH_MPIEXEC=$mpiexec
    if rfm "$work/$name-osu.log" -c "$root/tests/fixtures/reframe/osu.py" -n '^osu_run' "${osu_vars[@]}" -r &&
        grep -q 'Ran 4/4 test case(s) from 4 check(s) (0 failure(s)' "$work/$name-osu.log"; then
        ok "$name: ReFrame's hpctestlib osu_run (osu_latency, osu_bw, osu_allreduce, osu_alltoall) pass on the installed prefix"
    else
        bad "$name: hpctestlib osu_run"; show "$work/$name-osu.log"
    fi
    if rfm "$work/$name-mpibench.log" -c "$root/contrib/reframe/mpibench.py" -P launches=1,2 -r &&
        grep -q 'Ran 4/4 test case(s)' "$work/$name-mpibench.log" && grep -q 'PingPong_1024B_ci95_hi' "$work/$name-mpibench.log"; then
        ok "$name: contrib/reframe mpibench_check (imb, osu; launches 1, 2) pass"
    else
        bad "$name: contrib/reframe mpibench_check"; show "$work/$name-mpibench.log"
    fi
}

leg openmpi "$ompi" mpiexec.openmpi
# The planted failures (Open MPI's prefix).
prefix=$work/openmpi-prefix shims=$work/openmpi-shims
if ! rfm "$work/corrupt.log" -c "$root/contrib/reframe/mpibench.py" -n '%suite_benchmarks=imb' -S extra_opts=--corrupt -r &&
    grep -q 'FAILED' "$work/corrupt.log" && grep -Eq 'validation errors|mpibench exited' "$work/corrupt.log"; then
    ok "a validation error (--corrupt) is a ReFrame failure"
else
    bad "--corrupt not reported as a ReFrame failure"; show "$work/corrupt.log"
fi
echo '{"PingPong_1024B_median": [0.000001, null, 0.1, "us"]}' >"$work/ref.json"
if ! rfm "$work/ref.log" -c "$root/contrib/reframe/mpibench.py" -n '%suite_benchmarks=imb' -S reference_file="$work/ref.json" -r &&
    grep -q 'FAILED' "$work/ref.log" && grep -qi 'performance' "$work/ref.log"; then
    ok "a figure outside its reference is a ReFrame (performance) failure"
else
    bad "a figure outside its reference not reported"; show "$work/ref.log"
fi
if [ -x "$mpich" ]; then
    leg mpich "$mpich" mpiexec.mpich
else
    echo "SKIP - MPICH: $mpich not built (make test-binaries builds it)"
fi
# Under Slurm: contrib/reframe/config/site.py's 'cluster' system.
missing=""
for t in slurmctld slurmd slurmdbd mariadbd sbatch sacct munged; do
    command -v "$t" >/dev/null || missing="$missing $t"
done
if [ -n "$missing" ]; then
    echo "SKIP - Slurm: not installed here ($missing; scripts/install-deps.sh --slurm)"
else
    export MPIBENCH_SLURM_DIR=$work/slurm MPIBENCH_SLURM_ACCOUNTING=1
    trap 'bash "$root/scripts/slurm.sh" down >/dev/null 2>&1; rm -rf "$work"' EXIT
    if up=$(bash "$root/scripts/slurm.sh" up 2>&1); then
        eval "$(grep '^export SLURM_CONF=' <<<"$up")"
        system=cluster
        leg openmpi "$ompi" mpiexec.openmpi
        if [ -x "$mpich" ]; then
            export SLURM_MPI_TYPE=pmi2
            leg mpich "$mpich" mpiexec.mpich
            unset SLURM_MPI_TYPE
        fi
        bash "$root/scripts/slurm.sh" down >/dev/null 2>&1
    else
        bad "Slurm: the test cluster (with accounting) did not start"; printf '%s\n' "$up" >"$work/slurm-up.log"; show "$work/slurm-up.log"
    fi
fi
echo "reframe: $passed passed, $failed failed"
[ "$failed" = 0 ]
