# shellcheck shell=bash
# ---------------------------------------------------------------------------
# 70. The library's own words (issue 36, item 4): when MPI cannot start,
#     mpibench's one line (exit 5) is followed by the first lines of the
#     library's explanation, such as Open MPI's "A requested component was
#     not found ... Framework: btl, Component: nonexistent"; no rank is
#     left behind. Open MPI itself drops that help message in about 1
#     launch of 8 (a rank aborts before the launcher prints it; seen with
#     a bare mpiexec too): then its "mca_bml_base_open() failed ...
#     Returned "Not found"" block is what it said, and what is shown. In
#     about 1 loaded launch of 10 its runtime loses the help message in
#     transit ("ORTE_ERROR_LOG: Data unpack would read past end of buffer
#     in file .../show_help.c"; 3 of 30 bare mpiexec launches beside
#     stress-ng): then that log, or the rank's error-handler block ("An
#     error occurred in MPI_Init_thread"), is all it said, and is shown.
#     (MPICH ignores unknown MPIR_CVAR_ values, and its
#     launcher's own failures are shown as they come: Open MPI only.)
# ---------------------------------------------------------------------------

# case_mpi_start_words VAR=VALUE FRAMEWORK COMPONENT
case_mpi_start_words() {
    local name="MPI start: $1 shows the library's words under mpibench's line"
    if [[ $FLAVOUR != openmpi ]]; then
        echo "SKIP $name (Open MPI's components)"
        return
    fi
    new_case_dir
    local var=${1%%=*} value=${1#*=}
    SELF_WRAP="env --default-signal=INT,TERM,HUP $var=$value" self run -n 2 PingPong --sizes 8 -q
    local first said
    first=$(head -n 1 "$CASE_DIR.err")
    said=$(sed -n 2p "$CASE_DIR.err")
    check "$name" "$(expect_rc 5)" \
        "$([[ $first == "error: MPI_Init did not complete on rank"*"the MPI library could not start"* ]] ||
            echo "first line: $first")" \
        "$([[ $said == "  the MPI library said:" ]] || echo "second line: $said")" \
        "$({ grep -qxF "    Framework: $2" "$CASE_DIR.err" && grep -qxF "    Component: $3" "$CASE_DIR.err"; } ||
            grep -qE '^    (mca_[a-z]+_base_open\(\) failed|--> Returned "Not found"|ORTE_ERROR_LOG: .*show_help\.c|An error occurred in MPI_Init)' "$CASE_DIR.err" ||
            echo "no 'Framework: $2' and 'Component: $3', nor the failed open: $(stderr_excerpt)")" \
        "$(n=$(grep -c '' "$CASE_DIR.err"); ((n <= 10)) || echo "$n lines on stderr, expected at most 10")" \
        "$(expect_files)" "$(no_leftovers)"
}
case_mpi_start_words OMPI_MCA_btl=nonexistent btl nonexistent
case_mpi_start_words OMPI_MCA_pml=bogus pml bogus
