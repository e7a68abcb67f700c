# shellcheck shell=bash
# ---------------------------------------------------------------------------
# 80. tune keeps run's promises (issue 36, items 1 and 2): its outputs are
#     checked before the first launch (a device, a FIFO, stdout or the
#     running binary as --rules, a TMPDIR that does not exist, a closed
#     stdout), the launcher's and usage failures keep run's exit codes, a
#     signal ends the running launch and its ranks, removes tune's
#     temporary directory, prints the interrupted line and leaves the old
#     rules file and JSON as they were. TMPDIR is the case's own tmp/, so
#     that a temporary directory left behind shows.
# ---------------------------------------------------------------------------

# tune_last_line REGEX: stderr is tune's launch lines and then one line
# matching REGEX.
tune_last_line() {
    local own n
    own=$(grep -v '^mpibench tune: launch [0-9]*: ' "$CASE_DIR.err")
    n=$(printf '%s' "$own" | grep -c '')
    if [[ $n -ne 1 ]]; then
        echo "$n lines on stderr besides the launch lines, expected 1: $(stderr_excerpt)"
    elif ! grep -qE -- "$1" <<<"$own"; then
        echo "stderr does not match /$1/: $(stderr_excerpt)"
    fi
}

# case_tune NAME RC LINE-REGEX ARGS...: `mpibench tune ARGS` in the case
# directory (old.conf and old.json there beforehand); exit RC, one stderr
# line matching LINE (none for 141), old files intact, tmp/ empty.
case_tune() {
    local name="tune: $1" rc=$2 line=$3
    shift 3
    new_case_dir
    mkdir tmp && echo old >old.conf && echo '{"old": 1}' >old.json
    SELF_WRAP="env --default-signal=INT,TERM,HUP TMPDIR=$CASE_DIR/tmp ${TUNE_ENV:-}" \
        self tune "$@"
    check "$name" "$(expect_rc "$rc")" \
        "$(if [[ -n $line ]]; then tune_last_line "$line"; else expect_quiet; fi)" \
        "$([[ $(cat old.conf) == old && $(cat old.json) == '{"old": 1}' ]] || echo "old files changed")" \
        "$([[ -z $(ls -A tmp) ]] || echo "left in TMPDIR: $(ls -A tmp)")" \
        "$(expect_files old.conf old.json tmp ${TUNE_KEEP:-})" "$(no_leftovers)"
}

case_tune "--rules /dev/null is refused before a launch: exit 2" 2 \
    "^error: --rules '/dev/null' is not a regular file" Bcast --rules /dev/null
mkfifo "$ROOT/tune-fifo" 2>/dev/null
case_tune "--rules FIFO is refused at once: exit 2" 2 \
    "^error: --rules '$ROOT/tune-fifo' is not a regular file" Bcast --rules "$ROOT/tune-fifo"
rm -f "$ROOT/tune-fifo"
case_tune "--rules - is refused: exit 2" 2 "^error: --rules '-': the rules file must be a file" \
    Bcast --rules -
case_tune "--rules the running binary is refused: exit 2" 2 "would overwrite the running program" \
    Bcast --rules "$BIN"
[[ $FLAVOUR == openmpi ]] &&
    TUNE_ENV="OMPI_MCA_coll=^tuned" case_tune "OMPI_MCA_coll=^tuned is refused: exit 2" 2 \
        "^error: OMPI_MCA_coll='\\^tuned' leaves out coll_tuned" Bcast --rules old.conf
case_tune "-n 100000 is refused with run's code: exit 2" 2 "^error: the library's defaults: the launch failed: " \
    Bcast -n 100000 --rules old.conf
TUNE_ENV="MPIBENCH_MPIEXEC=/bin/true" case_tune "a launcher that starts no rank: exit 4" 4 \
    "^error: the library's defaults: the launch failed: the launcher '/bin/true'" \
    Bcast --rules old.conf --json old.json

# A closed stdout: nothing runs, exit 141, quietly.
case_tune_closed_stdout() {
    local name="tune: a closed stdout ends it before the first launch: exit 141"
    new_case_dir
    mkdir tmp
    T0=$(date +%s%N)
    MPIBENCH_ROBUSTNESS_CASE=$CASE_DIR MPIBENCH_MPIEXEC=$MPIEXEC TMPDIR=$CASE_DIR/tmp \
        timeout -k 5 "$CASE_TIMEOUT" "$BIN" tune Bcast >&- 2>"$CASE_DIR.err" </dev/null
    RC=$?
    finished "$T0"
    check "$name" "$(expect_rc 141)" "$(expect_quiet)" \
        "$([[ -z $(ls -A tmp) ]] || echo "left in TMPDIR: $(ls -A tmp)")" \
        "$(expect_files tmp)" "$(no_leftovers)"
}
case_tune_closed_stdout

# TMPDIR that does not exist: exit 5 (as run), and it is not created.
case_tune_tmpdir() {
    local name="tune: TMPDIR that does not exist: exit 5, not created"
    new_case_dir
    SELF_WRAP="env --default-signal=INT,TERM,HUP TMPDIR=$CASE_DIR/no/such/dir" self tune Bcast
    check "$name" "$(expect_rc 5)" \
        "$(expect_one_line "^error: cannot create a temporary directory in '$CASE_DIR/no/such/dir' \(TMPDIR\)")" \
        "$(expect_files)" "$(no_leftovers)"
}
case_tune_tmpdir

# SIGTERM or SIGINT in the middle of the second launch.
case_tune_signal() { # SIGNAL
    local name="tune: SIG$1 mid-launch ends the launch and its ranks, the old files stay" want
    want=$((128 + $(kill -l "$1")))
    new_case_dir
    mkdir tmp && echo old >old.conf && echo '{"old": 1}' >old.json
    SELF_WRAP="env --default-signal=INT,TERM,HUP TMPDIR=$CASE_DIR/tmp" \
        self_bg tune Bcast --rules old.conf --json old.json
    local i
    for ((i = 0; i < CASE_TIMEOUT * 10; i++)); do
        grep -q "launch 2:" "$CASE_DIR.err" 2>/dev/null && break
        kill -0 "$PID" 2>/dev/null || break
        sleep 0.1
    done
    kill -"$1" "$PID" 2>/dev/null
    wait_bounded "$CASE_TIMEOUT"
    check "$name" "$(expect_rc "$want")" \
        "$(grep -q "^mpibench: interrupted by SIG$1: nothing written (the rules file and the JSON are as they were); exit code $want$" "$CASE_DIR.err" ||
            echo "no interrupted line: $(stderr_excerpt)")" \
        "$([[ $(cat old.conf) == old && $(cat old.json) == '{"old": 1}' ]] || echo "old files changed")" \
        "$([[ -z $(ls -A tmp) ]] || echo "left in TMPDIR: $(ls -A tmp)")" \
        "$(expect_files old.conf old.json tmp)" "$(no_leftovers)"
}
case_tune_signal TERM
case_tune_signal INT
