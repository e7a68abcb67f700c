#!/usr/bin/env bash
# The package routes, built for real as far as the tools run here
# (make test-packaging, after tests/reframe.sh):
#   1. EasyBuild from PyPI (a venv in target/eb-venv) builds and installs
#      mpibench from a source tarball of this repository (git archive HEAD)
#      with packaging/easybuild/mpibench-VERSION.eb: the Cargo easyblock, the
#      SYSTEM toolchain, the system Open MPI; its crates from static.crates.io
#      (packaging/easybuild/crates.py --fetch, kept in target/eb-sources); the
#      module it writes is loaded with Lmod, and the loaded module's
#      `mpibench run -n 2 PingPong --check` and osu_latency pass.
#   2. Spack, when a Spack checkout is given (SPACK_ROOT): in a Spack
#      environment of its own (config, install tree and externals in $work):
#      the system compilers and the external Open MPI, Rust, LLVM and make
#      found, packaging/spack added as a repository, `spack develop` on a
#      clone of this repository, `spack install`, then `spack test run
#      mpibench` (the package's stand-alone tests) and the installed
#      `mpibench run -n 2 PingPong --check`. Spack's concretizer (clingo)
#      comes from PyPI (a venv in target/spack-py).
# A step that cannot run says which and why (SKIP); the rest still runs.
#
#   tests/packaging.sh
#   EB: the eb command (default: target/eb-venv, pip install easybuild==5.4.1)
#   SPACK_ROOT: a Spack checkout (spack/spack 0.22-0.23); without it the
#   Spack step is skipped, saying why
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
passed=0 failed=0
ok() { echo "ok - $*"; passed=$((passed + 1)); }
bad() { echo "FAIL - $*"; failed=$((failed + 1)); }
show() { sed 's/^/    | /' "$@" | tail -n 25; }
work=$(mktemp -d /tmp/mpibench-packaging.XXXXXX)
trap 'rm -rf "$work"' EXIT
version=$(sed -n 's/^version = "\(.*\)"/\1/p' "$root/Cargo.toml" | head -n1)

# ---------------------------------------------------------------- EasyBuild
easybuild() {
    local eb=${EB:-} lmod=/usr/share/lmod/lmod/init/bash src=$root/target/eb-sources
    if [ ! -f "$lmod" ]; then
        echo "SKIP - EasyBuild: no Lmod ($lmod; scripts/install-deps.sh --packaging)"; return
    fi
    if [ -z "$eb" ]; then
        local venv=$root/target/eb-venv
        if [ ! -x "$venv/bin/eb" ]; then
            if ! { python3 -m venv "$venv" && "$venv/bin/pip" install -q easybuild==5.4.1; }; then
                echo "SKIP - EasyBuild: pip install easybuild into $venv failed (no PyPI here?)"; return
            fi
        fi
        eb=$venv/bin/eb
        export EB_PYTHON=$venv/bin/python
    fi
    # The easyconfig as crates.py writes it from Cargo.lock now: a stale one fails here.
    cp "$root/packaging/easybuild/mpibench-$version.eb" "$work/committed.eb"
    python3 "$root/packaging/easybuild/crates.py" >/dev/null
    if ! cmp -s "$work/committed.eb" "$root/packaging/easybuild/mpibench-$version.eb"; then
        bad "EasyBuild: packaging/easybuild/mpibench-$version.eb is not what crates.py writes from Cargo.lock (run it and commit)"
    fi
    python3 "$root/packaging/easybuild/crates.py" --fetch "$src" >"$work/fetch.log" 2>&1 ||
        { echo "SKIP - EasyBuild: the crates could not be downloaded from static.crates.io:"; show "$work/fetch.log"; return; }
    mkdir -p "$src/m/mpibench"
    git -C "$root" archive --prefix="mpibench-$version/" -o "$src/m/mpibench/mpibench-$version.tar.gz" HEAD
    local t0=$SECONDS
    if (
        # shellcheck disable=SC1090
        source "$lmod"
        cd "$work" && MPICC=mpicc.openmpi MPIBENCH_MPIEXEC=mpiexec.openmpi timeout 1800 "$eb" \
            "$root/packaging/easybuild/mpibench-$version.eb" --sourcepath="$src" --prefix="$work/eb" \
            --tmpdir="$work/tmp" --modules-tool=Lmod --detect-loaded-modules=ignore \
            --allow-use-as-root-and-accept-consequences
    ) >"$work/eb.log" 2>&1; then
        ok "EasyBuild $("$eb" --version 2>/dev/null | sed -n 's/This is EasyBuild \([^ ]*\).*/\1/p') built and installed mpibench/$version ($((SECONDS - t0)) s; its sanity check ran mpibench run -n 2 PingPong --check)"
    else
        bad "EasyBuild: eb mpibench-$version.eb"; show "$work/eb.log"; return
    fi
    if (
        # shellcheck disable=SC1090
        source "$lmod"
        module use "$work/eb/modules/all" && module load "mpibench/$version" || exit 1
        [ "$(command -v mpibench)" = "$work/eb/software/mpibench/$version/bin/mpibench" ] || exit 1
        cd "$work" && MPIBENCH_MPIEXEC=mpiexec.openmpi mpibench run -n 2 PingPong --check --sizes 0,1K --iter 20 --json m.json &&
            grep -q '"status": "ok"' m.json &&
            mpiexec.openmpi -n 2 osu_latency -m 8 -i 10 -x 1 -c D D | grep -Eq '^8 +[0-9.]+ +Pass'
    ) >"$work/module.log" 2>&1; then
        ok "EasyBuild: module load mpibench/$version puts its mpibench and osu_latency on PATH; mpibench run -n 2 PingPong --check and osu_latency pass"
    else
        bad "EasyBuild: the installed module"; show "$work/module.log"
    fi
}

# ---------------------------------------------------------------- Spack
spack_route() {
    local sroot=${SPACK_ROOT:-}
    if [ -z "$sroot" ] || [ ! -x "$sroot/bin/spack" ]; then
        echo "SKIP - Spack: no Spack checkout (set SPACK_ROOT): spack/spack is on neither PyPI nor Debian, and this machine reaches GitHub only through a fetch tool whose size limit spack/spack (558 MB) passes; packaging/spack is tested where SPACK_ROOT is given"
        return
    fi
    local py=$root/target/spack-py
    if [ ! -x "$py/bin/python" ] || ! "$py/bin/python" -c 'import clingo' 2>/dev/null; then
        if ! { python3 -m venv "$py" && "$py/bin/pip" install -q clingo; }; then
            echo "SKIP - Spack: pip install clingo (Spack's concretizer) into $py failed (no PyPI here?)"; return
        fi
    fi
    local env=$work/spack-env src=$work/spack-src t0=$SECONDS
    export SPACK_PYTHON=$py/bin/python SPACK_USER_CONFIG_PATH=$work/spack-user SPACK_DISABLE_LOCAL_CONFIG=1
    export SPACK_USER_CACHE_PATH=$work/spack-cache
    git clone -q "$root" "$src"
    mkdir -p "$env"
    cat >"$env/spack.yaml" <<EOF
spack:
  specs: [mpibench@main]
  view: false
  concretizer: {unify: true}
  config:
    install_tree: {root: $work/spack-opt}
    build_stage: [$work/spack-stage]
    test_stage: $work/spack-test
  repos: [$root/packaging/spack]
EOF
    local S=("$sroot/bin/spack" -e "$env")
    if (
        cd "$work" || exit 1
        PATH=${CARGO_HOME:-$HOME/.cargo}/bin:$PATH
        "${S[@]}" compiler find &&
            "${S[@]}" external find --not-buildable openmpi rust llvm gmake pkgconf &&
            "${S[@]}" develop --path "$src" mpibench@main &&
            timeout 1800 "${S[@]}" install &&
            timeout 600 "${S[@]}" test run mpibench
    ) >"$work/spack.log" 2>&1; then
        ok "Spack $("$sroot/bin/spack" --version 2>/dev/null | cut -d' ' -f1): spack install mpibench (external Open MPI and Rust) and spack test run mpibench pass ($((SECONDS - t0)) s)"
    else
        bad "Spack: spack install / test run mpibench"; show "$work/spack.log"; return
    fi
    local prefix
    prefix=$("${S[@]}" location -i mpibench 2>/dev/null)
    if (cd "$work" && MPIBENCH_MPIEXEC=mpiexec.openmpi "$prefix/bin/mpibench" run -n 2 PingPong --check --sizes 0,1K --iter 20 --json s.json &&
        grep -q '"status": "ok"' s.json && [ -L "$prefix/libexec/osu-micro-benchmarks/mpi/pt2pt/osu_latency" ]) >"$work/spack-run.log" 2>&1; then
        ok "Spack: the installed prefix's mpibench run -n 2 PingPong --check passes; its OMB layout is there"
    else
        bad "Spack: the installed prefix"; show "$work/spack-run.log"
    fi
}

easybuild
spack_route
echo "packaging: $passed passed, $failed failed"
[ "$failed" = 0 ]
