#!/usr/bin/env bash
# mpibench osu beside real OMB 7.4: runs every command line of
# ../shared/reference/osu-output/README.md (tests/fixtures/osu) with
# `mpibench osu` under Open MPI, ROUNDS times, and prints per program the
# median over sizes of mpibench/fixture for the first figure column (latency:
# lower is better; bandwidth and rates: higher is better), plus every size
# whose median ratio is beyond 1.5x either way.
#
# Then osu_latency at 8 B against `mpibench run PingPong` at 8 B, interleaved
# (the same ping-pong: OSU times the loop, PMB the loop; both half the round trip).
#
# The fixtures are one noisy run each on this kind of machine, not reference
# values: ratios near 1 mean the same definition, not the same machine state.
#
# Environment: MPIBENCH (default ./target/release/mpibench), ROUNDS (default 5),
#              FIXTURES (default tests/fixtures/osu).
set -u
MPIBENCH=${MPIBENCH:-./target/release/mpibench}
ROUNDS=${ROUNDS:-5}
FIXTURES=${FIXTURES:-tests/fixtures/osu}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
MPIEXEC=${MPIEXEC:-mpiexec.openmpi}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT

# fixture file : command line after mpiexec -n P (from the fixtures' README)
CASES=(
    "np2-osu_latency.txt:osu_latency -m 0:4096"
    "np2-osu_latency-c.txt:osu_latency -c -m 1:256"
    "np2-osu_bw.txt:osu_bw -m 1:65536"
    "np2-osu_bw-z.txt:osu_bw -z -m 1:1024"
    "np2-osu_bibw.txt:osu_bibw -m 1:65536"
    "np4-osu_mbw_mr.txt:osu_mbw_mr -m 1:4096"
    "np4-osu_multi_lat.txt:osu_multi_lat -m 0:1024"
    "np2-osu_latency_mt.txt:osu_latency_mt -m 0:1024 -i 200 -x 20"
    "np4-osu_allreduce-f.txt:osu_allreduce -f -m 4:4096"
    "np4-osu_bcast.txt:osu_bcast -m 1:4096"
    "np4-osu_iallreduce.txt:osu_iallreduce -m 4:4096"
    "np4-osu_iallreduce-f-t4.txt:osu_iallreduce -f -t 4 -m 4:1024"
    "np2-osu_put_latency.txt:osu_put_latency -m 1:4096"
    "np2-osu_get_bw-w-create-s-fence.txt:osu_get_bw -w create -s fence -m 1:4096"
    "np2-osu_cas_latency.txt:osu_cas_latency"
)

for r in $(seq "$ROUNDS"); do
    for c in "${CASES[@]}"; do
        f=${c%%:*}
        cmd=${c#*:}
        np=${f#np}
        np=${np%%-*}
        # shellcheck disable=SC2086
        timeout 600 "$MPIEXEC" -n "$np" "$MPIBENCH" osu $cmd >"$OUT/$f.$r" 2>/dev/null ||
            echo "warning: $cmd on $np exited $?" >&2
    done
    for k in osu pmb; do
        if [[ $k == osu ]]; then
            timeout 300 "$MPIEXEC" -n 2 "$MPIBENCH" osu osu_latency -m 8:8 -i 100000 -x 1000 >"$OUT/lat8.osu.$r" 2>/dev/null
        else
            timeout 300 "$MPIEXEC" -n 2 "$MPIBENCH" run pingpong --sizes 8 --iter 100000 -q \
                --json "$OUT/lat8.pmb.$r.json" >/dev/null 2>&1
        fi
    done
done

python3 - "$OUT" "$FIXTURES" "$ROUNDS" "${CASES[@]}" <<'EOF'
import json, re, statistics, sys
out, fixtures, rounds, cases = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]

def rows(text):
    """size -> first figure of the row (OSU rows: size then figures)."""
    d = {}
    for line in text.splitlines():
        m = re.match(r"^(\d+)\s+(-?\d+\.\d+)", line)
        if m:
            d[int(m.group(1))] = float(m.group(2))
    return d

def summary_row(text):
    """Rows without a size (barrier-like, atomics): the first number."""
    for line in text.splitlines():
        if not line.startswith("#") and line.strip():
            m = re.search(r"(-?\d+\.\d+)", line)
            if m:
                return {0: float(m.group(1))}
    return {}

print(f"{'fixture':40} {'median ratio':>12}  sizes beyond 1.5x (mpibench/fixture)")
for c in cases:
    f, cmd = c.split(":", 1)
    fx = open(f"{fixtures}/{f}").read()
    ref = rows(fx) or summary_row(fx)
    per = {}
    for r in range(1, rounds + 1):
        try:
            t = open(f"{out}/{f}.{r}").read()
        except OSError:
            continue
        got = rows(t) or summary_row(t)
        for s, v in got.items():
            if s in ref and ref[s] > 0 and v > 0:
                per.setdefault(s, []).append(v / ref[s])
    if not per:
        print(f"{f:40} {'-':>12}  (no comparable rows)")
        continue
    med = {s: statistics.median(v) for s, v in per.items()}
    overall = statistics.median(med.values())
    far = [f"{s}:{m:.2f}" for s, m in sorted(med.items()) if m > 1.5 or m < 1 / 1.5]
    print(f"{f:40} {overall:12.3f}  {' '.join(far)}")

osu = []
pmb = []
for r in range(1, rounds + 1):
    try:
        osu.append(rows(open(f"{out}/lat8.osu.{r}").read())[8])
    except (OSError, KeyError):
        pass
    try:
        d = json.load(open(f"{out}/lat8.pmb.{r}.json"))
        row = [x for x in d["results"][0]["rows"] if x["bytes"] == 8][0]
        pmb.append(row["t_avg_us"])
    except (OSError, KeyError, IndexError, ValueError):
        pass
if osu and pmb:
    print(f"8 B ping-pong, interleaved, {rounds} rounds: osu_latency median {statistics.median(osu):.3f} us,"
          f" run PingPong median {statistics.median(pmb):.3f} us,"
          f" ratio {statistics.median(osu) / statistics.median(pmb):.3f}")
EOF
