//! IMB-MPI1's own command line, for existing scripts, ReFrame checks and
//! Spack recipes: `mpibench imb [IMB-MPI1 arguments]`, or the binary linked
//! or copied under the name `IMB-MPI1`.
//!
//! ```text
//! mpirun -np 4 IMB-MPI1 -npmin 2 -msglog 3:12 -iter 200 PingPong Allreduce
//! ```
//!
//! The run follows IMB-MPI1 2021's definitions (`--definitions imb2021`)
//! and prints IMB-MPI1 2021's tables. mpibench options (`-n`, `--json`,
//! `--check`, `--definitions pmb`, ...) may be mixed in.

use std::path::Path;

use crate::bench::datatype::Datatype;
use crate::cli::{on_off, RunArgs};
use crate::contract::Definitions;
use crate::contract::IterPolicy;
use crate::frontend::{Action as FrontAction, Front, Listed};
use crate::input::{read_text, Stdin, LIST_CAP};
use crate::method::SyncMode;
use crate::plugin::lookup;
use crate::plugin::normalise;

/// The flags every IMB program takes, for its help text.
#[macro_export]
macro_rules! imb_flags {
    ($program:literal) => {
        concat!("  benchmark1[,benchmark2 ...]   benchmarks to run, separated by spaces or commas (case-insensitive;
                                default: ", $program, "'s list)
  -npmin P                      smallest process count: P, 2P, 4P, ..., then all (default 2; above
                                the process count: all)
  -multi 0|1                    Multi- mode: disjoint groups at once; 1 also shows every group
  -msglog [A:]B                 lengths 0 and 2^A .. 2^B bytes, B <= 30 (default 0:22)
  -msglen FILE                  lengths from FILE, one per line (suffixes k, m; # comments)
  -iter N[,VOL[,NONAGGR]]       at most N repetitions and VOL MiB per length (default 1000,40)
  -iter_policy P                dynamic (default), off (always N), multiple_np, auto
  -time S                       at most S seconds per length (default 10)
  -mem GB                       buffer memory per process; larger lengths are skipped (default 1)
  -off_cache MB[,LINE]          cold data each repetition: buffers of 2 x MB (-1: 8 MB, 64 B lines)
  -root_shift on|off            rotate the root of rooted collectives every repetition (default off)
  -sync on|off                  barrier before every collective call (default on; off: once)
  -imb_barrier on|off           IMB's dissemination barrier instead of MPI_Barrier (default off)
  -warm_up on|off               warm-up repetitions before each length (default on)
  -window_size N                messages per window of Uniband and Biband (default 256)
  -msg_pause on|off             sleep a tenth of each length's time (at least 0.1 s) after it (default off)
  -zero_size on|off             run length 0 (default on)
  -include B1[,B2...]           run these besides the named (or default) ones, first
  -exclude B1[,B2...]           leave these out
  -input FILE                   benchmark names from FILE, one per line
  -map PxQ                      renumber the ranks inter node first (P ranks per node, Q nodes,
                                P*Q <= processes): PingPong's pair then spans two nodes
  -list                         list the benchmarks and exit
  -h, -help                     this help")
    };
}

pub const HELP: &str = concat!(
    "IMB-MPI1 2021 arguments (IMB's own spelling, one dash):\n",
    imb_flags!("IMB-MPI1"),
    "\n",
    "Benchmarks: PingPong PingPing Sendrecv Exchange Allreduce Reduce Reduce_local Reduce_scatter
  Reduce_scatter_block Allgather Allgatherv Gather Gatherv Scatter Scatterv Alltoall Alltoallv
  Bcast Barrier, and Uniband Biband PingPongSpecificSource PingPongAnySource
  PingPingSpecificSource PingPingAnySource (only when named; AnySource: MPI_ANY_SOURCE).
mpibench options may be mixed in: -n N (self-launch), --json FILE, --csv FILE, --check,
  --definitions pmb (PMB v2.2's definitions, IMB's tables), --stats. Like IMB-MPI1, no
  progress lines are printed; stderr carries only errors and one-line remarks on flags.
Example: mpirun -np 4 mpibench imb -npmin 2 -msglog 3:12 -iter 200"
);

/// One of IMB's programs: IMB-MPI1, IMB-NBC, ... Each is reached as
/// `mpibench SUBCOMMAND` or through a link of the program's name, takes
/// IMB's flags, runs its own suite and prints its own tables.
pub struct Family {
    /// The program's name ("IMB-MPI1"): a link of this name takes its
    /// command line; the calling sequence and errors say it.
    pub program: &'static str,
    /// `mpibench SUBCOMMAND ...` ("imb").
    pub subcommand: &'static str,
    /// Its suite in the registry.
    pub suite: &'static str,
    /// The suite's table format it prints.
    pub table: &'static str,
    /// The heading of `-list` ("MPI1").
    pub list_heading: &'static str,
    /// What `-h` prints after the usage line.
    pub help: &'static str,
    /// Its command line: the run it asks for, its help or its list
    /// (IMB-MPI1's flags: [`parse`]).
    pub parse: fn(&Family, &[String], &str) -> Result<Action, String>,
    /// What `-list` prints ([`list`]).
    pub list: fn(&Family) -> String,
    /// Runs IMB's aggregate and non-aggregate modes: the third `-iter`
    /// value (MSGS_NONAGGR) applies, as the plan axis [`NONAGGR_AXIS`].
    pub modes: bool,
    /// Its entry in `mpibench --help`'s commands (IMB-MPI1's `imb`); the
    /// others are announced after the options ([`Front::overview`]).
    pub listed: Option<&'static Listed>,
}

impl Front for Family {
    fn subcommand(&self) -> &'static str {
        self.subcommand
    }

    fn listed(&self) -> Option<&'static Listed> {
        self.listed
    }

    fn call(&self, params: &[String]) -> Result<FrontAction, String> {
        self.call_as(
            self.program,
            &format!("mpibench {}", self.subcommand),
            params,
        )
    }

    fn program(&self, name: &str) -> Option<&'static str> {
        (name == self.program).then_some(self.program)
    }

    /// IMB installs its programs in `bin/` (Spack's intel-mpi-benchmarks).
    fn drop_ins(&self) -> Vec<(&'static str, &'static str)> {
        vec![("bin", self.program)]
    }

    /// `mpibench imb ...` / `IMB-MPI1 ...` (and IMB's other programs): the
    /// program's command line; `shown` is how it was called ("mpibench
    /// imb", "./IMB-MPI1"), for the calling sequence.
    fn call_as(
        &self,
        _program: &str,
        shown: &str,
        params: &[String],
    ) -> Result<FrontAction, String> {
        let sub = format!("mpibench {}", self.subcommand);
        Ok(match (self.parse)(self, params, shown)? {
            Action::Help => FrontAction::Say(format!(
                "Usage: {shown} [{} arguments] [mpibench options]\n\n{}\n",
                self.program, self.help
            )),
            Action::List => FrontAction::Say((self.list)(self)),
            Action::Run(args, notes) => FrontAction::Run {
                args,
                notes: notes.iter().map(|n| format!("{sub}: {n}")).collect(),
                // Re-launched ranks see the arguments without a subcommand:
                // they take IMB's command line from this.
                argv0: (shown != sub).then(|| shown.to_string()),
            },
        })
    }

    fn overview(&self) -> String {
        if self.listed.is_some() {
            return String::new();
        }
        format!(
            "{}: mpibench {} [{} arguments], or a link named {};\n  see mpibench help {}.\n",
            self.program, self.subcommand, self.program, self.program, self.suite
        )
    }
}

pub use crate::bench::patterns::NONAGGR_AXIS;

/// IMB-MPI1.
pub static MPI1: Family = Family {
    program: "IMB-MPI1",
    subcommand: "imb",
    suite: super::SUITE,
    table: "imb2021",
    list_heading: "MPI1",
    help: HELP,
    parse,
    list,
    modes: false,
    listed: Some(&Listed {
        about: "IMB-MPI1's own command line and tables (also when the binary is called IMB-MPI1)",
        order: 3,
        value_name: "ARG",
        arg_help:
            "IMB-MPI1 arguments (-npmin, -msglog, -iter, ..., benchmark names) and mpibench options",
        after_help: HELP,
    }),
};

/// IMB-MPI1's flags that take a value.
const VALUED: &[&str] = &[
    "-npmin",
    "-multi",
    "-off_cache",
    "-iter",
    "-iter_policy",
    "-time",
    "-mem",
    "-msglen",
    "-map",
    "-input",
    "-include",
    "-exclude",
    "-msglog",
    "-root_shift",
    "-sync",
    "-imb_barrier",
    "-warm_up",
    "-window_size",
    "-msg_pause",
    "-zero_size",
    "-thread_level",
    "-data_type",
    "-red_data_type",
    "-contig_type",
    "-dump",
    "-load",
];

/// A one-dash word that is neither an IMB flag nor one of mpibench's short
/// options (`-n N`, `-n4`, `-q`).
pub fn is_unknown_flag(t: &str) -> bool {
    let Some(word) = t.strip_prefix('-') else {
        return false;
    };
    !word.starts_with('-')
        && word.len() > 1
        && !(word.starts_with('n') && word[1..].chars().all(|c| c.is_ascii_digit()))
}

/// IMB's largest -msglog exponent (lengths are ints).
const MAX_LOG: u32 = 30;

/// What the command line asks for.
#[derive(Debug)]
pub enum Action {
    /// Run this, after telling the user these one-line remarks.
    Run(Box<RunArgs>, Vec<String>),
    /// `-h`: print [`HELP`].
    Help,
    /// `-list`: print the benchmarks.
    List,
}

/// Whether the arguments ask for help (IMB: `-h` or `-help` anywhere).
pub fn wants_help(params: &[String]) -> bool {
    params
        .iter()
        .any(|p| p == "-h" || p == "-help" || p == "--help")
}

/// IMB's `-list` (IMB 2021's `imb.cpp`): the program's name, then under
/// its part's heading every benchmark in byte order of the names,
/// non-default ones marked.
pub fn list(f: &Family) -> String {
    let mut s = format!("{}\nList of benchmarks:\n{}:\n", f.program, f.list_heading);
    let imb = lookup::suite(f.suite).expect("a family's suite is registered");
    let mut names: Vec<(&str, bool)> = (imb.entries)()
        .iter()
        .map(|e| e.info())
        .filter(|i| i.default_in != [Definitions::Pmb])
        .map(|i| (i.name, i.default_in.contains(&Definitions::Imb2021)))
        .collect();
    names.sort();
    names.dedup();
    for (name, default) in names {
        let extra = if default { "" } else { " (non-default)" };
        s.push_str(&format!("    {name}{extra}\n"));
    }
    s
}

fn switch(flag: &str, v: &str) -> Result<bool, String> {
    on_off(v)
        .map_err(|_| format!("invalid {flag} argument '{v}' (on|yes|enable|1 or off|no|disable|0)"))
}

fn positive_f64(flag: &str, v: &str, what: &str) -> Result<f64, String> {
    v.trim()
        .parse::<f64>()
        .ok()
        .filter(|x| x.is_finite() && *x > 0.0)
        .ok_or_else(|| format!("invalid {flag} argument '{v}' ({what})"))
}

/// `-msglog A:B` or `-msglog B` as IMB 2021 reads it: 0 <= A <= B <= 30.
fn msglog(v: &str) -> Result<(u32, u32), String> {
    let bad =
        || format!("invalid -msglog argument '{v}' (A:B or B, with 0 <= A <= B <= {MAX_LOG})");
    let num = |t: &str| t.trim().parse::<u32>().map_err(|_| bad());
    let (a, b) = match v.split_once(':') {
        Some((a, b)) => (num(a)?, num(b)?),
        None => (0, num(v)?),
    };
    if a > b || b > MAX_LOG {
        return Err(bad());
    }
    Ok((a, b))
}

/// A `-msglen` file: one length per line (a number, optionally followed by
/// k or m for KiB or MiB); lines starting with '#' and empty lines are skipped.
fn msglen(path: &str) -> Result<Vec<usize>, String> {
    lengths_file(path, &['k', 'm'], i32::MAX as usize)
}

/// A file of lengths as IMB's programs read it: a number per line,
/// optionally followed by one of `suffixes` (k, m, g: KiB, MiB, GiB), at
/// most `max`; lines starting with '#' and empty lines are skipped.
pub fn lengths_file(path: &str, suffixes: &[char], max: usize) -> Result<Vec<usize>, String> {
    let text = read_text(
        Path::new(path),
        LIST_CAP,
        "-msglen sizes file",
        Stdin::NotAllowed,
    )?;
    let mut v = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        v.push(length(line, suffixes, max).ok_or_else(|| {
            let s: Vec<String> = suffixes.iter().map(char::to_string).collect();
            format!(
                "-msglen: invalid line {} in sizes file '{path}': '{line}' (a length in bytes, optionally with {})",
                i + 1,
                s.join(" or ")
            )
        })?);
    }
    if v.is_empty() {
        return Err(format!("-msglen: sizes file '{path}' holds no lengths"));
    }
    Ok(v)
}

/// A length: digits, then optionally one of `suffixes` (k, m, g), at most `max`.
pub fn length(t: &str, suffixes: &[char], max: usize) -> Option<usize> {
    let t = t.trim();
    let digits: String = t.chars().take_while(char::is_ascii_digit).collect();
    let n: usize = digits.parse().ok()?;
    let mult: usize = match t[digits.len()..].trim().chars().next() {
        None => 1,
        Some(c) if suffixes.contains(&c.to_ascii_lowercase()) => match c.to_ascii_lowercase() {
            'k' => 1 << 10,
            'm' => 1 << 20,
            _ => 1 << 30,
        },
        Some(_) => return None,
    };
    n.checked_mul(mult).filter(|&n| n <= max)
}

/// A `-input` file: the first word of every line not starting with '#'.
pub fn input(path: &str) -> Result<Vec<String>, String> {
    let text = read_text(
        Path::new(path),
        LIST_CAP,
        "-input benchmark list",
        Stdin::NotAllowed,
    )?;
    Ok(text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect())
}

/// IMB's `-map PxQ`: two whole numbers of at least 1 joined by 'x'.
fn map(v: &str) -> Result<(usize, usize), String> {
    v.split_once('x')
        .and_then(|(p, q)| Some((p.parse::<usize>().ok()?, q.parse::<usize>().ok()?)))
        .filter(|&(p, q)| p >= 1 && q >= 1 && p.checked_mul(q).is_some())
        .ok_or_else(|| {
            format!("invalid -map argument '{v}' (PxQ, e.g. 4x2: P ranks per node, Q nodes)")
        })
}

/// Comma-separated benchmark names (-include, -exclude).
fn names(flag: &str, v: &str) -> Result<Vec<String>, String> {
    let v: Vec<String> = v
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect();
    if v.is_empty() {
        return Err(format!(
            "{flag} needs one or more benchmark names separated by commas"
        ));
    }
    Ok(v)
}

/// An IMB program's command line, split: its flags that take a value
/// (`valued`) with their values, its switches given (of `switches`),
/// whether `-list` was given, and the rest (benchmark names, mpibench
/// options). A one-dash word that is none of them is an unknown flag.
#[derive(Debug)]
pub struct Flags {
    pub valued: Vec<(String, String)>,
    pub switches: Vec<String>,
    pub list: bool,
    pub rest: Vec<String>,
}

/// Splits `params` of program `f` (see [`Flags`]).
pub fn split_flags(
    f: &Family,
    params: &[String],
    valued: &[&str],
    switches: &[&str],
) -> Result<Flags, String> {
    let mut out = Flags {
        valued: Vec::new(),
        switches: Vec::new(),
        list: false,
        rest: Vec::new(),
    };
    let mut it = params.iter();
    while let Some(t) = it.next() {
        if valued.contains(&t.as_str()) {
            let v = it
                .next()
                .ok_or_else(|| format!("missing argument after \"{t}\""))?;
            out.valued.push((t.clone(), v.clone()));
        } else if t == "-list" {
            out.list = true;
        } else if switches.contains(&t.as_str()) {
            out.switches.push(t.clone());
        } else if is_unknown_flag(t) {
            return Err(format!(
                "unknown {} flag '{t}' (see mpibench {} -h)",
                f.program, f.subcommand
            ));
        } else {
            out.rest.push(t.clone());
        }
    }
    Ok(out)
}

/// A family's command line `line` (words split on spaces) as the run it
/// asks for, or its one-line error (tests of the families' parsers).
#[cfg(test)]
pub fn run_of(f: &Family, line: &str) -> Result<RunArgs, String> {
    let params: Vec<String> = line.split_whitespace().map(String::from).collect();
    match (f.parse)(f, &params, f.program)? {
        Action::Run(a, _) => Ok(*a),
        a => Err(format!("{a:?}")),
    }
}

/// Every line of `lines` (one IMB flag each, with a value IMB 2021 takes)
/// is a run of family `f`, not an error; `refused` pairs a line this build
/// refuses on purpose with what its one-line error says.
///
/// `{msglen}` in a line is a file of lengths (0 and 1024), `{input}` one
/// naming `bench`.
#[cfg(test)]
pub fn takes_every_flag(f: &Family, lines: &[&str], refused: &[(&str, &str)], bench: &str) {
    let dir = tempfile::tempdir().unwrap();
    let (msglen, input) = (dir.path().join("msglen"), dir.path().join("input"));
    std::fs::write(&msglen, "0\n1024\n").unwrap();
    std::fs::write(&input, format!("{bench}\n")).unwrap();
    for line in lines {
        let line = line
            .replace("{msglen}", &msglen.to_string_lossy())
            .replace("{input}", &input.to_string_lossy());
        if let Err(e) = run_of(f, &line) {
            panic!("{} {line}: {e}", f.program);
        }
    }
    for (line, why) in refused {
        let e = run_of(f, line).unwrap_err();
        assert!(
            e.contains(why) && !e.contains('\n'),
            "{} {line}: {e}",
            f.program
        );
    }
    let params = |l: &str| l.split_whitespace().map(String::from).collect::<Vec<_>>();
    for (line, list) in [("-h", false), ("-help", false), ("-list", true)] {
        let a = (f.parse)(f, &params(line), f.program).unwrap();
        assert_eq!(matches!(a, Action::List), list, "{} {line}", f.program);
    }
}

/// IMB-MPI1 2021's flags (IMB's `-h`), each with a value it takes, for
/// the families that share its parser; `bench` is one of the family's
/// benchmarks (for -include and -exclude).
#[cfg(test)]
pub fn mpi1_flag_lines(bench: &str) -> Vec<String> {
    let mut v: Vec<String> = [
        "-npmin 2",
        "-multi 0",
        "-multi 1",
        "-off_cache 16",
        "-off_cache -1",
        "-off_cache 16,64",
        "-iter 100",
        "-iter 100,40",
        "-iter_policy dynamic",
        "-iter_policy off",
        "-iter_policy multiple_np",
        "-iter_policy auto",
        "-time 1",
        "-mem 0.5",
        "-map 1x2",
        "-msglog 3:10",
        "-msglog 10",
        "-root_shift on",
        "-root_shift off",
        "-sync on",
        "-sync off",
        "-imb_barrier on",
        "-imb_barrier off",
        "-warm_up on",
        "-warm_up off",
        "-window_size 64",
        "-msg_pause off",
        "-zero_size off",
        "-zero_size on",
        "-thread_level single",
        "-thread_level funneled",
        "-thread_level serialized",
        "-thread_level multiple",
        "-msglen {msglen}",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    v.push(format!("-include {bench}"));
    v.push(format!("-exclude {bench}"));
    v.push("-input {input}".to_string());
    v
}

/// [`takes_every_flag`] over IMB-MPI1's flags, for a family of its parser.
#[cfg(test)]
pub fn takes_mpi1_flags(f: &Family, bench: &str) {
    let lines = mpi1_flag_lines(bench);
    let all: Vec<&str> = lines.iter().map(String::as_str).collect();
    takes_every_flag(f, &all, &[("-dump x.yaml", "-dump")], bench);
}

/// The run IMB-MPI1's command line asks for. `argv0` is how the program
/// was called ("mpibench imb", "./IMB-MPI1"), for the calling sequence.
pub fn parse(f: &Family, params: &[String], argv0: &str) -> Result<Action, String> {
    if wants_help(params) {
        return Ok(Action::Help);
    }
    let Flags {
        valued: imb,
        rest,
        list,
        ..
    } = split_flags(f, params, VALUED, &[])?;
    if list {
        return Ok(Action::List);
    }
    let (requested, opts) = crate::frontend::split_options(&rest);
    let mut args = crate::frontend::parse_options(&opts)?;
    let defs = *args.knobs.definitions.get_or_insert(Definitions::Imb2021);
    args.suite = Some(f.suite.to_string());
    args.front.table = Some(f.table.to_string());
    // As IMB-MPI1: no progress lines (scripts often read stdout and stderr as one).
    args.quiet = true;
    let mut g = Given {
        notes: Vec::new(),
        requested,
        include: Vec::new(),
        exclude: Vec::new(),
        log: (0, 22),
        lengths: None,
        zero: true,
        // IMB-MPI1's -mem default: 1 GB of message buffers per process.
        mem_gb: 1.0,
        iter_given: None,
        types: Types::default(),
    };
    for (flag, v) in &imb {
        imb_flag(f, flag, v, defs, &mut args, &mut g)?;
    }
    let Given {
        notes,
        requested,
        include,
        exclude,
        log,
        lengths,
        zero,
        mem_gb,
        iter_given,
        types,
    } = g;
    types.apply(f, &mut args)?;
    let sizes: Vec<usize> = match lengths {
        Some(mut v) => {
            if !zero {
                v.retain(|&x| x > 0);
            }
            v
        }
        None => {
            let mut v: Vec<usize> = if zero { vec![0] } else { vec![] };
            v.extend((log.0..=log.1).map(|e| 1usize << e));
            v
        }
    };
    if sizes.is_empty() {
        return Err("no message lengths left to run (-zero_size off with only length 0)".into());
    }
    args.sweep.msglog = None;
    args.sweep.sizes = crate::frontend::sizes_arg(&sizes);
    if args.front.buffer_bytes.is_none() && args.limits.mem.is_none() {
        args.front.buffer_bytes = Some((mem_gb * (1u64 << 30) as f64) as u64);
        args.front.buffer_flag = Some("IMB -mem");
    }
    if let (Some(n), Some(min)) = (iter_given, args.measure.min_iter) {
        if n < min {
            return Err(format!(
                "-iter {n} (the most repetitions per length) is smaller than --min-iter {min}"
            ));
        }
    }
    args.benchmarks = benchmark_list(f, &requested, &include, &exclude, defs)?;
    args.front.frontend = crate::frontend::calling(argv0, params);
    Ok(Action::Run(Box::new(args), notes))
}

/// What IMB-MPI1's flags give besides `RunArgs`.
struct Given {
    /// One-line remarks on flags that do nothing here.
    notes: Vec<String>,
    /// The benchmarks named (and those of `-input`).
    requested: Vec<String>,
    include: Vec<String>,
    exclude: Vec<String>,
    /// `-msglog A:B`.
    log: (u32, u32),
    /// `-msglen`'s lengths.
    lengths: Option<Vec<usize>>,
    /// `-zero_size`.
    zero: bool,
    mem_gb: f64,
    /// The first `-iter` value.
    iter_given: Option<usize>,
    types: Types,
}

/// One IMB-MPI1 flag with its value: into `args` or `g`; its lengths,
/// repetitions, lists and files here, its switches in [`imb_switch`].
fn imb_flag(
    f: &Family,
    flag: &str,
    v: &str,
    defs: Definitions,
    args: &mut RunArgs,
    g: &mut Given,
) -> Result<(), String> {
    match flag {
        "-npmin" => {
            let n =
                v.parse::<usize>().ok().filter(|&n| n >= 1).ok_or_else(|| {
                    format!("invalid -npmin argument '{v}' (a process count >= 1)")
                })?;
            args.sweep.npmin = Some(n);
            // IMB: an npmin above the process count runs on all processes.
            args.front.npmin_up_to_world = true;
        }
        "-multi" => match v {
            "0" => args.sweep.multi = true,
            "1" => {
                args.sweep.multi = true;
                args.sweep.multi_detail = true;
            }
            _ => return Err(format!("invalid -multi argument '{v}' (0 or 1)")),
        },
        "-off_cache" => {
            crate::plan::parse_off_cache(v).map_err(|e| format!("-off_cache: {e}"))?;
            args.knobs.off_cache = Some(v.to_string());
        }
        "-iter" => {
            let parts: Vec<&str> = v.split(',').collect();
            let ints: Vec<usize> = parts
                .iter()
                .map(|p| p.trim().parse::<usize>().ok().filter(|&n| n >= 1))
                .collect::<Option<_>>()
                .filter(|x: &Vec<usize>| (1..=3).contains(&x.len()))
                .ok_or_else(|| {
                    format!("invalid -iter argument '{v}' (MSGSPERSAMPLE[,OVERALL_VOL[,MSGS_NONAGGR]], positive integers)")
                })?;
            args.measure.max_iter = Some(ints[0]);
            crate::frontend::spelled(args, "--max-iter", "-iter");
            g.iter_given = Some(ints[0]);
            if let Some(&vol) = ints.get(1) {
                // OVERALL_VOL is in MiB; --volume holds bytes.
                args.knobs.volume = Some(vol.checked_mul(1 << 20).ok_or_else(|| {
                    format!("invalid -iter argument '{v}': OVERALL_VOL {vol} MiB is too large")
                })?);
            }
            if let (true, Some(&n)) = (f.modes, ints.get(2)) {
                args.front.front_axes.push((NONAGGR_AXIS.into(), n as f64));
            } else if ints.len() == 3 {
                g.notes.push(
                    "the third -iter value (MSGS_NONAGGR) applies to IMB-EXT/IMB-IO non-aggregate modes only: no effect here"
                        .to_string(),
                );
            }
        }
        "-iter_policy" => {
            args.knobs.iter_policy = Some(match v {
                "dynamic" => IterPolicy::Dynamic,
                "off" => IterPolicy::Off,
                "multiple_np" => IterPolicy::MultipleNp,
                "auto" => IterPolicy::Auto,
                _ => {
                    return Err(format!(
                        "invalid -iter_policy argument '{v}' (dynamic, off, multiple_np or auto)"
                    ))
                }
            });
        }
        "-time" => args.time = positive_f64(flag, v, "seconds per message length, > 0")?,
        "-mem" => g.mem_gb = positive_f64(flag, v, "GB of buffers per process, > 0")?,
        "-msglen" => {
            g.lengths = Some(msglen(v)?);
            args.front.read_files.push(("-msglen", v.into()));
        }
        "-map" => args.front.rank_grid = Some(map(v)?),
        "-input" => {
            g.requested.extend(input(v)?);
            args.front.read_files.push(("-input", v.into()));
        }
        "-include" => g.include.extend(names(flag, v)?),
        "-exclude" => g.exclude.extend(names(flag, v)?),
        "-msglog" => g.log = msglog(v)?,
        _ => imb_switch(flag, v, defs, args, g)?,
    }
    Ok(())
}

/// [`imb_flag`]'s switches, thread level and data types.
fn imb_switch(
    flag: &str,
    v: &str,
    defs: Definitions,
    args: &mut RunArgs,
    g: &mut Given,
) -> Result<(), String> {
    match flag {
        "-root_shift" => args.roots.root_shift = switch(flag, v)?,
        "-sync" => {
            let on = switch(flag, v)?;
            if defs == Definitions::Imb2021 {
                args.knobs.call_sync = Some(on);
            } else {
                g.notes.push(format!(
                    "-sync {v} has no effect with --definitions pmb: PMB times collectives in one loop after one barrier"
                ));
            }
        }
        "-imb_barrier" => {
            if switch(flag, v)? {
                args.measure.sync = Some(SyncMode::Dissemination);
            }
        }
        "-warm_up" => {
            if !switch(flag, v)? {
                // IMB still times one repetition to size the run.
                args.warmup = Some(1);
            }
        }
        "-zero_size" => g.zero = switch(flag, v)?,
        "-window_size" => {
            args.knobs.imb_window = Some(crate::cli::window_size(v).map_err(|_| {
                format!(
                    "invalid -window_size argument '{v}' (messages per window of Uniband and Biband, 1 to {})",
                    crate::cli::MAX_IMB_WINDOW
                )
            })?)
        }
        "-msg_pause" => args.knobs.msg_pause = switch(flag, v)?,
        "-thread_level" => match v {
            "single" => {}
            "funneled" | "serialized" | "multiple" | "nompiinit" => g.notes.push(format!(
                "-thread_level {v} has no effect here: mpibench initialises MPI with MPI_Init (single)"
            )),
            _ => {
                return Err(format!(
                    "invalid -thread_level argument '{v}' (single, funneled, serialized, multiple)"
                ))
            }
        },
        "-data_type" | "-red_data_type" | "-contig_type" => g.types.set(flag, v)?,
        _ => {
            return Err(format!(
                "{flag} is not supported by mpibench (IMB's YAML configurations)"
            ))
        }
    }
    Ok(())
}

/// IMB-MPI1's `-data_type`, `-red_data_type` and `-contig_type` (IMB
/// 2021's MPI1_suite.cpp): the element type of transfers (byte, char, int,
/// float, double; default byte), of reductions (char, int, float, double;
/// default float), and how the elements are laid out (base: N elements;
/// base_vec: one MPI_Type_vector(N, 1, 1); resize: N elements resized to
/// twice their extent; resize_vec: one vector of N resized elements).
#[derive(Debug, Default, PartialEq)]
struct Types {
    data: Option<Datatype>,
    red: Option<Datatype>,
    /// The derived datatype of `-contig_type` (`--derived`'s spelling).
    contig: Option<&'static str>,
}

impl Types {
    fn set(&mut self, flag: &str, v: &str) -> Result<(), String> {
        match flag {
            "-data_type" => {
                self.data = Some(Datatype::from_imb(v, false).ok_or_else(|| {
                    format!("invalid -data_type argument '{v}' (byte, char, int, float or double)")
                })?)
            }
            "-red_data_type" => {
                self.red = Some(Datatype::from_imb(v, true).ok_or_else(|| {
                    format!("invalid -red_data_type argument '{v}' (char, int, float or double)")
                })?)
            }
            _ => {
                self.contig = match v {
                    "base" => None,
                    "base_vec" => Some("vect:1:1"),
                    "resize" => Some("resized"),
                    "resize_vec" => Some("resized_vect"),
                    _ => {
                        return Err(format!(
                    "invalid -contig_type argument '{v}' (base, base_vec, resize or resize_vec)"
                ))
                    }
                }
            }
        }
        Ok(())
    }

    /// IMB's defaults: MPI_BYTE, MPI_FLOAT, base.
    fn default_ones(&self) -> bool {
        self.data.is_none_or(|d| d == Datatype::Byte)
            && self.red.is_none_or(|d| d == Datatype::Float)
            && self.contig.is_none()
    }

    /// Other than IMB's defaults: every benchmark re-declared over them
    /// (`--datatype`, the reduction type, `--derived`). Only IMB-MPI1 has
    /// these flags.
    fn apply(&self, f: &Family, args: &mut RunArgs) -> Result<(), String> {
        if self.default_ones() {
            return Ok(());
        }
        if f.suite != super::SUITE {
            return Err(format!(
                "-data_type, -red_data_type and -contig_type are IMB-MPI1's: {} sends MPI_BYTE and reduces MPI_FLOAT",
                f.program
            ));
        }
        if self.contig.is_some() && args.knobs.definitions == Some(Definitions::Pmb) {
            return Err(
                "-contig_type needs IMB 2021's definitions (PMB's Reduce_scatter splits N elements, not a datatype)"
                    .into(),
            );
        }
        args.types.datatype = vec![self.data.unwrap_or(Datatype::Byte)];
        args.front.reduction_datatype = Some(self.red.unwrap_or(Datatype::Float));
        args.types.derived = self.contig.map(str::to_string);
        Ok(())
    }
}

/// IMB 2021's list: the included ones first, then the named ones (or the
/// default list), without the excluded ones. Names are checked here, so
/// that a wrong one is a usage error naming it.
fn benchmark_list(
    f: &Family,
    requested: &[String],
    include: &[String],
    exclude: &[String],
    defs: Definitions,
) -> Result<Vec<String>, String> {
    let home = Some(f.suite);
    // IMB 2019 and later: names separated by commas as well as by spaces.
    let requested: Vec<String> = requested
        .iter()
        .flat_map(|n| n.split(','))
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .map(str::to_string)
        .collect();
    let canonical = |n: &String| -> Result<String, String> {
        let (e, multi) = lookup::resolve_in(n, home, defs).map_err(|e| e.to_string())?;
        Ok(if multi {
            format!("Multi-{}", e.info().name)
        } else {
            e.info().name.to_string()
        })
    };
    let mut list: Vec<String> = include.iter().map(canonical).collect::<Result<_, _>>()?;
    let base: Vec<String> = if requested.is_empty() {
        let imb = lookup::suite(f.suite).expect("a family's suite is registered");
        lookup::default_entries(imb, defs)
            .iter()
            .map(|e| e.info().name.to_string())
            .collect()
    } else {
        requested.iter().map(canonical).collect::<Result<_, _>>()?
    };
    for b in base {
        if !list.iter().any(|x| normalise(x) == normalise(&b)) {
            list.push(b);
        }
    }
    let out: Vec<String> = exclude.iter().map(canonical).collect::<Result<_, _>>()?;
    list.retain(|b| !out.iter().any(|x| normalise(x) == normalise(b)));
    if list.is_empty() {
        return Err("-exclude leaves no benchmark to run".into());
    }
    Ok(list)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    fn run(s: &str) -> (RunArgs, Vec<String>) {
        match parse(&MPI1, &v(s), "IMB-MPI1").unwrap() {
            Action::Run(a, n) => (*a, n),
            a => panic!("{a:?}"),
        }
    }

    fn err(s: &str) -> String {
        let e = parse(&MPI1, &v(s), "IMB-MPI1").unwrap_err();
        assert!(!e.contains('\n'), "{s}: {e}");
        e
    }

    #[test]
    fn every_imb_mpi1_flag_is_taken() {
        let lines = mpi1_flag_lines("PingPong");
        let mut all: Vec<&str> = lines.iter().map(String::as_str).collect();
        all.extend([
            "-data_type byte",
            "-data_type char",
            "-data_type int",
            "-data_type float",
            "-data_type double",
            "-red_data_type float",
            "-red_data_type double",
            "-iter 100,40,50",
        ]);
        takes_every_flag(
            &MPI1,
            &all,
            &[("-dump x.yaml", "-dump"), ("-load x.yaml", "-load")],
            "PingPong",
        );
    }

    #[test]
    fn the_fixtures_command_lines_parse() {
        let (a, _) = run("");
        assert_eq!(a.knobs.definitions, Some(Definitions::Imb2021));
        assert_eq!(a.front.table.as_deref(), Some("imb2021"));
        assert_eq!(a.benchmarks.len(), 19);
        assert_eq!(a.benchmarks[6], "Reduce_local");
        assert!(a
            .sweep
            .sizes
            .as_deref()
            .unwrap()
            .ends_with(",2097152,4194304"));
        assert_eq!(a.front.buffer_bytes, Some(1 << 30));
        assert_eq!(a.front.frontend.as_deref(), Some("IMB-MPI1"));

        assert!(a.quiet);
        let (a, _) = run("-npmin 2 -msglog 3:12 -iter 200");
        assert_eq!(a.sweep.npmin, Some(2));
        assert_eq!(a.measure.max_iter, Some(200));
        assert_eq!(a.reps.iter, None);
        assert_eq!(
            a.sweep.sizes.as_deref(),
            Some("0,8,16,32,64,128,256,512,1024,2048,4096")
        );

        let (a, _) =
            run("-multi 1 -npmin 2 -msglog 0:8 -iter 100 PingPong Sendrecv Allreduce Barrier");
        assert!(a.sweep.multi && a.sweep.multi_detail);
        assert_eq!(
            a.benchmarks,
            ["PingPong", "Sendrecv", "Allreduce", "Barrier"]
        );

        let (a, _) = run("-sync 0 -off_cache -1 -msglog 10:16 Bcast Reduce_scatter Gather");
        assert_eq!(a.knobs.call_sync, Some(false));
        assert_eq!(a.knobs.off_cache.as_deref(), Some("-1"));
        assert_eq!(
            a.sweep.sizes.as_deref(),
            Some("0,1024,2048,4096,8192,16384,32768,65536")
        );
        assert_eq!(a.benchmarks, ["Bcast", "Reduce_scatter", "Gather"]);
    }

    #[test]
    fn every_flag() {
        let (a, notes) = run(
            "-multi 0 -iter 50,10,7 -iter_policy auto -time 0.5 -mem 0.25 -root_shift on \
             -imb_barrier yes -warm_up off -zero_size off -msglog 4 -map 2x1 -thread_level multiple",
        );
        assert!(a.sweep.multi && !a.sweep.multi_detail);
        assert_eq!(
            (a.measure.max_iter, a.knobs.volume),
            (Some(50), Some(10 << 20))
        );
        assert_eq!(a.knobs.iter_policy, Some(IterPolicy::Auto));
        assert_eq!(a.time, 0.5);
        assert_eq!(a.front.buffer_bytes, Some(1 << 28));
        assert!(a.roots.root_shift);
        assert_eq!(a.measure.sync, Some(SyncMode::Dissemination));
        assert_eq!(a.warmup, Some(1));
        assert_eq!(a.sweep.sizes.as_deref(), Some("1,2,4,8,16"));
        assert_eq!(a.front.rank_grid, Some((2, 1)));
        assert_eq!(notes.len(), 2, "{notes:?}");
        assert!(notes.iter().any(|n| n.contains("MSGS_NONAGGR")));
        assert!(notes.iter().any(|n| n.contains("-thread_level multiple")));

        // IMB 2021.2's window and pause; defaults: none given (the plan
        // chooses the window by definitions), no pause.
        let (a, notes) = run("-window_size 8 -msg_pause on Uniband");
        assert_eq!((a.knobs.imb_window, a.knobs.msg_pause), (Some(8), true));
        assert!(notes.is_empty(), "{notes:?}");
        let (a, _) = run("-msg_pause 0");
        assert_eq!((a.knobs.imb_window, a.knobs.msg_pause), (None, false));
        // -npmin above the process count runs on all (IMB); without it the plan's rule holds.
        assert!(run("-npmin 64").0.front.npmin_up_to_world);
        assert_eq!(run("").0.front.rank_grid, None);
        // Names separated by commas, as IMB 2019 and later take them.
        let (a, _) = run("PingPong,allreduce Bcast, -include Barrier");
        assert_eq!(a.benchmarks, ["Barrier", "PingPong", "Allreduce", "Bcast"]);
        // -sync with PMB's definitions: one line either way.
        for v in ["on", "off"] {
            let (a, notes) = run(&format!("-sync {v} --definitions pmb"));
            assert_eq!(a.knobs.call_sync, None);
            assert_eq!(notes.len(), 1, "{notes:?}");
            assert!(
                notes[0].starts_with(&format!("-sync {v} has no effect with --definitions pmb"))
            );
        }

        let (a, _) = run("-include Uniband,biband -exclude PingPing,Barrier");
        assert_eq!(&a.benchmarks[..3], ["Uniband", "Biband", "PingPong"]);
        assert!(!a
            .benchmarks
            .iter()
            .any(|b| b == "PingPing" || b == "Barrier"));
        assert_eq!(a.benchmarks.len(), 19);
        let (a, _) = run("-include Gather pingpong");
        assert_eq!(a.benchmarks, ["Gather", "PingPong"]);
        // mpibench options mixed in.
        let (a, _) = run("-n 4 --json r.json PingPong --check -q --definitions pmb");
        assert_eq!(a.launch.np, Some(4));
        assert!(a.check && a.quiet);
        assert_eq!(a.knobs.definitions, Some(Definitions::Pmb));
        assert_eq!(a.benchmarks, ["PingPong"]);
    }

    #[test]
    fn files() {
        let dir = tempfile::tempdir().unwrap();
        let lens = dir.path().join("lens");
        std::fs::write(&lens, "# lengths\n0\n1k\n\n2 M\n100\n").unwrap();
        let names = dir.path().join("names");
        std::fs::write(&names, "# mine\nbcast extra words\nALLREDUCE\n").unwrap();
        let cmd = format!("-msglen {} -input {}", lens.display(), names.display());
        let (a, _) = run(&cmd);
        assert_eq!(a.sweep.sizes.as_deref(), Some("0,1024,2097152,100"));
        assert_eq!(a.benchmarks, ["Bcast", "Allreduce"]);
        std::fs::write(&lens, "12x\n").unwrap();
        assert!(err(&format!("-msglen {}", lens.display())).contains("invalid line 1"));
        std::fs::write(&lens, "# nothing\n").unwrap();
        assert!(err(&format!("-msglen {}", lens.display())).contains("no lengths"));
        assert!(err("-msglen /nonexistent/x").contains("cannot read"));
        assert!(err("-input /nonexistent/x").contains("cannot read"));
    }

    #[test]
    fn bad_values_are_one_line_errors() {
        for (args, want) in [
            ("-npmin 0", "-npmin"),
            ("-npmin x", "-npmin"),
            ("-multi 2", "-multi"),
            ("-off_cache abc", "-off_cache"),
            ("-off_cache 16,0", "-off_cache"),
            ("-iter 0", "-iter"),
            ("-iter 1,2,3,4", "-iter"),
            ("-iter a", "-iter"),
            (
                "-iter 5 --min-iter 10",
                "-iter 5 (the most repetitions per length) is smaller than --min-iter 10",
            ),
            ("-iter_policy sometimes", "-iter_policy"),
            ("-time 0", "-time"),
            ("-time x", "-time"),
            ("-mem -1", "-mem"),
            ("-map 4", "-map"),
            ("-map 0x2", "-map"),
            ("-map 2x", "-map"),
            ("-map 2x2x2", "-map"),
            ("-window_size 0", "-window_size"),
            ("-window_size -4", "-window_size"),
            ("-window_size 2097152", "-window_size"),
            ("-window_size many", "-window_size"),
            ("-msg_pause sometimes", "-msg_pause"),
            ("-iter 5,", "-iter"),
            ("-iter ,5", "-iter"),
            ("-iter 5,0", "-iter"),
            ("-iter 5,,7", "-iter"),
            ("-msglog 5:3", "-msglog"),
            ("-msglog 31", "-msglog"),
            ("-msglog a:b", "-msglog"),
            ("-root_shift maybe", "-root_shift"),
            ("-sync 2", "-sync"),
            ("-imb_barrier x", "-imb_barrier"),
            ("-warm_up x", "-warm_up"),
            ("-zero_size x", "-zero_size"),
            ("-thread_level x", "-thread_level"),
            ("-data_type long", "-data_type"),
            ("-data_type INT", "-data_type"),
            ("-red_data_type byte", "-red_data_type"),
            ("-contig_type vector", "-contig_type"),
            ("-contig_type resize --definitions pmb", "-contig_type"),
            ("-dump x.yaml", "-dump"),
            ("-include ,", "-include"),
            ("-exclude PingPang", "PingPang"),
            ("NoSuchBench", "NoSuchBench"),
            ("-npmin", "missing argument"),
            ("-zero_size off -msglen /dev/null", "-msglen"),
            ("-nosuch", "unknown IMB-MPI1 flag '-nosuch'"),
            ("--nosuch", "unexpected argument"),
        ] {
            let e = err(args);
            assert!(e.contains(want), "{args}: {e}");
        }
        let e = err("-exclude PingPong,PingPing,Sendrecv,Exchange,Allreduce,Reduce,Reduce_local,Reduce_scatter,Reduce_scatter_block,Allgather,Allgatherv,Gather,Gatherv,Scatter,Scatterv,Alltoall,Alltoallv,Bcast,Barrier");
        assert!(e.contains("no benchmark"), "{e}");
    }

    #[test]
    fn data_types_and_contiguous_layouts() {
        // IMB's defaults, given or not, retype nothing.
        for line in ["", "-data_type byte -red_data_type float -contig_type base"] {
            let (a, _) = run(line);
            assert!(a.types.datatype.is_empty(), "{line}");
            assert_eq!(
                (a.front.reduction_datatype, a.types.derived),
                (None, None),
                "{line}"
            );
        }
        let (a, _) = run("-data_type int");
        assert_eq!(a.types.datatype, [Datatype::Int]);
        assert_eq!(a.front.reduction_datatype, Some(Datatype::Float));
        let (a, _) = run("-red_data_type double");
        assert_eq!(a.types.datatype, [Datatype::Byte]);
        assert_eq!(a.front.reduction_datatype, Some(Datatype::Double));
        let (a, _) = run("-data_type char -red_data_type char");
        assert_eq!(a.types.datatype, [Datatype::MpiChar]);
        assert_eq!(a.front.reduction_datatype, Some(Datatype::MpiChar));
        for (v, spec) in [
            ("base_vec", "vect:1:1"),
            ("resize", "resized"),
            ("resize_vec", "resized_vect"),
        ] {
            let (a, _) = run(&format!("-contig_type {v}"));
            assert_eq!(a.types.derived.as_deref(), Some(spec), "{v}");
            assert_eq!(a.types.datatype, [Datatype::Byte], "{v}");
            crate::bench::datatype::Derived::parse(spec).unwrap();
        }
    }

    #[test]
    fn a_programs_own_flags_split_from_the_rest() {
        let p = v("-iter 5 -quiet PingPong -list --json x -n 2");
        let s = split_flags(&MPI1, &p, &["-iter"], &["-quiet"]).unwrap();
        assert_eq!(s.valued, vec![("-iter".to_string(), "5".to_string())]);
        assert_eq!(s.switches, ["-quiet"]);
        assert!(s.list);
        assert_eq!(s.rest, ["PingPong", "--json", "x", "-n", "2"]);
        let e = split_flags(&MPI1, &v("-bogus"), &[], &[]).unwrap_err();
        assert_eq!(e, "unknown IMB-MPI1 flag '-bogus' (see mpibench imb -h)");
        let e = split_flags(&MPI1, &v("-iter"), &["-iter"], &[]).unwrap_err();
        assert!(e.contains("missing argument"), "{e}");
        assert_eq!(
            run_of(&MPI1, "-iter 7 PingPong").unwrap().measure.max_iter,
            Some(7)
        );
        assert!(run_of(&MPI1, "-list").unwrap_err().contains("List"));
    }

    #[test]
    fn help_list_and_personality() {
        assert!(matches!(parse(&MPI1, &v("-h"), "x").unwrap(), Action::Help));
        assert!(matches!(
            parse(&MPI1, &v("PingPong -help"), "x").unwrap(),
            Action::Help
        ));
        assert!(matches!(
            parse(&MPI1, &v("-list"), "x").unwrap(),
            Action::List
        ));
        let l = list(&MPI1);
        assert!(l.contains("    Uniband (non-default)"), "{l}");
        assert!(l.contains("    Reduce_scatter\n"), "{l}");
        assert_eq!(MPI1.program("IMB-MPI1"), Some("IMB-MPI1"));
        assert_eq!(MPI1.program("mpibench"), None);
        assert_eq!(MPI1.subcommand(), "imb");
        assert!(MPI1.overview().is_empty());
    }
}
