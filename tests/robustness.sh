#!/usr/bin/env bash
# Robustness tests of mpibench with a real launcher: bad input, skipped
# benchmarks, the memory limit, the watchdog, crash safety of the JSON file,
# failures on a rank, strict and non-strict validation, exit codes, and
# (opt-in, MPIBENCH_LARGE=1) messages beyond 2 GiB.
#
# Usage: bash tests/robustness.sh [path/to/mpibench]
#   env MPIBENCH_MPIEXEC  launcher (default mpiexec.openmpi)
#   env MPIBENCH_LARGE=1  also run the 2 GiB + 8 bytes case (needs ~10 GB RAM)
#   env CASE_TIMEOUT      seconds before a case counts as a hang (default 60)
#   env BAD_TIMEOUT       the same for each bad-input case (default 20)
#   env LARGE_TIMEOUT     the same for the large-message case (default 900)
#   env ROBUSTNESS_ONLY   an extended regex: only the case calls (the lines
#                         `case_... ARGS` and `bad NAME ...` of this script)
#                         whose text matches it run, e.g. 'same file|signal'
#
# Exit codes of mpibench: 0 ok, 1 validation errors, 2 usage errors,
# 3 a benchmark or rank aborted (also a failed write), 4 the launcher failed
# or started no rank, 5 MPI could not start, 128+N interrupted by signal N.
# Every case runs in its own temporary directory and under a time limit; a
# case that needs it is reported as "FAIL name: hang".
#
# The launcher decides the MPI: run the script once per build, e.g.
#   MPIBENCH_MPIEXEC=mpiexec.openmpi bash tests/robustness.sh target/release/mpibench
#   MPIBENCH_MPIEXEC=mpiexec.mpich   bash tests/robustness.sh target/mpich/release/mpibench
# Cases that need the other MPI's launcher (wrong-launcher cases) use
# mpiexec.mpich / mpiexec.openmpi when installed and are skipped otherwise.
# Cases that need mount namespaces (full tmpfs, read-only TMPDIR) need root
# and `unshare`; mounts never leave the case's own namespace. Cases that
# make device nodes (mknod, in the case's own directory: never the real
# /dev entries) need root; without it they print SKIP.
#
# Output: one line per case (PASS name / FAIL name: reason), then
#   robustness: N cases, P passed, F failed
#   test result: ok. P passed; 0 failed        (or: test result: FAILED. P passed; F failed)
# and exit status 1 when anything failed.

set -uo pipefail

# ROBUSTNESS_ONLY: a DEBUG trap skips the top-level case calls that do not
# match (with extdebug, a trap that fails skips the command).
if [[ -n ${ROBUSTNESS_ONLY:-} ]]; then
    shopt -s extdebug
    # shellcheck disable=SC2317  # called through the DEBUG trap
    selected() {
        # The top level of this script or of a sourced tests/robustness.d file
        # (`source` counts as a frame): anything deeper is inside a case.
        local f depth=0
        for f in "${FUNCNAME[@]}"; do [[ $f == source ]] || depth=$((depth + 1)); done
        ((depth == 2)) || return 0 # inside a function: run
        [[ $BASH_COMMAND =~ ^([A-Z_]+=[^\ ]*\ )*(case_[a-z_0-9]+|bad)(\ |$) ]] || return 0
        [[ $BASH_COMMAND =~ $ROBUSTNESS_ONLY ]]
    }
    trap selected DEBUG
fi

# Before any cd: the directory of this script (tests/robustness.d is beside it).
SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BIN=${1:-./target/release/mpibench}
MPIEXEC=${MPIBENCH_MPIEXEC:-mpiexec.openmpi}
CASE_TIMEOUT=${CASE_TIMEOUT:-60}
LARGE=${MPIBENCH_LARGE:-0}

# Open MPI refuses to run as root without these; harmless otherwise.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

if [[ ! -x $BIN ]]; then
    echo "robustness: mpibench binary '$BIN' not found or not executable" >&2
    echo "robustness: 0 cases, 0 passed, 1 failed"
    echo "test result: FAILED. 0 passed; 1 failed"
    exit 1
fi
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
if ! command -v "$MPIEXEC" >/dev/null 2>&1; then
    echo "robustness: launcher '$MPIEXEC' not found" >&2
    echo "robustness: 0 cases, 0 passed, 1 failed"
    echo "test result: FAILED. 0 passed; 1 failed"
    exit 1
fi
for tool in timeout python3 pgrep stat; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "robustness: '$tool' is required" >&2
        echo "robustness: 0 cases, 0 passed, 1 failed"
        echo "test result: FAILED. 0 passed; 1 failed"
        exit 1
    fi
done

# Which MPI the launcher belongs to: its flags, and the other MPI's launcher.
if "$MPIEXEC" --version 2>&1 | grep -q "OpenRTE\|Open MPI"; then
    FLAVOUR=openmpi
    LAUNCH_FLAGS=(--oversubscribe --quiet)
    OTHER_MPIEXEC=mpiexec.mpich
else
    FLAVOUR=mpich
    LAUNCH_FLAGS=()
    OTHER_MPIEXEC=mpiexec.openmpi
fi
command -v "$OTHER_MPIEXEC" >/dev/null 2>&1 || OTHER_MPIEXEC=""
echo "robustness: $BIN with $MPIEXEC ($FLAVOUR)"

ROOT=$(mktemp -d "${TMPDIR:-/tmp}/mpibench-robustness.XXXXXX")
BG_PID=""

# Every launcher runs with MPIBENCH_ROBUSTNESS_CASE=<its case directory> in its
# environment, which the ranks inherit. kill_leftovers PREFIX sends SIGKILL to
# the processes (by pid) whose marker starts with PREFIX: ranks left behind by
# a hung case, and nothing that this script did not start.
kill_leftovers() {
    local env pid
    # One grep over every process's environment (NUL-separated entries): a
    # fork per process made each case's scan take about a second.
    for env in $(grep -lzF "MPIBENCH_ROBUSTNESS_CASE=$1" /proc/[0-9]*/environ 2>/dev/null); do
        pid=${env#/proc/}
        pid=${pid%/environ}
        [[ $pid == "$$" ]] && continue
        kill -KILL "$pid" 2>/dev/null
    done
}

# The processes of this case (by their marker), except this script.
case_pids() {
    local env pid
    for env in $(grep -lzxF "MPIBENCH_ROBUSTNESS_CASE=$CASE_DIR" /proc/[0-9]*/environ 2>/dev/null); do
        pid=${env#/proc/}
        pid=${pid%/environ}
        [[ $pid == "$$" || $pid == "$BASHPID" ]] && continue
        # Zombies hold no resources and vanish with their parent.
        [[ $(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null) == Z ]] || echo "$pid"
    done
}

# No mpibench/mpiexec process of this case may outlive it (5 s of grace:
# ranks end a moment after their launcher). Leftovers are killed by pid.
no_leftovers() {
    local i left
    for ((i = 0; i < 50; i++)); do
        left=$(case_pids)
        [[ -z $left ]] && return
        sleep 0.1
    done
    echo "processes outlived the case: $(for p in $left; do tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | cut -c1-60; echo -n '; '; done)"
    kill_leftovers "$CASE_DIR"
}

# shellcheck disable=SC2317  # called through the EXIT trap
cleanup() {
    # Only what this script started: the background launcher of the crash case
    # and, should any be left, ranks of its own cases.
    if [[ -n $BG_PID ]] && kill -0 "$BG_PID" 2>/dev/null; then
        kill -TERM "$BG_PID" 2>/dev/null
    fi
    kill_leftovers "$ROOT/"
    rm -rf "$ROOT"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

CASE_DIR=""
START_S=$SECONDS
N=0
PASSED=0
FAILED=0
# Microseconds at the last result line: each line says how long it took.
LAST_US=${EPOCHREALTIME/./}

# took: sets TOOK to the time since the last result line.
took() {
    local now=${EPOCHREALTIME/./}
    TOOK="$(((now - LAST_US) / 1000000)).$(((now - LAST_US) / 100000 % 10)) s"
    LAST_US=$now
}

pass() {
    # No case passes while a process of its own outlives it.
    local left
    left=$(no_leftovers)
    if [[ -n $left ]]; then
        fail "$1" "$left"
        return
    fi
    N=$((N + 1))
    PASSED=$((PASSED + 1))
    took
    echo "PASS $1${2:+ ($2)} [$TOOK]"
}

fail() {
    N=$((N + 1))
    FAILED=$((FAILED + 1))
    took
    echo "FAIL $1: $2 [$TOOK]"
}

# Makes a fresh directory for a case and enters it.
# Sets CASE_DIR; the stdout/stderr of mpibench go to $CASE_DIR.out/.err (outside
# the directory, so that the directory holds only what mpibench created).
new_case_dir() {
    CASE_DIR=$(mktemp -d "$ROOT/case.XXXXXX")
    cd "$CASE_DIR" || exit 1
}

# mpi NP ARGS...: runs `mpibench ARGS...` on NP ranks in the current directory,
# bounded by CASE_TIMEOUT. Sets RC, ELAPSED (seconds) and HUNG (1 when
# `timeout` had to stop it).
mpi() {
    local np=$1
    shift
    local t0
    t0=$(date +%s%N)
    MPIBENCH_ROBUSTNESS_CASE=$CASE_DIR \
        timeout -k 5 "$CASE_TIMEOUT" "$MPIEXEC" "${LAUNCH_FLAGS[@]}" -n "$np" "$BIN" "$@" \
        >"$CASE_DIR.out" 2>"$CASE_DIR.err" </dev/null
    RC=$?
    finished "$t0"
}

# finished T0_NS: sets ELAPSED and HUNG from RC and the start time. `timeout`
# exits 124 when it stopped the command (137 when it had to SIGKILL it; 137 is
# also what mpiexec returns when a rank was killed, hence the time test).
finished() {
    local ms=$((($(date +%s%N) - $1) / 1000000))
    ELAPSED=$((ms / 1000)).$(printf '%03d' $((ms % 1000)))
    HUNG=0
    if [[ $RC -eq 124 ]] || [[ $RC -eq 137 && $ms -ge $((CASE_TIMEOUT * 1000)) ]]; then
        HUNG=1
        kill_leftovers "$CASE_DIR"
    fi
}

# A one-line excerpt of the case's stderr, for failure messages.
stderr_excerpt() {
    head -c 300 "$CASE_DIR.err" | tr '\n' '|'
}

# json_check FILE PYTHON-EXPR: evaluates EXPR with `d` bound to the parsed file;
# prints the reason and fails when the file does not parse or EXPR is false
# (EXPR may also return a string: non-empty means failure with that reason).
json_check() {
    python3 - "$1" "$2" <<'EOF'
import json, sys
path, expr = sys.argv[1], sys.argv[2]
try:
    with open(path) as f:
        d = json.load(f)
except Exception as e:
    print(f"{path} does not parse: {e}")
    sys.exit(1)
def names(d):
    return [r.get("benchmark") for r in d.get("results", [])]
def result(d, name):
    return [r for r in d.get("results", []) if r.get("benchmark") == name]
try:
    ok = eval("(" + expr.strip() + "\n)")
except Exception as e:
    print(f"check raised {type(e).__name__}: {e}; results: {names(d)}")
    sys.exit(1)
if isinstance(ok, str):
    if ok:
        print(ok)
        sys.exit(1)
elif not ok:
    print(f"JSON check failed: {expr}; complete={d.get('complete')} status={d.get('status')} results={names(d)}")
    sys.exit(1)
EOF
}

# ---------------------------------------------------------------------------
# 1. Bad input: exit 2, exactly one line on stderr starting with "error:",
#    no hang, no results file (nor anything else) in the working directory.
# ---------------------------------------------------------------------------

# bad NAME EXPECTED_SUBSTRING ARGS...: one bad-input case on 2 ranks, with
# `--json out.json` added unless ARGS name a --json file themselves.
bad() {
    local name="bad input: $1" want=$2
    # A usage error takes about 2 s; a shorter bound keeps a hanging build cheap.
    local CASE_TIMEOUT=${BAD_TIMEOUT:-20}
    shift 2
    new_case_dir
    if [[ " $* " == *" --json "* ]]; then
        mpi 2 run "$@"
    else
        mpi 2 run "$@" --json out.json
    fi
    local lines first leftovers
    lines=$(wc -l <"$CASE_DIR.err")
    first=$(head -n 1 "$CASE_DIR.err")
    leftovers=$(ls -A "$CASE_DIR")
    if [[ $HUNG -eq 1 ]]; then
        fail "$name" "hang (no exit within ${CASE_TIMEOUT} s)"
    elif [[ $RC -ne 2 ]]; then
        fail "$name" "exit code $RC, expected 2 (usage error); stderr: $(stderr_excerpt)"
    elif [[ $lines -ne 1 ]]; then
        fail "$name" "$lines lines on stderr, expected exactly 1: $(stderr_excerpt)"
    elif [[ $first != error:* ]]; then
        fail "$name" "stderr does not start with 'error:': $first"
    elif [[ -n $want && $first != *"$want"* ]]; then
        fail "$name" "stderr lacks '$want': $first"
    elif [[ -e out.json ]]; then
        fail "$name" "out.json was written"
    elif [[ -n $leftovers ]]; then
        fail "$name" "files left in the working directory: $(echo "$leftovers" | tr '\n' ' ')"
    else
        pass "$name"
    fi
    cd "$ROOT" || exit 1
}

bad "unknown benchmark PingPang" "did you mean PingPong?" PingPang
bad "unknown option --bogus" "" --bogus
bad "--sizes 1.5K" "" --sizes 1.5K
bad "--sizes abc" "" --sizes abc
bad "--sizes ''" "" --sizes ''
bad "--sizes 1,,2" "" --sizes 1,,2
bad "--iter -5" "" --iter -5
bad "--sizes -1" "" --sizes -1
bad "--time -1" "" --time -1
bad "--npmin -2" "" --npmin -2
bad "--msglog 5:3" "" --msglog 5:3
bad "--msglog x" "" --msglog x
bad "--sizes 64G above the memory limit" "" --sizes 64G
bad "--mem 0.001 --sizes 4M" "" --mem 0.001 --sizes 4M
bad "--npmin 3 on 2 ranks" "" --npmin 3
bad "unwritable --json /proc/nope/x.json" "cannot write" pingpong --sizes 8 --json /proc/nope/x.json
bad "unwritable --csv /nonexistent-dir/x.csv" "cannot write" pingpong --sizes 8 --csv /nonexistent-dir/x.csv
bad "--iter 0" "" --iter 0
bad "--time 0" "" --time 0
bad "--precision 2" "" --precision 2
bad "--precision 0.02 --timing loop" "" --precision 0.02 --timing loop
bad "--window-us 5 without --sync window" "" --window-us 5
bad "--sync bogus" "" --sync bogus
bad "--timing bogus" "" --timing bogus
bad "--strict without --check" "" --strict
bad "--min-iter 10 --max-iter 5" "" --min-iter 10 --max-iter 5
bad "--timeout 0" "" --timeout 0
bad "--mem -1" "" --mem -1
bad "--multi-detail without --multi" "" --multi-detail
bad "unknown --suite nope" "" --suite nope
bad "--timeout 1e20 (too large)" "" --timeout 1e20
bad "--window-us 1e300 (too large)" "" --sync window --window-us 1e300
bad "same file for --json and --csv" "same file" --csv out.json
bad "--iter with --precision" "exclude" --iter 10 --precision 0.05

# ---------------------------------------------------------------------------
# 2. Too few ranks: PingPong is skipped with a reason, Barrier runs, exit 0.
# ---------------------------------------------------------------------------
case_too_few_ranks() {
    local name="skip: PingPong on 1 rank"
    new_case_dir
    mpi 1 run pingpong barrier --sizes 8 --iter 5 --json out.json
    local why
    if [[ $HUNG -eq 1 ]]; then
        fail "$name" "hang"
    elif [[ $RC -ne 0 ]]; then
        fail "$name" "exit code $RC, expected 0; stderr: $(stderr_excerpt)"
    elif [[ ! -f out.json ]]; then
        fail "$name" "no out.json"
    elif ! why=$(json_check out.json '
        (lambda p, b:
            "no PingPong result" if not p else
            "PingPong has no \"skipped\" string" if not isinstance(p[0].get("skipped"), str) else
            "PingPong skipped reason lacks \"at least 2\": " + p[0]["skipped"] if "at least 2" not in p[0]["skipped"] else
            "PingPong has rows" if p[0].get("rows") else
            "no Barrier rows" if not (b and b[0].get("rows")) else
            "" if d.get("complete") is True else "complete is not true"
        )(result(d, "PingPong"), result(d, "Barrier"))'); then
        fail "$name" "$why"
    else
        pass "$name"
    fi
    cd "$ROOT" || exit 1
}
case_too_few_ranks

# ---------------------------------------------------------------------------
# 3. Memory limit: lengths that do not fit are skipped with a note, exit 0.
# ---------------------------------------------------------------------------
case_mem_limit() {
    local name="memory limit: --mem 0.0001 alltoall --sizes 8,64K"
    new_case_dir
    mpi 2 run --mem 0.0001 alltoall --sizes 8,64K --json out.json
    local why
    if [[ $HUNG -eq 1 ]]; then
        fail "$name" "hang"
    elif [[ $RC -ne 0 ]]; then
        fail "$name" "exit code $RC, expected 0; stderr: $(stderr_excerpt)"
    elif [[ ! -f out.json ]]; then
        fail "$name" "no out.json"
    elif ! why=$(json_check out.json '
        (lambda a:
            "no Alltoall result" if not a else
            "Alltoall has no \"note\"" if not isinstance(a[0].get("note"), str) else
            "note does not mention --mem: " + a[0]["note"] if "--mem" not in a[0]["note"] else
            "rows are for %s bytes, expected [8]" % [r["bytes"] for r in a[0]["rows"]]
                if [r["bytes"] for r in a[0]["rows"]] != [8] else
            "" if d.get("complete") is True else "complete is not true"
        )(result(d, "Alltoall"))'); then
        fail "$name" "$why"
    else
        pass "$name"
    fi
    cd "$ROOT" || exit 1
}
case_mem_limit

# ---------------------------------------------------------------------------
# 4. Watchdog: PingPong at 4 MiB with a large fixed repetition count hangs
#    past --timeout 5; the job aborts with exit 3 well within 20 s, naming
#    benchmark, size and process count; out.json keeps the finished `timing`
#    result. (It used to be Barrier, but --iter applies to Barrier too, and
#    on a loaded 2-core machine even 10^4 MPICH barriers took over 5 s; the
#    `timing` tool does not repeat by --iter. 10^4 PingPongs of 4 MiB take
#    15 s or more.)
# ---------------------------------------------------------------------------
case_watchdog() {
    local name="watchdog: --timeout 5 aborts a hanging PingPong"
    new_case_dir
    mpi 2 run clock/timing pingpong --sizes 4M --iter 10000 --timeout 5 --json out.json
    local why err
    err=$(grep -m 1 -i "timeout" "$CASE_DIR.err")
    if [[ $HUNG -eq 1 ]]; then
        fail "$name" "hang (no exit within ${CASE_TIMEOUT} s)"
    elif [[ $RC -eq 0 ]]; then
        fail "$name" "exit code 0, expected non-zero (3)"
    elif [[ $RC -ne 3 ]]; then
        fail "$name" "exit code $RC, expected 3; stderr: $(stderr_excerpt)"
    elif ! awk -v t="$ELAPSED" 'BEGIN { exit !(t < 20) }'; then
        fail "$name" "took ${ELAPSED} s, expected under 20 s"
    elif [[ -z $err ]]; then
        fail "$name" "no 'timeout' message on stderr: $(stderr_excerpt)"
    elif [[ $err != *PingPong* || $err != *4194304* || $err != *"2 processes"* ]]; then
        fail "$name" "timeout message does not name PingPong, 4194304 bytes and 2 processes: $err"
    elif [[ ! -f out.json ]]; then
        fail "$name" "no out.json"
    elif ! why=$(json_check out.json '
        "complete is not false" if d.get("complete") is not False else
        "no timing result with rows" if not any(r.get("rows") for r in result(d, "timing")) else
        ""'); then
        fail "$name" "$why"
    else
        pass "$name" "${ELAPSED} s"
    fi
    cd "$ROOT" || exit 1
}
case_watchdog

# ---------------------------------------------------------------------------
# 5. Crash safety: SIGKILL a rank in the middle of a run; out.json still
#    parses, says "complete": false and keeps every benchmark written before.
# ---------------------------------------------------------------------------

# Number of results in out.json and their names, or nothing while it does
# not parse (never expected: it is written atomically).
results_of() {
    python3 - "$1" <<'EOF' 2>/dev/null
import json, sys
d = json.load(open(sys.argv[1]))
print(len(d["results"]), " ".join(r["benchmark"] for r in d["results"]))
EOF
}

case_crash() {
    local name="crash safety: SIGKILL of a rank keeps out.json"
    # The run must outlive the wait for two results even on a loaded machine.
    local CASE_TIMEOUT=${CRASH_TIMEOUT:-180}
    new_case_dir
    local out="$CASE_DIR/out.json" t0
    t0=$(date +%s%N)
    # The absolute path of out.json is unique to this case: it identifies the ranks.
    MPIBENCH_ROBUSTNESS_CASE=$CASE_DIR \
        timeout -k 5 "$CASE_TIMEOUT" "$MPIEXEC" "${LAUNCH_FLAGS[@]}" -n 2 "$BIN" run \
        --sizes 0,1K,64K,1M --iter 5000 --json "$out" \
        >"$CASE_DIR.out" 2>"$CASE_DIR.err" </dev/null &
    BG_PID=$!
    local before="" n=0 i
    for ((i = 0; i < 400; i++)); do # up to ~40 s
        if [[ -f $out ]]; then
            before=$(results_of "$out")
            n=${before%% *}
            [[ -n $n && $n -ge 2 ]] && break
        fi
        kill -0 "$BG_PID" 2>/dev/null || break
        sleep 0.1
    done
    # The rank processes: children of the launcher whose executable is mpibench
    # (not `timeout`, not mpiexec, which carry the same arguments). Kill rank 0,
    # the one that writes the file, when it can be told apart.
    local comm pid victim="" rank0=""
    comm=$(basename "$BIN" | cut -c1-15)
    for pid in $(pgrep -f -- "$out"); do
        [[ $(cat "/proc/$pid/comm" 2>/dev/null) == "$comm" ]] || continue
        [[ -z $victim ]] && victim=$pid
        if tr '\0' '\n' 2>/dev/null <"/proc/$pid/environ" | grep -qx 'OMPI_COMM_WORLD_RANK=0\|PMI_RANK=0\|PMIX_RANK=0'; then
            rank0=$pid
        fi
    done
    victim=${rank0:-$victim}
    if [[ -z $n || $n -lt 1 ]]; then
        fail "$name" "out.json never held a result while the run was going; stderr: $(stderr_excerpt)"
        kill -TERM "$BG_PID" 2>/dev/null
        wait "$BG_PID" 2>/dev/null
        BG_PID=""
        cd "$ROOT" || exit 1
        return
    fi
    if [[ -z $victim ]]; then
        fail "$name" "no running mpibench rank found to kill (the run may have finished)"
        wait "$BG_PID" 2>/dev/null
        BG_PID=""
        cd "$ROOT" || exit 1
        return
    fi
    # Results written before the kill (re-read right before it: the file may have grown).
    before=$(results_of "$out")
    kill -KILL "$victim" 2>/dev/null
    wait "$BG_PID"
    RC=$?
    BG_PID=""
    finished "$t0"
    local why leftovers="" f
    for f in "$CASE_DIR"/.[!.]* "$CASE_DIR"/*; do
        [[ -e $f && $f != "$out" ]] && leftovers+="$(basename "$f") "
    done
    if [[ $HUNG -eq 1 ]]; then
        fail "$name" "the launcher did not end after the kill (hang)"
    elif [[ $RC -eq 0 ]]; then
        fail "$name" "the launcher exited 0 after a rank was killed"
    elif [[ -n $leftovers ]]; then
        fail "$name" "files left beside out.json (a temporary file?): $leftovers"
    elif ! why=$(json_check "$out" "
        (lambda want:
            'complete is not false' if d.get('complete') is not False else
            'no results' if not d.get('results') else
            'results written before the kill are missing: %s (file has %s)' % (
                [b for b in want if b not in names(d)], names(d))
                if any(b not in names(d) for b in want) else ''
        )('${before#* }'.split())"); then
        fail "$name" "$why"
    else
        pass "$name" "killed pid $victim after ${before%% *} results; rc $RC"
    fi
    cd "$ROOT" || exit 1
}
case_crash

# ---------------------------------------------------------------------------
# 6. A failure on one rank (injected allocation failure on rank 1): exit 3,
#    one error line on stderr from rank 0 naming rank 1.
# ---------------------------------------------------------------------------
case_rank_failure() {
    local name="rank failure: --fail-alloc-rank 1"
    new_case_dir
    mpi 2 run pingpong --sizes 8 --fail-alloc-rank 1 --json out.json
    local errs why
    errs=$(grep -c '^error:' "$CASE_DIR.err")
    if [[ $HUNG -eq 1 ]]; then
        fail "$name" "hang"
    elif [[ $RC -ne 3 ]]; then
        fail "$name" "exit code $RC, expected 3; stderr: $(stderr_excerpt)"
    elif [[ $errs -ne 1 ]]; then
        fail "$name" "$errs error lines on stderr, expected 1: $(stderr_excerpt)"
    elif ! grep -q '^error:.*rank 1' "$CASE_DIR.err"; then
        fail "$name" "the error line does not name 'rank 1': $(stderr_excerpt)"
    elif [[ ! -f out.json ]]; then
        fail "$name" "no out.json"
    elif ! why=$(json_check out.json '"complete is not false" if d.get("complete") is not False else ""'); then
        fail "$name" "$why"
    else
        pass "$name"
    fi
    cd "$ROOT" || exit 1
}
case_rank_failure

# ---------------------------------------------------------------------------
# 7.-9. Validation and exit codes.
# ---------------------------------------------------------------------------
case_strict() {
    local name="strict: --check --strict --corrupt exits 1 naming a rank"
    new_case_dir
    mpi 2 run pingpong --sizes 64 --iter 5 --check --strict --corrupt
    if [[ $HUNG -eq 1 ]]; then
        fail "$name" "hang"
    elif [[ $RC -ne 1 ]]; then
        fail "$name" "exit code $RC, expected 1; stderr: $(stderr_excerpt)"
    elif ! grep -q '^error:.*rank [0-9]' "$CASE_DIR.err"; then
        fail "$name" "stderr names no rank: $(stderr_excerpt)"
    else
        pass "$name"
    fi
    cd "$ROOT" || exit 1
}
case_strict

case_check_errors() {
    local name="validation errors: --check --corrupt exits 1, complete JSON"
    new_case_dir
    mpi 2 run pingpong --sizes 64 --iter 5 --check --corrupt -q --json out.json
    local why
    if [[ $HUNG -eq 1 ]]; then
        fail "$name" "hang"
    elif [[ $RC -ne 1 ]]; then
        fail "$name" "exit code $RC, expected 1; stderr: $(stderr_excerpt)"
    elif [[ ! -f out.json ]]; then
        fail "$name" "no out.json"
    elif ! why=$(json_check out.json '
        "complete is not true" if d.get("complete") is not True else
        "errors is not > 0: %s" % [x.get("errors") for r in d["results"] for x in r["rows"]]
            if sum((x.get("errors") or 0) for r in d["results"] for x in r["rows"]) <= 0 else ""'); then
        fail "$name" "$why"
    else
        pass "$name"
    fi
    cd "$ROOT" || exit 1
}
case_check_errors

case_check_clean() {
    local name="clean --check run exits 0"
    new_case_dir
    mpi 2 run pingpong allreduce --sizes 0,64,4K --iter 5 --check -q --json out.json
    local why
    if [[ $HUNG -eq 1 ]]; then
        fail "$name" "hang"
    elif [[ $RC -ne 0 ]]; then
        fail "$name" "exit code $RC, expected 0; stderr: $(stderr_excerpt)"
    elif [[ ! -f out.json ]]; then
        fail "$name" "no out.json"
    elif ! why=$(json_check out.json '
        "complete is not true" if d.get("complete") is not True else
        "errors are not all 0: %s" % [x.get("errors") for r in d["results"] for x in r["rows"]]
            if not all(x.get("errors") == 0 for r in d["results"] for x in r["rows"]) else
        "no rows" if not any(r["rows"] for r in d["results"]) else ""'); then
        fail "$name" "$why"
    else
        pass "$name"
    fi
    cd "$ROOT" || exit 1
}
case_check_clean

# ===========================================================================
# Issue 17: nothing a user types or does destroys a file, hangs the job or
# leaves a wrong status. Helpers first, then one family per item.
# ===========================================================================

# A benchmark run long enough (about 15 s here) to be interrupted mid-way.
LONG_RUN=(pingpong pingping sendrecv exchange bcast allgather allreduce alltoall reduce barrier
    --sizes 0,1K,64K --iter 20000 -q)
# For the cases that wait for a whole run to end by itself (an ignored
# signal, a write at the end): still going for a while after its first
# result, a second or two on a quiet machine, well within the limit on a
# loaded one (LONG_RUN took up to 170 s at load average 8).
ENDING_RUN=(pingpong pingping sendrecv barrier --sizes 0,1K --iter 20000 -q)
# The same with more after its first result (1.8 s on a quiet machine), for
# a change to make mid-run with a shell command.
LATER_RUN=(pingpong pingping sendrecv exchange allreduce barrier --sizes 0,1K,64K --iter 20000 -q)

# check NAME REASON...: PASS when every REASON is empty, else FAIL with the
# first non-empty one. Every check function below prints a reason or nothing.
check() {
    local name=$1 r
    shift
    for r in "$@"; do
        if [[ -n $r ]]; then
            fail "$name" "$r"
            cd "$ROOT" || exit 1
            return
        fi
    done
    pass "$name"
    cd "$ROOT" || exit 1
}

expect_rc() {
    [[ $HUNG -eq 1 ]] && { echo "hang (no exit within the time limit)"; return; }
    local want
    for want in "$@"; do [[ $RC -eq $want ]] && return; done
    echo "exit code $RC, expected ${*// / or }; stderr: $(stderr_excerpt)"
}

# Exactly one line on stderr, matching the extended regex.
expect_one_line() {
    local n
    n=$(grep -c '' "$CASE_DIR.err")
    if [[ $n -ne 1 ]]; then
        echo "$n lines on stderr, expected 1: $(stderr_excerpt)"
    elif ! grep -qE -- "$1" "$CASE_DIR.err"; then
        echo "stderr does not match /$1/: $(stderr_excerpt)"
    fi
}

# Nothing on stderr (a closed pipe ends quietly).
expect_quiet() {
    [[ -s $CASE_DIR.err ]] && echo "stderr is not empty: $(stderr_excerpt)"
}

# Exactly one line of mpibench's own ("error: ..."), matching the regex;
# the MPI library may add lines of its own before it (item 8).
expect_one_error_line() {
    local n
    n=$(grep -c '^error:' "$CASE_DIR.err")
    if [[ $n -ne 1 ]]; then
        echo "$n 'error:' lines on stderr, expected 1: $(stderr_excerpt)"
    elif ! grep '^error:' "$CASE_DIR.err" | grep -qE -- "$1"; then
        echo "the error line does not match /$1/: $(grep '^error:' "$CASE_DIR.err")"
    fi
}

# The case directory holds exactly these names (no temporary files).
expect_files() {
    local have want
    have=$(cd "$CASE_DIR" && ls -A | sort | tr '\n' ' ')
    want=$(printf '%s\n' "$@" | sed '/^$/d' | sort | tr '\n' ' ')
    [[ $have == "$want" ]] || echo "files are [ $have], expected [ $want]"
}

# FILE is still the character device MAJOR:MINOR (hex, as stat prints).
expect_chardev() {
    local st
    st=$(stat -c '%F %t:%T' "$1" 2>&1)
    [[ $st == "character special file $2" ]] || echo "$1 is no longer the device $2: $st"
}

expect_fifo() {
    local st
    st=$(stat -c '%F' "$1" 2>&1)
    [[ $st == fifo ]] || echo "$1 is no longer a FIFO: $st"
}

expect_json() {
    json_check "$1" "$2"
}

IS_ROOT=0
[[ $(id -u) -eq 0 ]] && IS_ROOT=1

# need_root NAME: true as root; prints SKIP and fails otherwise (mknod).
need_root() {
    [[ $IS_ROOT -eq 1 ]] && return 0
    echo "SKIP $1 (needs root for mknod)"
    return 1
}

# Device nodes of our own (never the real /dev entries): null and full.
make_devices() {
    mknod "$CASE_DIR/null" c 1 3 && mknod "$CASE_DIR/full" c 1 7
}

# self_bg ARGS...: `mpibench ARGS` (self-launching) in the background;
# sets PID. The marker reaches mpiexec and the ranks through the environment.
# A background job of this (non-interactive) script starts with SIGINT
# ignored, and the script itself may run with SIGHUP or SIGTERM ignored (a
# CI runner under nohup): mpibench respects inherited ignores (nohup,
# scripts), so the cases that send these signals need them at their
# default, hence `env --default-signal=INT,TERM,HUP`. SELF_WRAP replaces
# that wrapper (e.g. `nohup`, or `env` to keep SIGINT ignored).
self_bg() {
    local wrap=(env --default-signal=INT,TERM,HUP)
    [[ -n ${SELF_WRAP:-} ]] && read -ra wrap <<<"$SELF_WRAP"
    T0=$(date +%s%N)
    MPIBENCH_ROBUSTNESS_CASE=$CASE_DIR MPIBENCH_MPIEXEC=$MPIEXEC \
        "${wrap[@]}" "$BIN" "$@" >"$CASE_DIR.out" 2>"$CASE_DIR.err" </dev/null &
    PID=$!
}

# direct_bg NP ARGS...: `mpiexec -n NP mpibench ARGS` in the background; sets PID.
direct_bg() {
    local np=$1
    shift
    T0=$(date +%s%N)
    MPIBENCH_ROBUSTNESS_CASE=$CASE_DIR env --default-signal=INT,TERM,HUP \
        "$MPIEXEC" "${LAUNCH_FLAGS[@]}" -n "$np" "$BIN" "$@" \
        >"$CASE_DIR.out" 2>"$CASE_DIR.err" </dev/null &
    PID=$!
}

# long_bg MODE(self|direct) ARGS...: LONG_RUN on 2 ranks in the background,
# self-launched or under mpiexec, with ARGS added; sets PID.
long_bg() {
    local mode=$1
    shift
    if [[ $mode == self ]]; then
        self_bg run -n 2 "${LONG_RUN[@]}" "$@"
    else
        direct_bg 2 run "${LONG_RUN[@]}" "$@"
    fi
}

# self ARGS...: a self-launching run in the foreground, bounded.
self() {
    self_bg "$@"
    wait_bounded "$CASE_TIMEOUT"
}

# wait_bounded SECONDS: waits for PID; sets RC, HUNG, ELAPSED.
wait_bounded() {
    local i
    HUNG=0
    for ((i = 0; i < $1 * 10; i++)); do
        kill -0 "$PID" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$PID" 2>/dev/null; then
        HUNG=1
        kill -KILL "$PID" 2>/dev/null
        kill_leftovers "$CASE_DIR"
    fi
    { wait "$PID"; } 2>/dev/null # (no "Killed" job message)
    RC=$?
    local ms=$((($(date +%s%N) - T0) / 1000000))
    ELAPSED=$((ms / 1000)).$(printf '%03d' $((ms % 1000)))
}

# wait_results FILE N: until FILE holds at least N results (30 s at most,
# and only while PID runs). Fails the wait (status 1) otherwise.
wait_results() {
    local i r
    for ((i = 0; i < 300; i++)); do
        r=$(results_of "$1")
        [[ -n $r && ${r%% *} -ge $2 ]] && return 0
        kill -0 "$PID" 2>/dev/null || return 1
        sleep 0.1
    done
    return 1
}

# The pid of rank R of this case (an mpibench process, not mpiexec).
rank_pid() {
    local pid comm i
    comm=$(basename "$BIN" | cut -c1-15)
    # A few tries: on a loaded machine a scan can miss a rank whose
    # /proc entries are briefly unreadable.
    for ((i = 0; i < 20; i++)); do
        for pid in $(case_pids); do
            [[ $(cat "/proc/$pid/comm" 2>/dev/null) == "$comm" ]] || continue
            if tr '\0' '\n' 2>/dev/null <"/proc/$pid/environ" |
                grep -qx "OMPI_COMM_WORLD_RANK=$1\|PMI_RANK=$1"; then
                echo "$pid"
                return
            fi
        done
        sleep 0.1
    done
}

# The pid of this case's mpiexec.
launcher_pid() {
    local pid
    for pid in $(case_pids); do
        [[ $(cat "/proc/$pid/comm" 2>/dev/null) == mpiexec* ]] && { echo "$pid"; return; }
    done
}

JSON_INTERRUPTED='(lambda s: s if s else "")(
    "complete is not false" if d.get("complete") is not False else
    "status is %r, expected interrupted" % d.get("status") if d.get("status") != "interrupted" else "")'

# ---------------------------------------------------------------------------
# 11. Output paths (item 1): special files are written in place, never
#     replaced; symlinks are followed; only regular files are renamed over.
# ---------------------------------------------------------------------------
case_special_file() { # NAME NODE MAJ:MIN RC FLAG [LINE-REGEX]
    local name="output: $1" node=$2 dev=$3 want=$4 flag=$5 line=${6:-}
    need_root "$name" || return
    new_case_dir
    make_devices
    mpi 2 run pingpong --sizes 8 --iter 5 -q "$flag" "$node"
    check "$name" "$(expect_rc "$want")" \
        "$(if [[ -n $line ]]; then expect_one_line "$line"; else expect_quiet; fi)" \
        "$(expect_chardev null 1:3)" "$(expect_chardev full 1:7)" \
        "$(expect_files null full)" "$(no_leftovers)"
}
case_special_file "--json to a copy of /dev/null" null 1:3 0 --json
case_special_file "--csv to a copy of /dev/null" null 1:3 0 --csv
case_special_file "--raw to a copy of /dev/null" null 1:3 0 --raw
case_special_file "--json to a copy of /dev/full: exit 3" full 1:7 3 --json "^error: cannot write 'full': No space left on device"
case_special_file "--csv to a copy of /dev/full: exit 3" full 1:7 3 --csv "^error: cannot write 'full': No space left on device"
case_special_file "--raw to a copy of /dev/full: exit 3" full 1:7 3 --raw "^error: cannot write 'full': No space left on device"

case_json_to_null_self() {
    local name="output: self-launched --json to a copy of /dev/null"
    need_root "$name" || return
    new_case_dir
    make_devices
    self run -n 2 pingpong --sizes 8 --iter 5 -q --json null
    check "$name" "$(expect_rc 0)" "$(expect_quiet)" "$(expect_chardev null 1:3)" \
        "$(expect_files null full)" "$(no_leftovers)"
}
case_json_to_null_self

case_symlink_to_device() {
    local name="output: --json through a symlink to a copy of /dev/null"
    need_root "$name" || return
    new_case_dir
    make_devices
    ln -s null link
    mpi 2 run pingpong --sizes 8 --iter 5 -q --json link
    check "$name" "$(expect_rc 0)" "$(expect_chardev null 1:3)" \
        "$( [[ -L link ]] || echo 'link is no longer a symlink')" \
        "$(expect_files full link null)" "$(no_leftovers)"
}
case_symlink_to_device

case_fifo() {
    local name="output: --json to a FIFO with a reader"
    new_case_dir
    mkfifo fifo
    mkdir got
    timeout 60 cat fifo >got/out.json &
    local reader=$!
    mpi 2 run pingpong --sizes 8 --iter 5 -q --json fifo
    wait "$reader"
    check "$name" "$(expect_rc 0)" "$(expect_fifo fifo)" \
        "$(expect_json got/out.json '"status is not ok" if d.get("status") != "ok" else ""')" \
        "$(expect_files fifo got)" "$(no_leftovers)"
}
case_fifo

case_csv_fifo_self() {
    local name="output: self-launched --csv to a FIFO with a reader"
    new_case_dir
    mkfifo fifo
    mkdir got
    timeout 60 cat fifo >got/out.csv &
    local reader=$!
    self run -n 2 pingpong --sizes 8 --iter 5 -q --csv fifo
    wait "$reader"
    check "$name" "$(expect_rc 0)" "$(expect_fifo fifo)" \
        "$(grep -q '^PingPong,imb,2,' got/out.csv || echo "the reader got no CSV rows: $(head -c 200 got/out.csv)")" \
        "$(expect_files fifo got)" "$(no_leftovers)"
}
case_csv_fifo_self

case_dev_stdout() { # NAME MODE(self|direct)
    local name="output: --json /dev/stdout ($1) is stdout, once, no tables"
    new_case_dir
    if [[ $1 == self ]]; then
        self run -n 2 pingpong --sizes 8 --iter 5 -q --json /dev/stdout
    else
        mpi 2 run pingpong --sizes 8 --iter 5 -q --json /dev/stdout
    fi
    check "$name" "$(expect_rc 0)" "$(expect_quiet)" \
        "$(expect_json "$CASE_DIR.out" '"status is not ok" if d.get("status") != "ok" else ""')" \
        "$(expect_files)" "$(no_leftovers)"
}
case_dev_stdout self
case_dev_stdout direct

case_symlink_regular() {
    local name="output: --json through a symlink updates the target, keeps the link"
    new_case_dir
    mkdir data
    echo old >data/real.json
    chmod 640 data/real.json
    ln -s data/real.json link.json
    mpi 2 run pingpong --sizes 8 --iter 5 -q --json link.json
    check "$name" "$(expect_rc 0)" "$(expect_quiet)" \
        "$( [[ -L link.json && $(readlink link.json) == data/real.json ]] || echo 'link.json is no longer the same symlink')" \
        "$(expect_json data/real.json '"status is not ok" if d.get("status") != "ok" else ""')" \
        "$( [[ $(stat -c %a data/real.json) == 640 ]] || echo "mode of data/real.json changed to $(stat -c %a data/real.json)")" \
        "$( [[ $(ls -A data) == real.json ]] || echo "data/ holds $(ls -A data | tr '\n' ' ')")" \
        "$(expect_files data link.json)" "$(no_leftovers)"
}
case_symlink_regular

case_dangling_symlink() {
    local name="output: --csv through a dangling symlink creates its target"
    new_case_dir
    mkdir data
    ln -s data/new.csv link.csv
    mpi 2 run pingpong --sizes 8 --iter 5 -q --csv link.csv
    check "$name" "$(expect_rc 0)" \
        "$( [[ -L link.csv && -f data/new.csv ]] || echo 'data/new.csv missing or link.csv replaced')" \
        "$(grep -q '^PingPong,' data/new.csv || echo 'no PingPong rows in data/new.csv')" \
        "$(expect_files data link.csv)" "$(no_leftovers)"
}
case_dangling_symlink

bad "--json into a directory" "is a directory" pingpong --json /tmp

case_symlink_loop() {
    local name="output: --json on a symlink loop: exit 2, one line"
    new_case_dir
    ln -s loop.json loop.json
    local CASE_TIMEOUT=${BAD_TIMEOUT:-20}
    mpi 2 run pingpong --json loop.json
    check "$name" "$(expect_rc 2)" "$(expect_one_line "^error: cannot write 'loop.json': Too many levels of symbolic links")" \
        "$(expect_files loop.json)" "$(no_leftovers)"
}
case_symlink_loop

# ---------------------------------------------------------------------------
# 12. Two outputs on one file (item 2): exit 2, one line, nothing written.
# ---------------------------------------------------------------------------
case_same_file_abs() {
    local name="same file: --json o.json --csv \$PWD/o.json"
    new_case_dir
    local CASE_TIMEOUT=${BAD_TIMEOUT:-20}
    mpi 2 run pingpong --json o.json --csv "$PWD/o.json"
    check "$name" "$(expect_rc 2)" "$(expect_one_line '^error: --json .o.json. and --csv .*o.json. are the same file')" \
        "$(expect_files)" "$(no_leftovers)"
}
case_same_file_abs
bad "--csv o.csv --raw ./o.csv" "same file" --csv o.csv --raw ./o.csv
bad "--json - --csv -" "stdout" --json - --csv -
bad "--raw - --json -" "stdout" --raw - --json -
bad "--json - --csv /dev/stdout" "stdout" --json - --csv /dev/stdout
bad "--raw /dev/stdout --csv /proc/self/fd/1" "stdout" --json x.json --raw /dev/stdout --csv /proc/self/fd/1

case_same_file_links() { # NAME KIND(symlink|hardlink)
    local name="same file: --json o.json --csv through a $1"
    new_case_dir
    echo keep >o.json
    if [[ $1 == symlink ]]; then ln -s o.json other; else ln o.json other; fi
    local CASE_TIMEOUT=${BAD_TIMEOUT:-20}
    mpi 2 run pingpong --json o.json --csv other
    check "$name" "$(expect_rc 2)" "$(expect_one_line '^error: .*same file')" \
        "$( [[ $(cat o.json) == keep ]] || echo 'o.json was changed')" \
        "$(expect_files o.json other)" "$(no_leftovers)"
}
case_same_file_links symlink
case_same_file_links hardlink

# ---------------------------------------------------------------------------
# 13. A write that fails mid-run (item 3): one line naming the file and the
#     OS error, every rank ends, exit 3, no temporary file; a closed stdout
#     pipe ends quietly.
# ---------------------------------------------------------------------------
HAVE_UNSHARE=0
if [[ $(id -u) -eq 0 ]] && unshare -m true 2>/dev/null; then HAVE_UNSHARE=1; fi

# need_unshare NAME: true when mount namespaces can be made; SKIP otherwise.
need_unshare() {
    [[ $HAVE_UNSHARE -eq 1 ]] && return 0
    echo "SKIP $1 (needs root and unshare -m)"
    return 1
}

# ro_run [VAR=VALUE...] -- ARGS...: the self-launching `mpibench ARGS`, in
# the case directory, with its ./ro bind-mounted read-only in a private
# mount namespace (the mount never outlives the case); sets RC.
ro_run() {
    local envs=()
    while [[ $1 != -- ]]; do
        envs+=("$1")
        shift
    done
    shift
    T0=$(date +%s%N)
    env MPIBENCH_ROBUSTNESS_CASE="$CASE_DIR" MPIBENCH_MPIEXEC="$MPIEXEC" "${envs[@]}" \
        timeout -k 5 "$CASE_TIMEOUT" \
        unshare -m bash -c 'mount --bind -o ro ro ro || exit 99; exec "$@"' _ "$BIN" "$@" \
        >"$CASE_DIR.out" 2>"$CASE_DIR.err" </dev/null
    RC=$?
    finished "$T0"
}

# The file stdout is redirected to is stdout for the ranks of a
# self-launched run too (their own stdout is the parent's relay pipe): the
# parent exports its identity (G1). The case's stdout file is $CASE_DIR.out.
case_stdout_redirected() { # NAME RC LINE-REGEX ARGS...
    local name="same file: $1" want=$2 line=$3
    shift 3
    new_case_dir
    self run -n 2 pingpong --sizes 8 --iter 5 -q "${@//@OUT@/$CASE_DIR.out}"
    local why=""
    if [[ $want -eq 0 ]]; then
        head -n 1 "$CASE_DIR.out" | grep -q '^rank,benchmark' && ! grep -q '^#' "$CASE_DIR.out" ||
            why="stdout's file is not the raw CSV alone: $(head -c 200 "$CASE_DIR.out" | tr '\n' '|')"
    fi
    check "$name" "$(expect_rc "$want")" \
        "$(if [[ -n $line ]]; then expect_one_line "$line"; else expect_quiet; fi)" "$why" \
        "$(expect_files)" "$(no_leftovers)"
}
case_stdout_redirected "self-launched --json X --csv /dev/stdout > X: exit 2" 2 \
    "^error: --json .* and --csv /dev/stdout both write to stdout" --json @OUT@ --csv /dev/stdout
case_stdout_redirected "self-launched --raw X > X is --raw -: only the raw CSV" 0 "" --raw @OUT@

case_full_tmpfs() { # MODE(self|direct)
    local name="write failure: results on a full 12 KiB tmpfs ($1)"
    need_unshare "$name" || return
    new_case_dir
    mkdir res
    # All of it in a private mount namespace: the mount never outlives the
    # case. The listing of the tmpfs is taken inside, before it goes away.
    local launch=("$BIN" run -n 2)
    [[ $1 == direct ]] && launch=("$MPIEXEC" "${LAUNCH_FLAGS[@]}" -n 2 "$BIN" run)
    T0=$(date +%s%N)
    MPIBENCH_ROBUSTNESS_CASE=$CASE_DIR MPIBENCH_MPIEXEC=$MPIEXEC timeout -k 5 "$CASE_TIMEOUT" \
        unshare -m bash -c 'mount -t tmpfs -o size=12k tmpfs res || exit 99
            "$@"; rc=$?; ls -A res >listing; exit $rc' _ \
        "${launch[@]}" pingpong pingping sendrecv exchange bcast allgather allreduce \
        --sizes 0,1,2,4,8,16,32,64,128,256,512,1K,2K,4K --iter 2 -q --json res/out.json \
        >"$CASE_DIR.out" 2>"$CASE_DIR.err" </dev/null
    RC=$?
    finished "$T0"
    check "$name" "$(expect_rc 3)" \
        "$(expect_one_line "^error: cannot write 'res/out.json': No space left on device")" \
        "$( [[ $(cat listing 2>/dev/null) == out.json || -z $(cat listing 2>/dev/null) ]] || echo "the tmpfs held: $(tr '\n' ' ' <listing)")" \
        "$(expect_files listing res)" "$(no_leftovers)"
}
case_full_tmpfs self
case_full_tmpfs direct

case_dir_removed() { # MODE(self|direct)
    local name="write failure: results directory removed mid-run ($1)"
    new_case_dir
    mkdir res
    long_bg "$1" --json res/out.json
    if ! wait_results res/out.json 1; then
        wait_bounded "$CASE_TIMEOUT"
        check "$name" "the run never wrote a result: rc $RC; $(stderr_excerpt)" "$(no_leftovers)"
        return
    fi
    rm -rf res
    wait_bounded "$CASE_TIMEOUT"
    check "$name" "$(expect_rc 3)" \
        "$(expect_one_line "^error: cannot write 'res/out.json': No such file or directory")" \
        "$(expect_files)" "$(no_leftovers)"
}
case_dir_removed self
case_dir_removed direct

case_stdout_full() {
    local name="write failure: self-launched --json - > /dev/full (a copy) is not exit 0"
    need_root "$name" || return
    new_case_dir
    make_devices
    T0=$(date +%s%N)
    MPIBENCH_ROBUSTNESS_CASE=$CASE_DIR MPIBENCH_MPIEXEC=$MPIEXEC timeout -k 5 "$CASE_TIMEOUT" \
        "$BIN" run -n 2 pingpong --sizes 8 --iter 5 -q --json - >full 2>"$CASE_DIR.err" </dev/null
    RC=$?
    finished "$T0"
    check "$name" "$(expect_rc 3)" "$(expect_one_line '^error: cannot write to stdout: No space left on device')" \
        "$(expect_chardev full 1:7)" "$(expect_files null full)" "$(no_leftovers)"
}
case_stdout_full

case_head() { # MODE(self|direct)
    local name="closed stdout pipe: $1 run | head -1 ends quietly"
    new_case_dir
    local launch=("$BIN" run -n 2) args=("${LONG_RUN[@]}")
    # Open MPI's mpiexec notices the closed pipe only at the end of the run
    # (below): a run that lasts seconds, not the long one, on a loaded machine.
    [[ $1 == direct ]] && launch=("$MPIEXEC" "${LAUNCH_FLAGS[@]}" -n 2 "$BIN" run)
    [[ $1 == direct && $FLAVOUR == openmpi ]] &&
        args=(pingpong sendrecv bcast --sizes 0,1K,64K --iter 3000 -q)
    T0=$(date +%s%N)
    MPIBENCH_ROBUSTNESS_CASE=$CASE_DIR MPIBENCH_MPIEXEC=$MPIEXEC timeout -k 5 "$CASE_TIMEOUT" \
        "${launch[@]}" "${args[@]}" --json out.json 2>"$CASE_DIR.err" </dev/null | head -1 >/dev/null
    RC=${PIPESTATUS[0]}
    finished "$T0"
    if [[ $1 == self ]]; then
        check "$name" "$(expect_rc 141)" "$(expect_quiet)" \
            "$(expect_json out.json "$JSON_INTERRUPTED")" "$(no_leftovers)"
        return
    fi
    # Directly under mpiexec, the launcher decides: Hydra dies of SIGPIPE
    # (141); Open MPI's mpiexec says so in its own line, ends the ranks with
    # SIGTERM and exits 1. Either way nothing hangs and the JSON is not "ok".
    if [[ $FLAVOUR == openmpi ]]; then
        # Open MPI's mpiexec notices the closed pipe only when it writes,
        # says so in its own line and exits 1 (after the end of the run or
        # after ending the ranks with SIGTERM).
        local why=""
        grep -qv 'SIGPIPE detected\|^mpibench: interrupted by SIGTERM' "$CASE_DIR.err" &&
            why="unexpected stderr: $(stderr_excerpt)"
        check "$name" "$(expect_rc 0 1)" "$why" "$(no_leftovers)"
    else
        check "$name" "$(expect_rc 141)" "$(expect_quiet)" \
            "$(expect_json out.json '"status is ok" if d.get("status") == "ok" else ""')" "$(no_leftovers)"
    fi
}
case_head self
case_head direct

# ---------------------------------------------------------------------------
# 14. Signals (item 4): forwarded, "interrupted" with the results so far,
#     128 + signal, one line, nothing left running.
# ---------------------------------------------------------------------------
case_signal_parent() { # SIGNAL CODE
    local name="signal: SIG$1 to the self-launching parent mid-run"
    new_case_dir
    self_bg run -n 2 "${LONG_RUN[@]}" --json out.json
    if ! wait_results out.json 1; then
        wait_bounded "$CASE_TIMEOUT"
        check "$name" "no result before the signal: rc $RC; $(stderr_excerpt)" "$(no_leftovers)"
        return
    fi
    kill -"$1" "$PID"
    wait_bounded 30
    check "$name" "$(expect_rc "$2")" \
        "$(expect_one_line "^mpibench: interrupted by SIG$1; .*out.json.*exit code $2")" \
        "$(expect_json out.json "$JSON_INTERRUPTED or (
            'interrupted_by is %r' % d.get('interrupted_by') if d.get('interrupted_by') != 'SIG$1' else
            'no results' if not d.get('results') else '')")" \
        "$(expect_files out.json)" "$(no_leftovers)"
}
case_signal_parent INT 130
case_signal_parent TERM 143
case_signal_parent HUP 129

# A signal the parent inherited as ignored stays ignored (G2): `nohup`
# (SIGHUP) and a script's `cmd &` (SIGINT) protect the run, which completes.
case_ignored_signal() { # SIGNAL WRAPPER
    local name="signal: SIG$1 to a parent started by '$2' (ignored): the run completes"
    new_case_dir
    SELF_WRAP=$2 self_bg run -n 2 "${ENDING_RUN[@]}" --json out.json
    if ! wait_results out.json 1; then
        wait_bounded "$CASE_TIMEOUT"
        check "$name" "no result before the signal: rc $RC; $(stderr_excerpt)" "$(no_leftovers)"
        return
    fi
    kill -"$1" "$PID"
    # The whole run completes (twice the limit: a loaded machine).
    wait_bounded $((2 * CASE_TIMEOUT))
    check "$name" "$(expect_rc 0)" "$(expect_quiet)" \
        "$(expect_json out.json '"status is %r" % d.get("status") if d.get("status") != "ok" or d.get("complete") is not True else ""')" \
        "$(expect_files out.json)" "$(no_leftovers)"
}
case_ignored_signal HUP nohup
case_ignored_signal INT env

case_signal_early() {
    local name="signal: SIGINT to the parent while MPI starts"
    new_case_dir
    self_bg run -n 2 "${LONG_RUN[@]}" --json out.json
    sleep 0.3
    kill -INT "$PID"
    wait_bounded 30
    check "$name" "$(expect_rc 130)" "$(expect_one_line '^mpibench: interrupted by SIGINT')" \
        "$(if [[ -f out.json ]]; then expect_json out.json "$JSON_INTERRUPTED"; fi)" \
        "$(no_leftovers)"
}
case_signal_early

case_sigkill_parent() {
    local name="signal: SIGKILL to the parent takes mpiexec and the ranks along"
    new_case_dir
    self_bg run -n 2 "${LONG_RUN[@]}" --json out.json
    wait_results out.json 1
    kill -KILL "$PID"
    wait_bounded 30
    # The ranks see their link to the parent close: rank 0 writes the
    # results so far, "interrupted" by "parent-exit" (up to 15 s: the
    # ranks outlive the parent, and a loaded machine is slow).
    local json
    json=$(for _ in $(seq 150); do
        r=$(expect_json out.json "$JSON_INTERRUPTED")
        [[ -z $r ]] && break
        sleep 0.1
    done; echo "$r")
    check "$name" "$(expect_rc 137)" "$json" \
        "$(expect_json out.json '"interrupted_by is %r" % d.get("interrupted_by") if d.get("interrupted_by") != "parent-exit" else ""')" \
        "$(no_leftovers)" "$(expect_files out.json)"
}
case_sigkill_parent 2>/dev/null # (bash reports the SIGKILLed job on stderr)

# signal_rank_midrun SIGNAL RANK MODE(self|direct): LONG_RUN with out.json,
# SIGNAL to that rank once the first result is written, then waits for
# the job; sets MISSING to a complaint when the rank was not found.
signal_rank_midrun() {
    new_case_dir
    long_bg "$3" --json out.json
    wait_results out.json 1
    local victim
    victim=$(rank_pid "$2")
    [[ -n $victim ]] && kill -"$1" "$victim"
    wait_bounded 30
    MISSING=$([[ -n $victim ]] || echo "rank $2 not found")
}

case_sigterm_rank() { # RANK MODE(self|direct)
    local name="signal: SIGTERM to rank $1 only ($2)"
    signal_rank_midrun TERM "$1" "$2"
    local line='^mpibench: interrupted by SIGTERM'
    check "$name" "$MISSING" "$(expect_rc 143)" \
        "$(expect_one_line "$line")" "$(expect_json out.json "$JSON_INTERRUPTED")" \
        "$(expect_files out.json)" "$(no_leftovers)"
}
case_sigterm_rank 1 self
case_sigterm_rank 0 direct
case_sigterm_rank 1 direct

case_signal_mpiexec() { # SIGNAL
    local name="signal: SIG$1 to mpiexec (no self-launch)"
    new_case_dir
    direct_bg 2 run "${LONG_RUN[@]}" --json out.json
    wait_results out.json 1
    kill -"$1" "$PID"
    wait_bounded 30
    # mpiexec's own exit code after a signal is the launcher's: Open MPI's
    # is 1 whatever the ranks do; Hydra passes the ranks' 128 + signal on.
    local rcs=(1)
    [[ $FLAVOUR == mpich ]] && rcs=($((128 + $(kill -l "$1"))))
    # Open MPI's mpiexec passes SIGTERM on to the ranks for any signal.
    local sig="SIG$1"
    [[ $FLAVOUR == openmpi ]] && sig=SIGTERM
    check "$name" "$(expect_rc "${rcs[@]}")" \
        "$(expect_one_line "^mpibench: interrupted by $sig")" \
        "$(expect_json out.json "$JSON_INTERRUPTED")" "$(expect_files out.json)" "$(no_leftovers)"
}
case_signal_mpiexec INT
case_signal_mpiexec TERM

case_kill_mpiexec() {
    local name="signal: SIGKILL to the parent's mpiexec ends the run with one line"
    new_case_dir
    self_bg run -n 2 "${LONG_RUN[@]}" --json out.json
    wait_results out.json 1
    local m
    m=$(launcher_pid)
    [[ -n $m ]] && kill -KILL "$m"
    wait_bounded 30
    check "$name" "$( [[ -n $m ]] || echo 'mpiexec not found')" "$(expect_rc 4)" \
        "$(expect_one_line "^error: the launcher '$MPIEXEC' was killed by SIGKILL while the job ran")" \
        "$(expect_json out.json '"status is ok" if d.get("status") == "ok" else ""')" \
        "$(expect_files out.json)" "$(no_leftovers)"
}
case_kill_mpiexec

# ---------------------------------------------------------------------------
# 15. Launchers (item 5).
# ---------------------------------------------------------------------------
# A "launcher" that dies of a signal before starting anything.
printf '#!/bin/bash\nkill -SEGV $$\n' >"$ROOT/segv-launcher"
chmod +x "$ROOT/segv-launcher"
# A "launcher" that hangs without starting anything (its child too).
printf '#!/bin/bash\nsleep 100\n' >"$ROOT/hang-launcher"
chmod +x "$ROOT/hang-launcher"

case_launcher() { # NAME RC LINE-REGEX MPIBENCH_MPIEXEC-VALUE [ARGS...]
    local name="launcher: $1" want=$2 line=$3 launcher=$4
    shift 4
    new_case_dir
    T0=$(date +%s%N)
    MPIBENCH_ROBUSTNESS_CASE=$CASE_DIR MPIBENCH_MPIEXEC=$launcher timeout -k 5 "$CASE_TIMEOUT" \
        "$BIN" run -n "${NP:-2}" pingpong --sizes 8 --iter 5 -q --json out.json "$@" \
        >"$CASE_DIR.out" 2>"$CASE_DIR.err" </dev/null
    RC=$?
    finished "$T0"
    local files=()
    [[ $want -eq 0 ]] && files=(out.json)
    check "$name" "$(expect_rc "$want")" \
        "$(if [[ -n $line ]]; then expect_one_line "$line"; else expect_quiet; fi)" \
        "$(expect_files "${files[@]}")" "$(no_leftovers)"
}
case_launcher "MPIBENCH_MPIEXEC=/bin/true starts no rank: exit 4" 4 "^error: the launcher '/bin/true' exited with code 0 without starting any mpibench rank" /bin/true
case_launcher "MPIBENCH_MPIEXEC=/bin/false: exit 4" 4 "^error: the launcher '/bin/false' exited with code 1 without starting" /bin/false
case_launcher "missing launcher: exit 4" 4 "^error: cannot start the launcher '/nonexistent/mpiexec': No such file" /nonexistent/mpiexec
case_launcher "a launcher killed by a signal: exit 4" 4 "^error: the launcher '.*' was killed by SIGSEGV without starting" "$ROOT/segv-launcher"
MPIBENCH_START_DEADLINE=3 case_launcher "a launcher that starts no rank within the start deadline: exit 4, its process group ended" 4 \
    "^error: the launcher '.*hang-launcher' started no mpibench rank within 3 s; it was ended" "$ROOT/hang-launcher" --timeout 5
case_launcher "empty MPIBENCH_MPIEXEC= means unset" 0 "" ""
case_launcher "--mpiexec '' means unset" 0 "" "" --mpiexec ""
NP=1000000 case_launcher "-n 1000000 refused: exit 2" 2 "^error: -n 1000000 is more than 64 ranks per core.*--force-np" "$MPIEXEC"
NP=0 case_launcher "-n 0 refused: exit 2" 2 "^error: .*-n.* from 1" "$MPIEXEC"
NP=-3 case_launcher "-n -3 refused with the range: exit 2" 2 "^error: .*from 1" "$MPIEXEC"
if [[ -n $OTHER_MPIEXEC ]]; then
    case_launcher "--mpiexec of the other MPI refused before starting: exit 2" 2 \
        "^error: the launcher '$OTHER_MPIEXEC' belongs to .* but mpibench was built with" "$MPIEXEC" --mpiexec "$OTHER_MPIEXEC"
    case_launcher "MPIBENCH_MPIEXEC of the other MPI refused: exit 2" 2 \
        "^error: the launcher '$OTHER_MPIEXEC' belongs to" "$OTHER_MPIEXEC"
    case_world_mismatch() {
        local name="launcher: $OTHER_MPIEXEC -n 2 starting this build: exit 2"
        new_case_dir
        local flags=()
        [[ $OTHER_MPIEXEC == mpiexec.openmpi ]] && flags=(--oversubscribe --quiet)
        T0=$(date +%s%N)
        MPIBENCH_ROBUSTNESS_CASE=$CASE_DIR timeout -k 5 "$CASE_TIMEOUT" \
            "$OTHER_MPIEXEC" "${flags[@]}" -n 2 "$BIN" run pingpong --sizes 8 --iter 5 -q --json out.json \
            >"$CASE_DIR.out" 2>"$CASE_DIR.err" </dev/null
        RC=$?
        finished "$T0"
        check "$name" "$(expect_rc 2)" \
            "$(expect_one_line '^error: the launcher \(.*\) started 2 processes, but each is alone in its MPI world: mpibench was built with (Open MPI|MPICH)')" \
            "$(expect_files)" "$(no_leftovers)"
    }
    case_world_mismatch
else
    echo "SKIP wrong-launcher cases (no other MPI's mpiexec installed)"
fi

# ---------------------------------------------------------------------------
# 16. Panics and names (item 6).
# ---------------------------------------------------------------------------
bad "multibyte name PingPöng" "unknown benchmark 'PingPöng'" PingPöng
bad "multibyte name Alltoäll" "unknown benchmark" Alltoäll
bad "multibyte name Barrièr" "unknown benchmark" Barrièr
bad "multibyte name Multiö-x" "unknown benchmark" Multiö-x

case_panic() { # RANK MODE(self|direct)
    local name="panic on rank $1 ($2): one line, the job ends, exit 3"
    new_case_dir
    T0=$(date +%s%N)
    if [[ $2 == self ]]; then
        MPIBENCH_TEST_PANIC_RANK=$1 self run -n 2 pingpong --sizes 8 --iter 5 -q
    else
        MPIBENCH_TEST_PANIC_RANK=$1 mpi 2 run pingpong --sizes 8 --iter 5 -q
    fi
    check "$name" "$(expect_rc 3)" "$(expect_one_line "^error: rank $1: internal error: test panic")" \
        "$(expect_files)" "$(no_leftovers)"
}
# A rank that crashes mid-run: exit 3, one line, the JSON "aborted" (also
# under MPICH, whose launcher kills rank 0 at once: rank 0 is told first).
# case_crash_midrun: see case_outcome_rank_crashed in robustness.d/10-outcome.sh.

case_panic 1 direct
case_panic 0 direct
case_panic 1 self

# ---------------------------------------------------------------------------
# 17. Figures that mean what they say (item 7).
# ---------------------------------------------------------------------------
bad "--iter 5 --min-iter 10" "excludes --min-iter" --iter 5 --min-iter 10
bad "--iter 5000 --max-iter 10" "excludes --max-iter" --iter 5000 --max-iter 10
bad "--window-us -5 states the range" "between 0 and 1000000" --sync window --window-us -5
bad "--precision -1 states the range" "between 0 and 1" --precision -1
bad "--iter -5 states the range" "from 1" --iter -5
bad "--time -1 states the range" "positive number of seconds" --time -1
bad "--timeout -3 states the range" "between 0 and" --timeout -3
bad "--mem -1 states the range" "positive number of GiB" --mem -1
bad "--volume -3 states the range" "from 0 up" --volume -3
bad "--min-packet -3 states the range" "at least 1 byte" --suite commtest --min-packet -3
bad "--scenarios -3 states the range" "1, 2 or 3" --suite cresta --scenarios -3
bad "--bind-to -3 is no policy" "not a binding policy" --bind-to -3
bad "--suite clock --iter 5 (fixed repetitions)" "--iter does not apply" --suite clock --iter 5
bad "--suite clock --min-iter 5 (fixed repetitions)" "--min-iter does not apply" --suite clock --min-iter 5
bad "--delay-us -3 without a caf benchmark" "from 0 to 1000000" pingpong --delay-us -3
bad "--max-ndata -3 without a caf benchmark" "from 2 to 2^28" pingpong --max-ndata -3
bad "Multi- and plain names mixed" "cannot be mixed" Multi-Allreduce PingPong

case_multi_name() {
    local name="Multi-Allreduce selects multi mode"
    new_case_dir
    mpi 2 run Multi-Allreduce --sizes 8 --iter 5 -q --json out.json
    check "$name" "$(expect_rc 0)" \
        "$(expect_json out.json '"modes are %s" % [r["mode"] for r in d["results"]] if not d["results"] or any(r["mode"] != "multi" for r in d["results"]) else ""')" \
        "$(no_leftovers)"
}
case_multi_name

case_iter_recorded() {
    local name="--iter 7 is what the settings record"
    new_case_dir
    mpi 2 run pingpong --sizes 8 --iter 7 -q --json out.json
    check "$name" "$(expect_rc 0)" \
        "$(expect_json out.json '"settings say %s" % d["settings"] if (d["settings"]["iter"], d["settings"]["min_iter"], d["settings"]["max_iter"]) != (7, 7, 7) else ""')" \
        "$(no_leftovers)"
}
case_iter_recorded

case_clock_csv() {
    local name="clocksync and timing rows keep their columns in CSV"
    new_case_dir
    mpi 2 run clocksync clock/timing -q --csv out.csv
    check "$name" "$(expect_rc 0)" "$(python3 - out.csv <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
cs = [r for r in rows if r["benchmark"].lower() == "clocksync"]
tm = [r for r in rows if r["benchmark"].lower() == "timing"]
if not cs or not tm:
    print("missing rows: %s" % sorted({r["benchmark"] for r in rows}))
elif any(r["rank"] == "" or r["offset_us"] == "" or r["residual_us"] == "" for r in cs):
    print("ClockSync rows lack rank/offset/residual: %s" % cs[0])
elif any(r["rank"] == "" or r["tick_us"] == "" or r["overhead_us"] == "" for r in tm):
    print("Timing rows lack rank/tick/overhead: %s" % tm[0])
PY
)" "$(no_leftovers)"
}
case_clock_csv

# ---------------------------------------------------------------------------
# 18. The environment (item 8): one line of mpibench's own and a documented
#     exit code (never 1 "validation errors", never a bare crash).
# ---------------------------------------------------------------------------
case_ulimit() { # KIB
    local name="environment: ulimit -v $1 (self-launched)"
    new_case_dir
    T0=$(date +%s%N)
    (
        ulimit -v "$1"
        MPIBENCH_ROBUSTNESS_CASE=$CASE_DIR MPIBENCH_MPIEXEC=$MPIEXEC exec timeout -k 5 "$CASE_TIMEOUT" \
            "$BIN" run -n 2 pingpong --sizes 8 --iter 5 -q --json out.json
    ) >"$CASE_DIR.out" 2>"$CASE_DIR.err" </dev/null
    RC=$?
    finished "$T0"
    # Whether MPI starts under a given limit depends on the library (and
    # varies between runs): success, or 4/5 with one line naming the limit.
    if [[ $RC -eq 0 ]]; then
        check "$name" "$(expect_json out.json '"status is not ok" if d.get("status") != "ok" else ""')" "$(no_leftovers)"
    else
        check "$name" "$(expect_rc 4 5)" "$(expect_one_error_line 'ulimit -v')" "$(no_leftovers)"
    fi
}
case_ulimit 60000
case_ulimit 170000

case_readonly_tmpdir() {
    local name="environment: read-only TMPDIR (self-launched)"
    need_unshare "$name" || return
    new_case_dir
    mkdir ro
    ro_run "TMPDIR=$CASE_DIR/ro" -- run -n 2 pingpong --sizes 8 --iter 5 -q --json out.json
    if [[ $FLAVOUR == openmpi ]]; then
        check "$name" "$(expect_rc 5)" \
            "$(expect_one_line "^error: the temporary directory '.*/ro' is not writable \(Read-only file system")" \
            "$(expect_files ro)" "$(no_leftovers)"
    else
        # MPICH does not need TMPDIR.
        check "$name" "$(expect_rc 0)" "$(expect_files out.json ro)" "$(no_leftovers)"
    fi
}
case_readonly_tmpdir

# ---------------------------------------------------------------------------
# 19. Issue 17, after the audit: the status after a failure at the final
#     write, block devices and sockets, panics and closed pipes in every
#     subcommand, inputs in the same-file checks, one format on stdout, the
#     parent's line, file size limits, paths that name directories, and the
#     note on reductions at partial floats.
# ---------------------------------------------------------------------------
JSON_ABORTED='"complete is not false" if d.get("complete") is not False else
    "status is %r, expected aborted" % d.get("status") if d.get("status") != "aborted" else ""'

# plain NAME RC LINE-REGEX ARGS...: `mpibench ARGS` without MPI (or
# self-launching), bounded; exit code RC, one line matching LINE-REGEX (or
# nothing on stderr when it is empty), no file left in the case directory
# beyond the ones the caller keeps in KEEP (an array, may be empty).
plain() {
    local name=$1 want=$2 line=$3
    shift 3
    T0=$(date +%s%N)
    MPIBENCH_ROBUSTNESS_CASE=$CASE_DIR MPIBENCH_MPIEXEC=$MPIEXEC timeout -k 5 "$CASE_TIMEOUT" \
        "$BIN" "$@" >"$CASE_DIR.out" 2>"$CASE_DIR.err" </dev/null
    RC=$?
    finished "$T0"
    check "$name" "$(expect_rc "$want")" \
        "$(if [[ -n $line ]]; then expect_one_line "$line"; else expect_quiet; fi)" \
        "$(expect_files "${KEEP[@]}")" "$(no_leftovers)"
}

# Two small results files (made once) for report, plot and compare.
INPUTS=$ROOT/inputs
make_inputs() {
    [[ -f $INPUTS/a.json && -f $INPUTS/b.json ]] && return 0
    mkdir -p "$INPUTS"
    local f
    for f in a b; do
        MPIBENCH_ROBUSTNESS_CASE=$INPUTS timeout -k 5 "$CASE_TIMEOUT" \
            "$MPIEXEC" "${LAUNCH_FLAGS[@]}" -n 2 "$BIN" run pingpong --sizes 8,64 --iter 20 -q \
            --json "$INPUTS/$f.json" >/dev/null 2>&1 </dev/null
    done
    [[ -f $INPUTS/a.json && -f $INPUTS/b.json ]]
}

# A failure at the very end (a special file written once, the tables file,
# the HTML report, a plot) turns the JSON file into "aborted", exit 3.
case_final_write() { # NAME MODE(self|direct) ARGS... (a copy of /dev/full is ./full)
    local name="final write: $1 ($2): the JSON says aborted, exit 3" mode=$2
    shift 2
    need_root "$name" || return
    new_case_dir
    make_devices
    if [[ $mode == self ]]; then
        self run -n 2 -q --json o.json "$@"
    else
        mpi 2 run -q --json o.json "$@"
    fi
    check "$name" "$(expect_rc 3)" \
        "$(expect_one_line "^error: cannot write 'full': No space left on device")" \
        "$(expect_json o.json "$JSON_ABORTED")" "$(expect_chardev full 1:7)" \
        "$(expect_files o.json null full)" "$(no_leftovers)"
}
case_final_write "--csv to a copy of /dev/full" direct pingpong --sizes 8 --iter 5 --csv full
case_final_write "--csv to a copy of /dev/full" self pingpong --sizes 8 --iter 5 --csv full
case_final_write "--output to a copy of /dev/full" direct pingpong --sizes 8 --iter 5 --output full
case_final_write "--report to a copy of /dev/full" direct pingpong --sizes 8 --iter 5 --report full
case_final_write "--plot to a copy of /dev/full" direct --suite cresta bcast --sizes 8 --iter 5 --plot full

case_final_write_stdout() {
    local name="final write: --json - with --csv to a copy of /dev/full: stdout's JSON says aborted"
    need_root "$name" || return
    new_case_dir
    make_devices
    mpi 2 run pingpong --sizes 8 --iter 5 -q --json - --csv full
    check "$name" "$(expect_rc 3)" \
        "$(expect_one_line "^error: cannot write 'full': No space left on device")" \
        "$(expect_json "$CASE_DIR.out" "$JSON_ABORTED")" \
        "$(expect_files null full)" "$(no_leftovers)"
}
case_final_write_stdout

case_final_plots() {
    local name="final write: --plots DIR that became a file mid-run: the JSON says aborted, exit 3"
    new_case_dir
    # The run goes on to its end after the file appeared (with LONG_RUN
    # this took 157 s in one pass at load average 8).
    local CASE_TIMEOUT=$((CASE_TIMEOUT * 4))
    direct_bg 2 run "${LATER_RUN[@]}" --json o.json --plots d
    if ! wait_results o.json 1; then
        wait_bounded "$CASE_TIMEOUT"
        check "$name" "the run never wrote a result: rc $RC; $(stderr_excerpt)" "$(no_leftovers)"
        return
    fi
    echo keep >d
    wait_bounded "$CASE_TIMEOUT"
    check "$name" "$(expect_rc 3)" "$(expect_one_line "^error: cannot write into 'd': not a directory$")" \
        "$(expect_json o.json "$JSON_ABORTED")" \
        "$( [[ $(cat d) == keep ]] || echo 'd was changed')" \
        "$(expect_files o.json d)" "$(no_leftovers)"
}
case_final_plots

# Block devices and sockets are refused before anything runs: writing a
# disk in place would destroy it. The node is an unconnected loop minor of
# our own: it is never opened.
case_block_device() { # FLAG MODE(self|direct)
    local name="output: $1 to a block device node is refused ($2)"
    need_root "$name" || return
    new_case_dir
    mknod blk b 7 200
    local CASE_TIMEOUT=${BAD_TIMEOUT:-20}
    if [[ $2 == self ]]; then
        self run -n 2 pingpong --sizes 8 "$1" blk
    else
        mpi 2 run pingpong --sizes 8 "$1" blk
    fi
    check "$name" "$(expect_rc 2)" "$(expect_one_line "^error: cannot write 'blk': is a block device")" \
        "$( [[ $(stat -c '%F %t:%T' blk) == "block special file 7:c8" ]] || echo "blk changed: $(stat -c '%F %t:%T' blk)")" \
        "$(expect_files blk)" "$(no_leftovers)"
}
case_block_device --json direct
case_block_device --csv direct
case_block_device --raw self
case_block_device --output direct

case_block_device_report() {
    local name="output: report -o to a block device node is refused"
    need_root "$name" || return
    new_case_dir
    make_inputs || { check "$name" "could not make the input files"; return; }
    cp "$INPUTS/a.json" .
    mknod blk b 7 200
    KEEP=(a.json blk)
    plain "$name" 2 "^error: cannot write 'blk': is a block device" report a.json -o blk
}
case_block_device_report

case_socket() {
    local name="output: --json to a socket is refused"
    new_case_dir
    python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' sock
    local CASE_TIMEOUT=${BAD_TIMEOUT:-20}
    mpi 2 run pingpong --sizes 8 --json sock
    check "$name" "$(expect_rc 2)" "$(expect_one_line "^error: cannot write 'sock': is a socket")" \
        "$( [[ $(stat -c %F sock) == socket ]] || echo "sock changed: $(stat -c %F sock)")" \
        "$(expect_files sock)" "$(no_leftovers)"
}
case_socket

# Panics in every subcommand: one line, no backtrace, exit 3; a multibyte
# -D argument is a usage error, not a panic.
case_plain() { # NAME RC LINE-REGEX ARGS...
    new_case_dir
    KEEP=()
    plain "$@"
}
case_plain "osu: -D abcdé (a multibyte character at byte 5): exit 2, one line" 2 \
    "^error: .*abcdé" osu osu_latency -D abcdé
case_plain "osu: -D indx:é (multibyte): exit 2, one line" 2 "^error: " osu osu_latency -D 'indé:x'
# Negative values of the other subcommands state their range (G7).
case_plain "compare --noise -5 states the range: exit 2" 2 "^error: .*--noise.*non-negative" compare a.json b.json --noise -5
case_plain "compare --alpha -1 states the range: exit 2" 2 "^error: .*--alpha.*between 0 and 1" compare a.json b.json --alpha -1
case_plain "compare --fail-if-slower -5 states the range: exit 2" 2 "^error: .*non-negative" compare a.json b.json --fail-if-slower -5
case_plain "report -o -1 is refused as an option-like path: exit 2" 2 "^error: .*'-1' looks like an option.*\./-1" report a.json -o -1
case_plain "plot -o -5 is refused as an option-like path: exit 2" 2 "^error: .*'-5' looks like an option.*\./-5" plot a.json -o -5
MPIBENCH_TEST_PANIC_MAIN=1 case_plain "panic in 'list': one line, exit 3" 3 \
    "^error: internal error: test panic requested by MPIBENCH_TEST_PANIC_MAIN at " list
MPIBENCH_TEST_PANIC_MAIN=1 case_plain "panic in 'osu -h': one line, exit 3" 3 \
    "^error: internal error: test panic" osu -h
MPIBENCH_TEST_PANIC_MAIN=1 case_plain "panic in the self-launching parent: one line, exit 3" 3 \
    "^error: internal error: test panic" run -n 2 pingpong --sizes 8

# A closed stdout pipe ends every printing subcommand quietly, as Unix
# tools do (killed by SIGPIPE: 141). The reader is gone before the first
# write, so that the write always fails.
case_closed_pipe() { # NAME ARGS...
    local name="closed stdout pipe: $1 ends quietly (141)"
    shift
    new_case_dir
    make_inputs || { check "$name" "could not make the input files"; return; }
    cp "$INPUTS/a.json" "$INPUTS/b.json" .
    T0=$(date +%s%N)
    (
        sleep 0.5
        MPIBENCH_ROBUSTNESS_CASE=$CASE_DIR MPIBENCH_MPIEXEC=$MPIEXEC exec timeout -k 5 "$CASE_TIMEOUT" \
            "$BIN" "$@" 2>"$CASE_DIR.err" </dev/null
    ) | true
    RC=${PIPESTATUS[0]}
    finished "$T0"
    check "$name" "$(expect_rc 141)" "$(expect_quiet)" "$(expect_files a.json b.json)" "$(no_leftovers)"
}
case_closed_pipe "list | head" list
case_closed_pipe "imb -list | head" imb -list
case_closed_pipe "run --dry-run | head" run -n 2 --dry-run pingpong
case_closed_pipe "--help | head" --help
case_closed_pipe "osu -h | head" osu -h
case_closed_pipe "compare a b | head" compare a.json b.json
case_closed_pipe "report a -o - | head" report a.json -o -

# No output may overwrite an input: exit 2, one line, the input intact.
case_input_kept() { # NAME LINE-REGEX KEPT MODE(plain|direct|self) ARGS...
    local name="same file: $1" line=$2 kept=$3 mode=$4
    shift 4
    new_case_dir
    make_inputs || { check "$name" "could not make the input files"; return; }
    cp "$INPUTS/a.json" "$INPUTS/b.json" .
    printf '%s slots=2\n' "$(hostname)" >hosts
    printf '8\n64\n' >lens
    printf 'PingPong\n' >names
    ln -s b.json l
    local sum files
    sum=$(md5sum "$kept")
    files=$(ls -A | tr '\n' ' ')
    local CASE_TIMEOUT=${BAD_TIMEOUT:-20}
    case $mode in
    plain)
        T0=$(date +%s%N)
        MPIBENCH_ROBUSTNESS_CASE=$CASE_DIR timeout -k 5 "$CASE_TIMEOUT" \
            "$BIN" "$@" >"$CASE_DIR.out" 2>"$CASE_DIR.err" </dev/null
        RC=$?
        finished "$T0"
        ;;
    direct) mpi 2 "$@" ;;
    self) self "$@" ;;
    esac
    check "$name" "$(expect_rc 2)" "$(expect_one_line "$line")" \
        "$( [[ $(md5sum "$kept") == "$sum" ]] || echo "$kept was changed")" \
        "$( [[ $(ls -A | tr '\n' ' ') == "$files" ]] || echo "files are now: $(ls -A | tr '\n' ' ')")" \
        "$(no_leftovers)"
}
case_input_kept "report a.json -o a.json" "^error: -o 'a.json' would overwrite the input 'a.json'" \
    a.json plain report a.json -o a.json
case_input_kept "report a.json b.json -o through a symlink to b.json" "^error: -o 'l' would overwrite the input 'b.json'" \
    b.json plain report a.json b.json -o l
case_input_kept "compare a.json b.json --json a.json" "^error: --json 'a.json' would overwrite the input 'a.json'" \
    a.json plain compare a.json b.json --json a.json
case_input_kept "plot a.json -o a.json" "^error: cannot write into 'a.json': not a directory" \
    a.json plain plot a.json -o a.json
case_input_kept "run --json hosts --hostfile hosts (self-launched)" \
    "^error: --json 'hosts' would overwrite the --hostfile input 'hosts'" hosts self run -n 2 pingpong --json hosts --hostfile hosts
case_input_kept "imb -msglen lens --json lens" "^error: --json 'lens' would overwrite the -msglen input 'lens'" \
    lens direct imb PingPong -msglen lens --json lens
case_input_kept "imb -input names --csv names" "^error: --csv 'names' would overwrite the -input input 'names'" \
    names direct imb -input names --csv names

# --plots DIR is an output like the others: checked before anything runs.
case_plots_checked() { # NAME LINE-REGEX SETUP ARGS...
    local name="output: $1" line=$2 setup=$3
    shift 3
    new_case_dir
    eval "$setup"
    local files
    files=$(ls -A | tr '\n' ' ')
    local CASE_TIMEOUT=${BAD_TIMEOUT:-20}
    mpi 2 run pingpong --sizes 8 "$@"
    check "$name" "$(expect_rc 2)" "$(expect_one_line "$line")" \
        "$( [[ $(ls -A | tr '\n' ' ') == "$files" ]] || echo "files are now: $(ls -A | tr '\n' ' ')")" \
        "$(no_leftovers)"
}
case_plots_checked "--plots on a regular file" "^error: cannot write into 'f': not a directory" \
    'echo keep >f' --plots f
case_plots_checked "--plots under a regular file" "^error: cannot write into 'f/sub': Not a directory" \
    'echo keep >f' --plots f/sub
case_plots_checked "--plots and --json on one path" "^error: --json 'o' and --plots 'o' are the same file" \
    '' --json o --plots o
case_plots_checked "--plots ''" "^error: a value is required for '--plots" '' --plots ''

case_plots_readonly() {
    local name="output: --plots in a read-only directory: exit 2 before anything runs"
    need_unshare "$name" || return
    new_case_dir
    mkdir ro
    ro_run -- run -n 2 pingpong --sizes 8 --iter 5 -q --json out.json --plots ro/plots
    check "$name" "$(expect_rc 2)" \
        "$(expect_one_line "^error: cannot write into 'ro/plots': Read-only file system")" \
        "$( [[ -z $(ls -A ro) ]] || echo "ro holds $(ls -A ro)")" \
        "$(expect_files ro)" "$(no_leftovers)"
}
case_plots_readonly

# Paths that cannot be files are refused before anything runs.
bad "--json ''" "a value is required for '--json" pingpong --json ''
bad "--csv ''" "a value is required for '--csv" pingpong --csv ''
bad "--json newdir/" "cannot write 'newdir/': a path ending in '/' names a directory" pingpong --json newdir/
bad "--raw sub/." "names a directory" pingpong --raw sub/.
bad "--plot /dev/stdout with --json -" "both write to stdout" --suite cresta bcast --plot /dev/stdout --json -

case_self_bad() { # NAME LINE-REGEX ARGS...
    local name="bad input (self-launched): $1" line=$2
    shift 2
    new_case_dir
    local CASE_TIMEOUT=${BAD_TIMEOUT:-20}
    self run -n 2 "$@"
    check "$name" "$(expect_rc 2)" "$(expect_one_line "$line")" "$(expect_files)" "$(no_leftovers)"
}
case_self_bad "--json newdir/" "^error: cannot write 'newdir/': a path ending in '/' names a directory" pingpong --json newdir/
case_self_bad "--json ''" "^error: a value is required for '--json" pingpong --json ''

# Stdout carries one format.
case_one_format() { # NAME PYTHON-CHECK-OF-STDOUT ARGS...
    local name="stdout: $1" what=$2
    shift 2
    new_case_dir
    make_inputs || { check "$name" "could not make the input files"; return; }
    cp "$INPUTS/a.json" "$INPUTS/b.json" .
    T0=$(date +%s%N)
    if [[ $1 == run ]]; then
        mpi 2 "$@"
    else
        MPIBENCH_ROBUSTNESS_CASE=$CASE_DIR timeout -k 5 "$CASE_TIMEOUT" \
            "$BIN" "$@" >"$CASE_DIR.out" 2>"$CASE_DIR.err" </dev/null
        RC=$?
        finished "$T0"
    fi
    check "$name" "$(expect_rc 0)" "$(expect_quiet)" \
        "$(python3 -c "$what" "$CASE_DIR.out")" "$(expect_files a.json b.json)" "$(no_leftovers)"
}
ONLY_JSON='import json, sys
try:
    json.load(open(sys.argv[1]))
except Exception as e:
    print("stdout is not only JSON: %s: %s" % (e, open(sys.argv[1]).read(120)))'
ONLY_SVG='import sys
t = open(sys.argv[1]).read()
if not t.lstrip().startswith("<svg") or not t.rstrip().endswith("</svg>"):
    print("stdout is not only SVG: %r ... %r" % (t[:80], t[-80:]))'
ONLY_HTML='import sys
t = open(sys.argv[1]).read()
if not t.lstrip().lower().startswith("<!doctype html") or not t.rstrip().endswith("</html>"):
    print("stdout is not only HTML: %r ... %r" % (t[:80], t[-80:]))'
case_one_format "compare --json /dev/stdout carries only the JSON" "$ONLY_JSON" compare a.json b.json --json /dev/stdout
case_one_format "report -o /dev/stdout carries only the HTML" "$ONLY_HTML" report a.json -o /dev/stdout
case_one_format "run --plot - carries only the SVG, no tables" "$ONLY_SVG" \
    run --suite cresta bcast --sizes 8 --iter 5 -q --plot -
case_one_format "run --plot /dev/stdout carries only the SVG" "$ONLY_SVG" \
    run --suite cresta bcast --sizes 8 --iter 5 -q --plot /dev/stdout

# A file size limit (ulimit -f, here set on running rank 0 with prlimit)
# fails the write with EFBIG instead of killing rank 0 with SIGXFSZ.
case_file_size_limit() { # MODE(self|direct)
    local name="write failure: a file size limit on rank 0 ($1): one line, exit 3, no temporary file"
    if ! command -v prlimit >/dev/null 2>&1; then
        echo "SKIP $name (needs prlimit)"
        return
    fi
    new_case_dir
    long_bg "$1" --json out.json
    wait_results out.json 1
    local r0
    r0=$(rank_pid 0)
    [[ -n $r0 ]] && prlimit --pid "$r0" --fsize=1024:1024
    wait_bounded "$CASE_TIMEOUT"
    check "$name" "$( [[ -n $r0 ]] || echo 'rank 0 not found')" "$(expect_rc 3)" \
        "$(expect_one_line "^error: cannot write 'out.json': File too large")" \
        "$(expect_json out.json '"status is ok" if d.get("status") == "ok" else ""')" \
        "$(expect_files out.json)" "$(no_leftovers)"
}
case_file_size_limit direct
case_file_size_limit self

# Reductions take L = X/4 floats (PMB): at 1-3 bytes the call reduces
# nothing and at 5, 7 and 9 bytes whole floats only; the rows say so.
case_partial_floats() {
    local name="reductions at 1-3, 5, 7 and 9 bytes carry the L = X/4 note"
    new_case_dir
    mpi 2 run allreduce reduce reduce_scatter --sizes 1,2,3,4,5,7,8,9 --iter 5 --json out.json
    check "$name" "$(expect_rc 0)" "$(expect_json out.json '
        "no results" if not d["results"] else
        "; ".join("%s %d bytes: note %r" % (r["benchmark"], x["bytes"], x.get("note"))
            for r in d["results"] for x in r["rows"]
            if ("L = X/4" in (x.get("note") or "")) != (x["bytes"] % 4 != 0))')" \
        "$( [[ $(grep -c 'L = X/4' "$CASE_DIR.out") -ge 18 ]] || echo "the tables carry $(grep -c 'L = X/4' "$CASE_DIR.out") notes, expected 18: $(head -c 300 "$CASE_DIR.out")")" \
        "$(expect_files out.json)" "$(no_leftovers)"
}
case_partial_floats

# ---------------------------------------------------------------------------
# More cases, one file per topic: tests/robustness.d/*.sh, sourced in name
# order. Each file defines its cases with the helpers above and calls them.
# ---------------------------------------------------------------------------
ROBUSTNESS_D=$SCRIPT_DIR/robustness.d
if [[ -d $ROBUSTNESS_D ]]; then
    for f in "$ROBUSTNESS_D"/*.sh; do
        [[ -f $f ]] || continue
        # shellcheck disable=SC1090
        source "$f"
        cd "$ROOT" || exit 1
    done
fi

# ---------------------------------------------------------------------------
# 10. Messages beyond 2 GiB (opt-in: MPIBENCH_LARGE=1, ~10 GB of memory).
# ---------------------------------------------------------------------------
case_large() {
    local name="large messages: 2147483656 bytes, pingpong bcast --check"
    new_case_dir
    local CASE_TIMEOUT=${LARGE_TIMEOUT:-900}
    mpi 2 run pingpong bcast --sizes 2147483656 --check --iter 1 -q --json out.json
    local why
    echo "large messages: wall time ${ELAPSED} s"
    if [[ $HUNG -eq 1 ]]; then
        fail "$name" "hang (no exit within ${CASE_TIMEOUT} s)"
    elif [[ $RC -ne 0 ]]; then
        fail "$name" "exit code $RC, expected 0; stderr: $(stderr_excerpt)"
    elif [[ ! -f out.json ]]; then
        fail "$name" "no out.json"
    elif ! why=$(json_check out.json '
        (lambda rows:
            "complete is not true" if d.get("complete") is not True else
            "missing PingPong or Bcast: %s" % names(d) if not (result(d, "PingPong") and result(d, "Bcast")) else
            "no rows" if not rows else
            "rows have bytes %s" % [x["bytes"] for x in rows] if any(x["bytes"] != 2147483656 for x in rows) else
            "errors %s" % [x["errors"] for x in rows] if any(x["errors"] != 0 for x in rows) else
            "PingPong mbytes_per_sec is not > 0" if not all((x.get("mbytes_per_sec") or 0) > 0 for r in result(d, "PingPong") for x in r["rows"]) else
            ""
        )([x for r in d["results"] for x in r["rows"]])'); then
        fail "$name" "$why"
    else
        pass "$name" "${ELAPSED} s"
        python3 - out.json <<'EOF2'
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["results"]:
    for x in r["rows"]:
        mb = x.get("mbytes_per_sec")
        print("large messages: %s %d bytes: t_max %.0f us%s, errors %s (%s)" % (
            r["benchmark"], x["bytes"], x["t_max_us"],
            ", %.1f MB/s" % mb if mb else "", x["errors"],
            d["settings"].get("large_messages")))
EOF2
    fi
    cd "$ROOT" || exit 1
}
if [[ $LARGE == 1 ]]; then
    case_large
else
    echo "large messages: skipped (set MPIBENCH_LARGE=1 to run; needs ~10 GB of memory)"
fi

echo "robustness: wall time $((SECONDS - START_S)) s"
echo "robustness: $N cases, $PASSED passed, $FAILED failed"
if [[ $FAILED -eq 0 ]]; then
    echo "test result: ok. $PASSED passed; 0 failed"
    exit 0
fi
echo "test result: FAILED. $PASSED passed; $FAILED failed"
exit 1
