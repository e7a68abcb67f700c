# Allocation limits, the main stack, placement honesty and error wording
# (issue 23, items 5 and 8). Each case: exit code, one stderr line in the
# user's syntax, no Rust backtrace or panic, no leftover process or file.

# The checks every case of this file shares: no backtrace, no panic.
expect_no_backtrace() {
    grep -qiE 'backtrace|panicked|stack overflow|memory allocation of' "$CASE_DIR.err" &&
        echo "a backtrace, panic or abort on stderr: $(stderr_excerpt)"
}

# case_alloc NAME RC LINE-REGEX ULIMIT-ARGS ARGS...: `mpibench ARGS...`
# (self-launched when ARGS say -n) under `ulimit ULIMIT-ARGS` ("" for none),
# in a fresh directory; LINE-REGEX "" expects a quiet stderr. Leaves
# CASE_DIR for further checks by the caller through $EXTRA (a python
# expression on out.json, when set).
case_alloc() {
    local name="alloc: $1" want=$2 line=$3 limit=$4
    shift 4
    new_case_dir
    local t0
    t0=$(date +%s%N)
    (
        [[ -n $limit ]] && eval "ulimit $limit"
        MPIBENCH_ROBUSTNESS_CASE=$CASE_DIR exec timeout -k 5 "$CASE_TIMEOUT" "$BIN" "$@"
    ) >"$CASE_DIR.out" 2>"$CASE_DIR.err" </dev/null
    RC=$?
    finished "$t0"
    local files=() json=""
    if [[ -n ${EXTRA:-} ]]; then
        files=(out.json)
        json=$(json_check out.json "$EXTRA")
    fi
    check "$name" "$(expect_rc "$want")" \
        "$(if [[ -n $line ]]; then expect_one_line "$line"; else expect_quiet; fi)" \
        "$(expect_no_backtrace)" "$json" "$(expect_files "${files[@]}")" \
        "$(if [[ -n ${STDOUT:-} ]] && ! grep -qE -- "$STDOUT" "$CASE_DIR.out"; then echo "stdout lacks /$STDOUT/"; fi)"
}

# Sample buffers: checked against --mem before any is allocated.
case_alloc "mpitest T99999999999999: exit 2, names T" 2 \
    "^error: T99999999999999: .*memory limit of [0-9]+ bytes per rank" "" \
    mpitest -n 2 m1 M10 T99999999999999
case_alloc "mpitest t99999999999999 --mem 1: exit 2, names t and the limit" 2 \
    "^error: t99999999999999: .*at most 8388608 repetitions" "" \
    mpitest -n 2 m1 M10 t99999999999999 --mem 1
case_alloc "run --iter 1000000000 --timing per-call under ulimit -v: exit 2, names --iter" 2 \
    "^error: --iter 1000000000: .*memory limit" "-v 4000000" \
    run -n 2 PingPong --iter 1000000000 --timing per-call --sizes 8 --json out.json
case_alloc "run --max-iter 10^12 --precision: exit 2, names --max-iter" 2 \
    "^error: --max-iter 1000000000000: .*memory limit" "" \
    run -n 2 PingPong --precision 0.05 --max-iter 1000000000000 --sizes 8
# Windows of pending operations (issue 36, item 6): their requests and the
# library's request objects are counted against --mem before any is posted
# (osu_bw -W 100000000 grew to 4.7 GB on one rank, silently, before).
for prog in osu_bw osu_bibw osu_mbw_mr osu_put_bw osu_get_bw; do
    case_alloc "$prog -W 100000000 under ulimit -v: exit 2, names -W and --mem" 2 \
        "^error: -W/--osu-window 100000000: .*pending requests.*\(--mem\)" "-v 4000000" \
        osu "$prog" -W 100000000 -m 8:8
done
case_alloc "run --osu-window 1000000 --mem 0.5: exit 2, names the window and --mem" 2 \
    "^error: -W/--osu-window 1000000: .*above the memory limit of 536870912 bytes" "" \
    run -n 2 --suite osu osu_bw --osu-window 1000000 --mem 0.5 --sizes 8 --json out.json
# Direct mpiexec: the same line.
case_mpitest_direct() {
    local name="alloc: mpitest T99999999999999 under mpiexec: exit 2"
    new_case_dir
    mpi 2 mpitest m1 M10 T99999999999999
    check "$name" "$(expect_rc 2)" "$(expect_one_line '^error: T99999999999999: ')" \
        "$(expect_no_backtrace)" "$(expect_files)"
}
case_mpitest_direct

# A 64 KiB stack: the main thread's stack is not the one mpibench runs on;
# a self-launched job's launcher gets 8 MiB within the hard limit (mpiexec
# itself, Open MPI's and Hydra's, crashes on 64 KiB: a hard limit of 64 KiB
# leaves it nothing to do about that).
STDOUT='^mpibench ' case_alloc "ulimit -s 64: --version" 0 "" "-s 64" --version
EXTRA='d["status"] == "ok"' case_alloc "ulimit -S -s 64: self-launched ranks run" 0 "" "-S -s 64" \
    run -n 2 PingPong --sizes 8 --iter 5 -q --json out.json

# COMMTEST's packet sweep: bounded up front, in the front end's words.
case_alloc "commtest volume=64M minpacket=1: refused up front" 2 \
    "^error: minpacket=1: the volume 67108864 bytes .* 67108864 packets per experiment, above the limit of 65536" "" \
    commtest -n 2 volume=64M minpacket=1
case_alloc "commtest volume=0: named as typed" 2 "^error: volume=0: must be at least 1 byte" "" \
    commtest -n 2 volume=0
case_alloc "commtest distance=5 on 2 ranks: named as typed" 2 "^error: distance=5 must be at least 1" "" \
    commtest -n 2 distance=5
case_alloc "cresta P_min 8 on 2 ranks: names P_min" 2 "^error: P_min 8 is larger than the 2 processes" "" \
    cresta -n 2 broadcast 8 10 8 8 1 1
case_alloc "cresta delay 2e7: names delay" 2 "^error: delay 20000000 is beyond" "" \
    cresta -n 2 broadcast 1 10 8 8 20000000 1

# Options that take a rank: out of range is a usage error.
case_alloc "--root 5 on 2 ranks: exit 2" 2 "^error: --root 5: root 5 is not one of the 2 processes" "" \
    run -n 2 Bcast --root 5 --sizes 8
case_alloc "--root 2 on 2 ranks: exit 2" 2 "^error: --root 2: root 2 is not one of the 2 processes" "" \
    run -n 2 Bcast --root 2 --sizes 8
case_alloc "--root -1: exit 2" 2 "^error: .*-1" "" run -n 2 Bcast --root -1 --sizes 8
EXTRA='d["status"] == "ok" and d["settings"]["root"] == 1' \
    case_alloc "--root 1 on 2 ranks runs" 0 "" "" run -n 2 Bcast --root 1 --sizes 8 --iter 5 -q --json out.json

# Unpaired ranks: said in the table, true in the JSON.
EXTRA='(lambda r: r["active"] == 2 and r["ranks"] == [0, 1] and r["sat_out"] == [2])(d["results"][0])' \
    STDOUT='^# rank 2 sat out \(unpaired\)$' \
    case_alloc "osu_bw on 3 ranks: active 2, rank 2 sat out" 0 "" "" \
    osu osu_bw -n 3 -m 8:8 -i 5 -x 1 --json out.json
EXTRA='(lambda r: r["active"] == 2 and "sat_out" not in r)(d["results"][0])' \
    case_alloc "osu_bw on 2 ranks: no sat-out line" 0 "" "" \
    osu osu_bw -n 2 -m 8:8 -i 5 -x 1 --json out.json
EXTRA='all(r["active"] == 4 and r["sat_out"] == [4] for r in d["results"] if r["benchmark"] == "SWAP")' \
    STDOUT='^# rank 4 sat out \(unpaired\)$' \
    case_alloc "COMMTEST SWAP on 5 ranks: rank 4 sat out" 0 "" "" \
    commtest -n 5 swap size=4K min=2K iterations=1 "protocols=(0,3)" -q --json out.json

# A resource that ran out is named, not blamed on the installation.
case_alloc "ulimit -n 10: too many open files, exit 4" 4 "^error: too many open files \(ulimit -n 10\)" "-n 10" \
    run -n 2 PingPong --sizes 8 --iter 5 -q

# OSU's window (-W): its requests are checked against --mem and the MPI
# count range before anything runs, never an abort with a backtrace.
case_alloc "osu_bw -W 99999999999: exit 2, names -W" 2 \
    "^error: -W/--osu-window 99999999999: .*MPI_Waitall" "" \
    osu osu_bw -W 99999999999 -m 8:8
case_alloc "osu_bibw -W 200000000 --mem 1: exit 2, names -W and --mem" 2 \
    "^error: -W/--osu-window 200000000: .*--mem" "" \
    osu osu_bibw -W 200000000 -m 8:8 --mem 1
# IMB's -iter, as typed, in a refusal of its samples.
case_alloc "imb -iter 10^9 --timing per-call under ulimit -v: names -iter" 2 \
    "^error: -iter 1000000000: .*memory limit" "-v 4000000" \
    imb PingPong -iter 1000000000 -msglog 2:3 --timing per-call
