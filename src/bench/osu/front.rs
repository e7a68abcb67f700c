//! The OSU micro-benchmarks' own command lines (OMB 7.4), for existing
//! scripts, ReFrame checks and Spack/EasyBuild tests:
//! `mpibench osu PROGRAM [OSU flags]`, or the binary linked or copied under
//! the program's name (`osu_latency`, `osu_bw`, ...).
//!
//! ```text
//! mpirun -np 2 osu_bw -m 1:65536 -c
//! ```
//!
//! Every program takes the flags of its OMB 7.4 getopt string
//! ([`optstring`]), parsed as getopt_long parses them: grouped short flags
//! (`-fc`, `-m4:64`), values attached or in the next word, optional values
//! attached only (`-z50,99`), OMB's long options (`--message-size 8`,
//! `--tail-lat=90`, unique prefixes too). A flag outside the program's
//! string is refused as OMB refuses it. The run prints OSU's table;
//! mpibench options (`-n`, `--json`, `--csv`, `--stats`, `--report`, ...)
//! may be mixed in.

use crate::bench::datatype::{Datatype, Derived};
use crate::bench::osu::rma::{OsuSync, RmaOp};
use crate::bench::osu::VERSION;
use crate::bench::osu::{self, Kind};
use crate::cli::RunArgs;
use crate::comm::rma::WindowKind;
use crate::frontend::{Action as FrontAction, Front, Listed};
use crate::method::Method;

pub const HELP: &str =
    "OSU Micro-Benchmarks 7.4 flags (OSU's own spelling; each program takes those of
its OMB option string, which PROGRAM -h lists, and refuses the others as OMB does):
  -m [MIN:]MAX        message sizes MIN, 2 MIN, ... MAX bytes ('MIN:' keeps the default MAX)
  -i N                timed iterations at every size (default: 10000/1000 latency,
                      100/20 bandwidth, 1000/100 collectives; the second above 8192 bytes)
  -x N                warm-up iterations at every size (default 100/10, 10/2, 100/10)
  -W N                messages per window (osu_bw, osu_bibw, osu_mbw_mr, their persistent
                      forms, osu_bw_fan_in, osu_bw_fan_out, osu_put_bw, osu_get_bw,
                      osu_put_bibw; default 64)
  -b single|multiple  one send and one receive buffer for all messages of a window
                      (default, as OMB), or one of each per message
  -M BYTES            memory per process; larger sizes are skipped (collectives)
  -f                  full table: min and max latency over ranks, iterations (collectives)
  -c                  validate every message byte for byte (Validation column); every
                      program here, also those whose OMB option string has no -c
  -z[P,...]           tail percentiles (integers 1..100, attached: -z50,99; default 50,90,99)
  -t N                MPI_Test calls during the computation (osu_i*; default 0);
                      osu_latency_mt: -t [S:]R sender and receiver threads (default 1:2);
                      osu_latency_mp: -t [S:]R processes the sender and the receiver fork (2:2)
  -N cart:D:R|graph:FILE  topology of the neighbourhood programs (default cart:1:1):
                      a periodic D-dimensional grid (MPI_Dims_create) with the neighbours
                      within radius R (R <= (smallest dimension - 1)/2), or the directed
                      edges SOURCE,DESTINATION, one per line, of FILE ('#' comments)
  -k fixed:N|rotate   root of gather, scatter, reduce and their v- and osu_i* forms:
                      rank N (default 0, below the process count) or rotating
  -R 0|1              Messages/s column of osu_mbw_mr (default 1)
  -p N                accepted by osu_mbw_mr (N >= 1) without effect: it runs P/2 pairs,
                      as OMB 7.4 (mpibench run --suite osu --osu-pairs N runs N)
  -V                  osu_mbw_mr at every window size 1, 2, 4, ..., 128: OSU's
                      bandwidth and message-rate profiles (not with -W)
  -T TYPE             mpi_char (default), mpi_int, mpi_float or all (the three); repeatable:
                      one table per type, sizes in bytes, count = size / type size (sizes
                      below one element skipped); not osu_barrier/osu_ibarrier
  -D cont|vect:STRIDE:BLOCK|indx:FILE   derived datatype, one per message, and a Transmit
                      Size column (bytes sent): vect = N/STRIDE blocks of BLOCK elements
                      STRIDE apart; FILE = lines DISPLACEMENT,BLOCKLENGTH in elements ('#'
                      comments). Point-to-point and the non-reducing collectives; not with -c
  -w create|allocate|dynamic   one-sided window creation (default allocate;
                      osu_get_acc_latency: create)
  -s pscw|fence|lock|flush|flush_local|lock_all   one-sided synchronisation (default flush;
                      osu_put_bibw: pscw or fence, default pscw; osu_get_acc_latency: lock)
  -G tty|png|pdf[,...] write mpibench's SVG plots (one per figure) into the current
                      directory instead of gnuplot's (any type gives SVG)
  -l                  accepted; MPI_IN_PLACE is not used (buffers stay separate)
  -u N                accepted (0..10); every iteration is validated anyway
  -a N                accepted; no effect without device buffers
  -h, -v              this help / the version (the program's title line)
Long forms as OMB's (--message-size, --iterations, --warmup, --window-size, --full,
  --validation, --tail-lat[=P,...], --type, --root-rank, --help, --version, ...); short
  flags group as getopt groups them (-fc, -m4:64).
Buffer locations after the flags (osu_latency -c D D; H, D, M, MH, MD, at most two) are
  taken as OMB 7.4 built without an accelerator takes them: host buffers.
Not in this build (one line and exit 2): -d cuda|rocm|openacc (no GPU support), -I (MPI-4 sessions),
  -P (PAPI), -c log:DIR (validation logs), -T mpi_int|mpi_float|all for osu_fop_latency
  and osu_cas_latency.
Programs: osu_latency osu_bw osu_bibw osu_mbw_mr osu_multi_lat osu_latency_mt osu_latency_mp
  osu_init osu_hello,
  osu_latency_persistent osu_bw_persistent osu_bibw_persistent,
  osu_bw_fan_in osu_bw_fan_out,
  osu_allgather allgatherv allreduce alltoall alltoallv alltoallw barrier bcast gather
  gatherv reduce reduce_scatter reduce_scatter_block scatter scatterv (osu_ prefix), and
  the osu_i* forms of allgather allgatherv allreduce alltoall alltoallv alltoallw barrier
  bcast gather gatherv reduce reduce_scatter reduce_scatter_block scatter scatterv,
  osu_neighbor_allgather allgatherv alltoall alltoallv alltoallw and their osu_ineighbor_*
  forms (on the -N topology),
  osu_put_latency osu_get_latency osu_put_bw osu_get_bw osu_put_bibw osu_acc_latency
  osu_get_acc_latency osu_fop_latency osu_cas_latency,
  and the persistent forms (MPI-4 MPI_Xxx_init, or Open MPI 4.1's MPIX_Xxx_init) of
  allgather allgatherv allreduce alltoall alltoallv alltoallw barrier bcast gather gatherv
  reduce reduce_scatter scatter scatterv (osu_ prefix, _persistent suffix).
mpibench options may be mixed in: -n N (self-launch), --json FILE, --csv FILE, --stats,
  --report FILE, --check. MB = 10^6 bytes, as OSU.";

/// What the command line asks for.
#[derive(Debug)]
pub enum Action {
    /// Run the program's benchmark, after these one-line remarks.
    Run(Box<RunArgs>, Vec<String>),
    /// osu_init / osu_hello: their own lines, on this many processes (self-launch).
    Startup(&'static str, Box<RunArgs>),
    /// The program's help (its flags).
    Help(String),
    /// OMB's print_version_message: the program's title line.
    Version(String),
}

/// A program mpibench runs: its canonical name.
pub fn known_program(name: &str) -> Option<&'static str> {
    osu::PROGRAMS
        .iter()
        .map(|p| p.name)
        .chain(osu::STARTUP.iter().copied())
        .find(|n| *n == name)
}

fn number<T: std::str::FromStr + PartialOrd>(
    flag: &str,
    v: &str,
    min: T,
    what: &str,
) -> Result<T, String> {
    v.trim()
        .parse::<T>()
        .ok()
        .filter(|n| *n >= min)
        .ok_or_else(|| format!("invalid argument '{v}' for {flag} ({what})"))
}

/// `-m [MIN:]MAX`, `-m MIN:` → (min, max), either side defaulting.
fn sizes(v: &str, dmin: usize, dmax: usize) -> Result<(usize, usize), String> {
    let bad = || format!("invalid argument '{v}' for -m ([MIN:]MAX, sizes in bytes, MIN <= MAX)");
    let num = |t: &str| t.trim().parse::<usize>().map_err(|_| bad());
    let (a, b) = match v.split_once(':') {
        Some(("", b)) => (dmin, num(b)?),
        Some((a, "")) => (num(a)?, dmax.max(num(a)?)),
        Some((a, b)) => (num(a)?, num(b)?),
        None => (dmin.min(num(v)?), num(v)?),
    };
    if a > b || b > (1usize << 31) {
        return Err(bad());
    }
    Ok((a, b))
}

/// OSU's sizes: MIN, 2 MIN, 4 MIN ... MAX; a MIN of 0 prints from 1, as OMB 7.4.
pub fn size_list(min: usize, max: usize) -> Vec<usize> {
    let mut v = Vec::new();
    let mut x = min.max(1);
    while x <= max {
        v.push(x);
        x *= 2;
    }
    v
}

/// `-z` percentiles: integers in 1..=100, comma-separated (OMB reads them
/// with atoi; 0 would index before its array).
fn percentiles(v: &str) -> Result<Vec<f64>, String> {
    let bad =
        || format!("invalid argument '{v}' for -z (percentiles 1 to 100, attached: -z50,90,99)");
    v.split(',')
        .map(|p| {
            p.trim()
                .parse::<u32>()
                .ok()
                .filter(|p| (1..=100).contains(p))
                .map(f64::from)
                .ok_or_else(bad)
        })
        .collect()
}

/// `-G tty,png,pdf`: OSU's graph types (mpibench draws SVG for any of them).
fn graph_types(v: &str) -> Result<(), String> {
    let ok = |t: &str| {
        let t = t.to_ascii_lowercase();
        ["tty", "png", "pdf"].iter().any(|k| t.starts_with(k))
    };
    if v.split(',').all(ok) && !v.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "invalid argument '{v}' for -G (graph types tty, png, pdf; mpibench writes SVG for any)"
        ))
    }
}

/// Programs whose `-D` mpibench runs: point-to-point, and the collectives
/// that move data without reducing it (allgather(v), alltoall(v), bcast,
/// gather(v), scatter(v)), in their blocking, non-blocking (`osu_i*`) and
/// persistent (`*_persistent`) forms.
fn takes_derived(name: &str) -> bool {
    let kind = osu::program(name).map(|p| p.kind);
    matches!(
        kind,
        Some(Kind::Latency | Kind::Bandwidth { .. } | Kind::MessageRate)
    ) || matches!(
        collective_core(name).1,
        "allgather"
            | "allgatherv"
            | "alltoall"
            | "alltoallv"
            | "bcast"
            | "gather"
            | "gatherv"
            | "scatter"
            | "scatterv"
    ) && !name.contains("neighbor_")
}

/// A collective's operation without `osu_`, `osu_i` (non-blocking) and
/// `_persistent`: (non-blocking, "allgather").
fn collective_core(name: &str) -> (bool, &str) {
    let base = name.trim_end_matches("_persistent");
    let nb = osu::program(name).map(|p| p.kind) == Some(Kind::NonBlocking);
    let core = match (nb, base.strip_prefix("osu_i")) {
        (true, Some(rest)) => rest,
        _ => base.strip_prefix("osu_").unwrap_or(base),
    };
    (nb, core)
}

// OMB 7.4's getopt strings (c/util/osu_util_options.h, the builds without
// accelerators: OMBOP__<bench>__<subtype>), without the leading "+:".
const PT2PT_LAT: &str = "hvm:x:i:b:c::u:G:D:P:T:Iz::";
const PT2PT_LAT_MT: &str = "hvm:x:i:t:c::u:G:D:T:Iz::";
const PT2PT_BW: &str = "hvm:x:i:t:W:b:c::u:G:D:P:T:Iz::";
const PT2PT_CONG_BW: &str = "hvm:x:i:W:b:G:D:P:T:Iz::";
const MBW_MR: &str = "p:W:R:x:i:m:Vhvb:c::u:G:D:P:T:Iz::";
const ALLTOALL: &str = "hvfm:i:x:M:a:c::u:G:D:P:T:Ilz::";
const GATHER: &str = "hvfm:i:x:M:a:c::u:G:D:P:T:Ilz::k:";
const BCAST: &str = "hvfm:i:x:M:a:c::u:G:D:P:T:Iz::";
const BARRIER: &str = "hvfm:i:x:M:a:u:G:P:Iz::";
const ALL_REDUCE: &str = "hvfm:i:x:M:a:c::u:G:P:T:Ilz::";
const REDUCE: &str = "hvfm:i:x:M:a:c::u:G:P:T:Ilz::k:";
const NHBR: &str = "hvfm:i:x:M:a:c::u:N:G:D:P:T:Iz::";
const NBC_ALLTOALL: &str = "hvfm:i:x:M:t:a:c::u:G:D:P:T:Ilz::";
const NBC_GATHER: &str = "hvfm:i:x:M:t:a:c::u:G:D:P:T:Ilz::k:";
const NBC_BCAST: &str = "hvfm:i:x:M:t:a:c::u:G:D:P:T:Iz::";
const NBC_BARRIER: &str = "hvfm:i:x:M:t:a:G:P:Iz::";
const NBC_ALL_REDUCE: &str = "hvfm:i:x:M:t:a:c::u:G:P:T:Ilz::";
const NBC_REDUCE: &str = "hvfm:i:x:M:t:a:c::u:G:P:T:Ilz::k:";
const NBC_NHBR: &str = "hvfm:i:x:M:t:a:c::u:N:G:D:P:T:Iz::";
// One-sided: osu_util.c builds "w:s:hvm:x:i:G:Iz::", then "W:" (bandwidth),
// "P:", and "cT:" for the programs that validate (acc, fop, cas).
const ONE_SIDED_LAT: &str = "w:s:hvm:x:i:G:Iz::P:";
const ONE_SIDED_BW: &str = "w:s:hvm:x:i:G:Iz::W:P:";
const ONE_SIDED_CHECKED: &str = "w:s:hvm:x:i:G:Iz::P:cT:";
const STARTUP_INIT: &str = "I";

/// OMB 7.4's getopt string of a program (without the leading "+:").
pub fn optstring(name: &str) -> &'static str {
    if osu::STARTUP.contains(&name) {
        return STARTUP_INIT;
    }
    if let Some(p) = osu::rma::find(name) {
        return if p.windowed {
            ONE_SIDED_BW
        } else if matches!(p.op, RmaOp::Acc | RmaOp::Fop | RmaOp::Cas) {
            ONE_SIDED_CHECKED
        } else {
            ONE_SIDED_LAT
        };
    }
    match name {
        "osu_latency" | "osu_latency_persistent" | "osu_multi_lat" => return PT2PT_LAT,
        "osu_latency_mt" | "osu_latency_mp" => return PT2PT_LAT_MT,
        "osu_bw" | "osu_bibw" | "osu_bw_persistent" | "osu_bibw_persistent" => return PT2PT_BW,
        "osu_bw_fan_in" | "osu_bw_fan_out" => return PT2PT_CONG_BW,
        "osu_mbw_mr" => return MBW_MR,
        _ => {}
    }
    let persistent = name.ends_with("_persistent");
    let (nb, core) = collective_core(name);
    if core.starts_with("neighbor_") {
        return if nb { NBC_NHBR } else { NHBR };
    }
    match (core, nb) {
        ("barrier", false) => BARRIER,
        ("barrier", true) => NBC_BARRIER,
        ("bcast", false) => BCAST,
        ("bcast", true) => NBC_BCAST,
        ("allreduce" | "reduce_scatter" | "reduce_scatter_block", false) => ALL_REDUCE,
        ("allreduce" | "reduce_scatter" | "reduce_scatter_block", true) => NBC_ALL_REDUCE,
        // The persistent forms have no -k (OMBOP__COLLECTIVE__*_P).
        ("reduce", false) if persistent => ALL_REDUCE,
        ("reduce", false) => REDUCE,
        ("reduce", true) => NBC_REDUCE,
        ("gather" | "gatherv" | "scatter" | "scatterv", false) if persistent => ALLTOALL,
        ("gather" | "gatherv" | "scatter" | "scatterv", false) => GATHER,
        ("gather" | "gatherv" | "scatter" | "scatterv", true) => NBC_GATHER,
        (_, false) => ALLTOALL,
        (_, true) => NBC_ALLTOALL,
    }
}

/// How a flag takes its value (getopt's `x`, `x:`, `x::`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Arg {
    No,
    Required,
    /// Attached only (`-z50`, `--tail-lat=50`).
    Optional,
}

/// The flags of a getopt string.
fn letters(optstring: &str) -> Vec<(char, Arg)> {
    let b: Vec<char> = optstring.chars().collect();
    let mut v = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        i += 1;
        if !c.is_ascii_alphabetic() {
            continue;
        }
        let arg = if b.get(i) == Some(&':') && b.get(i + 1) == Some(&':') {
            i += 2;
            Arg::Optional
        } else if b.get(i) == Some(&':') {
            i += 1;
            Arg::Required
        } else {
            Arg::No
        };
        v.push((c, arg));
    }
    v
}

/// The flags a program takes here: its OMB string's, `-c` (mpibench
/// validates every program) and `-d` (refused with a line of its own).
fn program_letters(name: &str) -> Vec<(char, Arg)> {
    let mut v = letters(optstring(name));
    if !osu::STARTUP.contains(&name) {
        for (c, a) in [('c', Arg::Optional), ('d', Arg::Required)] {
            if !v.iter().any(|(x, _)| *x == c) {
                v.push((c, a));
            }
        }
    }
    v
}

/// OMB 7.4's long options (OMBOP_LONG_OPTIONS_ALL): name, flag, value (as
/// OMB declares it: `--vary-window` takes a value there).
const LONG: &[(&str, char, Arg)] = &[
    ("help", 'h', Arg::No),
    ("version", 'v', Arg::No),
    ("full", 'f', Arg::No),
    ("message-size", 'm', Arg::Required),
    ("window-size", 'W', Arg::Required),
    ("num-test-calls", 't', Arg::Required),
    ("iterations", 'i', Arg::Required),
    ("warmup", 'x', Arg::Required),
    ("array-size", 'a', Arg::Required),
    ("sync-option", 's', Arg::Required),
    ("win-options", 'w', Arg::Required),
    ("mem-limit", 'M', Arg::Required),
    ("accelerator", 'd', Arg::Required),
    ("cuda-target", 'r', Arg::Required),
    ("print-rate", 'R', Arg::Required),
    ("num-pairs", 'p', Arg::Required),
    ("vary-window", 'V', Arg::Required),
    ("validation", 'c', Arg::Optional),
    ("buffer-num", 'b', Arg::Required),
    ("validation-warmup", 'u', Arg::Required),
    ("graph", 'G', Arg::Required),
    ("papi", 'P', Arg::Required),
    ("ddt", 'D', Arg::Required),
    ("nhbr", 'N', Arg::Required),
    ("type", 'T', Arg::Required),
    ("session", 'I', Arg::No),
    ("in-place", 'l', Arg::No),
    ("tail-lat", 'z', Arg::Optional),
    ("root-rank", 'k', Arg::Required),
];

/// A long option of the program: exact, else a unique prefix (getopt_long).
fn long_of(name: &str, takes: &[(char, Arg)], given: &str) -> Result<Option<(char, Arg)>, String> {
    let mine: Vec<&(&str, char, Arg)> = LONG
        .iter()
        .filter(|(_, c, _)| takes.iter().any(|(x, _)| x == c))
        .collect();
    if let Some((_, c, a)) = mine.iter().find(|(n, _, _)| *n == given) {
        return Ok(Some((*c, *a)));
    }
    // An mpibench option is not a prefix of OSU's.
    if crate::frontend::long_option(given).is_some() {
        return Ok(None);
    }
    let prefixed: Vec<_> = mine
        .iter()
        .filter(|(n, _, _)| n.starts_with(given))
        .collect();
    match prefixed.as_slice() {
        [(_, c, a)] if !given.is_empty() => Ok(Some((*c, *a))),
        [] | [_] => Err(format!(
            "unrecognized option '--{given}' ({name} -h lists its flags)"
        )),
        _ => Err(format!("option '--{given}' is ambiguous for {name}")),
    }
}

/// What a flag does, for `PROGRAM -h`: (value, description).
fn describe(c: char, name: &str) -> (&'static str, String) {
    let kind = osu::program(name).map(|p| p.kind);
    let (v, d) = match c {
        'h' => ("", "print this help"),
        'v' => ("", "print the version line (the program's title)"),
        'f' => ("", "full table: min and max latency over ranks, iterations"),
        'm' => (
            "[MIN:]MAX",
            "message sizes MIN, 2 MIN, ... MAX bytes ('MIN:' keeps the default MAX)",
        ),
        'W' => ("N", "messages per window (default 64)"),
        't' if kind == Some(Kind::NonBlocking) => {
            ("N", "MPI_Test calls during the computation (default 0)")
        }
        't' if name == "osu_latency_mt" => (
            "[S:]R",
            "sender threads S (default 1) and receiver threads R (default 2), each 1-127",
        ),
        't' if name == "osu_latency_mp" => (
            "[S:]R",
            "processes forked by the sender S and by the receiver R (default 2:2), each 1-127",
        ),
        't' => ("N", "accepted; no effect on this program (as OMB)"),
        'i' => ("N", "timed iterations at every size"),
        'x' => ("N", "warm-up iterations at every size"),
        'a' => ("N", "accepted; no effect without device buffers"),
        's' => ("SYNC", "pscw, fence, lock, flush, flush_local or lock_all"),
        'w' => (
            "WIN",
            "create, allocate or dynamic (MPI_Win_create, _allocate, _create_dynamic)",
        ),
        'M' => ("BYTES", "memory per process; larger sizes are skipped"),
        'd' => ("TYPE", "accelerator buffers: not in this build"),
        'R' => ("0|1", "Messages/s column (default 1)"),
        'p' => ("N", "accepted without effect: P/2 pairs, as OMB 7.4"),
        'V' => ("", "every window 1, 2, 4, ..., 128 (not with -W)"),
        'c' => (
            "",
            "validate every message byte for byte (Validation column)",
        ),
        'b' => (
            "single|multiple",
            "one send and one receive buffer for a window (default), or one per message",
        ),
        'u' => ("N", "accepted (0..10); every iteration is validated anyway"),
        'G' => (
            "tty|png|pdf",
            "mpibench's SVG plots into the current directory",
        ),
        'P' => ("EVENTS", "PAPI counters: not in this build"),
        'D' => (
            "cont|vect:S:B|indx:F",
            "a derived datatype per message (Transmit Size column)",
        ),
        'N' => (
            "cart:D:R|graph:F",
            "the neighbourhood topology (default cart:1:1)",
        ),
        'T' => ("TYPE", "mpi_char, mpi_int, mpi_float or all; repeatable"),
        'I' => ("", "MPI-4 sessions: not in this build"),
        'l' => (
            "",
            "accepted; MPI_IN_PLACE is not used (buffers stay separate)",
        ),
        'z' => (
            "[P,...]",
            "tail percentiles, attached: -z50,99 (default 50,90,99)",
        ),
        'k' => (
            "fixed:N|rotate",
            "root: rank N (default 0) or rotating every iteration",
        ),
        _ => ("", ""),
    };
    let mut d = d.to_string();
    if c == 'c' && !letters(optstring(name)).iter().any(|(x, _)| *x == 'c') {
        d.push_str(" (mpibench: OMB's program has no -c)");
    }
    (v, d)
}

/// `PROGRAM -h`: the program's flags in its OMB string's order, with their long forms.
pub fn program_help(name: &str) -> String {
    let mut s = format!(
        "Usage: {name} [OSU flags] [mpibench options]\n\
         The flags of OMB 7.4's {name} (short flags group: -fc; values attached or next;\n\
         -c and -z values attached only):\n"
    );
    for (c, _) in program_letters(name) {
        let long = LONG
            .iter()
            .find(|(_, x, _)| *x == c)
            .map_or(String::new(), |(n, _, _)| format!(", --{n}"));
        let (v, d) = describe(c, name);
        let flag = format!("-{c}{long} {v}");
        s.push_str(&format!("  {flag:<34} {d}\n"));
    }
    if !osu::STARTUP.contains(&name) {
        s.push_str(
            "  SRC DST (H, D, M, MH, MD)          buffer locations: host buffers (no GPU support here)\n",
        );
    }
    s.push_str(
        "mpibench options may be mixed in: -n N (self-launch), --json FILE, --csv FILE, --stats,\n  \
         --report FILE, --check. MB = 10^6 bytes, as OSU. mpibench osu -h: every program and flag.",
    );
    s
}

/// The flags of a command line, as getopt_long reads them against the
/// program's letters, and the mpibench options mixed in. `-h` and `-v`
/// answer at once, as OMB's parser returns at them.
enum Words {
    Flags(Vec<(char, Option<String>)>, Vec<String>),
    Help,
    Version,
}

fn words(name: &str, params: &[String]) -> Result<Words, String> {
    let takes = program_letters(name);
    let arg_of = |c: char| takes.iter().find(|(x, _)| *x == c).map(|(_, a)| *a);
    let (mut flags, mut rest) = (Vec::new(), Vec::new());
    let push = |flags: &mut Vec<(char, Option<String>)>, c: char, v: Option<String>| match c {
        'h' => Some(Words::Help),
        'v' => Some(Words::Version),
        _ => {
            flags.push((c, v));
            None
        }
    };
    let mut it = params.iter();
    while let Some(t) = it.next() {
        // mpibench's own short options (no OMB program has -n or -q).
        if t == "-n"
            || t == "-q"
            || (t.len() > 2 && t.starts_with("-n") && t[2..].chars().all(|c| c.is_ascii_digit()))
        {
            rest.push(t.clone());
            if t == "-n" {
                rest.extend(it.next().cloned());
            }
            continue;
        }
        if t == "--" {
            if let Some(w) = it.next() {
                return Err(format!(
                    "unexpected argument '{w}' for {name} (OSU flags start with '-'; see -h)"
                ));
            }
            break;
        }
        if let Some(long) = t.strip_prefix("--") {
            let (given, value) = match long.split_once('=') {
                Some((g, v)) => (g, Some(v.to_string())),
                None => (long, None),
            };
            let Some((c, arg)) = long_of(name, &takes, given)? else {
                // An mpibench option, with its value when it takes one.
                rest.push(t.clone());
                if value.is_none() && crate::frontend::long_option(given) == Some(true) {
                    rest.extend(it.next().cloned());
                }
                continue;
            };
            let v = match (arg, value) {
                (Arg::No, Some(_)) => {
                    return Err(format!("option '--{given}' doesn't allow an argument"))
                }
                (Arg::No, None) => None,
                (Arg::Required, None) => Some(
                    it.next()
                        .cloned()
                        .ok_or_else(|| format!("option '--{given}' requires an argument"))?,
                ),
                (_, v) => v,
            };
            if let Some(w) = push(&mut flags, c, v) {
                return Ok(w);
            }
            continue;
        }
        let Some(body) = t.strip_prefix('-').filter(|b| !b.is_empty()) else {
            // OMB's buffer locations (`D D`, `H H`, `MH MD`): at most two.
            let given = flags.iter().filter(|(c, _)| *c == LOCATION).count();
            if buffer_location(t) && given < 2 {
                flags.push((LOCATION, Some(t.clone())));
                continue;
            }
            return Err(format!(
                "unexpected argument '{t}' for {name} (OSU flags start with '-'; see -h)"
            ));
        };
        // Short flags, grouped as getopt groups them: a value-taking flag
        // takes the rest of the word (or, required, the next word).
        for (i, c) in body.char_indices() {
            let Some(arg) = arg_of(c) else {
                return Err(format!(
                    "invalid option -- '{c}' ({name} takes no -{c} in OMB 7.4; see {name} -h)"
                ));
            };
            let attached = &body[i + c.len_utf8()..];
            let v = match arg {
                Arg::No => None,
                Arg::Optional => (!attached.is_empty()).then(|| attached.to_string()),
                Arg::Required if !attached.is_empty() => Some(attached.to_string()),
                Arg::Required => Some(
                    it.next()
                        .cloned()
                        .ok_or_else(|| format!("option requires an argument -- '{c}'"))?,
                ),
            };
            if let Some(w) = push(&mut flags, c, v) {
                return Ok(w);
            }
            if arg != Arg::No {
                break;
            }
        }
    }
    Ok(Words::Flags(flags, rest))
}

/// The directory OMB 7.4 installs a program in (its Makefile.am files:
/// c/mpi/pt2pt/standard → mpi/pt2pt, pt2pt/persistent → mpi/pt2pt/persistent,
/// pt2pt/congestion → mpi/congestion, every collective → mpi/collective,
/// one-sided → mpi/one-sided, startup → mpi/startup).
pub fn omb_dir(name: &str) -> &'static str {
    let kind = osu::program(name).map(|p| p.kind);
    match kind {
        _ if osu::STARTUP.contains(&name) => "libexec/osu-micro-benchmarks/mpi/startup",
        _ if name.starts_with("osu_bw_fan_") => "libexec/osu-micro-benchmarks/mpi/congestion",
        Some(Kind::OneSided { .. } | Kind::Atomic) => "libexec/osu-micro-benchmarks/mpi/one-sided",
        Some(Kind::Collective | Kind::NonBlocking) => "libexec/osu-micro-benchmarks/mpi/collective",
        _ if name.ends_with("_persistent") => "libexec/osu-micro-benchmarks/mpi/pt2pt/persistent",
        _ => "libexec/osu-micro-benchmarks/mpi/pt2pt",
    }
}

/// The pseudo-flag of a positional buffer location in [`Words::Flags`].
const LOCATION: char = '@';

/// OMB's positional buffer locations: `H` (host), `D` (device), `M`, `MH`,
/// `MD` (managed memory). OMB 7.4 built without an accelerator never reads
/// them (its `accel_enabled` is 0, so `process_options` skips the words
/// after the flags) and runs on host buffers; so does mpibench.
fn buffer_location(w: &str) -> bool {
    matches!(w, "H" | "D" | "M" | "MH" | "MD")
}

/// Whether the program's OMB timing is one clock pair around its loop
/// (then `-z` needs a clock pair per iteration instead).
fn loop_timed(name: &str) -> bool {
    osu::benchmarks()
        .iter()
        .find(|b| b.info().name == name)
        .is_some_and(|b| b.info().method.unwrap_or(osu::DEFAULTS.method) == Method::Loop)
}

/// The program a command line is for, as its flags need it.
struct Program {
    name: &'static str,
    kind: Option<Kind>,
    one_sided: Option<&'static osu::rma::OneSided>,
    /// Its default size range (`-m`).
    dmin: usize,
    dmax: usize,
}

/// What the flags give besides `RunArgs`: the size range, the types
/// (`-T`) and the derived datatype (`-D`).
struct Given {
    min: usize,
    max: usize,
    types: Vec<Datatype>,
    derived: Option<String>,
}

/// A flag's "not in this build" error.
fn not_here<T>(what: &str) -> Result<T, String> {
    Err(format!("{what} is not supported by this build of mpibench"))
}

/// One OSU flag `-c v` of program `p`: into `args`, a remark into `notes`,
/// or what it gives into `g`; sizes, counts and run options here, the rest
/// in [`other_flag`].
fn flag(
    c: char,
    v: &str,
    p: &Program,
    args: &mut RunArgs,
    notes: &mut Vec<String>,
    g: &mut Given,
) -> Result<(), String> {
    let (name, kind) = (p.name, p.kind);
    let flag = format!("-{c}");
    match c {
        'm' => (g.min, g.max) = sizes(v, p.dmin, p.dmax)?,
        'i' => args.reps.iter = Some(number::<usize>(&flag, v, 1, "iterations >= 1")?),
        'x' => args.warmup = Some(number::<usize>(&flag, v, 0, "warm-up iterations >= 0")?),
        'W' => {
            args.suites
                .get_mut::<crate::bench::osu::OsuArgs>()
                .osu_window = Some(number::<usize>(&flag, v, 1, "window size >= 1")?)
        }
        'M' => {
            args.front.buffer_bytes = Some(number::<u64>(&flag, v, 1, "bytes per process")?);
            args.front.buffer_flag = Some("OSU -M");
        }
        'b' => match v.to_ascii_lowercase().as_str() {
            "single" => {}
            "multiple" => {
                args.suites
                    .get_mut::<crate::bench::osu::OsuArgs>()
                    .osu_multiple_buffers = true
            }
            _ => {
                return Err(format!(
                    "invalid argument '{v}' for -b (single or multiple)"
                ))
            }
        },
        'f' => args.suites.get_mut::<crate::bench::osu::OsuArgs>().osu_full = true,
        // OMB's -c[log:DIR] writes its validation logs to DIR; other values do nothing.
        'c' if v.starts_with("log") => return not_here(&format!("-c{v} (validation logs)")),
        'c' => args.check = true,
        'z' => {
            args.suites.get_mut::<crate::bench::osu::OsuArgs>().osu_tail = if v.is_empty() {
                vec![50.0, 90.0, 99.0]
            } else {
                percentiles(v)?
            };
        }
        // osu_latency_mt: sender and receiver threads; elsewhere MPI_Test calls.
        't' if name == "osu_latency_mt" => {
            osu::latency_mt::parse_threads(v)
                .map_err(|e| format!("invalid argument for -t: {e}"))?;
            args.suites
                .get_mut::<crate::bench::osu::OsuArgs>()
                .osu_threads = Some(v.to_string());
        }
        // osu_latency_mp: the sender's and the receiver's forked processes.
        't' if name == "osu_latency_mp" => {
            let sr = osu::latency_mp::processes(v)
                .map_err(|e| format!("invalid argument for -t: {e}"))?;
            args.suites
                .get_mut::<crate::bench::osu::OsuArgs>()
                .osu_threads = Some(sr);
        }
        't' if kind == Some(Kind::NonBlocking) => {
            args.suites
                .get_mut::<crate::bench::osu::OsuArgs>()
                .osu_tests = Some(number::<usize>(&flag, v, 0, "MPI_Test calls >= 0")?)
        }
        't' => {
            number::<usize>(&flag, v, 0, "a count >= 0")?;
            notes.push(format!("-t {v} has no effect on {name} (as OMB)"));
        }
        'k' => {
            let lower = v.to_ascii_lowercase();
            let fixed = lower.strip_prefix("fixed:").map(|n| n.parse::<usize>());
            match (lower.as_str(), fixed) {
                ("rotate", _) => args.roots.root_shift = true,
                (_, Some(Ok(n))) => args.roots.root = Some(n),
                _ => {
                    return Err(format!(
                        "invalid argument '{v}' for -k (fixed:N, N a rank, or rotate)"
                    ))
                }
            }
        }
        'R' => match v {
            "1" => {}
            "0" => {
                args.suites
                    .get_mut::<crate::bench::osu::OsuArgs>()
                    .osu_no_rate = true
            }
            _ => return Err(format!("invalid argument '{v}' for -R (0 or 1)")),
        },
        _ => other_flag(c, v, p, args, notes, g)?,
    }
    Ok(())
}

/// [`flag`]'s types, topologies, one-sided options and accepted ones.
fn other_flag(
    c: char,
    v: &str,
    p: &Program,
    args: &mut RunArgs,
    notes: &mut Vec<String>,
    g: &mut Given,
) -> Result<(), String> {
    let (name, one_sided) = (p.name, p.one_sided);
    let flag = format!("-{c}");
    match c {
        'T' => {
            let list = Datatype::from_osu(v).ok_or_else(|| {
                format!("invalid argument '{v}' for -T (mpi_char, mpi_int, mpi_float or all)")
            })?;
            g.types.extend(list);
        }
        'D' if !takes_derived(name) => return not_here(&format!("-D {v} for {name}")),
        'D' => {
            // cont and vect are checked here; rank 0 reads an index file.
            let indx = v.len() > 5 && v.get(..5).is_some_and(|p| p.eq_ignore_ascii_case("indx:"));
            if !indx {
                Derived::parse(v)?;
            }
            g.derived = Some(v.to_string());
        }
        'd' => {
            return Err(format!(
                "-d {v}: this build of mpibench has no GPU support (no CUDA, ROCm or OpenACC \
                 buffers); without -d, {name} runs on host buffers"
            ))
        }
        LOCATION if v != "H" && !notes.iter().any(|n| n.starts_with("buffer location")) => notes.push(
            "buffer locations D and M: host memory here (this build has no GPU support; OMB 7.4 built without one runs on host buffers too)".to_string(),
        ),
        LOCATION => {}
        'I' => return not_here("-I (MPI-4 sessions: mpibench initialises MPI with MPI_Init)"),
        'P' => return not_here("-P (PAPI counters: this build has no PAPI)"),
        'N' => {
            osu::neighbor::Spec::parse(v)?;
            args.suites
                .get_mut::<crate::bench::osu::OsuArgs>()
                .osu_topology = Some(v.to_string());
        }
        // OMB 7.4's osu_mbw_mr parses -p, then runs P/2 pairs whatever it said.
        'p' => {
            let n = number::<usize>(&flag, v, 1, "pairs >= 1")?;
            notes.push(format!(
                "-p {n} has no effect: osu_mbw_mr runs P/2 pairs, as OMB 7.4 (mpibench run --suite osu --osu-pairs {n} runs {n})"
            ));
        }
        // OMB declares --vary-window with a value, which it ignores.
        'V' => {
            args.suites
                .get_mut::<crate::bench::osu::OsuArgs>()
                .osu_vary_window = true
        }
        'G' => {
            graph_types(v)?;
            args.figures.plots = Some(".".into());
        }
        'u' => {
            let n = number::<usize>(&flag, v, 0, "validation warm-up iterations, 0 to 10")?;
            if n > 10 {
                return Err(format!(
                    "invalid argument '{v}' for -u (validation warm-up iterations, 0 to 10)"
                ));
            }
            notes.push(format!(
                "-u {n}: every iteration is validated here; no extra warm-up is needed"
            ));
        }
        'a' => {
            number::<usize>(&flag, v, 1, "device array size >= 1")?;
            notes.push(format!(
                "-a {v} has no effect: this build has no device buffers"
            ));
        }
        'w' => {
            let lower = v.to_ascii_lowercase();
            args.suites.get_mut::<crate::bench::osu::OsuArgs>().osu_win =
                Some(WindowKind::from_name(&lower).ok_or_else(|| {
                    format!("invalid argument '{v}' for -w (create, allocate or dynamic)")
                })?)
        }
        's' => {
            let s = OsuSync::from_name(&v.to_ascii_lowercase()).ok_or_else(|| {
                format!("invalid argument '{v}' for -s (pscw, fence, lock, flush, flush_local or lock_all)")
            })?;
            if one_sided.is_some_and(|p| !p.allows(s)) {
                return Err(format!("-s {v} does not apply to {name} (fence or pscw)"));
            }
            args.suites.get_mut::<crate::bench::osu::OsuArgs>().osu_sync = Some(s);
        }
        'l' => notes.push(
            "-l: MPI_IN_PLACE is not used here; send and receive buffers stay separate".to_string(),
        ),
        _ => return Err(format!("invalid option -- '{c}' (see {name} -h)")),
    }
    Ok(())
}

/// The run OSU's command line asks for. `params` starts with the program
/// when called as `mpibench osu`; `argv0` is how the program was called.
pub fn parse(program: &str, params: &[String], argv0: &str) -> Result<Action, String> {
    let Some(name) = known_program(program) else {
        let all: Vec<&str> = osu::PROGRAMS.iter().map(|p| p.name).collect();
        return Err(format!(
            "unknown OSU program '{program}' (known: {}, osu_init, osu_hello)",
            all.join(", ")
        ));
    };
    let prog = osu::program(name);
    let kind = prog.map(|p| p.kind);
    let (flags, rest) = match words(name, params)? {
        Words::Help => return Ok(Action::Help(program_help(name))),
        Words::Version => {
            let title = prog.map_or("OSU MPI Micro-Benchmarks", |p| p.title);
            return Ok(Action::Version(format!("# {title} v{VERSION}")));
        }
        Words::Flags(f, r) => (f, r),
    };
    // A library without MPI-4 persistent collectives: one line, exit 2.
    if let Some(why) = osu::pcoll::refused(name) {
        return Err(why);
    }
    let (mut args, notes, g) = flagged(name, kind, &flags, &rest)?;
    datatypes(&mut args, g.types, g.derived, osu::rma::find(name))?;
    windows_and_tails(&mut args, name)?;
    let sizes = message_sizes(name, kind, g.min, g.max)?;
    args.sweep.sizes = crate::frontend::sizes_arg(&sizes);
    args.benchmarks = vec![name.to_string()];
    args.front.frontend = crate::frontend::calling(argv0, params);
    if osu::STARTUP.contains(&name) {
        return startup_action(name, args);
    }
    Ok(Action::Run(Box::new(args), notes))
}

/// The run's options (`rest`) with the OSU flags applied over them: the
/// arguments, the notes on flags that change nothing here, and what the
/// flags gave that the arguments take afterwards.
fn flagged(
    name: &'static str,
    kind: Option<Kind>,
    flags: &[(char, Option<String>)],
    rest: &[String],
) -> Result<(RunArgs, Vec<String>, Given), String> {
    let (dmin, dmax) = match kind {
        Some(Kind::Latency) => (0, 1 << 22),
        Some(Kind::Collective | Kind::NonBlocking) => (1, 1 << 20),
        _ => (1, 1 << 22),
    };
    let (_, opts) = crate::frontend::split_options(rest);
    let mut args = crate::frontend::parse_options(&opts)?;
    args.suite = Some(osu::SUITE.to_string());
    args.front.table = Some("osu".to_string());
    args.front.refuse_skips = true;
    args.quiet = true;
    let mut notes = Vec::new();
    let p = Program {
        name,
        kind,
        one_sided: osu::rma::find(name),
        dmin,
        dmax,
    };
    let mut g = Given {
        min: dmin,
        max: dmax,
        types: Vec::new(),
        derived: None,
    };
    for (c, v) in flags {
        flag(
            *c,
            v.as_deref().unwrap_or(""),
            &p,
            &mut args,
            &mut notes,
            &mut g,
        )?;
    }
    Ok((args, notes, g))
}

/// The datatypes of -T and -D: refused where OSU refuses them.
fn datatypes(
    args: &mut RunArgs,
    types: Vec<Datatype>,
    derived: Option<String>,
    one_sided: Option<&'static osu::rma::OneSided>,
) -> Result<(), String> {
    if derived.is_some() && args.check {
        // OMB: "Derived data type does not support validation".
        return Err(
            "-D cannot be combined with -c: derived data types are not validated (as OSU)".into(),
        );
    }
    if types.iter().any(|&t| t != Datatype::Char) && one_sided.is_some_and(|p| p.op != RmaOp::Acc) {
        return not_here("-T other than mpi_char for osu_fop_latency and osu_cas_latency");
    }
    if types.iter().any(|&t| t != Datatype::Char) || derived.is_some() {
        args.types.datatype = types;
    }
    args.types.derived = derived;
    Ok(())
}

/// -V against -W; tail percentiles' timing.
fn windows_and_tails(args: &mut RunArgs, name: &str) -> Result<(), String> {
    let osu_args = args.suites.get::<crate::bench::osu::OsuArgs>();
    if osu_args.osu_vary_window && osu_args.osu_window.is_some() {
        return Err("-V (vary the window size) cannot be used with -W".into());
    }
    let tails = !osu_args.osu_tail.is_empty();
    if tails && loop_timed(name) {
        // Tail percentiles need a clock pair per iteration (back to back, one sync).
        args.measure.timing.get_or_insert(Method::PerCallOnce);
    }
    Ok(())
}

/// The message sizes from -m (none for the barriers and the atomics).
fn message_sizes(
    name: &str,
    kind: Option<Kind>,
    min: usize,
    max: usize,
) -> Result<Vec<usize>, String> {
    let barrier = ["osu_barrier", "osu_ibarrier", "osu_barrier_persistent"].contains(&name);
    let sizes = if barrier || kind == Some(Kind::Atomic) {
        vec![0]
    } else {
        size_list(min, max)
    };
    if sizes.is_empty() {
        return Err(format!("-m {min}:{max} leaves no message size"));
    }
    Ok(sizes)
}

/// osu_init and osu_hello: they write no results file.
fn startup_action(name: &'static str, args: RunArgs) -> Result<Action, String> {
    if let Some(flag) = [
        (args.out.json.is_some(), "--json"),
        (args.out.csv.is_some(), "--csv"),
    ]
    .iter()
    .find_map(|(given, flag)| given.then_some(flag))
    {
        return Err(format!(
            "{name} writes no results file ({flag}): it times MPI_Init and prints one line"
        ));
    }
    Ok(Action::Startup(name, Box::new(args)))
}

/// osu_init and osu_hello, on a rank started by a launcher: osu_init times
/// MPI_Init on every rank (wall clock, as OMB) and prints the minimum,
/// maximum and average in ms; osu_hello initialises MPI and greets.
pub fn startup(name: &str) -> anyhow::Result<i32> {
    crate::signals::before_mpi_init();
    let t0 = std::time::Instant::now();
    let universe =
        mpi::initialize().ok_or_else(|| anyhow::anyhow!("MPI was already initialised"))?;
    let ms = t0.elapsed().as_secs_f64() * 1e3;
    let world = crate::comm::Comm::world();
    crate::signals::mpi_started(&world);
    let all = world.gather_f64(&[ms], 0);
    if world.rank == 0 {
        let title = if name == "osu_init" {
            "Init"
        } else {
            "Hello World"
        };
        let mut out = format!("# OSU MPI {title} Test v{VERSION}\n");
        if name == "osu_init" {
            let (lo, hi, avg) =
                crate::stats::min_max_avg(&all).unwrap_or(crate::engine::record::NO_FIGURE);
            out.push_str(&format!(
                "nprocs: {}, min: {lo:.0} ms, max: {hi:.0} ms, avg: {avg:.0} ms\n",
                world.size
            ));
        } else {
            out.push_str(&format!("This is a test with {} processes\n", world.size));
        }
        crate::output::print(&out)?;
    }
    world.barrier();
    crate::signals::mpi_ending(0);
    drop(world);
    drop(universe);
    Ok(0)
}

/// OSU's programs as a front end: `mpibench osu PROGRAM ...`, or the
/// binary linked or copied under a program's name (`osu_bw ...`).
pub struct Osu;

/// The suite's front end in the registry.
pub static OSU: Osu = Osu;

const SUBCOMMAND: &str = "mpibench osu";

impl Front for Osu {
    fn subcommand(&self) -> &'static str {
        "osu"
    }

    fn listed(&self) -> Option<&'static Listed> {
        Some(&Listed {
            about: "The OSU micro-benchmarks' programs and flags: mpibench osu osu_bw -m 1:65536 (also when the binary is called osu_latency, osu_bw, ...)",
            order: 4,
            value_name: "ARG",
            arg_help: "The OSU program (osu_latency, osu_bw, ...), its OSU flags and mpibench options",
            after_help: HELP,
        })
    }

    fn call(&self, params: &[String]) -> Result<FrontAction, String> {
        match params.split_first() {
            Some((program, rest)) => self.call_as(program, SUBCOMMAND, rest),
            None => Err(
                "mpibench osu needs a program, e.g. mpibench osu osu_latency (see mpibench osu -h)"
                    .into(),
            ),
        }
    }

    /// The program named by how the binary was called (a link named
    /// `osu_bw`, or a re-launch from one).
    fn program(&self, name: &str) -> Option<&'static str> {
        known_program(name)
    }

    /// OMB 7.4's `make install` layout: `$(pkglibexecdir)/mpi/...`.
    fn drop_ins(&self) -> Vec<(&'static str, &'static str)> {
        osu::PROGRAMS
            .iter()
            .map(|p| p.name)
            .chain(osu::STARTUP.iter().copied())
            .map(|n| (omb_dir(n), n))
            .collect()
    }

    /// OSU's command line of `program`; `shown` is how it was called
    /// ("mpibench osu", "./osu_bw").
    fn call_as(
        &self,
        program: &str,
        shown: &str,
        params: &[String],
    ) -> Result<FrontAction, String> {
        if program == "-h" || program == "--help" {
            return Ok(FrontAction::Say(format!(
                "Usage: mpibench osu PROGRAM [OSU flags] [mpibench options]\n\n{HELP}\n"
            )));
        }
        // A link's own name is not repeated in its arguments.
        let calling = if shown == SUBCOMMAND {
            format!("mpibench osu {program}")
        } else {
            shown.to_string()
        };
        // Re-launched ranks see the arguments without a subcommand.
        let argv0 = (shown != SUBCOMMAND).then(|| shown.to_string());
        Ok(match parse(program, params, &calling)? {
            Action::Help(text) | Action::Version(text) => FrontAction::Say(format!("{text}\n")),
            Action::Startup(name, args) => FrontAction::Startup {
                args,
                argv0,
                launched: Box::new(move || startup(name)),
            },
            Action::Run(args, notes) => FrontAction::Run {
                args,
                notes: notes.iter().map(|n| format!("{program}: {n}")).collect(),
                argv0,
            },
        })
    }
}

#[cfg(test)]
#[path = "front_flags_test.rs"]
mod flags_test;

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    fn run(prog: &str, s: &str) -> RunArgs {
        match parse(prog, &v(s), prog).unwrap() {
            Action::Run(a, _) => *a,
            a => panic!("{a:?}"),
        }
    }

    fn err(prog: &str, s: &str) -> String {
        let e = parse(prog, &v(s), prog).unwrap_err();
        assert!(!e.contains('\n'), "{e}");
        e
    }

    #[test]
    fn drop_ins_are_laid_out_as_omb_installs_them() {
        let all = OSU.drop_ins();
        assert_eq!(all.len(), osu::PROGRAMS.len() + osu::STARTUP.len());
        let dir = |n: &str| all.iter().find(|(_, x)| *x == n).unwrap().0;
        let root = "libexec/osu-micro-benchmarks/mpi";
        for (name, sub) in [
            ("osu_latency", "pt2pt"),
            ("osu_mbw_mr", "pt2pt"),
            ("osu_latency_mt", "pt2pt"),
            ("osu_bw_persistent", "pt2pt/persistent"),
            ("osu_bw_fan_out", "congestion"),
            ("osu_allreduce", "collective"),
            ("osu_iallreduce", "collective"),
            ("osu_neighbor_alltoallw", "collective"),
            ("osu_allreduce_persistent", "collective"),
            ("osu_cas_latency", "one-sided"),
            ("osu_put_bw", "one-sided"),
            ("osu_hello", "startup"),
        ] {
            assert_eq!(dir(name), format!("{root}/{sub}"), "{name}");
        }
    }

    #[test]
    fn the_fixtures_command_lines_parse() {
        let a = run("osu_latency", "-m 0:4096");
        assert_eq!(
            a.sweep.sizes.as_deref(),
            Some("1,2,4,8,16,32,64,128,256,512,1024,2048,4096")
        );
        assert_eq!(a.front.table.as_deref(), Some("osu"));
        assert_eq!(a.benchmarks, ["osu_latency"]);
        let a = run("osu_latency", "-c -m 1:256");
        assert!(a.check);
        let a = run("osu_bw", "-z -m 1:1024");
        assert_eq!(
            a.suites.get::<crate::bench::osu::OsuArgs>().osu_tail,
            [50.0, 90.0, 99.0]
        );
        assert_eq!(a.measure.timing, Some(Method::PerCallOnce));
    }

    #[test]
    fn defaults_and_flags() {
        let a = run("osu_bw", "");
        assert!(a.sweep.sizes.as_deref().unwrap().ends_with(",4194304"));
        assert!(a.sweep.sizes.as_deref().unwrap().starts_with("1,2,"));
        let a = run("osu_allreduce", "-f -m 4:4096 -i 10 -x 2");
        assert!(a.suites.get::<crate::bench::osu::OsuArgs>().osu_full);
        assert_eq!((a.reps.iter, a.warmup), (Some(10), Some(2)));
        assert_eq!(
            a.sweep.sizes.as_deref(),
            Some("4,8,16,32,64,128,256,512,1024,2048,4096")
        );
        let a = run("osu_bcast", "");
        assert!(a.sweep.sizes.as_deref().unwrap().ends_with(",1048576"));
        let a = run("osu_iallreduce", "-f -t 4 -m 4:1024");
        assert_eq!(
            a.suites.get::<crate::bench::osu::OsuArgs>().osu_tests,
            Some(4)
        );
        let a = run("osu_mbw_mr", "-W 16 -R 0 -b multiple");
        assert_eq!(
            a.suites.get::<crate::bench::osu::OsuArgs>().osu_window,
            Some(16)
        );
        assert!(
            a.suites.get::<crate::bench::osu::OsuArgs>().osu_no_rate
                && a.suites
                    .get::<crate::bench::osu::OsuArgs>()
                    .osu_multiple_buffers
        );
        let a = run("osu_gather", "-k rotate -m 8 -z90,99");
        assert!(a.roots.root_shift);
        assert_eq!(
            a.suites.get::<crate::bench::osu::OsuArgs>().osu_tail,
            [90.0, 99.0]
        );
        assert_eq!(a.sweep.sizes.as_deref(), Some("1,2,4,8"));
        let a = run("osu_barrier", "-f");
        assert_eq!(a.sweep.sizes.as_deref(), Some("0"));
        let a = run("osu_get_bw", "-w create -s fence -m 1:4096");
        assert_eq!(
            a.suites.get::<crate::bench::osu::OsuArgs>().osu_win,
            Some(WindowKind::Create)
        );
        assert_eq!(
            a.suites.get::<crate::bench::osu::OsuArgs>().osu_sync,
            Some(OsuSync::Fence)
        );
        let a = run("osu_put_latency", "-w CREATE -s PSCW");
        assert_eq!(
            a.suites.get::<crate::bench::osu::OsuArgs>().osu_win,
            Some(WindowKind::Create)
        );
        assert_eq!(
            a.suites.get::<crate::bench::osu::OsuArgs>().osu_sync,
            Some(OsuSync::Pscw)
        );
        let a = run("osu_cas_latency", "");
        assert_eq!(a.sweep.sizes.as_deref(), Some("0"));
        // -G takes OSU's graph types and writes SVG here; -l takes no value.
        let a = run("osu_latency", "-G png,tty -m 1:8");
        assert_eq!(a.figures.plots.as_deref(), Some(std::path::Path::new(".")));
        let a = run("osu_allreduce", "-l -m 1:8");
        assert_eq!(a.sweep.sizes.as_deref(), Some("1,2,4,8"));
        // mpibench options mixed in.
        let a = run("osu_bw", "-m 1:8 --json r.json -n 2 --stats");
        assert_eq!(a.launch.np, Some(2));
        assert!(a.stats);
        assert_eq!(a.out.json.as_deref(), Some(std::path::Path::new("r.json")));
        assert_eq!(size_list(3, 20), [3, 6, 12]);
    }

    #[test]
    fn roots_are_fixed_or_rotating() {
        let a = run("osu_reduce", "-k fixed:3");
        assert_eq!((a.roots.root, a.roots.root_shift), (Some(3), false));
        let a = run("osu_igatherv", "-k FIXED:0");
        assert_eq!(a.roots.root, Some(0));
        let a = run("osu_scatter", "--root-rank rotate");
        assert!(a.roots.root_shift);
        for bad in ["fixed:", "fixed:x", "fixed:-1", "sometimes"] {
            assert!(
                err("osu_gather", &format!("-k {bad}")).contains("-k"),
                "{bad}"
            );
        }
        // OMB 7.4: -k only where the string has it.
        for prog in [
            "osu_bcast",
            "osu_ibcast",
            "osu_reduce_persistent",
            "osu_allreduce",
        ] {
            assert!(err(prog, "-k rotate").contains("invalid option"), "{prog}");
        }
    }

    #[test]
    fn option_strings_are_omb_7_4s() {
        assert_eq!(optstring("osu_latency"), PT2PT_LAT);
        assert_eq!(optstring("osu_multi_lat"), PT2PT_LAT);
        assert_eq!(optstring("osu_bibw_persistent"), PT2PT_BW);
        assert_eq!(optstring("osu_bw_fan_in"), PT2PT_CONG_BW);
        assert_eq!(optstring("osu_gatherv"), GATHER);
        assert_eq!(optstring("osu_gatherv_persistent"), ALLTOALL);
        assert_eq!(optstring("osu_ireduce"), NBC_REDUCE);
        assert_eq!(optstring("osu_ireduce_scatter_block"), NBC_ALL_REDUCE);
        assert_eq!(optstring("osu_ibarrier"), NBC_BARRIER);
        assert_eq!(optstring("osu_barrier_persistent"), BARRIER);
        assert_eq!(optstring("osu_alltoallw"), ALLTOALL);
        assert_eq!(optstring("osu_ineighbor_alltoallw"), NBC_NHBR);
        assert_eq!(optstring("osu_neighbor_allgather"), NHBR);
        assert_eq!(optstring("osu_put_bibw"), ONE_SIDED_BW);
        assert_eq!(optstring("osu_get_acc_latency"), ONE_SIDED_LAT);
        assert_eq!(optstring("osu_fop_latency"), ONE_SIDED_CHECKED);
        assert_eq!(optstring("osu_init"), STARTUP_INIT);
        assert_eq!(
            letters("hvm:c::D:"),
            [
                ('h', Arg::No),
                ('v', Arg::No),
                ('m', Arg::Required),
                ('c', Arg::Optional),
                ('D', Arg::Required)
            ]
        );
        // Every program's flags are known to the parser and described.
        for p in osu::PROGRAMS {
            for (c, _) in program_letters(p.name) {
                assert!(!describe(c, p.name).1.is_empty(), "{} -{c}", p.name);
            }
        }
    }

    #[test]
    fn flags_outside_a_programs_string_are_refused() {
        for (prog, args) in [
            ("osu_latency", "-f"),
            ("osu_latency", "-W 4"),
            ("osu_latency", "-M 1024"),
            ("osu_bw", "-R 0"),
            ("osu_bw", "-k rotate"),
            ("osu_bcast", "-k rotate"),
            ("osu_bcast", "-l"),
            ("osu_put_bw", "-b multiple"),
            ("osu_put_latency", "-f"),
            ("osu_put_latency", "-T mpi_char"),
            ("osu_put_latency", "-W 4"),
            ("osu_multi_lat", "-p 1"),
            ("osu_bw", "-p 1"),
            ("osu_latency", "-V"),
            ("osu_bw", "-N cart:1:1"),
            ("osu_barrier", "-T mpi_int"),
            ("osu_allreduce", "-D cont"),
            ("osu_ibarrier", "-u 1"),
            ("osu_bw_fan_in", "-u 1"),
            ("osu_latency", "-w create"),
            ("osu_allreduce", "-s fence"),
            ("osu_init", "-m 8"),
            ("osu_bw", "-r gpu"),
            ("osu_bw", "-Q"),
            ("osu_bw", "-fc"),
        ] {
            let e = err(prog, args);
            assert!(e.contains("invalid option"), "{prog} {args}: {e}");
        }
        // -c everywhere (mpibench validates every program), as OMB where it has it.
        for prog in [
            "osu_put_latency",
            "osu_barrier",
            "osu_bw_fan_out",
            "osu_ibarrier",
        ] {
            assert!(run(prog, "-c").check, "{prog}");
        }
        assert!(run("osu_acc_latency", "-c -T mpi_char").check);
    }

    #[test]
    fn getopt_grouping_and_long_options() {
        let a = run("osu_allreduce", "-fc -m4:64 -i5 -x0");
        assert!(a.suites.get::<crate::bench::osu::OsuArgs>().osu_full && a.check);
        assert_eq!(a.sweep.sizes.as_deref(), Some("4,8,16,32,64"));
        assert_eq!((a.reps.iter, a.warmup), (Some(5), Some(0)));
        // A required value takes the rest of the word, or the next word;
        // an optional one the rest of the word (-cW8: W8 is -c's value).
        let a = run("osu_allreduce", "-fm8");
        assert!(a.suites.get::<crate::bench::osu::OsuArgs>().osu_full);
        assert_eq!(a.sweep.sizes.as_deref(), Some("1,2,4,8"));
        let a = run("osu_bw", "-cW8");
        assert!(a.check);
        assert_eq!(
            a.suites.get::<crate::bench::osu::OsuArgs>().osu_window,
            None
        );
        // An optional value is attached only: -z 50 is not -z50.
        assert!(err("osu_bw", "-z 50").contains("unexpected argument '50'"));
        let a = run("osu_bw", "-z50,99 -c");
        assert_eq!(
            a.suites.get::<crate::bench::osu::OsuArgs>().osu_tail,
            [50.0, 99.0]
        );
        // -cf: f is -c's (ignored) value, as getopt and OMB read it.
        let a = run("osu_allreduce", "-cf");
        assert!(a.check && !a.suites.get::<crate::bench::osu::OsuArgs>().osu_full);
        let a = run(
            "osu_allreduce",
            "--message-size 4:16 --iterations=7 --warmup 1 --full --validation --type mpi_int",
        );
        assert_eq!(a.sweep.sizes.as_deref(), Some("4,8,16"));
        assert_eq!((a.reps.iter, a.warmup), (Some(7), Some(1)));
        assert!(a.suites.get::<crate::bench::osu::OsuArgs>().osu_full && a.check);
        assert_eq!(a.types.datatype, [Datatype::Int]);
        let a = run(
            "osu_bw",
            "--window-size=16 --tail-lat=90 --buffer-num multiple",
        );
        assert_eq!(
            a.suites.get::<crate::bench::osu::OsuArgs>().osu_window,
            Some(16)
        );
        assert_eq!(
            a.suites.get::<crate::bench::osu::OsuArgs>().osu_tail,
            [90.0]
        );
        assert!(
            a.suites
                .get::<crate::bench::osu::OsuArgs>()
                .osu_multiple_buffers
        );
        let a = run("osu_bw", "--tail-lat");
        assert_eq!(
            a.suites.get::<crate::bench::osu::OsuArgs>().osu_tail,
            [50.0, 90.0, 99.0]
        );
        // getopt_long's unique prefixes; mpibench's own options first
        // (--window is mpibench's, --iter too).
        let a = run("osu_bw", "--message 8 --window-s 4");
        assert_eq!(
            (
                a.sweep.sizes.as_deref(),
                a.suites.get::<crate::bench::osu::OsuArgs>().osu_window
            ),
            (Some("1,2,4,8"), Some(4))
        );
        let a = run("osu_bw", "--iter 3 --json r.json");
        assert_eq!(a.reps.iter, Some(3));
        assert!(a.out.json.is_some());
        // OMB 7.4 overwrites -p with P/2.
        let a = run("osu_mbw_mr", "--num-pairs 1 --print-rate 0 --vary-window 1");
        assert_eq!(a.suites.get::<crate::bench::osu::OsuArgs>().osu_pairs, None);
        assert!(
            a.suites.get::<crate::bench::osu::OsuArgs>().osu_no_rate
                && a.suites.get::<crate::bench::osu::OsuArgs>().osu_vary_window
        );
        let a = run(
            "osu_ineighbor_alltoall",
            "--nhbr cart:1:1 --num-test-calls 2",
        );
        assert_eq!(
            a.suites
                .get::<crate::bench::osu::OsuArgs>()
                .osu_topology
                .as_deref(),
            Some("cart:1:1")
        );
        assert_eq!(
            a.suites.get::<crate::bench::osu::OsuArgs>().osu_tests,
            Some(2)
        );
        let a = run("osu_put_bw", "--win-options dynamic --sync-option lock");
        assert_eq!(
            a.suites.get::<crate::bench::osu::OsuArgs>().osu_win,
            Some(WindowKind::Dynamic)
        );
        for (prog, args, want) in [
            ("osu_latency", "--window-size 4", "unrecognized option"),
            ("osu_latency", "--full", "unrecognized option"),
            ("osu_bw", "--nosuch", "unrecognized option"),
            ("osu_bw", "--help=1", "doesn't allow an argument"),
            ("osu_bw", "--message-size", "requires an argument"),
            ("osu_allreduce", "--vary", "unrecognized option"),
            ("osu_allreduce", "--va", "ambiguous"),
            ("osu_ineighbor_alltoall", "--n 1", "ambiguous"),
        ] {
            let e = err(prog, args);
            assert!(e.contains(want), "{prog} {args}: {e}");
        }
    }

    #[test]
    fn bad_values_are_one_line_errors() {
        for (prog, args, want) in [
            ("osu_bw", "-m 8:4", "-m"),
            ("osu_bw", "-m x", "-m"),
            ("osu_bw", "-i 0", "-i"),
            ("osu_bw", "-x -1", "-x"),
            ("osu_bw", "-W 0", "-W"),
            ("osu_bw", "-b double", "-b"),
            ("osu_bw", "-z150", "-z"),
            ("osu_bw", "-z0", "-z"),
            ("osu_bw", "-z99.9", "-z"),
            ("osu_fop_latency", "-T mpi_int", "not supported"),
            ("osu_latency", "-D vect:4", "vect"),
            ("osu_latency", "-D vect:4:8", "vect"),
            ("osu_latency", "-D diag", "derived datatype"),
            ("osu_latency", "-c -D vect:8:4", "-c"),
            ("osu_bcast", "-D cont -c", "-c"),
            ("osu_neighbor_alltoall", "-D cont", "not supported"),
            ("osu_bw", "-T long", "-T"),
            ("osu_bw", "-d cuda", "no GPU support"),
            ("osu_bw", "-I", "sessions"),
            ("osu_bw", "-P cycles", "PAPI"),
            ("osu_bw", "-clog:/tmp/x", "validation logs"),
            ("osu_mbw_mr", "-R 2", "-R"),
            ("osu_put_latency", "-w shared", "-w"),
            ("osu_put_latency", "-s sometimes", "-s"),
            ("osu_put_bibw", "-s flush", "does not apply"),
            ("osu_bw", "-i", "requires an argument"),
            ("osu_latency", "-G svg", "-G"),
            ("osu_latency", "-G", "requires an argument"),
            ("osu_allreduce", "-u 11", "-u"),
            ("osu_allreduce", "-a 0", "-a"),
            ("osu_nosuch", "", "unknown OSU program"),
            ("osu_bw", "stray", "unexpected argument"),
            ("osu_bw", "-- -m 8", "unexpected argument"),
        ] {
            let e = err(prog, args);
            assert!(e.contains(want), "{prog} {args}: {e}");
        }
    }

    #[test]
    fn tail_percentiles_time_every_iteration() {
        // Programs timed by one clock pair around their loop get a pair per
        // iteration with -z; the per-call ones keep theirs.
        for prog in [
            "osu_latency",
            "osu_bw",
            "osu_put_latency",
            "osu_get_bw",
            "osu_fop_latency",
            "osu_bw_fan_in",
        ] {
            assert_eq!(
                run(prog, "-z").measure.timing,
                Some(Method::PerCallOnce),
                "{prog}"
            );
            assert_eq!(run(prog, "").measure.timing, None, "{prog}");
        }
        for prog in ["osu_mbw_mr", "osu_allreduce", "osu_iallreduce"] {
            assert_eq!(run(prog, "-z").measure.timing, None, "{prog}");
        }
    }

    #[test]
    fn types_and_derived_datatypes() {
        let a = run("osu_latency", "-T all -m 1:64");
        assert_eq!(a.types.datatype, Datatype::ALL);
        assert_eq!(a.types.derived, None);
        let a = run("osu_allreduce", "-T MPI_INT -T mpi_float");
        assert_eq!(a.types.datatype, [Datatype::Int, Datatype::Float]);
        // MPI_CHAR alone is OSU's default: nothing changes.
        let a = run("osu_bw", "-T mpi_char");
        assert!(a.types.datatype.is_empty());
        let a = run("osu_cas_latency", "-T mpi_char");
        assert!(a.types.datatype.is_empty());
        let a = run("osu_bcast", "-D vect:8:4");
        assert_eq!(a.types.derived.as_deref(), Some("vect:8:4"));
        assert!(a.types.datatype.is_empty());
        let a = run("osu_latency", "-D indx:/some/file -T mpi_int");
        assert_eq!(a.types.derived.as_deref(), Some("indx:/some/file"));
        assert_eq!(a.types.datatype, [Datatype::Int]);
        let a = run("osu_iallgather", "-D cont");
        assert_eq!(a.types.derived.as_deref(), Some("cont"));
        for prog in [
            "osu_mbw_mr",
            "osu_multi_lat",
            "osu_bw_persistent",
            "osu_alltoallv",
            "osu_bcast_persistent",
            "osu_ialltoall",
        ] {
            assert!(run(prog, "-D vect:2:1").types.derived.is_some(), "{prog}");
        }
        for prog in [
            "osu_reduce",
            "osu_ireduce",
            "osu_barrier",
            "osu_put_bw",
            "osu_reduce_scatter",
            "osu_allreduce_persistent",
        ] {
            assert!(err(prog, "-D cont").contains("invalid option"), "{prog}");
        }
    }

    #[test]
    fn persistent_collectives_parse() {
        // Both libraries here have them (MPICH 4: MPI_, Open MPI 4.1: MPIX_).
        let a = run("osu_allreduce_persistent", "-f -m 4:4096 -c");
        assert_eq!(a.benchmarks, ["osu_allreduce_persistent"]);
        assert!(a.suites.get::<crate::bench::osu::OsuArgs>().osu_full && a.check);
        assert!(a.sweep.sizes.as_deref().unwrap().starts_with("4,8,"));
        let a = run("osu_bcast_persistent", "");
        assert!(a.sweep.sizes.as_deref().unwrap().ends_with(",1048576"));
        let a = run("osu_barrier_persistent", "-f");
        assert_eq!(a.sweep.sizes.as_deref(), Some("0"));
        assert!(err("osu_bcast_persistent", "-W 4").contains("invalid option"));
    }

    #[test]
    fn help_version_startup_personality() {
        let Action::Help(h) = parse("osu_bw", &v("-h"), "x").unwrap() else {
            panic!()
        };
        assert!(h.starts_with("Usage: osu_bw "), "{h}");
        assert!(h.contains("-W, --window-size N"), "{h}");
        assert!(!h.contains("--full"), "{h}");
        // -h and -v answer where they stand, as OMB's parser returns at them.
        assert!(matches!(
            parse("osu_bw", &v("-h -Q"), "x").unwrap(),
            Action::Help(_)
        ));
        assert!(parse("osu_bw", &v("-Q -h"), "x").is_err());
        let Action::Version(line) = parse("osu_bw", &v("--version"), "x").unwrap() else {
            panic!()
        };
        assert_eq!(line, "# OSU MPI Bandwidth Test v7.4");
        let Action::Version(line) = parse("osu_latency", &v("-v"), "x").unwrap() else {
            panic!()
        };
        assert_eq!(line, "# OSU MPI Latency Test v7.4");
        assert!(matches!(
            parse("osu_init", &v(""), "x").unwrap(),
            Action::Startup("osu_init", _)
        ));
        assert_eq!(OSU.program("osu_bw"), Some("osu_bw"));
        assert_eq!(known_program("osu_hello"), Some("osu_hello"));
        assert_eq!(known_program("IMB-MPI1"), None);
    }

    #[test]
    fn general_help_lists_every_flag_before_what_this_build_lacks() {
        let (flags, rest) = HELP.split_once("Not in this build").unwrap();
        for f in ["-w create", "-s pscw", "-k fixed:N", "-z[P", "-h, -v"] {
            assert!(flags.contains(f), "{f}");
            assert!(!rest.contains(f), "{f}");
        }
    }
}
