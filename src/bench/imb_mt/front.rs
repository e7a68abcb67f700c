//! IMB-MT 2021's own command line (`mpibench imb-mt ...`, a link named
//! `IMB-MT`): its flags are neither IMB-MPI1's nor IMB-P2P's.
//!
//! ```text
//! OMP_NUM_THREADS=2 mpirun -np 2 IMB-MT -thread_level multiple -count 1,8,64 -repeat 200 PingPongMT
//! ```

use super::kernel::{
    threads_from_env, ALGOS, ALGO_AXIS, ALIGN_AXIS, BARRIER_AXIS, ELEM_AXIS, STRIDE_AXIS,
    THREADS_AXIS, WARMUP_AXIS, WINDOW_AXIS,
};
use super::table::NOHEADER_AXIS;
use super::{benchmarks, SUITE};
use crate::bench::imb::front::{self as imb, Action, Family};
use crate::cli::{on_off, RunArgs};
use crate::contract::axis::Axes;
use crate::plugin::normalise;

/// IMB-MT's flags that take a value.
const VALUED: &[&str] = &[
    "-thread_level",
    "-count",
    "-datatype",
    "-repeat",
    "-warmup",
    "-window_size",
    "-stride",
    "-barrier",
    "-malloc_align",
    "-malloc_algo",
    "-check",
    "-input",
    "-include",
    "-exclude",
    "-dump",
    "-load",
];

/// IMB-MT's default -count.
const DEFAULT_COUNTS: [usize; 4] = [1, 2, 4, 8];
/// The largest -malloc_align.
const MAX_ALIGN: usize = 1 << 20;

/// A whole number of at least `min` (IMB-MT's int options).
fn int(flag: &str, v: &str, min: usize, what: &str) -> Result<usize, String> {
    v.trim()
        .parse::<usize>()
        .ok()
        .filter(|&n| n >= min && n <= i32::MAX as usize)
        .ok_or_else(|| format!("invalid {flag} argument '{v}' ({what})"))
}

/// `-count 1,8,64`: element counts.
fn counts(v: &str) -> Result<Vec<usize>, String> {
    v.split(',')
        .map(|t| {
            int(
                "-count",
                t,
                0,
                "element counts separated by commas, e.g. 1,8,64",
            )
        })
        .collect::<Result<Vec<_>, _>>()
        .map_err(|_| {
            format!(
                "invalid -count argument '{v}' (element counts separated by commas, e.g. 1,8,64)"
            )
        })
}

/// Comma-separated names (-include, -exclude).
fn names(v: &str) -> Vec<String> {
    v.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

/// The settings of IMB-MT's flags, before they become a run.
#[derive(Debug)]
struct Flags {
    multiple: bool,
    counts: Vec<usize>,
    esize: usize,
    check: Option<bool>,
}

/// The run IMB-MT's command line asks for.
pub fn parse(f: &Family, params: &[String], argv0: &str) -> Result<Action, String> {
    if imb::wants_help(params) {
        return Ok(Action::Help);
    }
    let flags = imb::split_flags(f, params, VALUED, &["-noheader"])?;
    if flags.list {
        return Ok(Action::List);
    }
    let noheader = !flags.switches.is_empty();
    let own = flags.valued;
    let rest = flags.rest;
    let (mut requested, opts) = crate::frontend::split_options(&rest);
    let mut args = crate::frontend::parse_options(&opts)?;
    args.suite = Some(f.suite.to_string());
    args.front.table = Some(f.table.to_string());
    // As IMB-MT: no progress lines.
    args.quiet = true;
    let mut fl = Flags {
        multiple: false,
        counts: DEFAULT_COUNTS.to_vec(),
        esize: 4,
        check: None,
    };
    let (mut include, mut exclude) = (Vec::new(), Vec::new());
    let mut ax: Vec<(&str, usize)> = Vec::new();
    let mut axis = |name: &'static str, v: usize| ax.push((name, v));
    for (flag, v) in &own {
        let v = v.as_str();
        match flag.as_str() {
            "-thread_level" => match v {
                "multiple" => fl.multiple = true,
                "single" | "funneled" | "serialized" | "nompiinit" | "nompinit" => {}
                _ => {
                    return Err(format!(
                        "invalid -thread_level argument '{v}' (single, funneled, serialized, multiple or nompiinit)"
                    ))
                }
            },
            "-count" => fl.counts = counts(v)?,
            "-datatype" => {
                fl.esize = match v {
                    "int" => 4,
                    "char" => 1,
                    _ => return Err(format!("invalid -datatype argument '{v}' (int or char)")),
                }
            }
            "-repeat" => {
                let n = int(flag, v, 1, "timed repetitions, at least 1")?;
                args.reps.iter = Some(n);
                crate::frontend::spelled(&mut args, "--iter", "-repeat");
            }
            "-warmup" => axis(WARMUP_AXIS, int(flag, v, 0, "untimed repetitions")?),
            "-window_size" => axis(
                WINDOW_AXIS,
                crate::cli::window_size(v).map_err(|_| {
                    format!(
                        "invalid -window_size argument '{v}' (messages per window, 1 to {})",
                        crate::cli::MAX_IMB_WINDOW
                    )
                })?,
            ),
            "-stride" => axis(
                STRIDE_AXIS,
                int(flag, v, 0, "distance between the ranks of a pair; 0: half")?,
            ),
            "-barrier" => axis(
                BARRIER_AXIS,
                match v {
                    "off" => 0,
                    "on" => 1,
                    "special" => 2,
                    _ => return Err(format!("invalid -barrier argument '{v}' (on, off or special)")),
                },
            ),
            "-malloc_align" => {
                let n = int(flag, v, 1, "bytes")?;
                if n > MAX_ALIGN {
                    return Err(format!("invalid -malloc_align argument '{v}' (1 to {MAX_ALIGN} bytes)"));
                }
                axis(ALIGN_AXIS, n);
            }
            "-malloc_algo" => axis(
                ALGO_AXIS,
                ALGOS.iter().position(|a| *a == v).ok_or_else(|| {
                    format!("invalid -malloc_algo argument '{v}' (serial, continuous or parallel)")
                })?,
            ),
            "-check" => {
                fl.check = Some(match v.to_ascii_lowercase().as_str() {
                    "true" => true,
                    "false" => false,
                    _ => on_off(v).map_err(|_| {
                        format!("invalid -check argument '{v}' (on, off, true, false, yes, no, 1, 0)")
                    })?,
                })
            }
            "-input" => {
                requested.extend(imb::input(v)?);
                args.front.read_files.push(("-input", v.into()));
            }
            "-include" => include.extend(names(v)),
            "-exclude" => exclude.extend(names(v)),
            _ => {
                return Err(format!(
                    "{flag} is not supported by mpibench (IMB's YAML configurations)"
                ))
            }
        }
    }
    args.front
        .front_axes
        .extend(ax.into_iter().map(|(n, v)| (n.to_string(), v as f64)));
    finish(f, &mut args, &fl, noheader)?;
    args.benchmarks = benchmark_list(f, &requested, &include, &exclude)?;
    args.front.frontend = crate::frontend::calling(argv0, params);
    Ok(Action::Run(Box::new(args), Vec::new()))
}

/// The flags that depend on each other: threads, lengths, validation.
fn finish(
    f: &Family,
    args: &mut crate::cli::RunArgs,
    fl: &Flags,
    noheader: bool,
) -> Result<(), String> {
    let mut axis = |name: &str, v: usize| args.front.front_axes.push((name.into(), v as f64));
    // IMB-MT: OMP_NUM_THREADS threads under -thread_level multiple, else one.
    axis(
        THREADS_AXIS,
        if fl.multiple { threads_from_env()? } else { 1 },
    );
    axis(ELEM_AXIS, fl.esize);
    if noheader {
        axis(NOHEADER_AXIS, 1);
    }
    if fl.check == Some(true) {
        if fl.esize != 4 {
            return Err(format!(
                "{}: only the int data type is supported with -check",
                f.program
            ));
        }
        args.check = true;
    }
    let sizes: Vec<usize> = fl
        .counts
        .iter()
        .map(|&c| {
            c.checked_mul(fl.esize)
                .filter(|&b| b <= i32::MAX as usize)
                .ok_or_else(|| format!("invalid -count argument: {c} elements are too many"))
        })
        .collect::<Result<_, _>>()?;
    args.sweep.msglog = None;
    args.sweep.sizes = crate::frontend::sizes_arg(&sizes);
    Ok(())
}

/// IMB's list: the included ones first, then the named ones (or all), without
/// the excluded ones; names case-insensitive, separated by spaces or commas.
fn benchmark_list(
    f: &Family,
    requested: &[String],
    include: &[String],
    exclude: &[String],
) -> Result<Vec<String>, String> {
    let all: Vec<&'static str> = benchmarks().iter().map(|b| b.info().name).collect();
    let canonical = |n: &str| -> Result<String, String> {
        all.iter()
            .find(|a| normalise(a) == normalise(n))
            .map(|a| a.to_string())
            .ok_or_else(|| {
                format!(
                    "unknown {} benchmark '{n}' (one of: {})",
                    f.program,
                    all.join(", ")
                )
            })
    };
    let split = |v: &[String]| -> Result<Vec<String>, String> {
        v.iter()
            .flat_map(|n| n.split(','))
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .map(canonical)
            .collect()
    };
    let named = split(requested)?;
    let base = if named.is_empty() {
        all.iter().map(|n| n.to_string()).collect()
    } else {
        named
    };
    let out = split(exclude)?;
    let mut list: Vec<String> = Vec::new();
    for n in split(include)?.into_iter().chain(base) {
        if !list.contains(&n) && !out.contains(&n) {
            list.push(n);
        }
    }
    if list.is_empty() {
        return Err("-exclude leaves no benchmark to run".into());
    }
    Ok(list)
}

/// IMB-MT's command line.
pub static FAMILY: Family = Family {
    program: "IMB-MT",
    subcommand: SUITE,
    suite: SUITE,
    table: SUITE,
    list_heading: "IMB-MT",
    help: "IMB-MT 2021 arguments (IMB-MT's own spelling, one dash):
  benchmark[,benchmark ...]   benchmarks to run (case-insensitive; default: all ten)
  -thread_level LEVEL         single, funneled, serialized, multiple or nompiinit; multiple runs
                              OMP_NUM_THREADS threads per rank (default single: one)
  -count N[,N ...]            message lengths in elements (default 1,2,4,8)
  -datatype int|char          element type: MPI_INT (4 bytes) or MPI_CHAR (default int)
  -repeat N                   timed repetitions per length and thread (default 1000)
  -warmup N                   untimed repetitions before them (default 100)
  -window_size N              messages per window of UniBandMT and BiBandMT (default 64)
  -stride S                   pairs r <-> r + S; 0: half the ranks (default 0)
  -barrier on|off|special     between timed parts: MPI_Barrier, none, or a dissemination of
                              zero-byte MPI_Sendrecv (default on)
  -malloc_align N             buffers start at a multiple of N bytes (default 64)
  -malloc_algo ALGO           serial, continuous or parallel (default serial)
  -check on|off               validate every message (as mpibench --check; default off)
  -noheader                   no banner
  -input FILE                 benchmark names from FILE, one per line
  -include B1[,B2 ...]        run these besides the named ones
  -exclude B1[,B2 ...]        leave these out
  -list                       list the benchmarks and exit
  -h, -help                   this help

Benchmarks: PingPongMT PingPingMT SendRecvMT ExchangeMT UniBandMT BiBandMT BarrierMT BcastMT
  ReduceMT AllReduceMT, each thread on its own duplicate of MPI_COMM_WORLD (MPI_THREAD_MULTIPLE):
  t_min, t_max, t_avg over every thread of every rank that took part; #bytes = count x element
  size x threads; Mbytes/sec counts 10^6 bytes.
mpibench options may be mixed in: -n N (self-launch), --json FILE, --csv FILE, --check, --stats.
Example: OMP_NUM_THREADS=2 mpirun -np 2 mpibench imb-mt -thread_level multiple -count 1,64 -repeat 200",
    parse,
    list: crate::bench::imb::front::list,
    modes: false,
    listed: None,
};

/// The suite's axes: the threads per rank from OMP_NUM_THREADS where the
/// front end did not set them, and MPI_THREAD_MULTIPLE or a one-line refusal.
pub(super) fn axes(
    args: &RunArgs,
    involved: bool,
    _world: usize,
    _mem: u64,
) -> Result<Axes, String> {
    let mut a = Axes::new();
    if !involved {
        return Ok(a);
    }
    if let Some(level) = crate::comm::threads::not_multiple() {
        return Err(refusal(&level));
    }
    if !args.front.front_axes.iter().any(|(n, _)| n == THREADS_AXIS) {
        a.insert(THREADS_AXIS.into(), vec![threads_from_env()? as f64]);
    }
    Ok(a)
}

/// The one line of a library without MPI_THREAD_MULTIPLE.
pub(super) fn refusal(level: &str) -> String {
    format!(
        "IMB-MT: MPI_Init_thread did not give MPI_THREAD_MULTIPLE (this MPI library gave {level}); IMB-MT's threads need it"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_imb_mt_flag_is_taken() {
        imb::takes_every_flag(
            &FAMILY,
            &[
                "-thread_level multiple",
                "-thread_level single",
                "-count 1,8,64",
                "-datatype int",
                "-datatype char",
                "-repeat 10",
                "-warmup 2",
                "-window_size 8",
                "-stride 0",
                "-barrier on",
                "-barrier off",
                "-barrier special",
                "-malloc_align 64",
                "-malloc_algo serial",
                "-malloc_algo continuous",
                "-malloc_algo parallel",
                "-check on",
                "-check false",
                "-include PingPongMT",
                "-exclude BcastMT PingPongMT",
                "-input {input}",
                "-noheader",
            ],
            &[("-dump x.yaml", "-dump"), ("-load x.yaml", "-load")],
            "PingPongMT",
        );
    }

    fn run(s: &str) -> Result<crate::cli::RunArgs, String> {
        imb::run_of(&FAMILY, s)
    }

    fn axis(a: &crate::cli::RunArgs, name: &str) -> Option<f64> {
        a.front
            .front_axes
            .iter()
            .find(|(n, _)| n == name)
            .map(|x| x.1)
    }

    #[test]
    fn the_fixtures_command_line_parses() {
        let a = run("-thread_level single -count 1,8,64,512,4096 -repeat 200").unwrap();
        assert_eq!(a.sweep.sizes.as_deref(), Some("4,32,256,2048,16384"));
        assert_eq!(a.reps.iter, Some(200));
        assert_eq!(a.benchmarks.len(), 10);
        assert_eq!(a.benchmarks[0], "PingPongMT");
        assert_eq!(a.benchmarks[9], "AllReduceMT");
        assert_eq!(axis(&a, THREADS_AXIS), Some(1.0));
        assert_eq!(a.front.table.as_deref(), Some("imb-mt"));
        assert!(a.quiet && !a.check);
        // Defaults: 1, 2, 4, 8 ints; IMB-MT's repetitions come from the suite.
        let a = run("").unwrap();
        assert_eq!(a.sweep.sizes.as_deref(), Some("4,8,16,32"));
        assert_eq!(a.reps.iter, None);
    }

    #[test]
    fn every_flag() {
        let a = run(
            "-datatype char -count 3,5 -warmup 0 -window_size 8 -stride 1 -barrier special \
             -malloc_align 128 -malloc_algo continuous -noheader -include BarrierMT \
             -exclude pingpingmt pingpongmt,PINGPINGMT bcastmt",
        )
        .unwrap();
        assert_eq!(a.sweep.sizes.as_deref(), Some("3,5"));
        assert_eq!(a.benchmarks, ["BarrierMT", "PingPongMT", "BcastMT"]);
        for (name, want) in [
            (ELEM_AXIS, 1.0),
            (WARMUP_AXIS, 0.0),
            (WINDOW_AXIS, 8.0),
            (STRIDE_AXIS, 1.0),
            (BARRIER_AXIS, 2.0),
            (ALIGN_AXIS, 128.0),
            (ALGO_AXIS, 1.0),
            (NOHEADER_AXIS, 1.0),
        ] {
            assert_eq!(axis(&a, name), Some(want), "{name}");
        }
        assert!(run("-check on").unwrap().check);
        assert!(!run("-check false").unwrap().check);
        // mpibench options mixed in.
        let a = run("-n 3 --check ExchangeMT").unwrap();
        assert_eq!((a.launch.np, a.check), (Some(3), true));
        assert_eq!(a.benchmarks, ["ExchangeMT"]);
    }

    #[test]
    fn bad_input_is_one_line() {
        for (line, says) in [
            ("-thread_level many", "invalid -thread_level"),
            ("-count 1,x", "invalid -count"),
            ("-count -1", "invalid -count"),
            ("-count 1000000000", "too many"),
            ("-datatype float", "invalid -datatype"),
            ("-repeat 0", "invalid -repeat"),
            ("-warmup x", "invalid -warmup"),
            ("-window_size 0", "invalid -window_size"),
            ("-stride -1", "invalid -stride"),
            ("-barrier maybe", "invalid -barrier"),
            ("-malloc_align 0", "invalid -malloc_align"),
            ("-malloc_align 4194304", "invalid -malloc_align"),
            ("-malloc_algo fast", "invalid -malloc_algo"),
            ("-check perhaps", "invalid -check"),
            ("-check on -datatype char", "only the int data type"),
            ("-mode multiple", "unknown IMB-MT flag '-mode'"),
            ("-npmin 2", "unknown IMB-MT flag '-npmin'"),
            ("-dump x.yaml", "-dump is not supported"),
            ("PingPong", "unknown IMB-MT benchmark 'PingPong'"),
            ("-exclude PingPongMT,PingPingMT,SendRecvMT,ExchangeMT,UniBandMT,BiBandMT,BarrierMT,BcastMT,ReduceMT,AllReduceMT", "no benchmark"),
            ("-input /nonexistent/x", "cannot read"),
            ("-repeat", "missing argument"),
        ] {
            let e = run(line).unwrap_err();
            assert!(e.contains(says), "{line}: {e}");
            assert!(!e.contains('\n'), "{e}");
        }
    }

    #[test]
    fn help_and_list() {
        let f = &FAMILY;
        let one = |w: &str| parse(f, &[w.to_string()], "x");
        assert!(matches!(one("-help"), Ok(Action::Help)));
        assert!(matches!(one("-list"), Ok(Action::List)));
        let l = (f.list)(f);
        assert!(
            l.starts_with("IMB-MT\nList of benchmarks:\nIMB-MT:\n    AllReduceMT\n    BarrierMT\n"),
            "{l}"
        );
    }

    #[test]
    fn a_suite_not_in_the_run_has_no_axes() {
        let a = axes(&RunArgs::default(), false, 2, 1 << 30).unwrap();
        assert!(a.is_empty());
    }
}
