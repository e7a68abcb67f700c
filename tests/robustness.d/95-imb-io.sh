# IMB-IO's files (issue 37, item 2): every case checks the exit code, the
# one stderr line, the JSON status, that no benchmark file is left in its
# --io-dir and that no process outlives it.

# A run that lasts: 1 KiB non-aggregate writes, each with its
# MPI_File_sync, barrier and sync (milliseconds each), 100000 of them.
IO_LONG=(imb-io -msglog 10:10 -iter 100000,100000,100000 -time 600 P_Write_Indv)

# The io directory holds no file (its listing otherwise).
io_empty() {
    local left
    left=$(ls -A "$1" 2>/dev/null | tr '\n' ' ')
    [[ -z $left ]] || echo "files left in $1: $left"
}

# Until a benchmark file exists in DIR (30 s at most, while PID runs).
wait_io_file() {
    local i
    for ((i = 0; i < 300; i++)); do
        compgen -G "$1/mpibench-io-*" >/dev/null && return 0
        kill -0 "$PID" 2>/dev/null || return 1
        sleep 0.1
    done
    return 1
}

# io_started NAME: once a benchmark file exists in ./io and a second
# more has passed; else the case fails and its processes are killed.
io_started() {
    if ! wait_io_file io; then
        fail "$1" "no benchmark file appeared: $(stderr_excerpt)"
        kill -KILL "$PID" 2>/dev/null
        kill_leftovers "$CASE_DIR"
        cd "$ROOT" || exit 1
        return 1
    fi
    sleep 1
}

case_io_dir_file() {
    local name="imb-io: --io-dir at a file: exit 2, the file untouched"
    new_case_dir
    echo mine >afile
    mpi 1 imb-io -msglog 0:2 P_Write_Indv --io-dir afile --json out.json
    check "$name" "$(expect_rc 2)" "$(expect_one_line '^error: --io-dir afile: not a directory')" \
        "$([[ $(cat afile) == mine ]] || echo "afile changed")" \
        "$(expect_files afile)" "$(no_leftovers)"
}
case_io_dir_file

case_io_ro() {
    local name="imb-io: a read-only --io-dir: exit 2"
    need_unshare "$name" || return
    new_case_dir
    mkdir ro
    ro_run -- imb-io -n 2 -msglog 0:2 P_Write_Indv --io-dir ro
    check "$name" "$(expect_rc 2)" "$(expect_one_line '^error: --io-dir ro: not writable')" \
        "$(io_empty ro)" "$(expect_files ro)" "$(no_leftovers)"
}
case_io_ro

case_io_full_tmpfs() {
    local name="imb-io: --io-dir on a full 1 MiB tmpfs: exit 2 before the first byte"
    need_unshare "$name" || return
    new_case_dir
    mkdir io
    T0=$(date +%s%N)
    MPIBENCH_ROBUSTNESS_CASE=$CASE_DIR MPIBENCH_MPIEXEC=$MPIEXEC timeout -k 5 "$CASE_TIMEOUT" \
        unshare -m bash -c 'mount -t tmpfs -o size=1m tmpfs io || exit 99
            "$@"; rc=$?; ls -A io >listing; exit $rc' _ \
        "$BIN" imb-io -n 2 -msglog 0:22 P_Write_Indv --io-dir io --json out.json \
        >"$CASE_DIR.out" 2>"$CASE_DIR.err" </dev/null
    RC=$?
    finished "$T0"
    check "$name" "$(expect_rc 2)" \
        "$(expect_one_line '^error: --io-dir io: [0-9]+ bytes free, the largest benchmark file needs [0-9]+ bytes')" \
        "$([[ -z $(cat listing 2>/dev/null) ]] || echo "the tmpfs held: $(tr '\n' ' ' <listing)")" \
        "$(expect_files listing io)" "$(no_leftovers)"
}
case_io_full_tmpfs

case_io_sigint() {
    local name="imb-io: SIGINT mid-write: exit 130, files removed"
    new_case_dir
    mkdir io
    self_bg "${IO_LONG[@]}" -n 2 --io-dir io --json out.json
    io_started "$name" || return
    kill -INT "$PID"
    wait_bounded "$CASE_TIMEOUT"
    check "$name" "$(expect_rc 130)" "$(expect_one_line '^mpibench: interrupted by SIGINT')" \
        "$(expect_json out.json "$JSON_INTERRUPTED")" "$(io_empty io)" \
        "$(expect_files io out.json)" "$(no_leftovers)"
}
case_io_sigint

case_io_timeout() {
    local name="imb-io: --timeout 5 mid-write: exit 3, files removed"
    new_case_dir
    mkdir io
    mpi 2 "${IO_LONG[@]}" --timeout 5 --io-dir io --json out.json
    check "$name" "$(expect_rc 3)" "$(expect_one_error_line 'timeout')" \
        "$(expect_json out.json '"complete is not false" if d.get("complete") is not False else ""')" \
        "$(io_empty io)" "$(expect_files io out.json)" "$(no_leftovers)"
}
case_io_timeout

case_io_killed_rank() {
    local name="imb-io: rank 1 killed mid-write (self-launch): non-zero, files removed"
    new_case_dir
    mkdir io
    # Self-launched, as the other killed-rank cases: the parent sees the
    # death and says it (under a user's mpiexec, Hydra ends rank 0 with
    # SIGKILL before it can say anything).
    self_bg "${IO_LONG[@]}" -n 2 --io-dir io --json out.json
    io_started "$name" || return
    local victim
    victim=$(rank_pid 1)
    [[ -n $victim ]] && kill -KILL "$victim"
    wait_bounded "$CASE_TIMEOUT"
    check "$name" "$([[ -n $victim ]] || echo "no rank 1 found")" \
        "$([[ $HUNG -eq 0 && $RC -ne 0 ]] || echo "exit code $RC (hung: $HUNG)")" \
        "$(expect_one_error_line 'rank 1')" \
        "$(expect_json out.json '"complete is not false" if d.get("complete") is not False else ""')" \
        "$(io_empty io)" "$(expect_files io out.json)" "$(no_leftovers)"
}
# Under MPICH too: Hydra ends rank 0 with SIGKILL as soon as rank 1 dies,
# before rank 0 removes the run's file; the self-launching parent, which
# the ranks told the files' prefix over the link, removes it.
case_io_killed_rank
