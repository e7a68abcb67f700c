#!/usr/bin/env bash
# make install / make uninstall (scripts/install.sh), through make as a site
# types it: into a mktemp prefix, the installed IMB-MPI1 and OMB drop-ins run
# under mpiexec (OMB's ReFrame command line, buffer locations included),
# make uninstall leaves the prefix empty; then the same with DESTDIR.
#
#   tests/install.sh BINARY      (MPIEXEC: the launcher, default mpiexec)
set -euo pipefail
bin=$(realpath "${1:?usage: tests/install.sh BINARY}")
mpiexec=${MPIEXEC:-mpiexec}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
cd "$(dirname "$0")/.."
fail() { echo "tests/install.sh: FAIL: $*" >&2; exit 1; }
prefix=$(mktemp -d); stage=$(mktemp -d); out=$(mktemp)
trap 'rm -rf "$prefix" "$stage" "$out"' EXIT

make --no-print-directory install PREFIX="$prefix" NO_BUILD=1 INSTALL_BIN="$bin" >/dev/null
names=$("$bin" --list-drop-ins)
[ -x "$prefix/bin/mpibench" ] || fail "no bin/mpibench"
[ -s "$prefix/share/man/man1/mpibench.1" ] || fail "no man page"
if command -v man >/dev/null; then man -l "$prefix/share/man/man1/mpibench.1" >/dev/null 2>&1 || fail "man cannot read the page"; fi
for want in bin/IMB-MPI1 bin/IMB-MT bin/IMB-IO bin/IMB-MPI4 \
    libexec/osu-micro-benchmarks/mpi/pt2pt/osu_latency \
    libexec/osu-micro-benchmarks/mpi/pt2pt/persistent/osu_bw_persistent \
    libexec/osu-micro-benchmarks/mpi/congestion/osu_bw_fan_in \
    libexec/osu-micro-benchmarks/mpi/collective/osu_allreduce \
    libexec/osu-micro-benchmarks/mpi/collective/osu_ineighbor_alltoallw \
    libexec/osu-micro-benchmarks/mpi/one-sided/osu_put_latency \
    libexec/osu-micro-benchmarks/mpi/startup/osu_hello; do
    grep -qx "$want" <<<"$names" || fail "--list-drop-ins has no $want"
done
while read -r p; do
    [ -L "$prefix/$p" ] && [ "$(realpath "$prefix/$p")" = "$(realpath "$prefix/bin/mpibench")" ] ||
        fail "$p is not a link to bin/mpibench"
done <<<"$names"
echo "install: $(wc -l <<<"$names") drop-in links, each to bin/mpibench"

"$mpiexec" -n 2 "$prefix/bin/IMB-MPI1" -iter 20 -msglog 0:3 PingPong >"$out" 2>&1 || { cat "$out"; fail "installed IMB-MPI1 PingPong"; }
grep -q "Benchmarking PingPong" "$out" || { cat "$out"; fail "IMB-MPI1's table"; }
osu="$prefix/libexec/osu-micro-benchmarks/mpi/pt2pt/osu_latency"
"$mpiexec" -n 2 "$osu" -m 8 -x 2 -i 20 -c D D >"$out" 2>&1 || { cat "$out"; fail "installed osu_latency -c D D"; }
grep -q "^# OSU MPI Latency Test" "$out" && grep -Eq '^8 +[0-9.]+ +Pass' "$out" || { cat "$out"; fail "osu_latency's table"; }
echo "install: the installed IMB-MPI1 PingPong and pt2pt/osu_latency -c D D ran under $mpiexec"

make --no-print-directory uninstall PREFIX="$prefix" >/dev/null
[ -d "$prefix" ] || fail "uninstall removed the prefix itself"
[ -z "$(ls -A "$prefix")" ] || { find "$prefix"; fail "the prefix is not empty after make uninstall"; }
echo "install: make uninstall left $prefix empty"

make --no-print-directory install DESTDIR="$stage" PREFIX=/opt/mpibench NO_BUILD=1 INSTALL_BIN="$bin" >/dev/null
[ "$(realpath "$stage/opt/mpibench/bin/IMB-MT")" = "$stage/opt/mpibench/bin/mpibench" ] || fail "DESTDIR links"
"$stage/opt/mpibench/libexec/osu-micro-benchmarks/mpi/pt2pt/osu_bw" -v | grep -q "OSU MPI Bandwidth Test" || fail "DESTDIR osu_bw -v"
make --no-print-directory uninstall DESTDIR="$stage" PREFIX=/opt/mpibench >/dev/null
[ -z "$(ls -A "$stage/opt/mpibench")" ] || { find "$stage"; fail "DESTDIR not empty after uninstall"; }
echo "install: DESTDIR=$stage PREFIX=/opt/mpibench installed and uninstalled"
echo "tests/install.sh: all passed"
