#!/usr/bin/env bash
# Harness-overhead yardstick: mpibench's PingPong against the thinnest possible
# C ping-pong (shared/reference/pingpong.c), same MPI (Open MPI), same launcher,
# same binding, same repetition counts, one launch per size, alternating runs.
#
# Targets:  latency ratio   mpibench / reference  <= 1.03  for sizes <  1 MiB
#           bandwidth ratio mpibench / reference  >= 0.98  for sizes >= 1 MiB
#
# Reference program (read from pingpong.c):
#   CLI:    pingpong [bytes] [iterations] [warmup]      (defaults 8, 100000, iterations/10)
#   Output: one line on rank 0's stdout: "bytes iterations half_round_trip_us MiB_per_s"
#           printf("%ld %ld %.4f %.2f\n"); the time is already one-way (round trip / 2),
#           the bandwidth is bytes / one-way time / 2^20.
# We pass the same iterations and warm-up as mpibench's IMB policy would use:
#   reps   = 1000 for size 0, min(1000, 40 MiB / size) (at least 1) otherwise
#   warmup = clamp(reps / 10, 2, 100)
# (mpibench may lower reps to fit its --time cap, 10 s by default; that never
# happens for these sizes, and the script warns if the JSON shows otherwise.)
#
# mpibench side: `mpibench run pingpong --sizes ... --json FILE`, reading from
# FILE: results[] with benchmark == "PingPong" (case-insensitive), its rows[]
# fields bytes, t_avg_us (one-way, half the round trip), mbytes_per_sec
# (2^20 bytes/s) and repetitions.
#
# Environment overrides:
#   MPIBENCH         mpibench binary            (default ./target/release/mpibench)
#   ROUNDS           alternating rounds          (default and minimum 9; medians are reported)
#   SIZES            message sizes, K/M suffixes (default 0,8,1K,64K,1M,4M)
#   ITERS            repetitions for both programs at every size (default: the
#                    IMB policy above; e.g. ITERS=50000 SIZES=8,1K for latency)
#   REF_SRC          reference source            (default $REPO/../shared/reference/pingpong.c)
#   MPICC_OPENMPI    Open MPI compiler wrapper   (default mpicc.openmpi, else mpicc)
#   MPIEXEC_OPENMPI  Open MPI launcher           (default mpiexec.openmpi, else mpiexec)
#   RUN_TIMEOUT      seconds per mpiexec run     (default 600)
#
# Exit status: 0 all PASS, 1 some FAIL (or mpibench gave no figures), 2 setup error.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$REPO"

have() { command -v "$1" >/dev/null 2>&1; }
die() { echo "overhead: $*" >&2; exit 2; }

REF_SRC=${REF_SRC:-$REPO/../shared/reference/pingpong.c}
MPIBENCH=${MPIBENCH:-./target/release/mpibench}
ROUNDS=${ROUNDS:-9}
SIZES=${SIZES:-0,8,1K,64K,1M,4M}
RUN_TIMEOUT=${RUN_TIMEOUT:-600}
if [[ -z "${MPICC_OPENMPI:-}" ]]; then
    if have mpicc.openmpi; then MPICC_OPENMPI=mpicc.openmpi; else MPICC_OPENMPI=mpicc; fi
fi
if [[ -z "${MPIEXEC_OPENMPI:-}" ]]; then
    if have mpiexec.openmpi; then MPIEXEC_OPENMPI=mpiexec.openmpi; else MPIEXEC_OPENMPI=mpiexec; fi
fi
OUT=$REPO/target/overhead
REF_BIN=$OUT/pingpong_ref
RAW=$OUT/raw.tsv

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

[[ "$ROUNDS" =~ ^[1-9][0-9]*$ ]] || die "ROUNDS must be a positive integer, not '$ROUNDS'"
# Medians of fewer interleaved launches are not a yardstick (the target is
# set on 9 rounds at least).
(( ROUNDS >= 9 )) || die "ROUNDS must be at least 9 (interleaved launches per size), not $ROUNDS"
[[ -z "${ITERS:-}" || "$ITERS" =~ ^[1-9][0-9]*$ ]] || die "ITERS must be a positive integer, not '$ITERS'"
[[ "$RUN_TIMEOUT" =~ ^[1-9][0-9]*$ ]] || die "RUN_TIMEOUT must be a positive integer, not '$RUN_TIMEOUT'"
[[ -f "$REF_SRC" ]] || die "reference source not found: $REF_SRC (set REF_SRC)"
have "$MPICC_OPENMPI" || die "$MPICC_OPENMPI not found (run scripts/install-deps.sh or set MPICC_OPENMPI)"
have "$MPIEXEC_OPENMPI" || die "$MPIEXEC_OPENMPI not found (set MPIEXEC_OPENMPI)"
have python3 || die "python3 is needed to read mpibench's JSON"
if [[ "$("$MPICC_OPENMPI" --showme:version 2>/dev/null || true)" != *"Open MPI"* ]]; then
    die "$MPICC_OPENMPI is not Open MPI's wrapper (set MPICC_OPENMPI)"
fi

# "1K" -> 1024 etc. (powers of 1024, like mpibench's --sizes)
to_bytes() {
    local s=${1^^} m=1
    case "$s" in
        *K) m=1024; s=${s%K} ;;
        *M) m=$((1024 * 1024)); s=${s%M} ;;
        *G) m=$((1024 * 1024 * 1024)); s=${s%G} ;;
    esac
    [[ "$s" =~ ^[0-9]+$ ]] || die "bad size '$1' in SIZES"
    echo $((s * m))
}
# mpibench's IMB repetition policy (see header).
reps_for() {
    if [[ -n "${ITERS:-}" ]]; then
        echo "$ITERS"
        return
    fi
    local x=$1 r=1000
    if ((x > 0)); then
        r=$((40 * 1024 * 1024 / x))
        ((r > 1000)) && r=1000
        ((r < 1)) && r=1
    fi
    echo "$r"
}
warmup_for() {
    local w=$(($1 / 10))
    ((w < 2)) && w=2
    ((w > 100)) && w=100
    echo "$w"
}

IFS=, read -r -a size_list <<<"$SIZES"
bytes_list=()
for s in "${size_list[@]}"; do bytes_list+=("$(to_bytes "$s")"); done
((${#bytes_list[@]} > 0)) || die "SIZES is empty"

launch=("$MPIEXEC_OPENMPI" -n 2 --bind-to core --map-by core)
tmo=()
if have timeout; then tmo=(timeout --kill-after=10 "$RUN_TIMEOUT"); fi

mkdir -p "$OUT"
echo "overhead: compiling $REF_SRC with $MPICC_OPENMPI -O2" >&2
"$MPICC_OPENMPI" -O2 -o "$REF_BIN" "$REF_SRC"

run_mpibench=1
if [[ ! -x "$MPIBENCH" ]]; then
    echo "overhead: $MPIBENCH not found or not executable (make build, or set MPIBENCH);" \
        "measuring the reference only" >&2
    run_mpibench=0
fi

printf 'round\ttool\tbytes\tt_us\tmib_s\treps\n' >"$RAW"

# (a) the reference: one mpiexec per size, rank 0 prints
#     "bytes iterations half_round_trip_us MiB_per_s".
run_reference() {
    local round=$1 x=$2 reps warm out line
    reps=$(reps_for "$x")
    warm=$(warmup_for "$reps")
    if ! out=$("${tmo[@]}" "${launch[@]}" "$REF_BIN" "$x" "$reps" "$warm" 2>"$OUT/ref.stderr"); then
        echo "overhead: reference failed at $x bytes (round $round):" >&2
        cat "$OUT/ref.stderr" >&2
        exit 2
    fi
    line=$(grep -E '^[0-9]+ [0-9]+ [0-9.]+ [0-9.]+$' <<<"$out" | awk -v x="$x" '$1 == x' | tail -n1 || true)
    [[ -n "$line" ]] || { echo "overhead: unexpected reference output: $out" >&2; exit 2; }
    read -r b n t bw <<<"$line"
    printf '%s\tref\t%s\t%s\t%s\t%s\n' "$round" "$b" "$t" "$bw" "$n" >>"$RAW"
}

# (b) mpibench, one launch per size like the reference; figures from the JSON.
run_mpibench() {
    local round=$1 x=$2 json="$OUT/mpibench-round$1-$2.json" rc=0
    rm -f "$json"
    "${tmo[@]}" "${launch[@]}" "$MPIBENCH" run pingpong --sizes "$x" --iter "$(reps_for "$x")" --json "$json" \
        >"$OUT/mpibench-round$round.log" 2>&1 || rc=$?
    if ((rc != 0)); then
        echo "overhead: mpibench exited with status $rc in round $round (see $OUT/mpibench-round$round.log):" >&2
        tail -n 5 "$OUT/mpibench-round$round.log" >&2 || true
    fi
    if [[ ! -s "$json" ]]; then
        echo "overhead: mpibench wrote no JSON in round $round" >&2
        return 0
    fi
    python3 - "$json" "$round" "$x" >>"$RAW" <<'PY' || echo "overhead: could not read $json" >&2
import json, sys
path, rnd, wanted = sys.argv[1], sys.argv[2], [int(x) for x in sys.argv[3:]]
with open(path) as f:
    doc = json.load(f)
res = [r for r in doc.get("results", [])
       if str(r.get("benchmark", "")).lower() == "pingpong"
       and not r.get("skipped")
       and r.get("mode", "primary") == "primary"]
if not res:
    sys.exit("overhead: no PingPong results in " + path)
rows = {}
for r in res:
    for row in r.get("rows", []):
        rows.setdefault(int(row["bytes"]), row)
for x in wanted:
    row = rows.get(x)
    if row is None:
        print(f"overhead: no PingPong row for {x} bytes in {path}", file=sys.stderr)
        continue
    t = float(row["t_avg_us"])
    bw = row.get("mbytes_per_sec")
    if bw is None:  # fall back to the definition: bytes / one-way time, MB = 2^20
        bw = x / (t * 1e-6) / 1048576.0 if t > 0 else 0.0
    reps = row.get("repetitions", "")
    print(f"{rnd}\tmpibench\t{x}\t{t}\t{float(bw)}\t{reps}")
PY
}

# Interleaved: for every size, the two programs run back to back, in
# alternating order from round to round, so that slow phases of a noisy
# machine hit both alike.
for ((round = 1; round <= ROUNDS; round++)); do
    echo "overhead: round $round/$ROUNDS" >&2
    for x in "${bytes_list[@]}"; do
        if ((round % 2 == 1)); then
            run_reference "$round" "$x"
            if ((run_mpibench)); then run_mpibench "$round" "$x"; fi
        else
            if ((run_mpibench)); then run_mpibench "$round" "$x"; fi
            run_reference "$round" "$x"
        fi
    done
done

python3 - "$RAW" "$run_mpibench" "${bytes_list[@]}" <<'PY'
import statistics, sys
raw, have_mb, sizes = sys.argv[1], sys.argv[2] == "1", [int(x) for x in sys.argv[3:]]
data = {}
reps = {}
with open(raw) as f:
    next(f)
    for line in f:
        rnd, tool, b, t, bw, n = line.rstrip("\n").split("\t")
        data.setdefault((tool, int(b)), []).append((float(t), float(bw)))
        if n:
            reps.setdefault((tool, int(b)), set()).add(int(n))

MIB = 1 << 20
LAT_MAX, BW_MIN = 1.03, 0.98

def med(tool, b, i):
    v = [p[i] for p in data.get((tool, b), [])]
    return statistics.median(v) if v else None

def f(v, fmt):
    return "-" if v is None else format(v, fmt)

def human(b):
    for unit, m in (("M", MIB), ("K", 1024)):
        if b >= m and b % m == 0:
            return f"{b // m}{unit}"
    return str(b)

hdr = (f"{'size':>6} {'bytes':>9} {'ref t[us]':>10} {'mpib t[us]':>10} {'lat ratio':>9} "
       f"{'ref MiB/s':>10} {'mpib MiB/s':>10} {'bw ratio':>8} {'best t ratio':>12} {'runs':>5}  verdict")
print(hdr)
print("-" * len(hdr))
fails = 0
for b in sizes:
    rt, rb = med("ref", b, 0), med("ref", b, 1)
    mt, mb = med("mpibench", b, 0), med("mpibench", b, 1)
    n = len(data.get(("mpibench", b), []))
    lat = mt / rt if (mt is not None and rt) else None
    bw = mb / rb if (mb is not None and rb) else None
    if b < MIB:
        crit = f"lat <= {LAT_MAX}"
        ok = lat is not None and lat <= LAT_MAX
    else:
        crit = f"bw >= {BW_MIN}"
        ok = bw is not None and bw >= BW_MIN
    if not have_mb:
        verdict = "n/a (no mpibench)"
    elif n == 0:
        verdict = "FAIL (no mpibench figures)"
        fails += 1
    else:
        verdict = ("PASS" if ok else "FAIL") + f" ({crit})"
        fails += not ok
    rmin = min((p[0] for p in data.get(("ref", b), [])), default=None)
    mmin = min((p[0] for p in data.get(("mpibench", b), [])), default=None)
    best = mmin / rmin if (mmin is not None and rmin) else None
    print(f"{human(b):>6} {b:>9} {f(rt, '.4f'):>10} {f(mt, '.4f'):>10} {f(lat, '.3f'):>9} "
          f"{f(rb, '.2f'):>10} {f(mb, '.2f'):>10} {f(bw, '.3f'):>8} {f(best, '.3f'):>12} {n:>5}  {verdict}")
    r, m = reps.get(("ref", b), set()), reps.get(("mpibench", b), set())
    if have_mb and m and m != r:
        print(f"       note: repetitions differ at {b} bytes: reference {sorted(r)}, mpibench {sorted(m)}")

print()
print("t = one-way latency (half round trip), median over rounds; MiB = 2^20 bytes;")
print("ratios are mpibench / reference; 'best t ratio' compares the fastest round of each")
print("(the least noise-prone estimate of harness overhead on a shared machine).")
if not have_mb:
    sys.exit(2)
print(f"overhead: {'all PASS' if fails == 0 else f'{fails} FAIL'}")
sys.exit(1 if fails else 0)
PY
