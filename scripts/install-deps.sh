#!/usr/bin/env bash
# Checks for (and on Debian/Ubuntu installs) what building and testing
# mpibench needs:
#   * Open MPI  : a compiler wrapper (mpicc.openmpi, or $MPICC_OPENMPI / $MPICC /
#                 mpicc reporting Open MPI) that finds <mpi.h>, and its mpiexec
#   * MPICH     : mpicc.mpich + mpiexec.mpich (second test leg; skip with
#                 --openmpi-only); override the names with $MPICC_MPICH / $MPIEXEC_MPICH
#   * libclang  : rsmpi's mpi-sys runs bindgen at build time
#   * cargo
#   * PostgreSQL: initdb and pg_ctl (Debian package `postgresql`): the history
#                 test (tests/history.rs) starts a private server in a
#                 temporary directory for `--history postgres://...`
#   * Chromium  : with --browser only (`make test`): the HTML report test opens
#                 a report in headless Chromium (Debian package `chromium`)
#   * cluster   : with --cluster only (`make test`): iproute2 (ip, tc) and
#                 util-linux (unshare, flock) for scripts/cluster.sh and
#                 tests/cluster.sh (network namespaces as hosts)
#   * Slurm     : with --slurm only (`make test`): slurmctld, slurmd, srun/salloc
#                 and munge for the private one-node cluster of tests/slurm.sh
#                 (Debian packages slurmctld slurmd slurm-client munge; their
#                 services are not configured or used: scripts/slurm.sh runs
#                 its own daemons with a configuration of its own)
#   * packaging : with --packaging only (`make test-packaging`; implies
#                 --slurm): slurmdbd and MariaDB (the test Slurm's job
#                 accounting, which ReFrame's slurm scheduler reads with
#                 sacct), python3's venv (ReFrame and EasyBuild from PyPI)
#                 and Lmod (the module EasyBuild writes is loaded)
#
# When everything is present it prints one "deps: ok (...)" line and exits 0
# without touching the network. Otherwise it runs apt-get (via sudo when not
# root) or, without apt-get, prints instructions and exits 1.
#
# Usage: scripts/install-deps.sh [--openmpi-only] [--browser] [--slurm] [--cluster] [--packaging] [--check]
set -euo pipefail

want_mpich=1
want_browser=0
want_slurm=0
want_cluster=0
want_packaging=0
check_only=0

usage() {
    cat <<'EOF'
Usage: scripts/install-deps.sh [--openmpi-only] [--browser] [--slurm] [--cluster] [--packaging] [--check]

  --openmpi-only  do not require (or install) MPICH
  --browser       also require (or install) Chromium, for the HTML report test
  --slurm         also require (or install) Slurm and munge, for tests/slurm.sh
  --cluster       also require (or install) iproute2 and util-linux, for scripts/cluster.sh
  --packaging     also require (or install) Slurm with slurmdbd and MariaDB, python3-venv
                  and Lmod, for make test-packaging (implies --slurm)
  --check         only report what is missing; never install (exit 1 if anything is)

Environment: MPICC_OPENMPI, MPIEXEC_OPENMPI (preferred Open MPI wrapper / launcher),
             MPICC_MPICH, MPIEXEC_MPICH (default mpicc.mpich / mpiexec.mpich),
             MPICC (also tried as the Open MPI wrapper), LIBCLANG_PATH.
EOF
}

for arg in "$@"; do
    case "$arg" in
        --openmpi-only) want_mpich=0 ;;
        --browser) want_browser=1 ;;
        --slurm) want_slurm=1 ;;
        --cluster) want_cluster=1 ;;
        --packaging) want_packaging=1 want_slurm=1 ;;
        --check) check_only=1 ;;
        -h | --help) usage; exit 0 ;;
        *) echo "install-deps: unknown argument '$arg'" >&2; usage >&2; exit 2 ;;
    esac
done

have() { command -v "$1" >/dev/null 2>&1; }

# True if the MPI compiler wrapper $1 can preprocess #include <mpi.h>
# (i.e. the development headers are installed, not only the runtime).
finds_mpi_h() {
    printf '#include <mpi.h>\n' | "$1" -E -x c - >/dev/null 2>&1
}

# ---------------------------------------------------------------- detection
ompi_cc="" ompi_exec="" ompi_ver=""
mpich_cc="" mpich_exec="" mpich_ver=""
libclang=""
browser=""
missing=()   # human-readable
pkgs=()      # apt packages that provide what is missing

detect_openmpi() {
    ompi_cc="" ompi_exec="" ompi_ver=""
    local c v
    for c in "${MPICC_OPENMPI:-}" mpicc.openmpi "${MPICC:-}" mpicc; do
        if [[ -z "$c" ]] || ! have "$c"; then continue; fi
        v=$("$c" --showme:version 2>/dev/null || true)
        if [[ "$v" == *"Open MPI"* ]] && finds_mpi_h "$c"; then
            ompi_cc=$c
            ompi_ver=$(sed -n 's/.*Open MPI \([0-9][0-9.a-z]*\).*/\1/p' <<<"$v" | head -n1)
            break
        fi
    done
    for c in "${MPIEXEC_OPENMPI:-}" mpiexec.openmpi mpiexec mpirun; do
        if [[ -z "$c" ]] || ! have "$c"; then continue; fi
        v=$("$c" --version 2>&1 || true)
        if [[ "$v" == *"Open MPI"* || "$v" == *"OpenRTE"* ]]; then
            ompi_exec=$c
            break
        fi
    done
}

detect_mpich() {
    mpich_cc="" mpich_exec="" mpich_ver=""
    local c=${MPICC_MPICH:-mpicc.mpich} e=${MPIEXEC_MPICH:-mpiexec.mpich}
    if have "$c" && finds_mpi_h "$c"; then
        mpich_cc=$c
        mpich_ver=$("$c" -v 2>&1 | sed -n 's/.*MPICH version \([0-9][0-9.a-z]*\).*/\1/p' | head -n1 || true)
    fi
    if have "$e"; then
        mpich_exec=$e
    fi
}

detect_libclang() {
    libclang=""
    local f
    shopt -s nullglob
    # An explicit LIBCLANG_PATH (what clang-sys/bindgen honour) wins.
    if [[ -n "${LIBCLANG_PATH:-}" ]]; then
        for f in "$LIBCLANG_PATH"/libclang.so* "$LIBCLANG_PATH"/libclang-[0-9]*.so* "$LIBCLANG_PATH"; do
            if [[ -f "$f" && "$(basename "$f")" == libclang* ]]; then libclang=$f; break; fi
        done
    fi
    # Debian/Ubuntu layout: the builtin headers (stddef.h, from libclang-common-*-dev,
    # pulled in by libclang-dev) must be there too or bindgen fails on <mpi.h>.
    if [[ -z "$libclang" ]]; then
        for f in /usr/lib/llvm-*/lib/libclang.so* /usr/lib/llvm-*/lib/libclang-[0-9]*.so*; do
            local root=${f%/lib/*}
            local hdrs=("$root"/lib/clang/*/include/stddef.h)
            if (( ${#hdrs[@]} > 0 )); then libclang=$f; break; fi
        done
    fi
    # Anything else the dynamic linker knows about (Fedora, Arch, modules, ...).
    if [[ -z "$libclang" ]] && have ldconfig; then
        libclang=$(ldconfig -p 2>/dev/null | grep -E 'libclang(-[0-9.]+)?\.so' | grep -v 'libclang-cpp' \
            | sed -n 's/.*=> //p' | head -n1 || true)
    fi
    if [[ -z "$libclang" ]]; then
        for f in /usr/lib64/libclang.so* /usr/lib/libclang.so* /usr/local/lib/libclang.so* \
            /usr/lib/x86_64-linux-gnu/libclang.so* /usr/lib/aarch64-linux-gnu/libclang.so*; do
            libclang=$f; break
        done
    fi
    shopt -u nullglob
}

postgres_bin=""
detect_postgres() {
    postgres_bin=""
    local b
    shopt -s nullglob
    for b in /usr/lib/postgresql/*/bin; do
        if [[ -x $b/initdb && -x $b/pg_ctl ]]; then postgres_bin=$b; fi
    done
    shopt -u nullglob
    if [[ -z "$postgres_bin" ]] && have initdb && have pg_ctl; then
        postgres_bin=$(dirname "$(command -v initdb)")
    fi
}

detect_browser() {
    browser=""
    local c
    for c in "${CHROMIUM:-}" chromium chromium-browser; do
        if [[ -n "$c" ]] && have "$c"; then browser=$c; break; fi
    done
}

slurm_tools=""
detect_slurm() {
    slurm_tools=""
    local t
    for t in slurmctld slurmd srun salloc sinfo munged mungekey; do
        # sbin tools are not on a non-root PATH.
        if ! have "$t" && [[ ! -x /usr/sbin/$t ]]; then slurm_tools+=" $t"; fi
    done
}

packaging_missing="" packaging_pkgs=()
detect_packaging() {
    packaging_missing="" packaging_pkgs=()
    local t
    for t in slurmdbd sacct sacctmgr; do
        if ! have "$t" && [[ ! -x /usr/sbin/$t ]]; then packaging_missing+=" $t"; packaging_pkgs+=(slurmdbd slurm-client); fi
    done
    for t in mariadbd mariadb-install-db mariadb; do
        if ! have "$t" && [[ ! -x /usr/sbin/$t ]]; then packaging_missing+=" $t"; packaging_pkgs+=(mariadb-server mariadb-client); fi
    done
    if ! python3 -c 'import ensurepip, venv' >/dev/null 2>&1; then packaging_missing+=" python3-venv"; packaging_pkgs+=(python3-venv python3-pip); fi
    if [[ ! -f /usr/share/lmod/lmod/init/bash ]]; then packaging_missing+=" lmod"; packaging_pkgs+=(lmod); fi
    # Each package once.
    mapfile -t packaging_pkgs < <(printf '%s\n' "${packaging_pkgs[@]:-}" | sed '/^$/d' | sort -u)
}

cluster_tools=""
detect_cluster() {
    cluster_tools=""
    local t
    for t in ip tc unshare flock; do
        if ! have "$t" && [[ ! -x /usr/sbin/$t && ! -x /sbin/$t ]]; then cluster_tools+=" $t"; fi
    done
}

detect_all() {
    missing=() pkgs=()
    detect_openmpi
    if [[ -z "$ompi_cc" ]]; then
        missing+=("Open MPI compiler wrapper with headers (mpicc.openmpi)")
        pkgs+=(libopenmpi-dev openmpi-bin)
    fi
    if [[ -z "$ompi_exec" ]]; then
        missing+=("Open MPI launcher (mpiexec.openmpi)")
        [[ " ${pkgs[*]:-} " == *" openmpi-bin "* ]] || pkgs+=(openmpi-bin)
    fi
    if (( want_mpich )); then
        detect_mpich
        if [[ -z "$mpich_cc" ]]; then
            missing+=("MPICH compiler wrapper with headers (${MPICC_MPICH:-mpicc.mpich})")
            pkgs+=(libmpich-dev mpich)
        fi
        if [[ -z "$mpich_exec" ]]; then
            missing+=("MPICH launcher (${MPIEXEC_MPICH:-mpiexec.mpich})")
            [[ " ${pkgs[*]:-} " == *" mpich "* ]] || pkgs+=(mpich)
        fi
    fi
    detect_libclang
    if [[ -z "$libclang" ]]; then
        missing+=("libclang (for bindgen)")
        pkgs+=(libclang-dev clang)
    fi
    detect_postgres
    if [[ -z "$postgres_bin" ]]; then
        missing+=("PostgreSQL server (initdb, pg_ctl) for the history test")
        pkgs+=(postgresql)
    fi
    if (( want_browser )); then
        detect_browser
        if [[ -z "$browser" ]]; then
            missing+=("Chromium (headless browser for the HTML report test)")
            pkgs+=(chromium)
        fi
    fi
    if (( want_slurm )); then
        detect_slurm
        if [[ -n "$slurm_tools" ]]; then
            missing+=("Slurm and munge (${slurm_tools# })")
            pkgs+=(slurmctld slurmd slurm-client munge)
        fi
    fi
    if (( want_packaging )); then
        detect_packaging
        if [[ -n "$packaging_missing" ]]; then
            missing+=("packaging tests' tools (${packaging_missing# })")
            pkgs+=("${packaging_pkgs[@]}")
        fi
    fi
    if (( want_cluster )); then
        detect_cluster
        if [[ -n "$cluster_tools" ]]; then
            missing+=("iproute2 and util-linux (${cluster_tools# })")
            pkgs+=(iproute2 util-linux)
        fi
    fi
    if (( ${#pkgs[@]} > 0 )) && ! have pkg-config; then
        pkgs+=(pkg-config)
    fi
}

# ------------------------------------------------------------------ cargo
cargo_line=""
check_cargo() {
    if have cargo && cargo_line=$(cargo --version 2>/dev/null); then
        return 0
    fi
    {
        echo "deps: cargo (Rust) not found or not working."
        if [[ -x "$HOME/.cargo/bin/cargo" ]]; then
            echo "  It is installed in ~/.cargo/bin but not on PATH:  source \"\$HOME/.cargo/env\""
            echo "  (if rustup has no toolchain yet:  rustup default stable)"
        else
            echo "  Install it with rustup (https://rustup.rs):"
            echo "    curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh -s -- -y --profile minimal --component rustfmt,clippy"
            echo "    source \"\$HOME/.cargo/env\""
        fi
    } >&2
    return 1
}

print_other_systems() {
    cat >&2 <<'EOF'
deps: apt-get is not available; install the missing pieces yourself, then re-run:

  HPC system with environment modules:
      module load openmpi llvm
  Spack:
      spack install openmpi llvm && spack load openmpi llvm
  Fedora / RHEL / Rocky / Alma:
      sudo dnf install openmpi-devel mpich-devel clang-devel
      module load mpi/openmpi-x86_64
  macOS (Homebrew; only one MPI at a time):
      brew install open-mpi llvm
  The history test needs a PostgreSQL server's initdb and pg_ctl
  (e.g. dnf install postgresql-server).
  The HTML report test (--browser) needs Chromium or Chrome on PATH
  (set CHROMIUM=/path/to/chrome if it has another name).
  The Slurm test (--slurm) needs slurmctld, slurmd, srun, salloc, sinfo and
  munge (munged, mungekey): e.g. dnf install slurm-slurmctld slurm-slurmd munge.

  If the build still cannot find them, point it at them explicitly:
      export MPICC=/path/to/openmpi/bin/mpicc          # rsmpi asks this wrapper for flags
      export LIBCLANG_PATH=/path/to/llvm/lib           # directory holding libclang.so
  MPICH is only needed for the second test leg: run this script with
  --openmpi-only (make WITH_MPICH=0 test), or name its tools with
  MPICC_MPICH=/usr/lib64/mpich/bin/mpicc MPIEXEC_MPICH=/usr/lib64/mpich/bin/mpiexec.
EOF
}

summary() {
    local s="Open MPI ${ompi_ver:-?} [$ompi_cc, $ompi_exec]"
    if (( want_mpich )); then
        s+="; MPICH ${mpich_ver:-?} [$mpich_cc, $mpich_exec]"
    fi
    s+="; libclang $libclang; PostgreSQL $postgres_bin"
    if (( want_browser )); then
        s+="; $browser"
    fi
    if (( want_slurm )); then
        s+="; Slurm $(slurmctld -V 2>/dev/null | sed 's/^slurm[^ ]* //' || echo '?')"
    fi
    s+="; $cargo_line"
    printf '%s' "$s"
}

# ------------------------------------------------------------------- main
detect_all

if (( ${#missing[@]} == 0 )); then
    check_cargo || exit 1
    echo "deps: ok ($(summary))"
    exit 0
fi

echo "deps: missing:" >&2
printf '  - %s\n' "${missing[@]}" >&2

if (( check_only )); then
    echo "deps: (--check) would install: ${pkgs[*]}" >&2
    exit 1
fi

if ! have apt-get; then
    print_other_systems
    exit 1
fi

sudo_cmd=()
if (( EUID != 0 )); then
    if have sudo; then
        sudo_cmd=(sudo)
    else
        echo "deps: not root and sudo is not available; as root run:" >&2
        echo "  apt-get update && apt-get install -y --no-install-recommends ${pkgs[*]}" >&2
        exit 1
    fi
fi

export DEBIAN_FRONTEND=noninteractive
echo "deps: installing: ${pkgs[*]}" >&2
"${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
"${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -q --no-install-recommends "${pkgs[@]}"

hash -r
detect_all
if (( ${#missing[@]} > 0 )); then
    echo "deps: still missing after apt-get install:" >&2
    printf '  - %s\n' "${missing[@]}" >&2
    exit 1
fi
check_cargo || exit 1
echo "deps: ok ($(summary))"
