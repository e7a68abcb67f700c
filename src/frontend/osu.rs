//! The OSU micro-benchmarks' own command lines (OMB 7.4), for existing
//! scripts, ReFrame checks and Spack/EasyBuild tests:
//! `mpibench osu PROGRAM [OSU flags]`, or the binary linked or copied under
//! the program's name (`osu_latency`, `osu_bw`, ...).
//!
//! ```text
//! mpirun -np 2 osu_bw -m 1:65536 -c
//! ```
//!
//! The run prints OSU's table; mpibench options (`-n`, `--json`, `--csv`,
//! `--stats`, `--report`, ...) may be mixed in.

use std::path::Path;

use crate::bench::datatype::{Datatype, Derived};
use crate::bench::osu::rma::OsuSync;
use crate::bench::osu::{self, Kind};
use crate::cli::RunArgs;
use crate::comm::rma::WindowKind;
use crate::method::Method;

/// OMB's version, printed in every title.
pub const VERSION: &str = "7.4";

pub const HELP: &str = "OSU Micro-Benchmarks 7.4 flags (OSU's own spelling):
  -m [MIN:]MAX        message sizes MIN, 2 MIN, ... MAX bytes (MIN: also as 'MIN:')
  -i N                timed iterations at every size (default: 10000/1000 latency,
                      100/20 bandwidth, 1000/100 collectives; the second above 8192 bytes)
  -x N                warm-up iterations at every size (default 100/10, 10/2, 100/10)
  -W N                messages per window (osu_bw, osu_bibw, osu_mbw_mr, their persistent
                      forms, osu_bw_fan_in, osu_bw_fan_out, osu_put_bw, osu_get_bw,
                      osu_put_bibw; default 64)
  -b single|multiple  one send buffer for a window, or one per message
  -M BYTES            memory per process; larger sizes are skipped
  -f                  full table: min and max latency over ranks, iterations
  -c                  validate every message byte for byte (Validation column)
  -z[P,...]           tail percentiles per iteration (default 50,90,99)
  -t N                MPI_Test calls during the computation (osu_i*; default 0)
  -N cart:D:R|graph:FILE  topology of the neighbourhood programs (default cart:1:1):
                      a periodic D-dimensional grid (MPI_Dims_create) with the neighbours
                      within radius R (R <= (smallest dimension - 1)/2), or the directed
                      edges SOURCE,DESTINATION, one per line, of FILE ('#' comments)
  -k fixed:0|rotate   root of rooted collectives: rank 0 or rotating
  -R 0|1              Messages/s column of osu_mbw_mr (default 1)
  -p N                pairs i <-> i+N of osu_mbw_mr and osu_multi_lat, 1 <= N <= P/2
                      (default P/2); the other processes idle
  -V                  osu_mbw_mr at every window size 1, 2, 4, ..., 128: OSU's
                      bandwidth and message-rate profiles (not with -W)
  -T TYPE             mpi_char (default), mpi_int, mpi_float or all (the three); repeatable:
                      one table per type, sizes in bytes, count = size / type size (sizes
                      below one element skipped); not osu_barrier/osu_ibarrier; one-sided:
                      mpi_char only here
  -D cont|vect:STRIDE:BLOCK|indx:FILE   derived datatype, one per message, and a Transmit
                      Size column (bytes sent): vect = N/STRIDE blocks of BLOCK elements
                      STRIDE apart; FILE = lines DISPLACEMENT,BLOCKLENGTH in elements ('#'
                      comments). Point-to-point and the non-reducing collectives; not with -c
  -G tty|png|pdf[,...] write mpibench's SVG plots (one per figure) into the current
                      directory instead of gnuplot's (any type gives SVG)
  -l                  accepted; MPI_IN_PLACE is not used (buffers stay separate)
  -u N                accepted (0..10); every iteration is validated anyway
  -a N                accepted; no effect without device buffers
  -h, -v              this help / the version
Not in this build (one line and exit 2): -d (accelerator buffers), -I (MPI-4 sessions),
  -P (PAPI), -T mpi_int|mpi_float|all for one-sided programs.
  -w create|allocate|dynamic   one-sided window creation (default allocate)
  -s pscw|fence|lock|flush|flush_local|lock_all   one-sided synchronisation (default flush;
                      osu_put_bibw: pscw or fence, default pscw)
Programs: osu_latency osu_bw osu_bibw osu_mbw_mr osu_multi_lat osu_init osu_hello,
  osu_latency_persistent osu_bw_persistent osu_bibw_persistent,
  osu_bw_fan_in osu_bw_fan_out,
  osu_allgather allgatherv allreduce alltoall alltoallv barrier bcast gather gatherv reduce
  reduce_scatter reduce_scatter_block scatter scatterv (osu_ prefix), and the osu_i* forms of
  allgather allreduce alltoall barrier bcast gather reduce reduce_scatter_block scatter,
  osu_neighbor_allgather allgatherv alltoall alltoallv alltoallw and their osu_ineighbor_*
  forms (on the -N topology),
  osu_alltoallw,
  osu_iallgatherv osu_ialltoallv osu_ialltoallw osu_igatherv osu_ireduce_scatter osu_iscatterv,
  osu_put_latency osu_get_latency osu_put_bw osu_get_bw osu_put_bibw osu_acc_latency
  osu_get_acc_latency osu_fop_latency osu_cas_latency,
  and the persistent forms (MPI-4 MPI_Xxx_init, or Open MPI 4.1's MPIX_Xxx_init) of
  allgather allgatherv allreduce alltoall alltoallv barrier bcast gather gatherv reduce
  reduce_scatter scatter scatterv (osu_ prefix, _persistent suffix).
mpibench options may be mixed in: -n N (self-launch), --json FILE, --csv FILE, --stats,
  --report FILE, --check. MB = 10^6 bytes, as OSU.";

/// What the command line asks for.
#[derive(Debug)]
pub enum Action {
    /// Run the program's benchmark, after these one-line remarks.
    Run(Box<RunArgs>, Vec<String>),
    /// osu_init / osu_hello: their own lines, on this many processes (self-launch).
    Startup(&'static str, Box<RunArgs>),
    Help(String),
    Version(String),
}

/// The program named by how the binary was called (a link named
/// `osu_bw`), or by a re-launch from one (`MPIBENCH_ARGV0`).
pub fn personality(argv0: &str) -> Option<String> {
    let base = |s: &str| {
        Path::new(s)
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    let known = |n: String| known_program(&n).map(|_| n);
    known(base(argv0)).or_else(|| {
        std::env::var("MPIBENCH_ARGV0")
            .ok()
            .and_then(|a| known(base(&a)))
    })
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

/// `-z` percentiles: "50,90,99" (default) or a list of numbers in (0, 100).
fn percentiles(v: &str) -> Result<Vec<f64>, String> {
    let bad =
        || format!("invalid argument '{v}' for -z (percentiles between 0 and 100, e.g. 50,90,99)");
    v.split(',')
        .map(|p| {
            p.trim()
                .parse::<f64>()
                .ok()
                .filter(|p| *p > 0.0 && *p < 100.0)
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

/// Programs whose OMB 7.4 option string has -T (all but the barriers; the
/// one-sided programs take MPI_CHAR only here).
fn takes_types(name: &str) -> bool {
    !matches!(name, "osu_barrier" | "osu_ibarrier") && !osu::STARTUP.contains(&name)
}

/// Programs whose OMB 7.4 option string has -D: point-to-point, and the
/// collectives that move data without reducing it, in their blocking,
/// non-blocking (`osu_i*`) and persistent (`*_persistent`) forms.
fn takes_derived(name: &str) -> bool {
    let kind = osu::program(name).map(|p| p.kind);
    let base = name.trim_end_matches("_persistent");
    let base = match (kind, base.strip_prefix("osu_i")) {
        (Some(Kind::NonBlocking), Some(rest)) => format!("osu_{rest}"),
        _ => base.to_string(),
    };
    matches!(
        kind,
        Some(Kind::Latency | Kind::Bandwidth { .. } | Kind::MessageRate)
    ) || matches!(
        base.as_str(),
        "osu_allgather"
            | "osu_allgatherv"
            | "osu_alltoall"
            | "osu_alltoallv"
            | "osu_bcast"
            | "osu_gather"
            | "osu_gatherv"
            | "osu_scatter"
            | "osu_scatterv"
    )
}

/// Flags whose value is the next word.
const VALUED: &[char] = &[
    'm', 'i', 'x', 'W', 'M', 'b', 'T', 'D', 'k', 't', 'p', 'R', 'w', 's', 'N', 'd', 'G', 'u', 'a',
];

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
    let kind = osu::program(name).map(|p| p.kind);
    let (dmin, dmax) = match kind {
        Some(Kind::Latency) => (0, 1 << 22),
        Some(Kind::Collective | Kind::NonBlocking) => (1, 1 << 20),
        _ => (1, 1 << 22),
    };
    let mut flags: Vec<(char, Option<String>)> = Vec::new();
    let mut rest: Vec<String> = Vec::new();
    let mut it = params.iter().peekable();
    while let Some(t) = it.next() {
        if t.starts_with("--")
            || t == "-n"
            || t == "-q"
            || (t.starts_with("-n") && t[2..].chars().all(|c| c.is_ascii_digit()))
        {
            rest.push(t.clone());
            if t == "-n" {
                if let Some(v) = it.next() {
                    rest.push(v.clone());
                }
            } else if t.starts_with("--") && !t.contains('=') {
                // An mpibench option that takes a value keeps it.
                let (_, opts) = super::split_options(&[t.clone(), "x".into()]);
                if opts.len() == 2 {
                    if let Some(v) = it.next() {
                        rest.push(v.clone());
                    }
                }
            }
            continue;
        }
        let Some(body) = t.strip_prefix('-').filter(|b| !b.is_empty()) else {
            return Err(format!(
                "unexpected argument '{t}' for {name} (OSU flags start with '-'; see -h)"
            ));
        };
        let c = body.chars().next().expect("non-empty");
        let attached = &body[c.len_utf8()..];
        if c == 'z' {
            let v = if !attached.is_empty() {
                Some(attached.to_string())
            } else if it.peek().is_some_and(|n| percentiles(n).is_ok()) {
                it.next().cloned()
            } else {
                None
            };
            flags.push(('z', v));
        } else if VALUED.contains(&c) {
            let v = if attached.is_empty() {
                it.next()
                    .cloned()
                    .ok_or_else(|| format!("option requires an argument -- '{c}'"))?
            } else {
                attached.trim_start_matches('=').to_string()
            };
            flags.push((c, Some(v)));
        } else if attached.is_empty() && "fchvVIPl".contains(c) {
            flags.push((c, None));
        } else {
            return Err(format!("invalid option -- '{}' (see {name} -h)", body));
        }
    }
    if flags.iter().any(|(c, _)| *c == 'h') {
        return Ok(Action::Help(name.to_string()));
    }
    if flags.iter().any(|(c, _)| *c == 'v') {
        return Ok(Action::Version(format!(
            "# OSU MPI Micro-Benchmarks v{VERSION} (mpibench {})",
            env!("CARGO_PKG_VERSION")
        )));
    }
    // A library without MPI-4 persistent collectives: one line, exit 2.
    if let Some(why) = osu::pcoll::refused(name) {
        return Err(why);
    }
    let (_, opts) = super::split_options(&rest);
    let mut args = super::parse_options(&opts)?;
    args.suite = Some(osu::SUITE.to_string());
    args.table = Some("osu".to_string());
    args.quiet = true;
    let mut notes = Vec::new();
    let (mut min, mut max) = (dmin, dmax);
    let one_sided = osu::rma::find(name);
    let window_kind = matches!(
        kind,
        Some(Kind::Bandwidth { .. } | Kind::MessageRate | Kind::OneSided { bw: true })
    );
    let not_here = |what: &str| Err(format!("{what} is not supported by this build of mpibench"));
    let mut types: Vec<Datatype> = Vec::new();
    let mut derived: Option<String> = None;
    let pairs_kind = name == "osu_mbw_mr" || name == "osu_multi_lat";
    for (c, v) in &flags {
        let v = v.as_deref().unwrap_or("");
        let flag = format!("-{c}");
        match c {
            'm' => (min, max) = sizes(v, dmin, dmax)?,
            'i' => args.iter = Some(number::<usize>(&flag, v, 1, "iterations >= 1")?),
            'x' => args.warmup = Some(number::<usize>(&flag, v, 0, "warm-up iterations >= 0")?),
            'W' if window_kind => {
                args.osu.osu_window = Some(number::<usize>(&flag, v, 1, "window size >= 1")?)
            }
            'W' => {
                return Err(format!(
                    "-W applies to the windowed bandwidth programs, not {name}"
                ))
            }
            'M' => args.buffer_bytes = Some(number::<u64>(&flag, v, 1, "bytes per process")?),
            'b' => match v {
                "single" => {}
                "multiple" => args.osu.osu_multiple_buffers = true,
                _ => {
                    return Err(format!(
                        "invalid argument '{v}' for -b (single or multiple)"
                    ))
                }
            },
            'f' => args.osu.osu_full = true,
            'c' => args.check = true,
            'z' => {
                args.osu.osu_tail = if v.is_empty() {
                    vec![50.0, 90.0, 99.0]
                } else {
                    percentiles(v)?
                };
            }
            't' => args.osu.osu_tests = Some(number::<usize>(&flag, v, 0, "MPI_Test calls >= 0")?),
            'k' => match v {
                "rotate" => args.root_shift = true,
                "fixed:0" => {}
                _ if v.starts_with("fixed:") && v[6..].parse::<usize>().is_ok() => {
                    return not_here(&format!("-k {v} (a root other than rank 0)"))
                }
                _ => return Err(format!("invalid argument '{v}' for -k (fixed:N or rotate)")),
            },
            'R' => match v {
                "1" => {}
                "0" => args.osu.osu_no_rate = true,
                _ => return Err(format!("invalid argument '{v}' for -R (0 or 1)")),
            },
            'T' if !takes_types(name) => {
                return Err(format!(
                    "invalid option -- 'T' ({name} takes no -T in OMB 7.4)"
                ))
            }
            'T' => {
                let list = Datatype::from_osu(v).ok_or_else(|| {
                    format!("invalid argument '{v}' for -T (mpi_char, mpi_int, mpi_float or all)")
                })?;
                types.extend(list);
            }
            'D' if !takes_derived(name) => {
                return Err(format!(
                    "invalid option -- 'D' ({name} takes no -D in OMB 7.4)"
                ))
            }
            'D' => {
                // cont and vect are checked here; rank 0 reads an index file.
                let indx = v.len() > 5 && v.get(..5).is_some_and(|p| p.eq_ignore_ascii_case("indx:"));
                if !indx {
                    Derived::parse(v)?;
                }
                derived = Some(v.to_string());
            }
            'd' => {
                return not_here(&format!(
                    "-d {v} (accelerator buffers: this build has no CUDA, OpenACC or ROCm)"
                ))
            }
            'I' => return not_here("-I (MPI-4 sessions: mpibench initialises MPI with MPI_Init)"),
            'P' => return not_here("-P (PAPI counters: this build has no PAPI)"),
            'N' if !osu::neighbor::is_neighbour(name) => {
                return Err(format!(
                    "-N applies to the neighbourhood programs (osu_neighbor_*, osu_ineighbor_*), not {name}"
                ))
            }
            'N' => {
                osu::neighbor::Spec::parse(v)?;
                args.osu.osu_topology = Some(v.to_string());
            }
            'p' if pairs_kind => {
                args.osu.osu_pairs = Some(number::<usize>(&flag, v, 1, "pairs >= 1")?)
            }
            'p' => {
                return Err(format!(
                    "-p applies to osu_mbw_mr and osu_multi_lat, not {name}"
                ))
            }
            'V' if name == "osu_mbw_mr" => args.osu.osu_vary_window = true,
            'V' => return Err(format!("-V applies to osu_mbw_mr, not {name}")),
            'G' => {
                graph_types(v)?;
                args.plots = Some(".".into());
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
            'w' | 's' if one_sided.is_none() => {
                return Err(format!(
                    "-{c} applies to the one-sided programs, not {name}"
                ))
            }
            'w' => {
                args.osu.osu_win = Some(WindowKind::from_name(v).ok_or_else(|| {
                    format!("invalid argument '{v}' for -w (create, allocate or dynamic)")
                })?)
            }
            's' => {
                let s = OsuSync::from_name(v).ok_or_else(|| {
                    format!("invalid argument '{v}' for -s (pscw, fence, lock, flush, flush_local or lock_all)")
                })?;
                if one_sided.is_some_and(|p| !p.allows(s)) {
                    return Err(format!("-s {v} does not apply to {name} (fence or pscw)"));
                }
                args.osu.osu_sync = Some(s);
            }
            'l' => notes.push(
                "-l: MPI_IN_PLACE is not used here; send and receive buffers stay separate"
                    .to_string(),
            ),
            _ => return Err(format!("invalid option -- '{c}' (see {name} -h)")),
        }
    }
    if derived.is_some() && args.check {
        // OMB: "Derived data type does not support validation".
        return Err(
            "-D cannot be combined with -c: derived data types are not validated (as OSU)".into(),
        );
    }
    if types.iter().any(|&t| t != Datatype::Char) && one_sided.is_some() {
        return not_here("-T other than mpi_char for the one-sided programs");
    }
    if types.iter().any(|&t| t != Datatype::Char) || derived.is_some() {
        args.datatype = types;
    }
    args.derived = derived;
    if args.osu.osu_vary_window && args.osu.osu_window.is_some() {
        return Err("-V (vary the window size) cannot be used with -W".into());
    }
    if !args.osu.osu_tail.is_empty() && matches!(kind, Some(Kind::Latency | Kind::Bandwidth { .. }))
    {
        // Tail percentiles need a clock pair per iteration (back to back, one sync).
        args.timing.get_or_insert(Method::PerCallOnce);
    }
    let barrier = ["osu_barrier", "osu_ibarrier", "osu_barrier_persistent"].contains(&name);
    let sizes = if barrier || kind == Some(Kind::Atomic) {
        vec![0]
    } else {
        size_list(min, max)
    };
    if sizes.is_empty() {
        return Err(format!("-m {min}:{max} leaves no message size"));
    }
    args.sizes = Some(
        sizes
            .iter()
            .map(usize::to_string)
            .collect::<Vec<_>>()
            .join(","),
    );
    args.benchmarks = vec![name.to_string()];
    let mut calling = vec![argv0.to_string()];
    calling.extend(params.iter().cloned());
    args.frontend = Some(calling.join(" "));
    if osu::STARTUP.contains(&name) {
        return Ok(Action::Startup(name, Box::new(args)));
    }
    Ok(Action::Run(Box::new(args), notes))
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
            let (lo, hi, avg) = crate::stats::min_max_avg(&all);
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
    fn the_fixtures_command_lines_parse() {
        let a = run("osu_latency", "-m 0:4096");
        assert_eq!(
            a.sizes.as_deref(),
            Some("1,2,4,8,16,32,64,128,256,512,1024,2048,4096")
        );
        assert_eq!(a.table.as_deref(), Some("osu"));
        assert_eq!(a.benchmarks, ["osu_latency"]);
        let a = run("osu_latency", "-c -m 1:256");
        assert!(a.check);
        let a = run("osu_bw", "-z -m 1:1024");
        assert_eq!(a.osu.osu_tail, [50.0, 90.0, 99.0]);
        assert_eq!(a.timing, Some(Method::PerCallOnce));
    }

    #[test]
    fn defaults_and_flags() {
        let a = run("osu_bw", "");
        assert!(a.sizes.as_deref().unwrap().ends_with(",4194304"));
        assert!(a.sizes.as_deref().unwrap().starts_with("1,2,"));
        let a = run("osu_allreduce", "-f -m 4:4096 -i 10 -x 2");
        assert!(a.osu.osu_full);
        assert_eq!((a.iter, a.warmup), (Some(10), Some(2)));
        assert_eq!(
            a.sizes.as_deref(),
            Some("4,8,16,32,64,128,256,512,1024,2048,4096")
        );
        let a = run("osu_bcast", "");
        assert!(a.sizes.as_deref().unwrap().ends_with(",1048576"));
        let a = run("osu_iallreduce", "-f -t 4 -m 4:1024");
        assert_eq!(a.osu.osu_tests, Some(4));
        let a = run("osu_mbw_mr", "-W 16 -R 0 -b multiple");
        assert_eq!(a.osu.osu_window, Some(16));
        assert!(a.osu.osu_no_rate && a.osu.osu_multiple_buffers);
        let a = run("osu_bcast", "-k rotate -m 8 -z90,99");
        assert!(a.root_shift);
        assert_eq!(a.osu.osu_tail, [90.0, 99.0]);
        assert_eq!(a.sizes.as_deref(), Some("1,2,4,8"));
        let a = run("osu_barrier", "-f");
        assert_eq!(a.sizes.as_deref(), Some("0"));
        let a = run("osu_get_bw", "-w create -s fence -m 1:4096");
        assert_eq!(a.osu.osu_win, Some(WindowKind::Create));
        assert_eq!(a.osu.osu_sync, Some(OsuSync::Fence));
        let a = run("osu_cas_latency", "");
        assert_eq!(a.sizes.as_deref(), Some("0"));
        // -G takes OSU's graph types and writes SVG here; -l takes no value.
        let a = run("osu_latency", "-G png,tty -m 1:8");
        assert_eq!(a.plots.as_deref(), Some(std::path::Path::new(".")));
        let a = run("osu_allreduce", "-l -m 1:8");
        assert_eq!(a.sizes.as_deref(), Some("1,2,4,8"));
        // mpibench options mixed in.
        let a = run("osu_bw", "-m 1:8 --json r.json -n 2 --stats");
        assert_eq!(a.np, Some(2));
        assert!(a.stats);
        assert_eq!(a.json.as_deref(), Some(std::path::Path::new("r.json")));
        assert_eq!(size_list(3, 20), [3, 6, 12]);
    }

    #[test]
    fn bad_values_are_one_line_errors() {
        for (prog, args, want) in [
            ("osu_bw", "-m 8:4", "-m"),
            ("osu_bw", "-m x", "-m"),
            ("osu_bw", "-i 0", "-i"),
            ("osu_bw", "-x -1", "-x"),
            ("osu_bw", "-W 0", "-W"),
            ("osu_latency", "-W 4", "-W applies"),
            ("osu_bw", "-b double", "-b"),
            ("osu_bw", "-z150", "-z"),
            ("osu_bw", "-Q", "invalid option"),
            ("osu_put_latency", "-T mpi_int", "not supported"),
            ("osu_barrier", "-T mpi_int", "invalid option"),
            ("osu_allreduce", "-D cont", "invalid option"),
            ("osu_latency", "-D vect:4", "vect"),
            ("osu_latency", "-D vect:4:8", "vect"),
            ("osu_latency", "-D diag", "derived datatype"),
            ("osu_latency", "-c -D vect:8:4", "-c"),
            ("osu_bcast", "-D cont -c", "-c"),
            ("osu_bw", "-T long", "-T"),
            ("osu_bw", "-d cuda", "accelerator"),
            ("osu_bw", "-I", "sessions"),
            ("osu_bw", "-P", "PAPI"),
            ("osu_bcast", "-k sometimes", "-k"),
            ("osu_mbw_mr", "-R 2", "-R"),
            ("osu_latency", "-w create", "one-sided"),
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
            ("osu_bw", "--nosuch", "unexpected argument"),
        ] {
            let e = err(prog, args);
            assert!(e.contains(want), "{prog} {args}: {e}");
        }
    }

    #[test]
    fn types_and_derived_datatypes() {
        let a = run("osu_latency", "-T all -m 1:64");
        assert_eq!(a.datatype, Datatype::ALL);
        assert_eq!(a.derived, None);
        let a = run("osu_allreduce", "-T MPI_INT -T mpi_float");
        assert_eq!(a.datatype, [Datatype::Int, Datatype::Float]);
        // MPI_CHAR alone is OSU's default: nothing changes.
        let a = run("osu_bw", "-T mpi_char");
        assert!(a.datatype.is_empty());
        let a = run("osu_put_latency", "-T mpi_char");
        assert!(a.datatype.is_empty());
        let a = run("osu_bcast", "-D vect:8:4");
        assert_eq!(a.derived.as_deref(), Some("vect:8:4"));
        assert!(a.datatype.is_empty());
        let a = run("osu_latency", "-D indx:/some/file -T mpi_int");
        assert_eq!(a.derived.as_deref(), Some("indx:/some/file"));
        assert_eq!(a.datatype, [Datatype::Int]);
        let a = run("osu_iallgather", "-D cont");
        assert_eq!(a.derived.as_deref(), Some("cont"));
        for prog in [
            "osu_mbw_mr",
            "osu_multi_lat",
            "osu_bw_persistent",
            "osu_alltoallv",
            "osu_bcast_persistent",
            "osu_ialltoall",
        ] {
            assert!(run(prog, "-D vect:2:1").derived.is_some(), "{prog}");
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
        assert!(a.osu.osu_full && a.check);
        assert!(a.sizes.as_deref().unwrap().starts_with("4,8,"));
        let a = run("osu_bcast_persistent", "");
        assert!(a.sizes.as_deref().unwrap().ends_with(",1048576"));
        let a = run("osu_barrier_persistent", "-f");
        assert_eq!(a.sizes.as_deref(), Some("0"));
        assert!(err("osu_bcast_persistent", "-W 4").contains("-W applies"));
    }

    #[test]
    fn help_version_startup_personality() {
        assert!(matches!(
            parse("osu_bw", &v("-h"), "x").unwrap(),
            Action::Help(_)
        ));
        assert!(matches!(
            parse("osu_bw", &v("-v"), "x").unwrap(),
            Action::Version(_)
        ));
        assert!(matches!(
            parse("osu_init", &v(""), "x").unwrap(),
            Action::Startup("osu_init", _)
        ));
        assert_eq!(personality("/usr/bin/osu_bw").as_deref(), Some("osu_bw"));
        assert_eq!(known_program("osu_hello"), Some("osu_hello"));
        assert_eq!(known_program("IMB-MPI1"), None);
    }
}
