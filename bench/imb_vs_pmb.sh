#!/usr/bin/env bash
# IMB-MPI1 2021's definitions against PMB v2.2's, on the same machine and
# binary: `mpibench imb` (per-call timing with a barrier between calls,
# Reduce_scatter handing X/4 floats to every rank) and `mpibench run
# --definitions pmb` (one clock pair around the loop, X/4 floats split),
# launched alternately, the order flipping every round. Prints per
# (benchmark, bytes) the median t_avg of each over the rounds and the ratio
# imb/pmb of the medians, with the range of the per-round ratios.
#
# Usage: bench/imb_vs_pmb.sh [BINARY]
#   env ROUNDS (default 5), NP (default 2), SIZES (default 8,65536,1048576),
#       BENCHMARKS (default "Bcast Allreduce Reduce_scatter")
set -euo pipefail
BIN=${1:-./target/release/mpibench}
ROUNDS=${ROUNDS:-5}
NP=${NP:-2}
SIZES=${SIZES:-8,65536,1048576}
BENCHMARKS=${BENCHMARKS:-Bcast Allreduce Reduce_scatter}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
tr ',' '\n' <<<"$SIZES" >"$DIR/lengths"
for r in $(seq 1 "$ROUNDS"); do
    if ((r % 2)); then order="imb pmb"; else order="pmb imb"; fi
    for which in $order; do
        if [[ $which == imb ]]; then
            # shellcheck disable=SC2086
            "$BIN" imb -n "$NP" -q -msglen "$DIR/lengths" $BENCHMARKS --json "$DIR/imb.$r.json" >/dev/null
        else
            # shellcheck disable=SC2086
            "$BIN" run -n "$NP" -q --definitions pmb --sizes "$SIZES" $BENCHMARKS --json "$DIR/pmb.$r.json" >/dev/null
        fi
    done
done
python3 - "$DIR" "$ROUNDS" <<'PY'
import json, sys, statistics as st
d, rounds = sys.argv[1], int(sys.argv[2])
def rows(path):
    v = json.load(open(path))
    return {(r["benchmark"], row["bytes"]): row["t_avg_us"]
            for r in v["results"] for row in r.get("rows", [])}
imb = [rows(f"{d}/imb.{k}.json") for k in range(1, rounds + 1)]
pmb = [rows(f"{d}/pmb.{k}.json") for k in range(1, rounds + 1)]
keys = sorted(imb[0].keys() & pmb[0].keys(), key=lambda k: (k[0], k[1]))
print(f"{'benchmark':<16} {'bytes':>8} {'imb t_avg':>10} {'pmb t_avg':>10} {'imb/pmb':>8}  per-round range")
for k in keys:
    a = [x[k] for x in imb]
    b = [x[k] for x in pmb]
    per = sorted(x / y for x, y in zip(a, b) if y > 0)
    print(f"{k[0]:<16} {k[1]:>8} {st.median(a):>10.2f} {st.median(b):>10.2f} "
          f"{st.median(a) / st.median(b):>8.2f}  {per[0]:.2f}-{per[-1]:.2f}")
PY
