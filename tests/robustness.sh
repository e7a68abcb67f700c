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
#
# Exit codes of mpibench: 0 ok, 1 validation errors, 2 usage errors,
# 3 a benchmark aborted. Every case runs in its own temporary directory and
# under `timeout`; a timeout is reported as "FAIL name: hang".
#
# Output: one line per case (PASS name / FAIL name: reason), then
#   robustness: N cases, P passed, F failed
#   test result: ok. P passed; 0 failed        (or: test result: FAILED. P passed; F failed)
# and exit status 1 when anything failed.

set -uo pipefail

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
for tool in timeout python3 pgrep; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "robustness: '$tool' is required" >&2
        echo "robustness: 0 cases, 0 passed, 1 failed"
        echo "test result: FAILED. 0 passed; 1 failed"
        exit 1
    fi
done

ROOT=$(mktemp -d "${TMPDIR:-/tmp}/mpibench-robustness.XXXXXX")
BG_PID=""

# Every launcher runs with MPIBENCH_ROBUSTNESS_CASE=<its case directory> in its
# environment, which the ranks inherit. kill_leftovers PREFIX sends SIGKILL to
# the processes (by pid) whose marker starts with PREFIX: ranks left behind by
# a hung case, and nothing that this script did not start.
kill_leftovers() {
    local env pid
    for env in /proc/[0-9]*/environ; do
        pid=${env#/proc/}
        pid=${pid%/environ}
        [[ $pid == "$$" ]] && continue
        if tr '\0' '\n' 2>/dev/null <"$env" | grep -qF "MPIBENCH_ROBUSTNESS_CASE=$1"; then
            kill -KILL "$pid" 2>/dev/null
        fi
    done
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

START_S=$SECONDS
N=0
PASSED=0
FAILED=0

pass() {
    N=$((N + 1))
    PASSED=$((PASSED + 1))
    echo "PASS $1${2:+ ($2)}"
}

fail() {
    N=$((N + 1))
    FAILED=$((FAILED + 1))
    echo "FAIL $1: $2"
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
        timeout -k 5 "$CASE_TIMEOUT" "$MPIEXEC" --oversubscribe --quiet -n "$np" "$BIN" "$@" \
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
bad "same file for --json and --csv" "two outputs" --csv out.json
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
# 4. Watchdog: PingPong at 1 MiB with a huge fixed repetition count hangs
#    past --timeout 2; the job aborts with exit 3 well within 15 s, naming
#    benchmark, size and process count; out.json keeps the finished Barrier.
#    (--iter applies to Barrier too: 10^6 barriers take ~0.2-0.6 s here,
#    whereas the 10^8 of the original issue take ~50 s and would make Barrier
#    itself time out, so that no Barrier result could exist.)
# ---------------------------------------------------------------------------
case_watchdog() {
    local name="watchdog: --timeout 2 aborts a hanging PingPong"
    new_case_dir
    mpi 2 run barrier pingpong --sizes 1M --iter 1000000 --timeout 2 --json out.json
    local why err
    err=$(grep -m 1 -i "timeout" "$CASE_DIR.err")
    if [[ $HUNG -eq 1 ]]; then
        fail "$name" "hang (no exit within ${CASE_TIMEOUT} s)"
    elif [[ $RC -eq 0 ]]; then
        fail "$name" "exit code 0, expected non-zero (3)"
    elif [[ $RC -ne 3 ]]; then
        fail "$name" "exit code $RC, expected 3; stderr: $(stderr_excerpt)"
    elif ! awk -v t="$ELAPSED" 'BEGIN { exit !(t < 15) }'; then
        fail "$name" "took ${ELAPSED} s, expected under 15 s"
    elif [[ -z $err ]]; then
        fail "$name" "no 'timeout' message on stderr: $(stderr_excerpt)"
    elif [[ $err != *PingPong* || $err != *1048576* || $err != *"2 processes"* ]]; then
        fail "$name" "timeout message does not name PingPong, 1048576 bytes and 2 processes: $err"
    elif [[ ! -f out.json ]]; then
        fail "$name" "no out.json"
    elif ! why=$(json_check out.json '
        "complete is not false" if d.get("complete") is not False else
        "no Barrier result with rows" if not any(r.get("rows") for r in result(d, "Barrier")) else
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
    new_case_dir
    local out="$CASE_DIR/out.json" t0
    t0=$(date +%s%N)
    # The absolute path of out.json is unique to this case: it identifies the ranks.
    MPIBENCH_ROBUSTNESS_CASE=$CASE_DIR \
        timeout -k 5 "$CASE_TIMEOUT" "$MPIEXEC" --oversubscribe --quiet -n 2 "$BIN" run \
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
        pass "$name" "killed pid $victim after ${before%% *} results; rc $RC${leftovers:+; leftover files: $leftovers}"
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
