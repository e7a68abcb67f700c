#!/usr/bin/env bash
# mpibench imb-mpi4 against the real IMB-MPI4 2021.11, under MPICH (IMB-MPI4
# needs MPI-4): the same command line (-msglen FILE, -iter N, the
# benchmarks) given to both, launched alternately with the order flipping
# every round. Both print IMB-MPI4's tables, read here the same way. Prints
# per (benchmark, bytes) the best (smallest) t_pure and t_ovrl of each over
# the rounds and the ratios mpibench/IMB of the bests.
#
# Usage: bench/imb-mpi4-vs-imb.sh [MPIBENCH]
#   MPIBENCH  the MPICH build of mpibench (default target/mpich/release/mpibench;
#             make it with CARGO_TARGET_DIR=target/mpich MPICC=mpicc.mpich cargo build --release)
#   env IMB_MPI4 (a built IMB-MPI4; default: build one from IMB_SRC),
#       IMB_SRC (an intel/mpi-benchmarks checkout at 2021.11, 46e8757; default:
#       cloned from GitHub into a temporary directory),
#       ROUNDS (default 5), NP (default 2), SIZES (default 8,1024,65536),
#       ITER (default 1000: at 200 the sub-microsecond sizes read up to 1.75x apart between launches), MPIEXEC (default mpiexec.mpich),
#       BENCHMARKS (default "Bcast_persist Allreduce_persist Alltoall_persist")
set -euo pipefail
BIN=${1:-./target/mpich/release/mpibench}
ROUNDS=${ROUNDS:-5}
NP=${NP:-2}
SIZES=${SIZES:-8,1024,65536}
ITER=${ITER:-1000}
MPIEXEC=${MPIEXEC:-mpiexec.mpich}
BENCHMARKS=${BENCHMARKS:-Bcast_persist Allreduce_persist Alltoall_persist}
[[ -x $BIN ]] || { echo "imb-mpi4-vs-imb: no mpibench at $BIN (build it against MPICH)" >&2; exit 2; }
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
if [[ -z ${IMB_MPI4:-} ]]; then
    src=${IMB_SRC:-}
    if [[ -z $src ]]; then
        src=$DIR/imb
        git clone -q https://github.com/intel/mpi-benchmarks "$src"
        git -C "$src" checkout -q 46e8757
    fi
    # A copy of its own: IMB's families share object files.
    mkdir -p "$DIR/build"
    (cd "$src" && git archive HEAD 2>/dev/null || tar -c .) | tar -x -C "$DIR/build"
    make -s -C "$DIR/build" CC=mpicc.mpich CXX=mpicxx.mpich IMB-MPI4 >"$DIR/make.log" 2>&1 ||
        { tail -20 "$DIR/make.log" >&2; exit 1; }
    IMB_MPI4=$DIR/build/IMB-MPI4
fi
tr ',' '\n' <<<"$SIZES" >"$DIR/lengths"
for r in $(seq 1 "$ROUNDS"); do
    if ((r % 2)); then order="imb mpibench"; else order="mpibench imb"; fi
    for which in $order; do
        if [[ $which == imb ]]; then prog=("$IMB_MPI4"); else prog=("$BIN" imb-mpi4); fi
        # shellcheck disable=SC2086
        "$MPIEXEC" -n "$NP" "${prog[@]}" -msglen "$DIR/lengths" -iter "$ITER" $BENCHMARKS \
            >"$DIR/$which.$r.txt"
    done
done
python3 - "$DIR" "$ROUNDS" <<'PY'
import sys
d, rounds = sys.argv[1], int(sys.argv[2])
def tables(path):
    """{(benchmark, bytes): (t_ovrl, t_pure)} of IMB-MPI4's tables."""
    out, name, cols = {}, None, None
    for line in open(path):
        if line.startswith("# Benchmarking "):
            name, cols = line.split()[2], None
        elif line.lstrip().startswith("#bytes") or line.lstrip().startswith("#repetitions"):
            cols = line.split()
        elif name and cols and line.strip() and not line.startswith("#"):
            v = dict(zip(cols, map(float, line.split())))
            if "t_ovrl[usec]" in v:
                out[(name, int(v.get("#bytes", 0)))] = (v["t_ovrl[usec]"], v["t_pure[usec]"])
    return out
runs = {w: [tables(f"{d}/{w}.{k}.txt") for k in range(1, rounds + 1)] for w in ("imb", "mpibench")}
keys = sorted(set.intersection(*(set(t) for w in runs.values() for t in w)))
best = lambda w, k, i: min(t[k][i] for t in runs[w])
print(f"best of {rounds} alternating launches, t in usec")
print(f"{'benchmark':<20} {'bytes':>7} {'IMB t_pure':>11} {'ours':>9} {'ratio':>6} "
      f"{'IMB t_ovrl':>11} {'ours':>9} {'ratio':>6}")
for k in keys:
    ip, op = best("imb", k, 1), best("mpibench", k, 1)
    io, oo = best("imb", k, 0), best("mpibench", k, 0)
    r = lambda a, b: f"{a / b:6.2f}" if b > 0 else "     -"
    print(f"{k[0]:<20} {k[1]:>7} {ip:>11.2f} {op:>9.2f} {r(op, ip)} {io:>11.2f} {oo:>9.2f} {r(oo, io)}")
PY
