#!/usr/bin/env bash
# tests/robustness.sh N times in a row while another job keeps every core
# busy (issue 23's bar: the robustness cases hold on a loaded machine).
#
#   scripts/robustness-under-load.sh [BINARY] [RUNS]
#   env MPIBENCH_MPIEXEC   the launcher (default mpiexec.openmpi)
#   env LOAD               the load command (default: stress-ng --cpu N, one
#                          worker per core; without stress-ng, N busy shells)
#   logs                   /tmp/robustness-load-<launcher>-<run>.log
#
# Stops at the first run that fails; exit 0 only when all RUNS passed.
set -u
BIN=${1:-./target/release/mpibench}
RUNS=${2:-3}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# One log per launcher and run, so that two MPIs' legs can run side by side.
TAG=$(basename "${MPIBENCH_MPIEXEC:-mpiexec.openmpi}")
cores=$(nproc)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1

if [[ -n ${LOAD:-} ]]; then
    setsid bash -c "$LOAD" >/dev/null 2>&1 &
elif command -v stress-ng >/dev/null; then
    setsid stress-ng --cpu "$cores" --timeout 0 >/dev/null 2>&1 &
else
    setsid bash -c "for i in \$(seq $cores); do while :; do :; done & done; wait" >/dev/null 2>&1 &
fi
load=$!
trap 'kill -- -$load 2>/dev/null; wait $load 2>/dev/null' EXIT
sleep 1
echo "load: pid $load on $cores cores ($(uptime | sed 's/.*load/load/'))"
for ((i = 1; i <= RUNS; i++)); do
    t0=$(date +%s)
    if bash "$ROOT/tests/robustness.sh" "$BIN" >"/tmp/robustness-load-$TAG-$i.log" 2>&1; then
        echo "run $i of $RUNS: passed in $(($(date +%s) - t0)) s ($(grep -E '^robustness: [0-9]+ cases' "/tmp/robustness-load-$TAG-$i.log"))"
    else
        echo "run $i of $RUNS: FAILED after $(($(date +%s) - t0)) s; see /tmp/robustness-load-$TAG-$i.log:"
        grep -E '^FAIL' "/tmp/robustness-load-$TAG-$i.log"
        exit 1
    fi
done
echo "all $RUNS runs passed under load ($(uptime | sed 's/.*load/load/'))"
