#!/usr/bin/env bash
# The installation of mpibench (make install / make uninstall).
#
#   scripts/install.sh install   ROOT BINARY   copies BINARY to ROOT/bin/mpibench, writes
#                                              ROOT/share/man/man1/mpibench.1 and links every
#                                              drop-in name (mpibench --list-drop-ins) to it
#   scripts/install.sh uninstall ROOT          removes exactly those files, then the
#                                              directories they leave empty (never ROOT)
#
# ROOT is $(DESTDIR)$(PREFIX). The links are relative, so that a DESTDIR
# staging tree works once moved. The drop-in names come from the binary:
# bin/IMB-MPI1 ... bin/IMB-MT (IMB's programs), and OMB 7.4's own layout
# libexec/osu-micro-benchmarks/mpi/{pt2pt,pt2pt/persistent,congestion,
# collective,one-sided,startup}/osu_* (as OMB's and Spack's installations
# lay them out), so that scripts and ReFrame checks written for IMB and OMB
# run unchanged against the prefix.
set -euo pipefail

action=${1:?usage: scripts/install.sh install ROOT BINARY | uninstall ROOT}
root=${2:?usage: scripts/install.sh install ROOT BINARY | uninstall ROOT}
man=share/man/man1/mpibench.1

# The man page: mpibench --help, verbatim, under roff's headings.
manpage() {
    local bin=$1 version
    version=$("$bin" --version 2>/dev/null | awk '{print $2}')
    printf '.TH MPIBENCH 1 "" "mpibench %s" "User Commands"\n' "$version"
    printf '.SH NAME\nmpibench \\- MPI benchmarks: the suites of IMB, OMB, MPITEST, ... with one engine\n'
    printf '.SH DESCRIPTION\nThe binary also runs as IMB-MPI1, osu_latency, ... when called by those names\n'
    printf '(the links of an installation: mpibench \\-\\-list\\-drop\\-ins lists them).\n'
    printf '.SH OPTIONS\n.nf\n'
    "$bin" --help | sed -e 's/\\/\\e/g' -e 's/^\./\\\&./' -e "s/^'/\\\\\\&'/"
    printf '.fi\n'
}

case $action in
install)
    bin=${3:?usage: scripts/install.sh install ROOT BINARY}
    [ -x "$bin" ] || { echo "install.sh: $bin is not an executable (make build first)" >&2; exit 1; }
    names=$("$bin" --list-drop-ins)
    [ -n "$names" ] || { echo "install.sh: $bin --list-drop-ins listed nothing" >&2; exit 1; }
    install -d "$root/bin" "$root/share/man/man1"
    # A package manager may have built into ROOT/bin/mpibench already.
    if [ "$(realpath "$bin")" != "$(realpath -m "$root/bin/mpibench")" ]; then
        install -m 755 "$bin" "$root/bin/mpibench"
    fi
    manpage "$bin" >"$root/$man"
    chmod 644 "$root/$man"
    while read -r path; do
        dir=$(dirname "$path")
        install -d "$root/$dir"
        ln -sfn "$(realpath -m --relative-to="$root/$dir" "$root/bin/mpibench")" "$root/$path"
    done <<<"$names"
    echo "installed bin/mpibench, $man and $(wc -l <<<"$names") drop-in links under $root"
    ;;
uninstall)
    [ -d "$root" ] || { echo "uninstall: $root does not exist" >&2; exit 1; }
    if [ ! -x "$root/bin/mpibench" ]; then
        echo "uninstall: $root/bin/mpibench is not there: nothing to remove" >&2
        exit 0
    fi
    names=$("$root/bin/mpibench" --list-drop-ins)
    dirs=$(printf '%s\n' "$names" | xargs -n1 dirname | sort -u)
    while read -r path; do
        # Only the links this installation made (to its bin/mpibench).
        if [ -L "$root/$path" ]; then rm -f "$root/$path"; fi
    done <<<"$names"
    rm -f "$root/bin/mpibench" "$root/$man"
    # The directories left empty, deepest first, up to (not including) ROOT.
    for d in $dirs bin share/man/man1; do
        while [ "$d" != . ] && rmdir "$root/$d" 2>/dev/null; do d=$(dirname "$d"); done
    done
    echo "uninstalled mpibench from $root"
    ;;
*)
    echo "usage: scripts/install.sh install ROOT BINARY | uninstall ROOT" >&2
    exit 2
    ;;
esac
