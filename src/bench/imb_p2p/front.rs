//! IMB-P2P 2021's own command line (`mpibench imb-p2p ...`, a link named
//! `IMB-P2P`): its flags are not IMB-MPI1's.
//!
//! ```text
//! mpirun -np 4 IMB-P2P -iter 1000,100 -msglog 3:20 -pause 0 PingPong Stencil2D
//! ```

use super::kernel::{MSGRD_AXIS, MSGWR_AXIS, PAUSE_AXIS};
use super::{benchmarks, SUITE};
use crate::bench::imb::front::{self as imb, Action, Family};
use crate::cli::on_off;
use crate::plugin::normalise;

/// IMB_P2P_MAX_MSG_LOG: the largest -msglog exponent.
const MAX_LOG: u32 = 47;
/// IMB-P2P's length suffixes and its largest length (below 2^47).
const SUFFIXES: [char; 3] = ['k', 'm', 'g'];
const LARGEST: usize = (1 << MAX_LOG) - 1;
/// IMB-P2P's default lengths: 0 and 1 .. 4 MiB.
const DEFAULT_MAX_LOG: u32 = 22;
/// -iter's defaults: at most 100000 iterations, and 800 MiB / X.
const ITER_MAX: usize = 100_000;
const ITER_NUMERATOR_MIB: usize = 800;
/// The longest -pause (IMB-P2P has none; a pause beyond it looks like a hang).
const MAX_PAUSE_US: i64 = 10_000_000;

/// IMB-P2P's flags that take a value.
const VALUED: &[&str] = &[
    "-iter", "-msglen", "-msglog", "-msgsz", "-msgwr", "-msgrd", "-pause",
];

/// A length with IMB-P2P's suffixes (k, m, g: KiB, MiB, GiB).
fn length(t: &str) -> Option<usize> {
    imb::length(t, &SUFFIXES, LARGEST)
}

/// `-msglog n` (0, 1, 2, 4 .. 2^n) or `-msglog k:n` (2^k .. 2^n).
fn msglog(v: &str) -> Result<Vec<usize>, String> {
    let bad =
        || format!("invalid -msglog argument '{v}' (n or k:n, with 0 <= k <= n <= {MAX_LOG})");
    let num = |t: &str| {
        t.trim()
            .parse::<u32>()
            .ok()
            .filter(|&e| e <= MAX_LOG)
            .ok_or_else(bad)
    };
    match v.split_once(':') {
        Some((k, n)) => {
            let (k, n) = (num(k)?, num(n)?);
            if k > n {
                return Err(bad());
            }
            Ok((k..=n).map(|e| 1usize << e).collect())
        }
        None => {
            let n = num(v)?;
            Ok(std::iter::once(0)
                .chain((0..=n).map(|e| 1usize << e))
                .collect())
        }
    }
}

fn switch(flag: &str, v: &str) -> Result<bool, String> {
    match v.to_ascii_lowercase().as_str() {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => on_off(v).map_err(|_| {
            format!("invalid {flag} argument '{v}' (false, true, 0, 1, off, on, disable, enable, no, yes)")
        }),
    }
}

/// IMB-P2P's `-iter max` or `-iter max,numerator` (numerator in MiB).
fn iter(v: &str) -> Result<(usize, usize), String> {
    let bad = || format!("invalid -iter argument '{v}' (max or max,numerator: positive integers)");
    let ints: Vec<usize> = v
        .split(',')
        .map(|t| t.trim().parse::<usize>().ok().filter(|&n| n >= 1))
        .collect::<Option<_>>()
        .ok_or_else(bad)?;
    match ints[..] {
        [max] => Ok((max, ITER_NUMERATOR_MIB)),
        [max, num] => Ok((max, num)),
        _ => Err(bad()),
    }
}

/// The run IMB-P2P's command line asks for.
pub fn parse(f: &Family, params: &[String], argv0: &str) -> Result<Action, String> {
    if params
        .iter()
        .any(|p| p == "-h" || p == "-help" || p == "--help")
    {
        return Ok(Action::Help);
    }
    let mut own: Vec<(String, String)> = Vec::new();
    let mut rest: Vec<String> = Vec::new();
    let mut it = params.iter();
    while let Some(t) = it.next() {
        let flag = t.to_ascii_lowercase();
        if VALUED.contains(&flag.as_str()) {
            let v = it
                .next()
                .ok_or_else(|| format!("missing argument after \"{t}\""))?;
            own.push((flag, v.clone()));
        } else if flag == "-list" || flag == "-l" {
            return Ok(Action::List);
        } else if imb::is_unknown_flag(t) {
            return Err(format!(
                "unknown {} flag '{t}' (see mpibench {} -h)",
                f.program, f.subcommand
            ));
        } else {
            rest.push(t.clone());
        }
    }
    let (requested, opts) = crate::frontend::split_options(&rest);
    let mut args = crate::frontend::parse_options(&opts)?;
    args.suite = Some(f.suite.to_string());
    args.front.table = Some(f.table.to_string());
    // As IMB-P2P: no progress lines.
    args.quiet = true;
    let (mut max, mut numerator) = (ITER_MAX, ITER_NUMERATOR_MIB);
    let mut sizes: Option<Vec<usize>> = None;
    for (flag, v) in &own {
        let v = v.as_str();
        match flag.as_str() {
            "-iter" => {
                (max, numerator) = iter(v)?;
                crate::frontend::spelled(&mut args, "--max-iter", "-iter");
            }
            "-msglog" => sizes = Some(msglog(v)?),
            "-msglen" => {
                sizes = Some(imb::lengths_file(v, &SUFFIXES, LARGEST)?);
                args.front.read_files.push(("-msglen", v.into()));
            }
            // IMB-P2P: -msgsz adds a length to those given so far.
            "-msgsz" => sizes
                .get_or_insert_with(Vec::new)
                .push(length(v).ok_or_else(|| {
                    format!(
                    "invalid -msgsz argument '{v}' (a length in bytes, optionally with k, m or g)"
                )
                })?),
            "-msgwr" => args
                .front
                .front_axes
                .push((MSGWR_AXIS.into(), f64::from(u8::from(switch(flag, v)?)))),
            "-msgrd" => args
                .front
                .front_axes
                .push((MSGRD_AXIS.into(), f64::from(u8::from(switch(flag, v)?)))),
            _ => {
                // -pause: microseconds; below 0, no pause (IMB-P2P).
                let us: i64 = v.trim().parse().map_err(|_| {
                    format!(
                        "invalid -pause argument '{v}' (microseconds between lengths, an integer)"
                    )
                })?;
                if us > MAX_PAUSE_US {
                    return Err(format!(
                        "-pause {us}: at most {MAX_PAUSE_US} microseconds (10 s) before and after each length"
                    ));
                }
                args.front
                    .front_axes
                    .push((PAUSE_AXIS.into(), us.max(0) as f64));
            }
        }
    }
    if args.measure.max_iter.is_none() {
        args.measure.max_iter = Some(max);
    }
    if args.knobs.volume.is_none() {
        args.knobs.volume = Some(numerator.checked_mul(1 << 20).ok_or_else(|| {
            format!("invalid -iter argument: numerator {numerator} MiB is too large")
        })?);
    }
    let sizes = sizes.unwrap_or_else(|| {
        std::iter::once(0)
            .chain((0..=DEFAULT_MAX_LOG).map(|e| 1usize << e))
            .collect()
    });
    args.sweep.msglog = None;
    args.sweep.sizes = crate::frontend::sizes_arg(&sizes);
    args.benchmarks = benchmark_list(f, &requested)?;
    args.front.frontend = crate::frontend::calling(argv0, params);
    Ok(Action::Run(Box::new(args), Vec::new()))
}

/// The named benchmarks (case-insensitive, separated by spaces or commas),
/// in IMB-P2P's order of the command line, or all of them.
fn benchmark_list(f: &Family, requested: &[String]) -> Result<Vec<String>, String> {
    let all: Vec<&'static str> = benchmarks().iter().map(|b| b.info().name).collect();
    let mut list: Vec<String> = Vec::new();
    for n in requested.iter().flat_map(|n| n.split(',')).map(str::trim) {
        if n.is_empty() {
            continue;
        }
        let name = all
            .iter()
            .find(|a| normalise(a) == normalise(n))
            .ok_or_else(|| {
                format!(
                    "unknown {} benchmark '{n}' (one of: {})",
                    f.program,
                    all.join(", ")
                )
            })?;
        if !list.iter().any(|x| x == name) {
            list.push(name.to_string());
        }
    }
    if list.is_empty() {
        list = all.iter().map(|n| n.to_string()).collect();
    }
    Ok(list)
}

/// IMB-P2P's `-list`.
pub fn list(_: &Family) -> String {
    let mut out = format!(
        "{}\n#    Intel(R) MPI Benchmarks 2021.11, IMB-P2P part (mpibench)\n{}\n# List of Benchmarks to run:\n#\n",
        super::table::RULE60,
        super::table::RULE60
    );
    for b in benchmarks() {
        out.push_str(&format!("# {}\n", b.info().name));
    }
    out
}

/// IMB-P2P's command line.
pub static FAMILY: Family = Family {
    program: "IMB-P2P",
    subcommand: SUITE,
    suite: SUITE,
    table: SUITE,
    list_heading: "P2P",
    help: "IMB-P2P 2021 arguments (IMB-P2P's own spelling, one dash):
  benchmark[,benchmark ...]   benchmarks to run (case-insensitive; default: all eight)
  -iter MAX[,NUMERATOR]       iterations per length: NUMERATOR MiB / length, at most MAX, at
                              least 1 (default 100000,800)
  -msglog N | K:N             lengths 0, 1, 2, 4 .. 2^N, or 2^K .. 2^N (N <= 47; default 0 and
                              1 .. 4 MiB)
  -msglen FILE                lengths from FILE, one per line (suffixes k, m, g; # comments)
  -msgsz SIZE                 add a length (suffixes k, m, g); may be repeated
  -msgwr on|off               write every cache line of a buffer before sending it (default on)
  -msgrd on|off               read every cache line of a buffer after receiving it (default on)
  -pause US                   microseconds of sleep before and after each length (default 100000)
  -list                       list the benchmarks and exit
  -h, -help                   this help

Benchmarks: PingPong PingPing Unirandom Birandom Corandom Stencil2D Stencil3D SendRecv_Replace,
  all on every process: t[usec] = the ranks' time per message (PingPong: half a round trip),
  Mbytes/sec (10^6 bytes) and Msg/sec of all the messages over the slowest rank's time.
  PingPong and PingPing need an even process count, Stencil2D a P x Q grid and Stencil3D a
  P x Q x R grid (sides of 2 or more): otherwise IMB-P2P's \"invalid\" line.
mpibench options may be mixed in: -n N (self-launch), --json FILE, --csv FILE, --check, --stats.
Example: mpirun -np 4 mpibench imb-p2p -iter 1000,100 -msglog 0:16 -pause 0 Stencil2D",
    parse,
    list,
    modes: false,
    listed: None,
};

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    fn run(s: &str) -> Result<crate::cli::RunArgs, String> {
        match parse(&super::FAMILY, &v(s), "IMB-P2P")? {
            Action::Run(a, _) => Ok(*a),
            a => Err(format!("{a:?}")),
        }
    }

    #[test]
    fn every_imb_p2p_flag_is_taken() {
        crate::bench::imb::front::takes_every_flag(
            &super::FAMILY,
            &[
                "-iter 100",
                "-iter 100,40",
                "-msglog 10",
                "-msglog 2:10",
                "-msgsz 4k",
                "-msgsz 1m -msgsz 8",
                "-msgwr 1",
                "-msgrd 1",
                "-pause 10",
                "-msglen {msglen}",
                "PingPong",
            ],
            &[],
            "PingPong",
        );
    }

    #[test]
    fn lengths_as_imb_p2p_reads_them() {
        assert_eq!(msglog("3").unwrap(), vec![0, 1, 2, 4, 8]);
        assert_eq!(msglog("2:4").unwrap(), vec![4, 8, 16]);
        assert!(msglog("4:2").is_err() && msglog("48").is_err() && msglog("x").is_err());
        assert_eq!(length("5k"), Some(5120));
        assert_eq!(length("2m"), Some(2 << 20));
        assert_eq!(length("1G"), Some(1 << 30));
        assert_eq!(length("4097"), Some(4097));
        assert_eq!(length("3x"), None);
        assert_eq!(length("-1"), None);
    }

    #[test]
    fn the_command_line_becomes_a_run() {
        let a =
            run("-iter 200 -msglog 2:4 -msgsz 5k -pause 0 -msgwr off pingpong Stencil2D").unwrap();
        assert_eq!(a.sweep.sizes.as_deref(), Some("4,8,16,5120"));
        assert_eq!(a.measure.max_iter, Some(200));
        assert_eq!(a.knobs.volume, Some(800 << 20));
        assert_eq!(a.benchmarks, vec!["PingPong", "Stencil2D"]);
        assert!(a.front.front_axes.contains(&(PAUSE_AXIS.into(), 0.0)));
        assert!(a.front.front_axes.contains(&(MSGWR_AXIS.into(), 0.0)));
        let a = run("-iter 1000,100").unwrap();
        assert_eq!(
            (a.measure.max_iter, a.knobs.volume),
            (Some(1000), Some(100 << 20))
        );
        assert_eq!(a.benchmarks.len(), 8);
        assert!(a.sweep.sizes.unwrap().ends_with(",4194304"));
        // -pause below 0: none.
        let a = run("-pause -5").unwrap();
        assert!(a.front.front_axes.contains(&(PAUSE_AXIS.into(), 0.0)));
    }

    #[test]
    fn bad_input_is_one_line() {
        for (line, says) in [
            ("-iter 0", "invalid -iter"),
            ("-iter 1,2,3", "invalid -iter"),
            ("-msgwr maybe", "invalid -msgwr"),
            ("-pause soon", "invalid -pause"),
            ("-pause 2147483647", "-pause 2147483647: at most 10000000"),
            ("-msgsz 3q", "invalid -msgsz"),
            ("-npmin 2", "unknown IMB-P2P flag '-npmin'"),
            ("Allreduce", "unknown IMB-P2P benchmark 'Allreduce'"),
            ("-msglog", "missing argument"),
        ] {
            let e = run(line).unwrap_err();
            assert!(e.contains(says), "{line}: {e}");
            assert!(!e.contains('\n'), "{e}");
        }
    }
}
