#!/usr/bin/env bash
# --launches in action: LAUNCHES separate launches (mpiexec calls) of
# PingPong 8 B - 1 MiB with per-call timing, combined by mpibench itself
# (`mpibench run --launches N`), and per message length, side by side:
#   median      the median of the launch medians (us)
#   within CI   one launch's 95% CI of its median, as a half-width in % of
#               the median (the median over the launches): what a single
#               launch claims
#   between CI  the 95% CI of the median of the launch medians, over the
#               launches (order statistics: ranks 2 and 9 of 10), as a
#               half-width in % of the median
#   within      the within-launch spread: the median of the launches' CI
#               widths, in % of the median
#   between     the between-launch spread: max - min of the launch medians,
#               in % of the median
#   b/w         between / within
#   flag        "dominates" where mpibench flags the row (between > within)
# and, at the end, how many sizes mpibench flagged and the median b/w.
#
# Environment:
#   MPIBENCH   mpibench binary                       (default ./target/release/mpibench)
#   LAUNCHES   launches                              (default 10)
#   NP         ranks (mpibench self-launches them)   (default 2)
#   OUTDIR     keep the JSON and the table here (default: a temporary
#              directory, removed at the end)
#
# Exit status: 0 when the run succeeded, its exit code otherwise, 2 on a
# setup error.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$REPO"
die() { echo "launches: $*" >&2; exit 2; }

MPIBENCH=${MPIBENCH:-./target/release/mpibench}
LAUNCHES=${LAUNCHES:-10}
NP=${NP:-2}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

[[ -x $MPIBENCH ]] || die "$MPIBENCH not found or not executable (MPICC=mpicc.openmpi cargo build --release)"
[[ $LAUNCHES =~ ^[1-9][0-9]*$ ]] || die "LAUNCHES must be a positive integer, not '$LAUNCHES'"
[[ $NP =~ ^[1-9][0-9]*$ ]] || die "NP must be a positive integer, not '$NP'"

if [[ -n ${OUTDIR:-} ]]; then
    mkdir -p "$OUTDIR"
    OUT=$(cd "$OUTDIR" && pwd)
else
    OUT=$(mktemp -d)
    trap 'rm -rf "$OUT"' EXIT
fi

sizes=8
for ((b = 16; b <= 1048576; b *= 2)); do sizes+=",$b"; done

code=0
"$MPIBENCH" run -n "$NP" -q --launches "$LAUNCHES" --suite imb PingPong \
    --sizes "$sizes" --timing per-call --json "$OUT/launches.json" \
    --output "$OUT/table.txt" || code=$?
[[ -s $OUT/launches.json ]] || { echo "launches: no results (exit code $code)" >&2; exit "$((code ? code : 1))"; }

python3 - "$OUT/launches.json" <<'EOF'
import json, statistics, sys
v = json.load(open(sys.argv[1]))
launches = len(v.get("launches", []))
print(f"# PingPong, {v['world_size']} ranks, {launches} launches, per-call timing "
      f"({v['mpi']['library'].split(',')[0]}); status {v.get('status')}")
print(f"{'bytes':>8} {'median[us]':>11} {'within CI':>10} {'between CI':>11} "
      f"{'within':>8} {'between':>8} {'b/w':>6}  flag")
ratios, flagged, rows = [], 0, 0
for r in v["results"]:
    for i, row in enumerate(r["rows"]):
        m = row.get("t_median_us")
        if not m or m <= 0:
            continue
        rows += 1
        half = []
        for l in v["launches"]:
            x = next(x for x in l["results"] if x["benchmark"] == r["benchmark"])["rows"][i]
            lo, hi, med = x.get("ci95_lo_us"), x.get("ci95_hi_us"), x.get("t_median_us")
            if lo is not None and hi is not None and med:
                half.append((hi - lo) / 2 / med * 100)
        within_ci = statistics.median(half) if half else float("nan")
        between_ci = (row["between_ci95_hi_us"] - row["between_ci95_lo_us"]) / 2 / m * 100
        within = row["within_spread_us"] / m * 100
        between = row["between_spread_us"] / m * 100
        ratio = between / within if within > 0 else float("inf")
        if within > 0:
            ratios.append(ratio)
        flag = "dominates" if row.get("launch_spread_dominates") else ""
        flagged += bool(flag)
        print(f"{row['bytes']:>8} {m:>11.3f} {within_ci:>9.2f}% {between_ci:>10.2f}% "
              f"{within:>7.2f}% {between:>7.2f}% {ratio:>6.1f}  {flag}")
med = statistics.median(ratios) if ratios else float("nan")
print(f"# {flagged} of {rows} sizes flagged (between-launch spread > within-launch spread); "
      f"median between/within {med:.1f}")
EOF
exit "$code"
