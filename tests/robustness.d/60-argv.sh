# shellcheck shell=bash
# ---------------------------------------------------------------------------
# 60. Arguments as the OS gives them (issue 36, item 3): a byte that is not
#     UTF-8 in any argument of any subcommand or drop-in name, in the
#     subcommand's own name, or in an MPIBENCH_* variable, and a variable
#     that does not hold what it must, is one line on stderr naming the
#     argument or the variable, exit 2, nothing written and nothing left
#     behind; never a panic (exit 3 with "internal error") or a hang.
#     Self-launched and under the launcher (rank 0 says it once).
# ---------------------------------------------------------------------------
ARGV_BYTE=$'\xff'

# case_argv NAME WANT PROGRAM ARGS...: PROGRAM (the binary, or a link to it
# in the case directory) with ARGS, no launcher; expects exit 2 and one
# error line containing WANT. MPIBENCH_MPIEXEC and the like come from the
# caller's environment (env VAR=... case_argv ...).
case_argv() {
    local name="argv: $1" want=$2 prog=$3
    shift 3
    local CASE_TIMEOUT=${BAD_TIMEOUT:-20} t0
    new_case_dir
    case $prog in
    mpibench) prog=$BIN ;;
    *) ln -s "$BIN" "$prog" && prog=./$prog ;;
    esac
    t0=$(date +%s%N)
    MPIBENCH_ROBUSTNESS_CASE=$CASE_DIR MPIBENCH_MPIEXEC=${MPIBENCH_MPIEXEC_OVERRIDE-$MPIEXEC} \
        timeout -k 5 "$CASE_TIMEOUT" "$prog" "$@" >"$CASE_DIR.out" 2>"$CASE_DIR.err" </dev/null
    RC=$?
    finished "$t0"
    argv_verdict "$name" "$want"
}

# case_argv_launched NAME WANT ARGS...: the same under the launcher on 2 ranks.
case_argv_launched() {
    local name="argv: $1 (under the launcher)" want=$2
    shift 2
    local CASE_TIMEOUT=${BAD_TIMEOUT:-20}
    new_case_dir
    mpi 2 "$@"
    argv_verdict "$name" "$want"
}

argv_verdict() {
    local name=$1 want=$2 lines first left
    lines=$(wc -l <"$CASE_DIR.err")
    first=$(head -n 1 "$CASE_DIR.err")
    left=$(find . -mindepth 1 ! -type l | head -5)
    if [[ $HUNG -eq 1 ]]; then
        fail "$name" "hang (no exit within ${CASE_TIMEOUT} s)"
    elif [[ $RC -ne 2 ]]; then
        fail "$name" "exit code $RC, expected 2; stderr: $(stderr_excerpt)"
    elif [[ $lines -ne 1 ]]; then
        fail "$name" "$lines lines on stderr, expected 1: $(stderr_excerpt)"
    elif [[ $first != "error: "*"$want"* ]]; then
        fail "$name" "stderr is not 'error: ...$want...': $first"
    elif [[ -n $left ]]; then
        fail "$name" "left behind: $(echo "$left" | tr '\n' ' ')"
    elif [[ -n $(case_pids) ]]; then
        fail "$name" "processes left behind"
    else
        pass "$name"
    fi
    cd "$ROOT" || exit 1
}

# Every subcommand with a stray byte in its first argument, and in a value.
for sub in run list help imb imb-nbc imb-ext imb-rma imb-p2p imb-mt osu mpitest cresta \
    mpigraph cafbench commtest guidelines tune report plot compare; do
    case_argv "mpibench $sub ARG\\xFF" "argument 2 is not valid UTF-8: 'Ping\\xFFPong'" \
        mpibench "$sub" "Ping${ARGV_BYTE}Pong"
done
case_argv "mpibench run --sizes 8,1\\xFF" "argument 3 is not valid UTF-8: '8,1\\xFF'" \
    mpibench run --sizes "8,1$ARGV_BYTE"
case_argv "mpibench run --json out\\xFF.json" "argument 3 is not valid UTF-8" \
    mpibench run --json "out$ARGV_BYTE.json"
case_argv "mpibench report -o x\\xFF.html" "argument 3 is not valid UTF-8" \
    mpibench report -o "x$ARGV_BYTE.html" in.json
case_argv "subcommand r\\xFFun" "argument 1 is not valid UTF-8: 'r\\xFFun'" mpibench "r${ARGV_BYTE}un"
# Every drop-in name: IMB's programs and OSU's.
for prog in IMB-MPI1 IMB-NBC IMB-EXT IMB-RMA IMB-P2P IMB-MT osu_latency osu_bw osu_allreduce \
    osu_put_latency osu_init osu_latency_mt osu_ibcast osu_neighbor_alltoall; do
    case_argv "$prog -msglog 1:\\xFF" "argument 2 is not valid UTF-8" "$prog" -msglog "1:$ARGV_BYTE"
done
case_argv "osu_bw -m 1:\\xFF" "argument 2 is not valid UTF-8: '1:\\xFF'" osu_bw -m "1:$ARGV_BYTE"
# Under a launcher, rank 0 says it once.
case_argv_launched "run Ping\\xFFPong" "argument 2 is not valid UTF-8" run "Ping${ARGV_BYTE}Pong"
# The environment.
MPIBENCH_MPIEXEC_OVERRIDE="/usr/bin/mpiexec$ARGV_BYTE" case_argv "MPIBENCH_MPIEXEC with \\xFF" \
    "environment variable MPIBENCH_MPIEXEC is not valid UTF-8" mpibench run -n 2 PingPong
MPIBENCH_START_DEADLINE=abc case_argv "MPIBENCH_START_DEADLINE=abc" \
    "environment variable MPIBENCH_START_DEADLINE='abc' is not a positive number of seconds" \
    mpibench run -n 2 PingPong
MPIBENCH_START_DEADLINE=-5 case_argv "MPIBENCH_START_DEADLINE=-5" \
    "MPIBENCH_START_DEADLINE='-5'" mpibench list
