# shellcheck shell=bash
# ---------------------------------------------------------------------------
# 30. Every input is bounded (issue 23, item 4): the results files of
#     report/plot/compare, --hostfile, IMB's -msglen and -input,
#     --derived indx:FILE (and OSU's -D indx:FILE), OSU's -N graph:FILE.
#     A device (/dev/zero, /dev/urandom), a directory, a FIFO nobody writes,
#     a missing file or a file above the cap (sparse) is refused with exit 2
#     and one line, without blocking; stdin (`-`) stops at the cap; a UTF-8
#     byte order mark is accepted. Every mpibench of this file runs under
#     `ulimit -v 4000000` in a subshell: a regression reads endless input
#     until that limit, never until the machine's OOM killer.
#     Output formats cannot be turned into code (item 6): a benchmark name
#     with a line break gives no gnuplot command; CSV cells are guarded.
# ---------------------------------------------------------------------------
IN_TIMEOUT=${IN_TIMEOUT:-20}
IN_VMEM_KIB=4000000

# in_run STDIN ARGS...: `mpibench ARGS` (self-launching) in the case
# directory under `ulimit -v`, stdin from the file STDIN (never a FIFO),
# bounded by IN_TIMEOUT. Sets RC, HUNG, ELAPSED.
in_run() {
    local stdin=$1 t0
    shift
    t0=$(date +%s%N)
    (
        ulimit -v "$IN_VMEM_KIB" || exit 99
        MPIBENCH_ROBUSTNESS_CASE=$CASE_DIR MPIBENCH_MPIEXEC=$MPIEXEC \
            exec timeout -k 5 "$IN_TIMEOUT" "$BIN" "$@"
    ) >"$CASE_DIR.out" 2>"$CASE_DIR.err" <"$stdin"
    RC=$?
    local CASE_TIMEOUT=$IN_TIMEOUT
    finished "$t0"
}

# in_make KIND CAP: makes the input of that kind in the case directory;
# sets IN (its path), WANT (a regex of the error line) and KEEP (what the
# case directory holds afterwards).
in_make() {
    KEEP=()
    case $1 in
    zero | urandom)
        IN=/dev/$1
        WANT="'/dev/$1': a character device, not a regular file"
        ;;
    dir)
        mkdir indir && IN=indir KEEP=(indir)
        WANT="'indir': a directory, not a regular file"
        ;;
    fifo)
        mkfifo infifo && IN=infifo KEEP=(infifo)
        WANT="'infifo': a FIFO, not a regular file"
        ;;
    missing)
        IN=nothere
        WANT="'nothere': No such file or directory"
        ;;
    big)
        truncate -s $(($2 + 1)) inbig && IN=inbig KEEP=(inbig)
        WANT="'inbig' is larger than the [0-9]+ MiB limit"
        ;;
    esac
}

# case_input KIND CAP WHAT ARGS...: ARGS with the word IN replaced by the
# input of KIND; exit 2, one line naming the input and why, nothing else.
case_input() {
    local kind=$1 cap=$2 what=$3
    shift 3
    local name="input: $what ← $kind"
    new_case_dir
    in_make "$kind" "$cap"
    local args=() a
    for a in "$@"; do
        args+=("${a//@IN@/$IN}")
    done
    in_run /dev/null "${args[@]}"
    check "$name" "$(expect_rc 2)" "$(expect_one_line "^error: .*$WANT")" \
        "$(expect_files "${KEEP[@]}")" "$(no_leftovers)"
}

MIB=$((1 << 20))
for kind in zero urandom dir fifo missing big; do
    case_input "$kind" $((256 * MIB)) "report FILE" report @IN@ -o out.html
    case_input "$kind" $((256 * MIB)) "plot FILE" plot @IN@ -o plots
    case_input "$kind" $((256 * MIB)) "plot --gnuplot FILE" plot --gnuplot @IN@ -o plots
    case_input "$kind" $((256 * MIB)) "compare FILE FILE" compare @IN@ @IN@
    case_input "$kind" "$MIB" "run --hostfile FILE" run --hostfile @IN@ pingpong --sizes 8 --iter 5
    case_input "$kind" "$MIB" "imb -msglen FILE" imb -msglen @IN@ PingPong -iter 5
    case_input "$kind" "$MIB" "imb -input FILE" imb -input @IN@ -iter 5
    case_input "$kind" "$MIB" "run --derived indx:FILE" run -n 2 --suite osu osu_latency --sizes 8 --iter 5 --derived indx:@IN@
    case_input "$kind" "$MIB" "osu -D indx:FILE" osu osu_latency -m 8:8 -i 5 -x 0 -D indx:@IN@
    case_input "$kind" "$MIB" "osu -N graph:FILE" osu osu_neighbor_alltoall -m 8:8 -i 5 -x 0 -N graph:@IN@
done

# Stdin (`-`) is read up to the cap, then refused in one line.
case_stdin_cap() { # WHAT LIMIT ARGS...
    local name="input: $1 - < /dev/zero stops at the $2 limit" limit=$2
    shift 2
    new_case_dir
    in_run /dev/zero "$@"
    check "$name" "$(expect_rc 2)" \
        "$(expect_one_line "^error: .*\(stdin\) is larger than the $limit limit")" \
        "$(expect_files)" "$(no_leftovers)"
}
case_stdin_cap "report" "256 MiB" report - -o out.html
case_stdin_cap "compare" "256 MiB" compare - "$ROOT/none.json"
case_stdin_cap "run --hostfile" "1 MiB" run --hostfile - pingpong --sizes 8

# A results file with a UTF-8 byte order mark is read, from a file and from stdin.
case_bom_results() {
    local name="input: report reads a results file with a byte order mark"
    new_case_dir
    make_inputs || { fail "$name" "could not make the input files"; return; }
    { printf '\xef\xbb\xbf'; cat "$INPUTS/a.json"; } >bom.json
    in_run /dev/null report bom.json -o out.html
    local r1=$RC
    in_run bom.json report - -o out2.html
    check "$name" "$( ((r1 == 0)) || echo "exit code $r1 from a file: $(stderr_excerpt)")" \
        "$(expect_rc 0)" "$(expect_files bom.json out.html out2.html)" "$(no_leftovers)"
}
case_bom_results

# Lists with a byte order mark: a hostfile, IMB's -msglen, an index file, a graph.
case_bom_list() { # WHAT TEXT ARGS... (@IN@ is the file)
    local name="input: $1 with a byte order mark is read" text=$2
    shift 2
    new_case_dir
    { printf '\xef\xbb\xbf'; printf '%b' "$text"; } >bom.txt
    local args=() a
    for a in "$@"; do args+=("${a//@IN@/bom.txt}"); done
    in_run /dev/null "${args[@]}"
    check "$name" "$(expect_rc 0)" "$(no_leftovers)"
}
case_bom_list "--hostfile" 'localhost slots=2\n' run --hostfile @IN@ --dry-run pingpong --sizes 8
case_bom_list "imb -msglen" '8\n64\n' imb -n 2 -msglen @IN@ PingPong -iter 5
case_bom_list "osu -D indx:FILE" '0,2\n4,1\n' osu osu_latency -n 2 -m 8:8 -i 5 -x 0 -D indx:@IN@
case_bom_list "osu -N graph:FILE" '0,1\n1,0\n' osu osu_neighbor_alltoall -n 2 -m 8:8 -i 5 -x 0 -N graph:@IN@

# Item 6: a benchmark name with a line break and a gnuplot command in a
# results file gives no command line in the .gp scripts (nor a comment that
# continues onto the next line), and no backquote outside a string.
case_gnuplot_injection() {
    local name="output: plot --gnuplot on a name with a line break writes no command"
    new_case_dir
    make_inputs || { fail "$name" "could not make the input files"; return; }
    python3 - "$INPUTS/a.json" evil.json <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["results"]:
    r["benchmark"] = r["benchmark"] + '\nsystem "touch pwned" \\\n`touch pwned2` \'\n'
json.dump(d, open(sys.argv[2], "w"))
EOF
    in_run /dev/null plot --gnuplot evil.json -o gp
    local bad="" n
    n=$(find gp -name '*.gp' 2>/dev/null | wc -l)
    if ((n == 0)); then
        bad="no .gp script was written"
    elif grep -nE '^[[:space:]]*system' gp/*.gp gp/*.dat >/dev/null; then
        bad="a line starts with system: $(grep -nE '^[[:space:]]*system' gp/*.gp | head -n 2 | tr '\n' '|')"
    elif grep -nE '^#.*\\$' gp/*.gp gp/*.dat >/dev/null; then
        bad="a comment ends with a backslash"
    elif [[ -e pwned || -e pwned2 ]]; then
        bad="a file was created by the name"
    fi
    check "$name" "$(expect_rc 0)" "$bad" "$(no_leftovers)"
}
case_gnuplot_injection

# Item 6: CSV text cells that a spreadsheet would take for a formula get a
# leading quote (unit-tested); names mpibench writes are unchanged and
# numbers stay numbers.
case_csv_names_unchanged() {
    local name="output: --csv keeps mpibench's own names and numbers as they are"
    new_case_dir
    in_run /dev/null run -n 2 pingpong --sizes 8 --iter 5 -q --csv out.csv
    local bad=""
    if ! grep -q '^PingPong,' out.csv 2>/dev/null; then
        bad="no row starts with 'PingPong,': $(head -c 200 out.csv 2>&1 | tr '\n' '|')"
    elif grep -q "'" out.csv; then
        bad="a cell got a quote: $(grep "'" out.csv | head -n 1)"
    fi
    check "$name" "$(expect_rc 0)" "$bad" "$(no_leftovers)"
}
case_csv_names_unchanged
