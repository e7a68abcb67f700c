# shellcheck shell=bash
# ---------------------------------------------------------------------------
# 90. Every command keeps run's promises (issue 36, quality bar): every
#     subcommand and every drop-in name (IMB's programs and all of OSU's),
#     - with a closed stdout (`>&-`): one line "cannot write to stdout: it is
#       closed", exit 3, nothing left behind;
#     - with its output file on a full tmpfs: one line naming the file and
#       "No space left on device", exit 3, nothing new on the file system;
#     - given SIGINT mid-run, where it runs ranks: one line "interrupted by
#       SIGINT", exit 130, the JSON written and saying interrupted, the
#       launcher and ranks gone.
#     (A byte that is not UTF-8 in any argument of each: 60-argv.sh.)
#     Drop-ins are links named as the programs, in the case directory.
# ---------------------------------------------------------------------------

# The OSU programs: every name `mpibench osu -h` lists.
# The OSU programs: every name the osu command knows (its refusal of an
# unknown one lists them).
mapfile -t EVERY_OSU < <("$BIN" osu osu_nonesuch 2>&1 </dev/null | sed -n 's/.*(known: \(.*\)).*/\1/p' |
    tr ',' '\n' | tr -d ' ' | grep '^osu_')
EVERY_IMB=(IMB-MPI1 IMB-NBC IMB-EXT IMB-RMA IMB-P2P IMB-MT IMB-MPI4)

# every_prog PROG: the program to run in the case directory: the binary, or
# a link to it named PROG.
every_prog() {
    case $1 in
    mpibench) echo "$BIN" ;;
    *)
        ln -s "$BIN" "$1"
        echo "./$1"
        ;;
    esac
}

# Short runs that write FILE (@F@), per command: `PROG ARGS...`.
every_short() { # PROG FILE
    local f=$2
    case $1 in
    mpibench-run) echo "run -n 2 pingpong --sizes 8 --iter 10 -q --json $f" ;;
    mpibench-launches) echo "run -n 2 pingpong --sizes 8 --iter 10 -q --launches 2 --json $f" ;;
    mpibench-imb) echo "imb -n 2 PingPong -msglog 2:3 -iter 10 --json $f" ;;
    mpibench-osu) echo "osu osu_latency -n 2 -m 8:8 -i 10 -x 1 --json $f" ;;
    mpibench-mpitest) echo "mpitest -n 2 m1 M10 T10 t10 --json $f" ;;
    mpibench-cresta) echo "cresta -n 2 allreduce 2 10 1 8 0 0 --json $f" ;;
    mpibench-mpigraph) echo "mpigraph -n 2 8 10 2 --json $f" ;;
    mpibench-commtest) echo "commtest -n 2 size=8K min=4K iterations=2 protocols=(0,0) swap --json $f" ;;
    mpibench-cafbench) echo "cafbench -n 2 --halo-sizes 10 --outer 2 --inner 2 --precision 0.5 --json $f" ;;
    mpibench-guidelines) echo "guidelines -n 2 --sizes 8 --iter 10 --json $f" ;;
    mpibench-list) echo "list" ;;
    mpibench-help) echo "help run" ;;
    mpibench-report) echo "report $EVERY_INPUT -o $f" ;;
    mpibench-compare) echo "compare $EVERY_INPUT $EVERY_INPUT --json $f" ;;
    mpibench-plot) echo "plot $EVERY_INPUT -o ${f%.json}" ;;
    IMB-MPI1 | IMB-P2P) echo "-n 2 PingPong -msglog 2:3 -iter 10 --json $f" ;;
    IMB-NBC) echo "-n 2 Ibcast -msglog 2:3 -iter 10 --json $f" ;;
    IMB-EXT) echo "-n 2 Unidir_Put -msglog 2:3 -iter 10 --json $f" ;;
    IMB-RMA) echo "-n 2 Unidir_put -msglog 2:3 -iter 10 --json $f" ;;
    IMB-MT) echo "-n 2 PingPongMT -count 1 -repeat 10 --json $f" ;;
    IMB-MPI4) echo "-n 2 Bcast_persist -msglog 2:3 -iter 10 --json $f" ;;
    osu_init | osu_hello) echo "-n 2" ;;
    osu_*neighbor*) echo "-n 3 -m 8:8 -i 2 -x 1 --json $f" ;;
    osu_*) echo "-n 2 -m 8:8 -i 2 -x 1 --json $f" ;;
    esac
}

# Long runs (seconds at least, on any machine), for a signal mid-run.
every_long() { # PROG FILE
    local f=$2
    case $1 in
    mpibench-run) echo "run -n 2 ${LONG_RUN[*]} --json $f" ;;
    mpibench-imb) echo "imb -n 2 PingPong Sendrecv Exchange -msglog 0:22 -iter 100000 -time 100 --json $f" ;;
    IMB-MPI1) echo "-n 2 PingPong Sendrecv Exchange -msglog 0:22 -iter 100000 -time 100 --json $f" ;;
    IMB-P2P) echo "-n 2 PingPong PingPing -msglog 0:22 -iter 100000 --json $f" ;;
    mpibench-osu) echo "osu osu_latency -n 2 -m 1:4194304 -i 100000 -x 10 --json $f" ;;
    mpibench-mpitest) echo "mpitest -n 2 m1 M1000000 T100000 t1000000 --json $f" ;;
    mpibench-cresta) echo "cresta -n 2 allreduce 2 100000 1 1048576 0 0 --json $f" ;;
    mpibench-mpigraph) echo "mpigraph -n 2 1048576 100000 10 --json $f" ;;
    mpibench-commtest) echo "commtest -n 2 size=2M min=2K iterations=1000 --json $f" ;;
    mpibench-cafbench) echo "cafbench -n 2 --json $f" ;;
    mpibench-guidelines) echo "guidelines -n 2 --iter 100000 --json $f" ;;
    IMB-NBC) echo "-n 2 Ibcast Iallreduce -msglog 0:22 -iter 100000 -time 100 --json $f" ;;
    IMB-EXT) echo "-n 2 Unidir_Put Bidir_Put -msglog 0:22 -iter 100000 -time 100 --json $f" ;;
    IMB-RMA) echo "-n 2 Unidir_put Bidir_put -msglog 0:22 -iter 100000 -time 100 --json $f" ;;
    IMB-MT) echo "-n 2 PingPongMT -count 1,1000000 -repeat 100000 --json $f" ;;
    IMB-MPI4) echo "-n 2 Bcast_persist Allreduce_persist -msglog 0:22 -iter 100000 -iter_policy off -time 100 --json $f" ;;
    osu_latency | osu_bw | osu_bibw | osu_allreduce | osu_bcast | osu_alltoall | osu_put_latency | osu_get_bw)
        echo "-n 2 -m 1:4194304 -i 100000 -x 10 --json $f" ;;
    esac
}

# every_split NAME FILE short|long: sets EVERY_PROG (mpibench, or the
# drop-in's name) and EVERY_ARGS; mpibench-X is `mpibench X ...`.
every_split() {
    local spec
    if [[ $3 == short ]]; then spec=$(every_short "$1" "$2"); else spec=$(every_long "$1" "$2"); fi
    read -ra EVERY_ARGS <<<"$spec"
    case $1 in
    mpibench-*) EVERY_PROG=mpibench ;;
    *) EVERY_PROG=$1 ;;
    esac
}

every_run() { # PROG ARGS... (foreground, stdout to the case's .out)
    local prog t0
    prog=$(every_prog "$1")
    shift
    t0=$(date +%s%N)
    MPIBENCH_ROBUSTNESS_CASE=$CASE_DIR MPIBENCH_MPIEXEC=$MPIEXEC \
        timeout -k 5 "$CASE_TIMEOUT" "$prog" "$@" 2>"$CASE_DIR.err" </dev/null
    RC=$?
    finished "$t0"
}

# A results file for the commands that read one (made once).
EVERY_INPUT=$ROOT/every-input.json
MPIBENCH_MPIEXEC=$MPIEXEC "$BIN" run -n 2 pingpong --sizes 8 --iter 10 -q --json "$EVERY_INPUT" \
    >/dev/null 2>&1 </dev/null

# every_one_line REGEX: one line on stderr matching REGEX, besides the
# progress lines ("mpibench: [3/13] BARRIER on 2 processes") of a run
# without -q.
every_one_line() {
    local own n
    own=$(grep -vE '^mpibench: \[[0-9]+/[0-9]+\] ' "$CASE_DIR.err")
    n=$(printf '%s' "$own" | grep -c '')
    if [[ $n -ne 1 ]]; then
        echo "$n lines on stderr besides progress, expected 1: $(stderr_excerpt)"
    elif ! grep -qE -- "$1" <<<"$own"; then
        echo "stderr does not match /$1/: $(stderr_excerpt)"
    fi
}

# Closed stdout: the commands that print write to stdout (report and
# compare to "-").
case_every_closed_stdout() { # NAME
    local name="every command: closed stdout: $1"
    new_case_dir
    every_split "$1" out.json short
    case $1 in mpibench-report | mpibench-compare) EVERY_ARGS=("${EVERY_ARGS[@]:0:${#EVERY_ARGS[@]}-1}" -) ;; esac
    every_run "$EVERY_PROG" "${EVERY_ARGS[@]}" >&-
    check "$name" "$(expect_rc 3)" "$(every_one_line '^error: cannot write to stdout: it is closed')" \
        "$(no_leftovers)"
}

# The output file on a full tmpfs (filled to the last byte beforehand).
case_every_full_tmpfs() { # NAME
    local name="every command: --json on a full tmpfs: $1"
    need_unshare "$name" || return
    new_case_dir
    mkdir res
    every_split "$1" res/out.json short
    local prog t0
    prog=$(every_prog "$EVERY_PROG")
    t0=$(date +%s%N)
    MPIBENCH_ROBUSTNESS_CASE=$CASE_DIR MPIBENCH_MPIEXEC=$MPIEXEC timeout -k 5 "$CASE_TIMEOUT" \
        unshare -m bash -c 'mount -t tmpfs -o size=64k tmpfs res || exit 99
            head -c 1M /dev/zero >res/filler 2>/dev/null
            "$@"; rc=$?; ls -A res >listing; exit $rc' _ \
        "$prog" "${EVERY_ARGS[@]}" >"$CASE_DIR.out" 2>"$CASE_DIR.err" </dev/null
    RC=$?
    finished "$t0"
    local keep=()
    [[ $EVERY_PROG != mpibench ]] && keep=("$EVERY_PROG")
    local what="res/out.json'"
    [[ $1 == mpibench-plot ]] && what="res/out/"
    # The tables are not lost with the files (a run prints them as it
    # goes; --launches N prints the combined ones before writing).
    local table=""
    case $1 in mpibench-run | mpibench-launches)
        grep -q PingPong "$CASE_DIR.out" || table="no table on stdout" ;;
    esac
    check "$name" "$(expect_rc 3)" "$table" \
        "$(expect_one_line "^error: cannot write '$what.*: No space left on device")" \
        "$([[ $(cat listing 2>/dev/null) == filler ]] || echo "the tmpfs held: $(tr '\n' ' ' <listing)")" \
        "$(expect_files listing res "${keep[@]}")" "$(no_leftovers)"
}

# SIGINT to the command mid-run: once its ranks run.
case_every_sigint() { # NAME
    local name="every command: SIGINT mid-run: $1"
    new_case_dir
    every_split "$1" out.json long
    local prog i r started=0
    prog=$(every_prog "$EVERY_PROG")
    T0=$(date +%s%N)
    MPIBENCH_ROBUSTNESS_CASE=$CASE_DIR MPIBENCH_MPIEXEC=$MPIEXEC \
        env --default-signal=INT,TERM,HUP "$prog" "${EVERY_ARGS[@]}" \
        >"$CASE_DIR.out" 2>"$CASE_DIR.err" </dev/null &
    PID=$!
    # Running: a rank is up (its environment names its rank).
    for ((i = 0; i < 300 && !started; i++)); do
        for r in $(case_pids); do
            tr '\0' '\n' 2>/dev/null <"/proc/$r/environ" |
                grep -q '^OMPI_COMM_WORLD_RANK=\|^PMI_RANK=' && started=1
        done
        kill -0 "$PID" 2>/dev/null || break
        sleep 0.1
    done
    sleep 1
    kill -INT "$PID"
    wait_bounded 30
    local keep=(out.json)
    [[ $EVERY_PROG != mpibench ]] && keep+=("$EVERY_PROG")
    check "$name" "$([[ $started -eq 1 ]] || echo "no rank started: rc $RC; $(stderr_excerpt)")" \
        "$(expect_rc 130)" "$(every_one_line '^mpibench: interrupted by SIGINT')" \
        "$(expect_json out.json "$JSON_INTERRUPTED")" \
        "$(expect_files "${keep[@]}")" "$(no_leftovers)"
}

for c in mpibench-run mpibench-launches mpibench-imb mpibench-osu mpibench-mpitest mpibench-cresta \
    mpibench-mpigraph mpibench-commtest mpibench-cafbench mpibench-guidelines \
    mpibench-list mpibench-help mpibench-report mpibench-compare \
    "${EVERY_IMB[@]}" "${EVERY_OSU[@]}"; do
    case_every_closed_stdout "$c"
done
for c in mpibench-run mpibench-launches mpibench-imb mpibench-osu mpibench-mpitest mpibench-cresta \
    mpibench-mpigraph mpibench-commtest mpibench-cafbench mpibench-guidelines \
    mpibench-report mpibench-compare mpibench-plot \
    "${EVERY_IMB[@]}" osu_latency osu_bw osu_allreduce osu_put_latency; do
    case_every_full_tmpfs "$c"
done
for c in mpibench-run mpibench-imb mpibench-osu mpibench-mpitest mpibench-cresta \
    mpibench-mpigraph mpibench-commtest mpibench-cafbench mpibench-guidelines \
    "${EVERY_IMB[@]}" osu_latency osu_bw osu_allreduce osu_put_latency; do
    case_every_sigint "$c"
done
