#!/usr/bin/env bash
# The allocator in the figures: IMB-MPI1 -msglog 14:18 Reduce_scatter on 2
# bound ranks beside `mpibench imb` with the same arguments, under glibc's
# thresholds as they are, under MALLOC_MMAP_THRESHOLD_=65536 (a history that
# maps a library's temporary buffer afresh every call) and with the fixed
# thresholds (IMB: the variables of --malloc stable; mpibench: --malloc
# stable), each launched ROUNDS times, in turn. Prints per configuration and
# size the range of t_avg[usec] over the launches and, for mpibench, the
# page faults per repetition of its rows (JSON page_faults), then the ratio
# of the largest to the smallest t_avg at 64 KiB under --malloc stable over
# every launch with and without the variable (the 1.3x bar of the issue).
#
# Usage: bench/malloc.sh [MPIBENCH]
#   MPIBENCH  mpibench (default target/release/mpibench, Open MPI)
#   env IMB (a built IMB-MPI1 of the same MPI; without it only mpibench runs),
#       MPIEXEC (default mpiexec.openmpi; mpiexec.mpich with an MPICH build),
#       ROUNDS (default 3)
set -euo pipefail
BIN=$(realpath "${1:-./target/release/mpibench}")
MPIEXEC=${MPIEXEC:-mpiexec.openmpi}
ROUNDS=${ROUNDS:-3}
IMB=${IMB:-}
[[ -x $BIN ]] || { echo "malloc.sh: no mpibench at $BIN" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
STABLE_ENV=(MALLOC_MMAP_THRESHOLD_=33554432 MALLOC_TRIM_THRESHOLD_=1073741824)
ARGS=(-msglog 14:18 Reduce_scatter)
# name | environment | extra mpibench argument
CONFIGS=("default||--malloc default" "mmap-64K|MALLOC_MMAP_THRESHOLD_=65536|--malloc default"
         "stable||--malloc stable" "stable+mmap-64K|MALLOC_MMAP_THRESHOLD_=65536|--malloc stable")
for r in $(seq "$ROUNDS"); do
  for c in "${CONFIGS[@]}"; do
    IFS='|' read -r name envs extra <<<"$c"
    read -ra e <<<"$envs"
    env "${e[@]}" "$BIN" imb -n 2 "${ARGS[@]}" $extra --json "$DIR/mb-$name-$r.json" >/dev/null
    if [[ -n $IMB ]]; then
      ie=("${e[@]}")
      [[ $name == stable* ]] && ie=("${STABLE_ENV[@]}")
      env "${ie[@]}" "$MPIEXEC" -n 2 --bind-to core "$IMB" "${ARGS[@]}" >"$DIR/imb-$name-$r.txt" 2>&1 ||
        env "${ie[@]}" "$MPIEXEC" -n 2 "$IMB" "${ARGS[@]}" >"$DIR/imb-$name-$r.txt"
    fi
  done
done
python3 - "$DIR" "$ROUNDS" <<'PY'
import glob, json, re, sys
d, rounds = sys.argv[1], int(sys.argv[2])
names = ["default", "mmap-64K", "stable", "stable+mmap-64K"]
def mb(name):
    out = {}
    for f in sorted(glob.glob(f"{d}/mb-{name}-*.json")):
        for row in json.load(open(f))["results"][0]["rows"]:
            if row["bytes"] >= 16384:
                out.setdefault(row["bytes"], []).append((row["t_avg_us"], row.get("page_faults")))
    return out
def imb(name):
    out = {}
    for f in sorted(glob.glob(f"{d}/imb-{name}-*.txt")):
        on = False
        for line in open(f):
            if "Benchmarking Reduce_scatter" in line: on = True
            m = re.match(r"\s+(\d+)\s+\d+\s+[\d.]+\s+[\d.]+\s+([\d.]+)", line)
            if on and m and int(m.group(1)) >= 16384:
                out.setdefault(int(m.group(1)), []).append(float(m.group(2)))
    return out
print(f"Reduce_scatter on 2 ranks, t_avg [usec], range over {rounds} launches")
for name in names:
    m, i = mb(name), imb(name)
    for b in sorted(m):
        ts = [t for t, _ in m[b]]
        fs = [f for _, f in m[b] if f is not None]
        line = f"{name:16} {b:>7}  mpibench {min(ts):8.1f}-{max(ts):<8.1f} faults/rep {max(fs) if fs else '-'}"
        if b in i:
            line += f"   IMB-MPI1 {min(i[b]):8.1f}-{max(i[b]):<8.1f}"
        print(line)
s = [t for n in ("stable", "stable+mmap-64K") for t, _ in mb(n).get(65536, [])]
if s:
    print(f"--malloc stable at 64 KiB, with and without the variable: max/min = {max(s)/min(s):.2f} over {len(s)} launches")
PY
