#!/usr/bin/env bash
# Precision against wall time: the fixed IMB policy (loop timing, barrier sync,
# at most 1000 repetitions / 40 MiB per length) versus adaptive repetitions
# (--precision R: per-call timing, doubling batches until the relative
# half-width of the median's 95% CI is <= R, bounded by --min-iter,
# --max-iter and --time).
#
# For PingPong 8 B, PingPong 1 MiB and Allreduce 1 KiB it runs LAUNCHES
# separate launches of each policy, interleaved launch by launch (the order
# alternates, fixed first on odd launches, adaptive first on even ones, so
# that slow drifts of the machine hit both alike), and prints per case and
# policy:
#   median    the median over launches of the reported figure
#             (fixed: t_avg_us, as IMB prints it; adaptive: t_median_us)
#   spread    (max - min) / median over launches, in %
#   rsd       relative standard deviation over launches, in %
#   reps      median repetitions per launch
#   wall      median wall time per launch in seconds, measured around the
#             whole command (self-launch through mpiexec, MPI_Init, warm-up,
#             measurement, MPI_Finalize)
#   timed     median time inside the clock pairs, in ms, estimated from the
#             JSON as repetitions x t_avg_us (x 2 for PingPong, whose figure
#             is half a round trip); it leaves out warm-up, the per-call
#             barriers of the adaptive policy and the launch
#   on bound  adaptive launches whose row stopped on --min-iter/--max-iter/
#             --time instead of reaching the precision
#   failed    launches that failed (non-zero exit or no usable JSON row)
# A policy is better when its spread is smaller for less wall time.
#
# Environment:
#   MPIBENCH   mpibench binary                      (default ./target/release/mpibench)
#   LAUNCHES   launches per case and policy          (default 10)
#   PRECISION  target of --precision                 (default 0.02)
#   NP         ranks (mpibench self-launches them)   (default 2)
#   OUTDIR     keep the JSON files, logs and raw.tsv here (default: a temporary
#              directory, removed at the end)
#
# Exit status: 0 when every launch gave a figure, 1 when some failed, 2 on a
# setup error.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$REPO"
die() { echo "precision: $*" >&2; exit 2; }

MPIBENCH=${MPIBENCH:-./target/release/mpibench}
LAUNCHES=${LAUNCHES:-10}
PRECISION=${PRECISION:-0.02}
NP=${NP:-2}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

[[ -x $MPIBENCH ]] || die "$MPIBENCH not found or not executable (MPICC=mpicc.openmpi cargo build --release)"
[[ $LAUNCHES =~ ^[1-9][0-9]*$ ]] || die "LAUNCHES must be a positive integer, not '$LAUNCHES'"
[[ $NP =~ ^[1-9][0-9]*$ ]] || die "NP must be a positive integer, not '$NP'"
python3 -c 'import sys; r = float(sys.argv[1]); sys.exit(0 if 0 < r < 1 else 1)' "$PRECISION" 2>/dev/null ||
    die "PRECISION must be a number between 0 and 1 (e.g. 0.02), not '$PRECISION'"

if [[ -n ${OUTDIR:-} ]]; then
    mkdir -p "$OUTDIR"
    OUT=$(cd "$OUTDIR" && pwd)
else
    OUT=$(mktemp -d)
    trap 'rm -rf "$OUT"' EXIT
fi
RAW=$OUT/raw.tsv
printf 'case\tpolicy\tlaunch\tfigure_us\treps\twall_s\ttimed_s\tstopped\trank_median_min_us\tstatus\n' >"$RAW"

now() { date +%s.%N; }

# One launch: run mpibench, time it, append one line to $RAW.
run() { # case bench size policy launch
    local name=$1 bench=$2 size=$3 policy=$4 i=$5
    local tag=${bench}-${size}-${policy}-${i}
    local json=$OUT/$tag.json log=$OUT/$tag.log t0 t1 rc=0
    local args=(run -n "$NP" "$bench" --sizes "$size" -q --json "$json")
    [[ $policy == adaptive ]] && args+=(--precision "$PRECISION")
    rm -f "$json"
    t0=$(now)
    "$MPIBENCH" "${args[@]}" >/dev/null 2>"$log" || rc=$?
    t1=$(now)
    python3 - "$json" "$name" "$policy" "$i" "$t0" "$t1" "$rc" >>"$RAW" <<'PY'
import json, sys
path, name, policy, i, t0, t1, rc = sys.argv[1:]
wall = float(t1) - float(t0)
fig = reps = timed = stopped = rmin = "nan"
status = f"exit {rc}" if rc != "0" else "ok"
try:
    row = json.load(open(path))["results"][0]["rows"][0]
    fig = row["t_median_us"] if policy == "adaptive" else row["t_avg_us"]
    if fig is None:
        raise ValueError("no figure")
    reps = row["repetitions"]
    # Time inside the clock pairs: PingPong reports half a round trip.
    per_rep = row["t_avg_us"] * (2 if name.startswith("PingPong") else 1)
    timed = f"{reps * per_rep * 1e-6:.6f}"
    stopped = row.get("stopped_on_bound")
    rmin = row.get("t_median_min_us")
    rmin = "nan" if rmin is None else rmin
except (OSError, ValueError, KeyError, IndexError, TypeError) as e:
    fig = "nan"
    if status == "ok":
        status = f"bad json: {e}".replace("\t", " ")
print(f"{name}\t{policy}\t{i}\t{fig}\t{reps}\t{wall:.3f}\t{timed}\t{stopped}\t{rmin}\t{status}")
PY
    if ((rc != 0)); then
        echo "precision: $tag failed (exit $rc), log: $log" >&2
        [[ -n ${OUTDIR:-} ]] || sed 's/^/    /' "$log" >&2
    fi
}

cases=("PingPong 8" "PingPong 1M" "Allreduce 1K")
start=$(now)
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
end=$(now)

python3 - "$RAW" "$PRECISION" "$LAUNCHES" "$NP" "$start" "$end" <<'PY'
import math, statistics as st, sys
raw, prec, launches, np_, start, end = sys.argv[1:]
data, order = {}, []
with open(raw) as f:
    next(f)
    for line in f:
        case, policy, _i, fig, reps, wall, timed, stopped, _rmin, status = line.rstrip("\n").split("\t")
        key = (case, policy)
        if key not in data:
            data[key] = []
            order.append(key)
        data[key].append(dict(fig=float(fig), reps=float(reps), wall=float(wall),
                              timed=float(timed), stopped=stopped == "True", ok=status == "ok"))

def fmt(v, spec):
    width = int(spec.split(".")[0])
    return "-".rjust(width) if v is None or math.isnan(v) else format(v, spec)

print(f"# {launches} launches per case and policy, {np_} ranks, interleaved; "
      f"adaptive = --precision {prec}")
hdr = (f"{'case':<13} {'policy':<16} {'median[us]':>10} {'spread%':>8} {'rsd%':>6} "
       f"{'reps':>6} {'wall[s]':>8} {'timed[ms]':>9} {'on bound':>8} {'failed':>6}")
print(hdr)
print("-" * len(hdr))
failed_total = 0
for key in order:
    case, policy = key
    v = data[key]
    good = [x for x in v if x["ok"] and not math.isnan(x["fig"])]
    failed = len(v) - len(good)
    failed_total += failed
    figs = [x["fig"] for x in good]
    med = st.median(figs) if figs else None
    spread = (max(figs) - min(figs)) / med * 100 if figs and med else None
    rsd = st.stdev(figs) / st.mean(figs) * 100 if len(figs) > 1 and st.mean(figs) else None
    reps = st.median(x["reps"] for x in good) if good else None
    wall = st.median(x["wall"] for x in v)
    timed = st.median(x["timed"] * 1e3 for x in good) if good else None
    label = "fixed (IMB)" if policy == "fixed" else f"precision {prec}"
    bound = f"{sum(x['stopped'] for x in good)}/{len(good)}" if policy == "adaptive" else "-"
    print(f"{case:<13} {label:<16} {fmt(med, '10.3f')} {fmt(spread, '8.1f')} {fmt(rsd, '6.1f')} "
          f"{fmt(reps, '6.0f')} {fmt(wall, '8.3f')} {fmt(timed, '9.2f')} {bound:>8} {failed:>6}")
print()
print("figure: fixed = t_avg_us (loop timing, as IMB), adaptive = t_median_us (median of the")
print("per-call maximum over ranks); spread = (max-min)/median, rsd = stdev/mean over launches;")
print("wall = median seconds per launch including the self-launch through mpiexec;")
print("timed = repetitions x t_avg (x2 for PingPong), i.e. time inside the clock pairs.")
print(f"total run time: {float(end) - float(start):.1f} s")
sys.exit(1 if failed_total else 0)
PY
