# shellcheck shell=bash
# ---------------------------------------------------------------------------
# 20. Issue 23, item 2: the compare gate never passes what it did not judge,
#     and compare refuses inputs that cannot be results (item 4). Small
#     results files made with python3; compare is a plain program: the
#     launcher it is given (a script that leaves a marker) must never run.
# ---------------------------------------------------------------------------

# make_run FILE KEY=VALUE...: a small results file. Keys: timing (loop |
# per-call), scale (times multiplied), status, complete (true|false), rows
# (how many sizes), bench, bom (1: a UTF-8 byte order mark first), schema,
# negative (1: a negative t_avg_us on the first row), dup (1: the first row
# again with other figures), huge (1: a t_avg_us of 1e308 on the first row),
# tiny (1: the first row's times 1e-300 us), medians (1: launch medians of
# -1, -2, -3 us on the first row).
make_run() {
    python3 - "$@" <<'EOF'
import json, sys
path = sys.argv[1]
o = dict(timing="loop", scale="1", status="ok", complete="true", rows="4",
         bench="PingPong", bom="0", schema="mpibench/1", negative="0", dup="0",
         huge="0", tiny="0", medians="0")
o.update(a.split("=", 1) for a in sys.argv[2:])
f = float(o["scale"])
def row(k, t):
    r = {"bytes": 1 << k, "repetitions": 100, "params": {},
         "t_min_us": t * 0.9, "t_max_us": t * 1.2, "t_avg_us": t,
         "mbytes_per_sec": None, "errors": None, "t_median_us": None,
         "t_p5_us": None, "t_p95_us": None, "ci95_lo_us": None, "ci95_hi_us": None,
         "valid": None, "invalid": None, "outliers": None, "t_global_us": None,
         "stopped_on_bound": None}
    if o["timing"] == "per-call":
        r.update(t_median_us=t, ci95_lo_us=t * 0.98, ci95_hi_us=t * 1.02,
                 samples_us=[t * (1 + i / 1000) for i in range(40)], samples_n=40)
    return r
rows = [row(k, (1.0 + k) * f) for k in range(int(o["rows"]))]
if o["negative"] == "1":
    rows[0]["t_avg_us"] = -1.5
if o["huge"] == "1":
    rows[0]["t_avg_us"] = 1e308
if o["tiny"] == "1":
    rows[0].update(t_min_us=1e-300, t_max_us=1e-300, t_avg_us=1e-300)
if o["medians"] == "1":
    rows[0]["launch_medians_us"] = [-1.0, -2.0, -3.0]
if o["dup"] == "1":
    rows.append(row(0, 7.0 * f))
d = {"schema": o["schema"], "mpibench_version": "0.1.0", "command": ["mpibench", "run"],
     "started": "2026-01-01T00:00:00Z", "complete": o["complete"] == "true", "status": o["status"],
     "mpi": {"library": "Open MPI v4.1.4", "version": [3, 1]}, "world_size": 2,
     "hosts": ["node01"], "ranks_per_host": [2],
     "settings": {"sync": "barrier", "timing": o["timing"], "check": False, "iter": None,
                  "time_limit_s": 10.0, "root_shift": False, "min_iter": 1, "max_iter": 1000,
                  "precision": None, "window_us": None, "mem_limit_bytes": 1073741824,
                  "timeout_s": None, "large_messages": "derived-datatype"},
     "results": [] if o["rows"] == "0" else [
         {"benchmark": o["bench"], "suite": "imb", "class": "single transfer", "processes": 2,
          "mode": "primary", "groups": 1, "active": 2, "method": None, "rows": rows}]}
with open(path, "w", encoding="utf-8") as fh:
    fh.write(("\ufeff" if o["bom"] == "1" else "") + json.dumps(d))
EOF
}

# case_compare NAME RC LINE-REGEX "A-KEYS" "B-KEYS" [COMPARE-ARGS...]: compare
# a.json b.json --fail-if-slower 5 --json cmp.json (unless other arguments
# are given); exit code RC, one stderr line (or none), the launcher never
# started, and with --json the gate's outcome in cmp.json.
case_compare() {
    local name="compare: $1" rc=$2 line=$3 akeys=$4 bkeys=$5
    shift 5
    new_case_dir
    # shellcheck disable=SC2086  # the keys are words
    make_run a.json $akeys && make_run b.json $bkeys || {
        check "$name" "could not make the input files"
        return
    }
    local args=("$@")
    ((${#args[@]})) || args=(--fail-if-slower 5 --json cmp.json)
    local marker=$ROOT/launcher-ran.$$
    printf '#!/bin/sh\ntouch %s\nexit 1\n' "$marker" >"$ROOT/fake-mpiexec"
    chmod +x "$ROOT/fake-mpiexec"
    # The comparison is written unless an input is refused (exit 2); the
    # gate's outcome is in it when there is a gate.
    KEEP=(a.json b.json)
    [[ $rc != 2 && " ${args[*]} " == *" --json cmp.json "* ]] && KEEP+=(cmp.json)
    local outcome=""
    if [[ " ${args[*]} " == *" --fail-if-slower "* ]]; then
        case $rc in
        0) outcome=passed ;;
        1) outcome=slower ;;
        7) outcome=nothing_judged ;;
        esac
    fi
    T0=$(date +%s%N)
    MPIBENCH_ROBUSTNESS_CASE=$CASE_DIR MPIBENCH_MPIEXEC=$ROOT/fake-mpiexec timeout -k 5 "$CASE_TIMEOUT" \
        "$BIN" compare a.json b.json "${args[@]}" >"$CASE_DIR.out" 2>"$CASE_DIR.err" </dev/null
    RC=$?
    finished "$T0"
    check "$name" "$(expect_rc "$rc")" \
        "$(if [[ -n $line ]]; then expect_one_line "$line"; else expect_quiet; fi)" \
        "$([[ -e $marker ]] && echo "compare started the launcher")" \
        "$(if [[ " ${KEEP[*]} " == *" cmp.json "* && -n $outcome ]]; then
            json_check cmp.json "d['gate']['outcome'] == '$outcome' and d['gate']['exit_code'] == $rc"
        fi)" \
        "$(expect_files "${KEEP[@]}")" "$(no_leftovers)"
    rm -f "$marker"
}

case_compare "10x slower under loop timing fails the gate by ratio: exit 1" 1 \
    "^mpibench: 4 rows are slower by more than 5% \(--fail-if-slower\): 0 significantly, 4 by ratio \(no significance test\)" \
    "timing=loop" "timing=loop scale=10"
case_compare "within noise passes the gate quietly: exit 0" 0 "" \
    "timing=per-call" "timing=per-call scale=1.01"
case_compare "B without results judges nothing: exit 7" 7 \
    "^error: --fail-if-slower judged nothing: B 'b.json' has no result rows$" \
    "timing=loop" "timing=loop rows=0"
case_compare "A without results judges nothing: exit 7" 7 \
    "^error: --fail-if-slower judged nothing: A 'a.json' has no result rows$" \
    "timing=loop rows=0" "timing=loop scale=10"
case_compare "B running judges nothing: exit 7" 7 \
    "^error: --fail-if-slower judged nothing: B 'b.json' is incomplete \(status \"running\"\)$" \
    "timing=loop" "timing=loop scale=10 status=running complete=false"
case_compare "B aborted judges nothing: exit 7" 7 \
    "^error: --fail-if-slower judged nothing: B 'b.json' is incomplete \(status \"aborted\"\)$" \
    "timing=loop" "timing=loop scale=10 status=aborted complete=false"
case_compare "A and B share no row: exit 7" 7 \
    "^error: --fail-if-slower judged nothing: A 'a.json' and B 'b.json' share no row \(4 rows only in A, 4 only in B\)$" \
    "timing=loop" "timing=loop scale=10 bench=Exchange"
case_compare "rows only in A are listed; the gate passes and counts them: exit 0" 0 \
    "^mpibench: --fail-if-slower 5 passed on 2 rows; not judged: 2 only in A, 0 only in B, 0 without figures to compare$" \
    "timing=loop" "timing=loop rows=2"
case_compare "without a gate an aborted B is a warning: exit 0" 0 \
    "^warning: B 'b.json' is incomplete \(status \"aborted\"\)$" \
    "timing=loop" "timing=loop status=aborted complete=false" --json cmp.json
case_compare "a schema of another major version is refused: exit 2" 2 \
    "^error: 'b.json': its schema is 'mpibench/2', this mpibench reads mpibench/1" \
    "timing=loop" "timing=loop schema=mpibench/2"
case_compare "a negative time is refused: exit 2" 2 \
    "^error: 'b.json': t_avg_us is -1.5 in imb PingPong P=2 1 B: not a time \(negative\)$" \
    "timing=loop" "timing=loop negative=1"
case_compare "a row repeated with other figures is one warning: exit 0" 0 \
    "^warning: 'b.json': 1 rows appear again with different figures \(first: imb PingPong P=2 1 B\)" \
    "timing=loop" "timing=loop dup=1"
case_compare "a UTF-8 byte order mark is accepted: exit 0" 0 "" \
    "timing=loop bom=1" "timing=loop bom=1"

# Issue 36, item 5: one validator for report, plot and compare.
case_compare "a time of 1e308 us is refused, not 'without figures': exit 2" 2 \
    "^error: 'b.json': t_avg_us is 1e308 in imb PingPong P=2 1 B: not a time \(beyond any measurement\)$" \
    "timing=loop" "timing=loop huge=1"
case_compare "negative launch medians are refused: exit 2" 2 \
    "^error: 'b.json': launch_medians_us is -1 in imb PingPong P=2 1 B: not a time \(negative\)$" \
    "timing=loop" "timing=loop medians=1"
case_compare "a ratio beyond the largest number is slower, not unjudged: exit 1" 1 \
    "^mpibench: 4 rows are slower by more than 5% \(--fail-if-slower\)" \
    "timing=loop tiny=1" "timing=loop scale=1e11"

# case_reader NAME RC LINE-REGEX "A-KEYS" ARGS...: `mpibench ARGS` with a.json
# made from A-KEYS (stdin from a.json); exit code RC, one stderr line
# matching LINE, nothing written but a.json when RC is 2.
case_reader() {
    local name="$1" rc=$2 line=$3 akeys=$4
    shift 4
    new_case_dir
    # shellcheck disable=SC2086  # the keys are words
    make_run a.json $akeys || {
        check "$name" "could not make the input file"
        return
    }
    T0=$(date +%s%N)
    MPIBENCH_ROBUSTNESS_CASE=$CASE_DIR timeout -k 5 "$CASE_TIMEOUT" \
        "$BIN" "$@" >"$CASE_DIR.out" 2>"$CASE_DIR.err" <a.json
    RC=$?
    finished "$T0"
    check "$name" "$(expect_rc "$rc")" "$(expect_one_line "$line")" \
        "$(if [[ $rc == 2 ]]; then expect_files a.json; fi)" "$(no_leftovers)"
}
case_reader "report: a negative time is refused as compare refuses it: exit 2" 2 \
    "^error: 'a.json': t_avg_us is -1.5 in imb PingPong P=2 1 B: not a time \(negative\)$" \
    "timing=loop negative=1" report a.json -o r.html
case_reader "plot: a time of 1e308 us is refused: exit 2" 2 \
    "^error: 'a.json': t_avg_us is 1e308 in imb PingPong P=2 1 B: not a time" \
    "timing=loop huge=1" plot a.json -o plots
case_reader "report - -: the second '-' is named: exit 2" 2 \
    "^error: '-' \(standard input\) is named twice: it can be read once$" \
    "timing=loop" report - - -o r.html
case_reader "report -: stdin is read once: exit 0" 0 \
    "^mpibench: wrote r.html" "timing=loop" report - -o r.html

# Issue 36, item 1: plot writes its files as a set, never over an input.
case_plot_set() { # MODE(input-inside|dangling|full)
    local name="plot: $1"
    new_case_dir
    make_run a.json "timing=loop" || {
        check "$name" "could not make the input file"
        return
    }
    T0=$(date +%s%N)
    case $1 in
    "an input inside -o with a figure's name is refused: exit 2")
        mkdir P && cp a.json P/imb-pingpong-primary-latency.svg
        MPIBENCH_ROBUSTNESS_CASE=$CASE_DIR timeout -k 5 "$CASE_TIMEOUT" "$BIN" plot \
            P/imb-pingpong-primary-latency.svg -o P >"$CASE_DIR.out" 2>"$CASE_DIR.err" </dev/null
        RC=$?
        finished "$T0"
        check "$name" "$(expect_rc 2)" \
            "$(expect_one_line "^error: -o 'P' would overwrite the input 'P/imb-pingpong-primary-latency.svg'")" \
            "$(cmp -s a.json P/imb-pingpong-primary-latency.svg || echo "the input was changed")" \
            "$([[ $(ls -A P) == imb-pingpong-primary-latency.svg ]] || echo "P holds: $(ls -A P | tr '\n' ' ')")" \
            "$(expect_files a.json P)" "$(no_leftovers)"
        ;;
    "a dangling symbolic link as -o is followed: exit 0")
        ln -s made/here L
        MPIBENCH_ROBUSTNESS_CASE=$CASE_DIR timeout -k 5 "$CASE_TIMEOUT" "$BIN" plot a.json -o L \
            >"$CASE_DIR.out" 2>"$CASE_DIR.err" </dev/null
        RC=$?
        finished "$T0"
        check "$name" "$(expect_rc 0)" "$(expect_one_line "^mpibench: wrote [0-9]+ SVG plots to L$")" \
            "$(ls made/here/*.svg >/dev/null 2>&1 || echo "no SVG in made/here")" \
            "$([[ -z $(ls -A made | grep -v '^here$') ]] || echo "left in made/: $(ls -A made)")" \
            "$(expect_files a.json L made)" "$(no_leftovers)"
        ;;
    "a full disk leaves the old plots whole: exit 3")
        need_unshare "$name" || return
        mkdir res
        MPIBENCH_ROBUSTNESS_CASE=$CASE_DIR timeout -k 5 "$CASE_TIMEOUT" \
            unshare -m bash -c 'mount -t tmpfs -o size=64k tmpfs res || exit 99
                mkdir res/P && echo old >res/P/imb-pingpong-primary-latency.svg && echo old >res/P/x.svg
                head -c 1M /dev/zero >res/filler 2>/dev/null
                "$@"; rc=$?; (cd res && find . | sort; cat P/imb-pingpong-primary-latency.svg) >listing; exit $rc' _ \
            "$BIN" plot a.json -o res/P >"$CASE_DIR.out" 2>"$CASE_DIR.err" </dev/null
        RC=$?
        finished "$T0"
        check "$name" "$(expect_rc 3)" \
            "$(expect_one_line "No space left on device")" \
            "$(printf '.\n./P\n./P/imb-pingpong-primary-latency.svg\n./P/x.svg\n./filler\nold\n' | cmp -s - listing ||
                echo "the tmpfs held: $(tr '\n' ' ' <listing)")" \
            "$(expect_files a.json listing res)" "$(no_leftovers)"
        ;;
    esac
}
case_plot_set "an input inside -o with a figure's name is refused: exit 2"
case_plot_set "a dangling symbolic link as -o is followed: exit 0"
case_plot_set "a full disk leaves the old plots whole: exit 3"
