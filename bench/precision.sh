#!/usr/bin/env bash
# Precision against wall time: the fixed IMB policy (loop timing, at most 1000
# repetitions / 40 MiB per length) versus adaptive repetitions (--precision).
#
# For PingPong 8 B, PingPong 1 MiB and Allreduce 1 KiB on 2 ranks it runs
# LAUNCHES separate launches of each policy, interleaved launch by launch,
# and reports per case and policy: the median of the reported figure over
# launches (fixed: t_avg_us as IMB prints it; adaptive: t_median_us), the
# spread between launches ((max - min) / median and the relative standard
# deviation), the median repetitions and the median wall time per launch
# (including the launch itself). A policy is better when its spread is
# smaller for less wall time.
#
# Environment: MPIBENCH (binary, default ./target/release/mpibench),
# LAUNCHES (default 10), PRECISION (default 0.02), NP (default 2).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
MPIBENCH=${MPIBENCH:-./target/release/mpibench}
LAUNCHES=${LAUNCHES:-10}
PRECISION=${PRECISION:-0.02}
NP=${NP:-2}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

[[ -x $MPIBENCH ]] || { echo "precision: $MPIBENCH not found (make build)" >&2; exit 2; }
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
RAW=$OUT/raw.tsv
printf 'case\tpolicy\tfigure_us\treps\twall_s\tstopped\n' >"$RAW"

cases=("PingPong 8" "PingPong 1M" "Allreduce 1K")
run() { # case-name bench size policy launch
    local name=$1 bench=$2 size=$3 policy=$4 i=$5 json t0 t1
    json=$OUT/$policy-$i.json
    local extra=()
    [[ $policy == adaptive ]] && extra=(--precision "$PRECISION")
    t0=$(date +%s.%N)
    "$MPIBENCH" run -n "$NP" "$bench" --sizes "$size" -q --json "$json" "${extra[@]}" >/dev/null
    t1=$(date +%s.%N)
    python3 - "$json" "$name" "$policy" "$t0" "$t1" >>"$RAW" <<'PY'
import json, sys
path, name, policy, t0, t1 = sys.argv[1:]
row = json.load(open(path))["results"][0]["rows"][0]
fig = row["t_median_us"] if policy == "adaptive" else row["t_avg_us"]
stopped = row.get("stopped_on_bound")
print(f"{name}\t{policy}\t{fig}\t{row['repetitions']}\t{float(t1) - float(t0):.3f}\t{stopped}")
PY
}

for c in "${cases[@]}"; do
    read -r bench size <<<"$c"
    echo "precision: $bench $size, $LAUNCHES launches per policy" >&2
    for ((i = 1; i <= LAUNCHES; i++)); do
        if ((i % 2)); then
            run "$c" "$bench" "$size" fixed "$i"
            run "$c" "$bench" "$size" adaptive "$i"
        else
            run "$c" "$bench" "$size" adaptive "$i"
            run "$c" "$bench" "$size" fixed "$i"
        fi
    done
done

python3 - "$RAW" "$PRECISION" <<'PY'
import statistics as st, sys
raw, prec = sys.argv[1], sys.argv[2]
data = {}
with open(raw) as f:
    next(f)
    for line in f:
        case, policy, fig, reps, wall, stopped = line.rstrip("\n").split("\t")
        data.setdefault((case, policy), []).append((float(fig), int(reps), float(wall), stopped))
hdr = f"{'case':<14} {'policy':<16} {'median[us]':>11} {'spread %':>9} {'rsd %':>7} {'reps':>7} {'wall[s]':>8} {'on bound':>9}"
print(hdr)
print("-" * len(hdr))
for (case, policy), v in data.items():
    figs = [x[0] for x in v]
    med = st.median(figs)
    spread = (max(figs) - min(figs)) / med * 100 if med else 0.0
    rsd = st.stdev(figs) / st.mean(figs) * 100 if len(figs) > 1 else 0.0
    label = policy if policy == "fixed" else f"precision {prec}"
    bound = sum(1 for x in v if x[3] == "True") if policy == "adaptive" else "-"
    print(f"{case:<14} {label:<16} {med:>11.3f} {spread:>9.1f} {rsd:>7.1f} "
          f"{st.median(x[1] for x in v):>7.0f} {st.median(x[2] for x in v):>8.2f} {bound!s:>9}")
print()
print("figure: fixed = t_avg_us (IMB), adaptive = t_median_us; spread = (max-min)/median over launches;")
print("wall = median seconds per launch including mpiexec start-up.")
PY
