# shellcheck shell=bash
# Issue 23 items 1 and 7: every way a run ends gives one outcome: the exit
# code, the one stderr line and the JSON status + reason tell one story
# (src/outcome.rs). Sourced by tests/robustness.sh.

# expect_outcome FILE STATUS REASON [SIGNAL-FIELD SIGNAL]: the JSON's status
# and reason (and e.g. `signal` or `interrupted_by`).
expect_outcome() {
    local extra=""
    [[ -n ${4:-} ]] && extra="\"$4 is %r\" % d.get(\"$4\") if d.get(\"$4\") != \"$5\" else"
    expect_json "$1" "$extra \"status is %r\" % d.get(\"status\") if d.get(\"status\") != \"$2\" else \"reason is %r, expected $3\" % d.get(\"reason\") if d.get(\"reason\") != \"$3\" else \"\""
}

# --timeout N: status aborted, reason timeout, exit 3, one line from rank 0.
case_outcome_timeout() { # SECONDS
    local name="outcome: --timeout $1 (status aborted, reason timeout)"
    new_case_dir
    self run -n 2 Barrier Sendrecv --sizes 1M --iter 500000 --time 120 --timeout "$1" --json j.json -q
    check "$name" "$(expect_rc 3)" "$(expect_one_line '^error: timeout: .*--timeout')" \
        "$(expect_outcome j.json aborted timeout)" "$(expect_files j.json)" "$(no_leftovers)"
}
case_outcome_timeout 1
case_outcome_timeout 2

# The stall limit: rank 1 stopped (SIGSTOP) mid-run, rank 0 stalls.
case_outcome_stall() {
    local name="outcome: stall limit (status aborted, reason stall)"
    new_case_dir
    self_bg run -n 2 "${LONG_RUN[@]}" --stall-limit 3 --json out.json
    wait_results out.json 1
    local victim
    victim=$(rank_pid 1)
    [[ -n $victim ]] && kill -STOP "$victim"
    local i
    for ((i = 0; i < 200; i++)); do
        kill -0 "$PID" 2>/dev/null || break
        sleep 0.1
    done
    [[ -n $victim ]] && kill -CONT "$victim" 2>/dev/null
    wait_bounded 30
    check "$name" "$([[ -n $victim ]] || echo "rank 1 not found")" "$(expect_rc 3)" \
        "$(expect_one_line '^error: stalled: ')" \
        "$(expect_outcome out.json aborted stall)" "$(expect_files out.json)" "$(no_leftovers)"
}
case_outcome_stall

# kill -9 of one rank (the OOM killer) under self-launch: "rank N died (SIGKILL)".
case_outcome_rank_killed() { # RANK
    local name="outcome: kill -9 of rank $1 (self-launch): rank died (SIGKILL)"
    signal_rank_midrun KILL "$1" self
    check "$name" "$MISSING" "$(expect_rc 3)" \
        "$(expect_one_line "^error: rank $1 died \(SIGKILL\)")" \
        "$(expect_outcome out.json aborted rank_died signal SIGKILL)" \
        "$(expect_files out.json)" "$(no_leftovers)"
}
case_outcome_rank_killed 1

# kill -9 of rank 0: the rank that writes. The parent marks the JSON. The
# surviving rank's MPI library may print a line of its own about the
# vanished peer (Open MPI's shared-memory transport), which mpibench
# cannot stop: mpibench's own line is the last one.
case_outcome_rank0_killed() {
    local name="outcome: kill -9 of rank 0 (self-launch): rank died (SIGKILL), JSON marked by the parent"
    signal_rank_midrun KILL 0 self
    check "$name" "$MISSING" "$(expect_rc 3)" \
        "$(tail -n 1 "$CASE_DIR.err" | grep -qE '^error: rank 0 died \(SIGKILL\)' || echo "last line: $(stderr_excerpt)")" \
        "$(expect_outcome out.json aborted rank_died signal SIGKILL)" \
        "$(expect_files out.json)" "$(no_leftovers)"
}
case_outcome_rank0_killed

# A fatal signal on a rank (SIGSEGV, SIGBUS, SIGABRT): a rank's death with
# its signal in the JSON (reason rank_died, signal SIG...), under self-launch
# (the parent hears it) and a direct launcher (rank 0 hears it from the
# crashed rank on its host).
case_outcome_rank_crashed() { # SIGNAL MODE(self|direct)
    local name="outcome: SIG$1 on rank 1 ($2): rank_died with the signal"
    signal_rank_midrun "$1" 1 "$2"
    local rcs=(3)
    # A launcher of the user's own exits with its own code: Open MPI's 1,
    # Hydra's 1 or, when it saw rank 0 end by its own SIGKILL first, 9.
    [[ $2 == direct ]] && rcs=(3 1 9)
    check "$name" "$MISSING" "$(expect_rc "${rcs[@]}")" \
        "$(expect_one_error_line "rank 1|SIG$1")" \
        "$(expect_outcome out.json aborted rank_died signal "SIG$1")" \
        "$(expect_files out.json)" "$(no_leftovers)"
}
case_outcome_rank_crashed SEGV self
case_outcome_rank_crashed SEGV direct
case_outcome_rank_crashed BUS self
case_outcome_rank_crashed ABRT direct

# SIGINT / SIGTERM to the self-launching parent: interrupted, 128+N.
case_outcome_parent_signal() { # SIGNAL CODE
    local name="outcome: SIG$1 to the parent (status interrupted, reason interrupted)"
    new_case_dir
    self_bg run -n 2 "${LONG_RUN[@]}" --json out.json
    wait_results out.json 1
    kill -"$1" "$PID"
    wait_bounded 30
    check "$name" "$(expect_rc "$2")" "$(expect_one_line "^mpibench: interrupted by SIG$1")" \
        "$(expect_outcome out.json interrupted interrupted interrupted_by "SIG$1")" \
        "$(expect_files out.json)" "$(no_leftovers)"
}
case_outcome_parent_signal INT 130
case_outcome_parent_signal TERM 143

# A closed stdout (`>&-`) is a failed write: one line, exit 3, never 0.
case_outcome_closed_stdout() { # WHAT ARGS...
    local name="outcome: closed stdout: $1 fails"
    shift
    new_case_dir
    local t0
    t0=$(date +%s%N)
    MPIBENCH_ROBUSTNESS_CASE=$CASE_DIR MPIBENCH_MPIEXEC=$MPIEXEC \
        timeout -k 5 "$CASE_TIMEOUT" "$BIN" "$@" >&- 2>"$CASE_DIR.err" </dev/null
    RC=$?
    finished "$t0"
    check "$name" "$(expect_rc 3)" "$(expect_one_line '^error: cannot write to stdout: it is closed')" \
        "$(no_leftovers)"
}
case_outcome_closed_stdout "run" run -n 2 PingPong --sizes 8 -q
case_outcome_closed_stdout "list" list
case_outcome_closed_stdout "imb" imb PingPong -msglog 2:3
case_outcome_closed_stdout "run --json -" run -n 2 PingPong --sizes 8 -q --json -

# The JSON of a run whose stdout is closed says write_failed.
case_outcome_closed_stdout_json() {
    local name="outcome: closed stdout: run's JSON says write_failed"
    new_case_dir
    local t0
    t0=$(date +%s%N)
    MPIBENCH_ROBUSTNESS_CASE=$CASE_DIR MPIBENCH_MPIEXEC=$MPIEXEC \
        timeout -k 5 "$CASE_TIMEOUT" "$BIN" run -n 2 PingPong --sizes 8 -q --json j.json \
        >&- 2>"$CASE_DIR.err" </dev/null
    RC=$?
    finished "$t0"
    check "$name" "$(expect_rc 3)" "$(expect_one_line '^error: cannot write to stdout')" \
        "$(expect_outcome j.json aborted write_failed)" "$(expect_files j.json)" "$(no_leftovers)"
}
case_outcome_closed_stdout_json

# Two runs on one --json: the second is refused (exit 2, one line), the
# first ends normally and its file is intact.
case_outcome_same_json() {
    local name="outcome: a second run on the same --json is refused"
    new_case_dir
    # Long enough for the second run to start while the first writes (about
    # 1.2 s per benchmark on a quiet machine), in few round trips: on cores
    # shared with busy-polling jobs every round trip may wait for a time
    # slice (one CI run: 20000 round trips at 0 bytes outran 60 s).
    self_bg run -n 2 pingpong sendrecv --sizes 4M --iter 2000 -q --json j.json
    local first=$PID
    wait_results j.json 1
    local t0
    t0=$(date +%s%N)
    MPIBENCH_ROBUSTNESS_CASE=$CASE_DIR MPIBENCH_MPIEXEC=$MPIEXEC \
        timeout -k 5 "$CASE_TIMEOUT" "$BIN" run -n 2 PingPong --sizes 8 -q --json j.json \
        >"$CASE_DIR.out2" 2>"$CASE_DIR.err" </dev/null
    RC=$?
    finished "$t0"
    local second_rc=$RC second_line
    second_line=$(expect_one_line "^error: --json 'j.json' is being written by another mpibench run")
    PID=$first
    wait_bounded 180
    local first_rc=$RC
    RC=$second_rc
    local r1
    r1=$([[ $first_rc -eq 0 ]] || echo "the first run exited $first_rc")
    check "$name" "$(expect_rc 2)" "$second_line" "$r1" \
        "$(expect_json j.json 'len(d["results"]) == 2 and d.get("status") == "ok"')" \
        "$(expect_files j.json)" "$(no_leftovers)"
    rm -f "$CASE_DIR.out2"
}
case_outcome_same_json
