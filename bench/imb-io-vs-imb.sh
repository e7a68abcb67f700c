#!/usr/bin/env bash
# mpibench imb-io against the real IMB-IO 2021.11, under Open MPI, on the
# same directory: the same command line (-msglen FILE, -iter N, the
# benchmarks) given to both, launched alternately with the order flipping
# every round, each in its own fresh subdirectory of IO_DIR (IMB-IO writes
# IMB_out* in its current directory and leaves them; they are removed
# after each launch). Both print IMB-IO's tables, read here the same way.
# Prints per (benchmark, mode, processes, bytes) the best (smallest) time
# of each over the rounds (t[usec] of S_, t_max of P_ and C_, t_max of
# Open_Close) and the ratio mpibench/IMB of the bests.
#
# Usage: bench/imb-io-vs-imb.sh [MPIBENCH]
#   MPIBENCH  mpibench built against Open MPI (default target/release/mpibench)
#   env IMB_IO (a built IMB-IO; default: build one from IMB_SRC),
#       IMB_SRC (an intel/mpi-benchmarks checkout at 2021.11, 46e8757; default:
#       cloned from GitHub into a temporary directory),
#       IO_DIR (where both write; default: a temporary directory under $TMPDIR),
#       ROUNDS (default 5), NP (default 2), SIZES (default 1024,65536,1048576),
#       ITER (default 50), MPIEXEC (default mpiexec.openmpi),
#       BENCHMARKS (default "P_Write_Indv P_Read_Indv C_Write_Expl Open_Close")
set -euo pipefail
BIN=$(realpath "${1:-./target/release/mpibench}")
ROUNDS=${ROUNDS:-5}
NP=${NP:-2}
SIZES=${SIZES:-1024,65536,1048576}
ITER=${ITER:-50}
MPIEXEC=${MPIEXEC:-mpiexec.openmpi}
BENCHMARKS=${BENCHMARKS:-P_Write_Indv P_Read_Indv C_Write_Expl Open_Close}
[[ -x $BIN ]] || { echo "imb-io-vs-imb: no mpibench at $BIN" >&2; exit 2; }
DIR=$(mktemp -d)
IO_DIR=${IO_DIR:-$DIR/io}
mkdir -p "$IO_DIR"
trap 'rm -rf "$DIR"' EXIT
if [[ -z ${IMB_IO:-} ]]; then
    src=${IMB_SRC:-}
    if [[ -z $src ]]; then
        src=$DIR/imb
        git clone -q https://github.com/intel/mpi-benchmarks "$src"
        git -C "$src" checkout -q 46e8757
    fi
    mkdir -p "$DIR/build"
    (cd "$src" && git archive HEAD 2>/dev/null || tar -c .) | tar -x -C "$DIR/build"
    make -s -C "$DIR/build" CC=mpicc.openmpi CXX=mpicxx.openmpi CPPFLAGS=-DOMPI_SKIP_MPICXX=1 IMB-IO \
        >"$DIR/make.log" 2>&1 || { tail -20 "$DIR/make.log" >&2; exit 1; }
    IMB_IO=$DIR/build/IMB-IO
fi
IMB_IO=$(realpath "$IMB_IO")
tr ',' '\n' <<<"$SIZES" >"$DIR/lengths"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for r in $(seq 1 "$ROUNDS"); do
    if ((r % 2)); then order="imb mpibench"; else order="mpibench imb"; fi
    for which in $order; do
        if [[ $which == imb ]]; then prog=("$IMB_IO"); else prog=("$BIN" imb-io); fi
        run=$(mktemp -d "$IO_DIR/run.XXXXXX")
        # shellcheck disable=SC2086
        (cd "$run" && "$MPIEXEC" --oversubscribe -n "$NP" "${prog[@]}" -msglen "$DIR/lengths" \
            -iter "$ITER" $BENCHMARKS >"$DIR/$which.$r.txt")
        rm -rf "$run"
    done
done
python3 - "$DIR" "$ROUNDS" <<'PY'
import sys
d, rounds = sys.argv[1], int(sys.argv[2])
def tables(path):
    """{(benchmark, mode, processes, bytes): t} of IMB-IO's tables."""
    out, name, q, mode, cols = {}, None, 0, "", None
    for line in open(path):
        s = line.strip()
        if s.startswith("# Benchmarking "):
            name, mode, cols = s.split()[2], "", None
        elif s.startswith("# #processes = "):
            q = int(s.split()[-1])
        elif s.startswith("#    MODE: "):
            mode = s.split()[-1]
        elif s.startswith("#bytes") or s.startswith("#repetitions"):
            cols = s.split()
        elif name and cols and s and not s.startswith("#"):
            v = dict(zip(cols, map(float, s.split())))
            t = v.get("t[usec]", v.get("t_max[usec]"))
            if t is not None:
                out[(name, mode, q, int(v.get("#bytes", 0)))] = t
    return out
runs = {w: [tables(f"{d}/{w}.{k}.txt") for k in range(1, rounds + 1)] for w in ("imb", "mpibench")}
keys = sorted(set.intersection(*(set(t) for w in runs.values() for t in w)))
best = lambda w, k: min(t[k] for t in runs[w])
print(f"best of {rounds} alternating launches, t in usec (t_max of P_ and C_)")
print(f"{'benchmark':<14} {'mode':<14} {'P':>2} {'bytes':>8} {'IMB-IO':>11} {'mpibench':>11} {'ratio':>6}")
for k in keys:
    i, o = best("imb", k), best("mpibench", k)
    r = f"{o / i:6.2f}" if i > 0 else "     -"
    print(f"{k[0]:<14} {k[1]:<14} {k[2]:>2} {k[3]:>8} {i:>11.2f} {o:>11.2f} {r}")
PY
