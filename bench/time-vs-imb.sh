#!/usr/bin/env bash
# Time to result: `mpibench run` against the real IMB-MPI1 2021.11 on the
# same benchmarks and the same launcher, launched in interleaved pairs (the
# order flipping every round, so that a slow phase of the machine hits both
# alike). Prints each launch's wall time, then per configuration the median
# of each and the median of the per-pair ratios mpibench/IMB.
#
# Usage: bench/time-vs-imb.sh [MPIBENCH]
#   MPIBENCH  mpibench built against the MPI of MPI= (default
#             target/release/mpibench, or target/mpich/release/mpibench)
#   env IMB_MPI1 (a built IMB-MPI1; default: build one from IMB_SRC),
#       IMB_SRC (an intel/mpi-benchmarks checkout at 2021.11, 46e8757; default:
#       cloned from GitHub into a temporary directory),
#       NPS (default "2": the process counts, e.g. "2 16 64"; above the
#       cores, Open MPI oversubscribes), ROUNDS (default 5),
#       ARGS (default "": IMB's own flags given to both, e.g.
#       "-msglog 0:4 -iter 20"), MPI (openmpi, the default, or mpich: the
#       launcher and the compilers IMB is built with; an IMB build for
#       MPICH needs a tree of its own), MPIEXEC (default mpiexec.$MPI),
#       BENCHMARKS (default: the 12 PMB-MPI1 benchmarks)
# The mpibench side runs `mpibench run --suite pmb ARGS BENCHMARKS` under the
# same MPIEXEC, so both pay the same launch; `mpibench run` takes IMB's
# -msglog/-iter spellings as --msglog/--iter.
set -euo pipefail
MPI=${MPI:-openmpi}
case $MPI in
openmpi) default_bin=./target/release/mpibench ;;
mpich) default_bin=./target/mpich/release/mpibench ;;
*) echo "time-vs-imb: MPI must be openmpi or mpich, not '$MPI'" >&2; exit 2 ;;
esac
BIN=$(realpath "${1:-$default_bin}")
NPS=${NPS:-2}
ROUNDS=${ROUNDS:-5}
ARGS=${ARGS:-}
MPIEXEC=${MPIEXEC:-mpiexec.$MPI}
BENCHMARKS=${BENCHMARKS:-PingPong PingPing Sendrecv Exchange Allreduce Reduce Reduce_scatter Allgather Allgatherv Alltoall Bcast Barrier}
[[ -x $BIN ]] || { echo "time-vs-imb: no mpibench at $BIN" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
if [[ -z ${IMB_MPI1:-} ]]; then
    src=${IMB_SRC:-}
    if [[ -z $src ]]; then
        src=$DIR/imb
        git clone -q https://github.com/intel/mpi-benchmarks "$src"
        git -C "$src" checkout -q 46e8757
    fi
    make -s -C "$src" CC="mpicc.$MPI" CXX="mpicxx.$MPI" CPPFLAGS=-DOMPI_SKIP_MPICXX=1 IMB-MPI1 >&2
    IMB_MPI1=$src/IMB-MPI1
fi
# mpibench's spelling of IMB's flags: -msglog A:B -> --msglog A:B, -iter N -> --iter N.
# shellcheck disable=SC2001
MB_ARGS=$(sed -e 's/\(^\| \)-\([a-z]\)/\1--\2/g' <<<"$ARGS")
now() { date +%s.%N; }
for np in $NPS; do
    : >"$DIR/times.$np"
    for r in $(seq 1 "$ROUNDS"); do
        if ((r % 2)); then order="mpibench imb"; else order="imb mpibench"; fi
        for which in $order; do
            t0=$(now)
            if [[ $which == imb ]]; then
                # shellcheck disable=SC2086
                "$MPIEXEC" -n "$np" "$IMB_MPI1" $ARGS $BENCHMARKS >"$DIR/out" 2>&1 ||
                    { echo "time-vs-imb: IMB-MPI1 failed on $np ranks:" >&2; tail -5 "$DIR/out" >&2; exit 1; }
            else
                # shellcheck disable=SC2086
                MPIBENCH_PHASES=1 "$MPIEXEC" -n "$np" "$BIN" run -q $MB_ARGS $BENCHMARKS >"$DIR/out" 2>&1 ||
                    { echo "time-vs-imb: mpibench failed on $np ranks:" >&2; tail -5 "$DIR/out" >&2; exit 1; }
                grep '^phases (rank 0): ' "$DIR/out" >>"$DIR/phases.$np" || true
            fi
            t=$(echo "$(now) - $t0" | bc)
            echo "$np $r $which $t" | tee -a "$DIR/times.$np"
        done
    done
done
python3 - "$DIR" "$NPS" <<'PY'
import sys, statistics as st
d, nps = sys.argv[1], sys.argv[2].split()
print(f"{'ranks':>5} {'mpibench s':>11} {'IMB-MPI1 s':>11} {'ratio':>6}  per-pair range")
for np in nps:
    t = {}
    for line in open(f"{d}/times.{np}"):
        _, r, which, s = line.split()
        t.setdefault(int(r), {})[which] = float(s)
    mb = [v["mpibench"] for v in t.values()]
    imb = [v["imb"] for v in t.values()]
    per = sorted(v["mpibench"] / v["imb"] for v in t.values())
    print(f"{np:>5} {st.median(mb):>11.2f} {st.median(imb):>11.2f} {st.median(per):>6.2f}  {per[0]:.2f}-{per[-1]:.2f}")
for np in nps:
    phases = {}
    try:
        lines = open(f"{d}/phases.{np}").read().splitlines()
    except FileNotFoundError:
        continue
    for line in lines:
        body = line.split(": ", 1)[1].split(";")[0]
        for part in body.split(", "):
            name, secs, _ = part.rsplit(" ", 2)
            phases.setdefault(name, []).append(float(secs))
    print(f"{np:>5} ranks, mpibench's phases (median s of {len(lines)}): "
          + ", ".join(f"{k} {st.median(v):.3f}" for k, v in phases.items()))
PY
