#!/usr/bin/env bash
# Before/after: the PMB-MPI1 suite with two mpibench binaries, launched
# alternately (the order flips every round, so slow phases of the machine
# hit both alike), and the median over rounds of the ratio NEW/OLD of t_avg
# per (benchmark, processes, bytes). Used to show that an engine change
# leaves PMB's figures within noise.
#
# Usage: bench/before_after.sh OLD_BINARY NEW_BINARY
#   env ROUNDS (default 9), NP (default 2), ARGS (default "--msglog 0:22")
# With at most 40 rows (e.g. ARGS="--sizes 8,64K,4M PingPong Allreduce
# Alltoall"), each row's median t_avg before and after is printed too.
set -euo pipefail
OLD=${1:?old binary}
NEW=${2:?new binary}
ROUNDS=${ROUNDS:-9}
NP=${NP:-2}
ARGS=${ARGS:---msglog 0:22}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
for r in $(seq 1 "$ROUNDS"); do
    if (( r % 2 )); then order="old new"; else order="new old"; fi
    for which in $order; do
        bin=$OLD; [[ $which == new ]] && bin=$NEW
        # shellcheck disable=SC2086
        "$bin" run -n "$NP" -q $ARGS --json "$DIR/$which.$r.json" >/dev/null
    done
done
python3 - "$DIR" "$ROUNDS" <<'PY'
import json, sys, statistics as st, collections
d, rounds = sys.argv[1], int(sys.argv[2])
def rows(path):
    v = json.load(open(path))
    out = {}
    for r in v["results"]:
        for row in r.get("rows", []):
            out[(r["benchmark"], r["processes"], row["bytes"])] = row["t_avg_us"]
    return out
ratios = collections.defaultdict(list)
rows_of = {w: [rows(f"{d}/{w}.{k}.json") for k in range(1, rounds + 1)] for w in ("old", "new")}
for a, b in zip(rows_of["old"], rows_of["new"]):
    for key in a.keys() & b.keys():
        if a[key] > 0:
            ratios[key].append(b[key] / a[key])
per_bench = collections.defaultdict(list)
for (bench, p, x), v in sorted(ratios.items()):
    per_bench[bench].append(st.median(v))
print(f"{'benchmark':<16} {'rows':>5} {'median new/old':>15} {'min':>7} {'max':>7}")
allm = []
for bench, meds in per_bench.items():
    allm += meds
    print(f"{bench:<16} {len(meds):>5} {st.median(meds):>15.3f} {min(meds):>7.3f} {max(meds):>7.3f}")
print(f"{'all':<16} {len(allm):>5} {st.median(allm):>15.3f} {min(allm):>7.3f} {max(allm):>7.3f}")
if len(ratios) <= 40:
    # Few rows (a --sizes list): each row's median t_avg, old and new.
    med = lambda tag, key: st.median(rows_of[tag][k][key] for k in range(rounds) if key in rows_of[tag][k])
    print(f"\n{'benchmark':<16} {'np':>3} {'bytes':>9} {'old us':>10} {'new us':>10} {'new/old':>8}")
    for key in sorted(ratios):
        o, n = med("old", key), med("new", key)
        print(f"{key[0]:<16} {key[1]:>3} {key[2]:>9} {o:>10.2f} {n:>10.2f} {n / o:>8.3f}")
PY
