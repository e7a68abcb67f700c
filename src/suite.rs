//! The registry: suite → benchmarks and methodology defaults, and name
//! resolution (`imb/Barrier`, `mpitest/BARRIER`, bare names within `--suite`).

use crate::bench::clock::{self, Tool};
use crate::bench::{allreduce, caf, commtest, cresta, guidelines, imb, mpigraph, mpitest, osu};
use crate::cli::RunArgs;
use crate::contract::{Axes, Benchmark, Definitions, Info, Method, RepsDefault};
use crate::method::SyncMode;
use crate::outcome::Outcome;
use crate::report::table::{self, Format};
use crate::report::{ModelPoint, PartTable};
use crate::results::{BenchResult, Report, Row};
use std::path::Path;

/// Which process counts a suite sweeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProcSweep {
    /// PMB §5.1.1: single transfers on 2; the others on npmin, 2·npmin, ... < P, then P.
    Pmb,
    /// All processes of the run only.
    World,
}

/// A suite's methodology defaults; every one can be overridden on the command line.
#[derive(Debug, Clone, Copy)]
pub struct Defaults {
    pub method: Method,
    pub sync: SyncMode,
    pub reps: RepsDefault,
    /// Message sizes as an IMB `-msglog` range ("A:B": 0 and 2^A .. 2^B bytes) or a `--sizes` list.
    pub sizes: &'static str,
    pub procs: ProcSweep,
    /// PMB §5.2.5: repetitions at the largest size before the first one.
    pub warm_largest: usize,
}

/// A suite and what it runs by default.
pub struct Suite {
    pub name: &'static str,
    pub title: &'static str,
    pub entries: fn() -> Vec<Entry>,
    pub defaults: Defaults,
    /// The suite's own options as plan axes, or a one-line usage error.
    pub axes: Option<AxesHook>,
    /// Its table formats by name: the first prints its results; a front
    /// end may name another (`imb2021`: IMB-MPI1 2021's own tables).
    pub formats: &'static [(&'static str, &'static dyn Format)],
    /// The figure `--plot FILE` draws from the suite's results (what it is,
    /// the writer), when the suite has one (CRESTA's Figure 1).
    pub figure: Option<Figure>,
    /// The suite's say in a run's outcome beyond validation errors (the
    /// mpiGraph matrix's outliers under `--fail-on-outlier`).
    pub ending: Option<EndingHook>,
    /// Its entries repeat a fixed number of times, whatever `--iter` says:
    /// why, for the usage error (the clock tools).
    pub fixed_repetitions: Option<fn() -> String>,
    /// What the suite adds to the report beyond the shared tables and figures.
    pub report: ReportParts,
    /// What `mpibench help SUITE` says of it beyond its title and defaults.
    pub help: SuiteHelp,
    /// Its own command line as a subcommand named after the suite
    /// (`mpibench guidelines ...`), for suites that have no seed program of
    /// their own to imitate (the seeds' front ends have their own commands).
    pub front: Option<&'static crate::frontend::FrontEnd>,
}

impl Suite {
    /// For `..Suite::PLAIN` in a registry entry: what most suites do not
    /// have (own axes, a figure, a say in the outcome, fixed repetitions,
    /// report parts, an options heading). Name, title, entries, defaults,
    /// formats and help are each suite's own.
    pub const PLAIN: Suite = Suite {
        name: "",
        title: "",
        entries: Vec::new,
        defaults: Defaults {
            method: Method::Loop,
            sync: SyncMode::Barrier,
            reps: RepsDefault::Imb,
            sizes: "0:22",
            procs: ProcSweep::Pmb,
            warm_largest: 0,
        },
        axes: None,
        formats: &[],
        figure: None,
        ending: None,
        fixed_repetitions: None,
        report: ReportParts::NONE,
        help: SuiteHelp {
            heading: None,
            own: None,
            example: "",
        },
        front: None,
    };
}

/// A suite's page of `mpibench help SUITE`.
#[derive(Clone, Copy)]
pub struct SuiteHelp {
    /// The heading its options have in `mpibench run -h`, if it has options.
    pub heading: Option<&'static str>,
    /// Its seed's own command line, as mpibench takes it.
    pub own: Option<&'static str>,
    /// One `mpibench run` command line that runs it.
    pub example: &'static str,
}

/// A suite's parts of the HTML report.
#[derive(Clone, Copy)]
pub struct ReportParts {
    /// Tables derived from one result (COMMTEST's fits and LogGP).
    pub tables: Option<fn(&BenchResult) -> Vec<PartTable>>,
    /// The model fitted to a result's rows, at one row (COMMTEST's fits),
    /// drawn as a line beside the measured series.
    pub model: Option<fn(&BenchResult, &Row) -> Option<ModelPoint>>,
    /// Numeric parameters that name rather than measure (CRESTA's
    /// scenario): they split series, never an axis of a figure.
    pub identifiers: &'static [&'static str],
}

impl ReportParts {
    pub const NONE: ReportParts = ReportParts {
        tables: None,
        model: None,
        identifiers: &[],
    };
}

/// A suite's figure: what it is ("CRESTA's Figure 1") and its writer.
#[derive(Clone, Copy)]
pub struct Figure {
    pub what: &'static str,
    pub write: fn(&Report, &Path) -> anyhow::Result<()>,
}

/// (the run's results, `--fail-on-outlier`) → the run's outcome and its
/// line, when the suite's results decide one.
pub type EndingHook = fn(&Report, bool) -> Option<(Outcome, String)>;

/// A suite's own options → plan axes: (arguments, whether the suite is in
/// the run, world size, memory limit per rank) → axes, or a one-line usage
/// error (e.g. the suite's options given when the suite is not in the run).
pub type AxesHook = fn(&RunArgs, bool, usize, u64) -> Result<Axes, String>;

/// Something `mpibench run` can run: a communication pattern timed by the
/// engine, or a tool that measures the instruments (clocks) themselves.
#[derive(Clone, Copy)]
pub enum Entry {
    Bench(&'static dyn Benchmark),
    Tool(&'static dyn Tool),
}

impl std::fmt::Debug for Entry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.qualified())
    }
}

impl Entry {
    pub fn info(&self) -> &'static Info {
        match self {
            Entry::Bench(b) => b.info(),
            Entry::Tool(t) => t.info(),
        }
    }

    /// `suite/name`.
    pub fn qualified(&self) -> String {
        let i = self.info();
        format!("{}/{}", i.suite, i.name)
    }
}

/// A suite's benchmarks as entries of the registry.
pub fn benches(v: Vec<&'static dyn Benchmark>) -> Vec<Entry> {
    v.into_iter().map(Entry::Bench).collect()
}

fn imb_entries() -> Vec<Entry> {
    benches(imb::benchmarks())
}

fn mpitest_entries() -> Vec<Entry> {
    benches(mpitest::benchmarks())
}

fn allreduce_entries() -> Vec<Entry> {
    benches(allreduce::benchmarks())
}

fn cresta_entries() -> Vec<Entry> {
    benches(cresta::benchmarks())
}

fn caf_entries() -> Vec<Entry> {
    benches(caf::benchmarks())
}

fn osu_entries() -> Vec<Entry> {
    benches(osu::benchmarks())
}

fn mpigraph_entries() -> Vec<Entry> {
    benches(mpigraph::benchmarks())
}

fn guidelines_entries() -> Vec<Entry> {
    benches(guidelines::benchmarks())
}

fn clock_entries() -> Vec<Entry> {
    clock::tools().into_iter().map(Entry::Tool).collect()
}

const PMB_DEFAULTS: Defaults = Defaults {
    method: Method::Loop,
    sync: SyncMode::Barrier,
    reps: RepsDefault::Imb,
    sizes: "0:22",
    procs: ProcSweep::Pmb,
    warm_largest: 2,
};

pub static SUITES: &[Suite] = &[
    Suite {
        name: imb::SUITE,
        title: "PMB-MPI1 v2.2 (Pallas MPI Benchmarks) and IMB-MPI1 2021 (--definitions imb2021)",
        entries: imb_entries,
        defaults: PMB_DEFAULTS,
        axes: Some(imb::axes),
        formats: &[("pmb", &table::Pmb), ("imb2021", &table::Imb2021)],
        figure: None,
        ending: None,
        fixed_repetitions: None,
        report: ReportParts::NONE,
        help: SuiteHelp {
            heading: Some(imb::HEADING),
            own: Some("mpibench imb [-npmin P] [-msglog A:B] [-iter N] [-time S] ... [BENCHMARK ...] (also as a link named IMB-MPI1)"),
            example: "mpibench run -n 4 --suite imb PingPong Allreduce --sizes 8,1K,64K --json imb.json",
        },
        front: None,
    },
    Suite {
        name: mpitest::SUITE,
        title: "MPITEST (parallel.ru): basic MPI constructs on N integers",
        entries: mpitest_entries,
        defaults: Defaults {
            method: Method::Mpitest,
            sync: SyncMode::Barrier,
            reps: RepsDefault::Fixed {
                normal: 100,
                fast: 10_000,
            },
            sizes: "4,40,400,4000,40000,400000",
            procs: ProcSweep::World,
            warm_largest: 0,
        },
        axes: None,
        formats: &[(mpitest::SUITE, &table::Mpitest)],
        figure: None,
        ending: None,
        fixed_repetitions: None,
        report: ReportParts::NONE,
        help: SuiteHelp {
            heading: None,
            own: Some("mpibench mpitest m1 M100 K10 T100 t100000 R2 otransfer.dat"),
            example: "mpibench run -n 4 --suite mpitest BARRIER BROADCAST --sizes 4,400,40000",
        },
        front: None,
    },
    Suite {
        name: caf::SUITE,
        title: "EPCC Fortran coarray micro-benchmarks on MPI one-sided communication",
        entries: caf_entries,
        defaults: Defaults {
            method: Method::Loop,
            sync: SyncMode::Barrier,
            reps: RepsDefault::TargetTime {
                target: caf::TARGET_TIME_S,
            },
            sizes: "0",
            procs: ProcSweep::World,
            warm_largest: 0,
        },
        axes: Some(caf::axes),
        formats: &[(caf::SUITE, &table::Caf)],
        figure: None,
        ending: None,
        fixed_repetitions: None,
        report: ReportParts::NONE,
        help: SuiteHelp {
            heading: Some(caf::HEADING),
            own: Some("mpibench cafbench [mpibench options] (as cafbench runs, stand-alone)"),
            example: "mpibench run -n 4 --suite caf --pingpong single --sync-kind global --halo-sizes 10",
        },
        front: None,
    },
    Suite {
        name: cresta::SUITE,
        title: "CRESTA Collectives Microbenchmark Suite (D4.5.2): collectives in scenarios, global time to completion",
        entries: cresta_entries,
        defaults: Defaults {
            method: Method::GlobalCompletion,
            sync: SyncMode::Window,
            reps: RepsDefault::Fixed {
                normal: 100,
                fast: 100,
            },
            sizes: "8,1K,64K,1M",
            procs: ProcSweep::Pmb,
            warm_largest: 0,
        },
        axes: Some(cresta::axes),
        formats: &[(cresta::SUITE, &table::Cresta)],
        figure: Some(Figure {
            what: "CRESTA's Figure 1",
            write: crate::report::cresta_plot::write,
        }),
        ending: None,
        fixed_repetitions: None,
        report: ReportParts {
            identifiers: &[cresta::SCENARIO],
            ..ReportParts::NONE
        },
        help: SuiteHelp {
            heading: Some(cresta::HEADING),
            own: Some("mpibench cresta COLL P_min nreps m_min m_max delay delay_P"),
            example: "mpibench run -n 4 --suite cresta Bcast --scenarios 1,2 --sizes 8,1K",
        },
        front: None,
    },
    Suite {
        name: commtest::SUITE,
        title: "COMMTEST (ORNL): SWAP and SENDRECV under 21 protocols, fixed volume in 1, 2, 4, ... packets; LogGP",
        entries: commtest::entries,
        defaults: Defaults {
            method: Method::MaxOverProcesses,
            sync: SyncMode::Barrier,
            reps: RepsDefault::Fixed {
                normal: 20,
                fast: 20,
            },
            sizes: "2M",
            procs: ProcSweep::World,
            warm_largest: 0,
        },
        axes: Some(commtest::axes),
        formats: &[(commtest::SUITE, &table::Commtest)],
        figure: None,
        ending: None,
        fixed_repetitions: None,
        report: ReportParts {
            tables: Some(table::commtest::report_tables),
            model: Some(table::commtest::fit_at),
            identifiers: &[],
        },
        help: SuiteHelp {
            heading: Some(commtest::HEADING),
            own: Some("mpibench commtest volume=2M minpacket=2K iterations=20 protocols=all swap distance=1 all"),
            example: "mpibench run -n 2 --suite commtest SWAP --volume 1M --min-packet 64K --protocols 0.3,1.0",
        },
        front: None,
    },
    Suite {
        name: allreduce::SUITE,
        title: "ALLREDUCE (ORNL): MPI_Allreduce against recursive doubling, ring, Rabenseifner, binomial",
        entries: allreduce_entries,
        defaults: Defaults {
            method: Method::MaxOverProcesses,
            sync: SyncMode::Barrier,
            reps: RepsDefault::Imb,
            sizes: "3:27",
            procs: ProcSweep::World,
            warm_largest: 0,
        },
        axes: Some(allreduce::axes),
        formats: &[(allreduce::SUITE, &table::Allreduce)],
        figure: None,
        ending: None,
        fixed_repetitions: None,
        report: ReportParts::NONE,
        help: SuiteHelp {
            heading: Some(allreduce::HEADING),
            own: None,
            example: "mpibench run -n 4 --suite allreduce --algorithms mpi,ring --sizes 8,64K",
        },
        front: None,
    },
    Suite {
        name: osu::SUITE,
        title: "OSU Micro-Benchmarks 7.4: point-to-point, collectives, one-sided (MB = 10^6 bytes)",
        entries: osu_entries,
        defaults: osu::DEFAULTS,
        axes: Some(osu::axes),
        formats: &[(osu::SUITE, &table::Osu)],
        figure: None,
        ending: None,
        fixed_repetitions: None,
        report: ReportParts::NONE,
        help: SuiteHelp {
            heading: Some(osu::HEADING),
            own: Some("mpibench osu PROGRAM [OSU flags] (also as a link named osu_latency, osu_bw, ...)"),
            example: "mpibench run -n 2 --suite osu osu_latency osu_bw --sizes 8,1K,64K",
        },
        front: None,
    },
    Suite {
        name: mpigraph::SUITE,
        title: "LLNL mpiGraph: bandwidth and latency of every pair of ranks, host summary, outliers",
        entries: mpigraph_entries,
        defaults: Defaults {
            method: Method::SplitCompletion,
            sync: SyncMode::Barrier,
            reps: RepsDefault::Fixed {
                normal: mpigraph::DEFAULT_ITERS,
                fast: mpigraph::DEFAULT_ITERS,
            },
            sizes: "16384",
            procs: ProcSweep::World,
            warm_largest: 0,
        },
        axes: Some(mpigraph::axes),
        formats: &[(mpigraph::SUITE, &table::Mpigraph)],
        figure: None,
        ending: Some(crate::frontend::mpigraph::outliers_ending),
        fixed_repetitions: None,
        report: ReportParts::NONE,
        help: SuiteHelp {
            heading: Some(mpigraph::HEADING),
            own: Some("mpibench mpigraph [SIZE [ITERS [WINDOW]]]"),
            example: "mpibench run -n 4 --suite mpigraph Bandwidth --json graph.json",
        },
        front: None,
    },
    Suite {
        name: guidelines::SUITE,
        title: "Self-consistent performance guidelines: collectives against their mock-ups (PGMPI)",
        entries: guidelines_entries,
        defaults: Defaults {
            method: Method::PerCall,
            sync: SyncMode::Barrier,
            reps: RepsDefault::Imb,
            sizes: "4,16,64,256,1K,4K,16K,64K,256K,1M",
            procs: ProcSweep::World,
            warm_largest: 0,
        },
        formats: &[(guidelines::SUITE, &guidelines::table::Guidelines)],
        report: ReportParts {
            tables: Some(guidelines::table::report_tables),
            model: None,
            identifiers: &[],
        },
        help: SuiteHelp {
            heading: None,
            own: Some("mpibench guidelines [GUIDELINE...] [mpibench options]"),
            example: "mpibench run -n 4 --suite guidelines Allreduce_Reduce_Bcast Scan_Exscan_Reduce_local --sizes 64,4K --check",
        },
        front: Some(&guidelines::front::FRONTEND),
        ..Suite::PLAIN
    },
    crate::bench::imb_nbc::REGISTERED,
    crate::bench::imb_ext::REGISTERED,
    crate::bench::imb_p2p::REGISTERED,
    crate::bench::imb_rma::REGISTERED,
    crate::bench::imb_mt::REGISTERED,
    Suite {
        name: clock::SUITE,
        title: "the instruments: timer resolution and overhead, clock synchronisation",
        entries: clock_entries,
        defaults: PMB_DEFAULTS,
        axes: None,
        formats: &[(clock::SUITE, &table::Pmb)],
        figure: None,
        ending: None,
        fixed_repetitions: Some(clock::fixed_repetitions),
        report: ReportParts::NONE,
        help: SuiteHelp {
            heading: None,
            own: None,
            example: "mpibench run -n 2 --suite clock",
        },
        front: None,
    },
];

/// Everything of every suite.
pub fn all() -> Vec<Entry> {
    SUITES.iter().flat_map(|s| (s.entries)()).collect()
}

/// The front end of `mpibench NAME ...` for a suite that is its own
/// command ([`Suite::front`]).
pub fn front_end(name: &str) -> Option<&'static crate::frontend::FrontEnd> {
    SUITES.iter().find(|s| s.name == name)?.front
}

pub fn suite(name: &str) -> Option<&'static Suite> {
    SUITES.iter().find(|s| s.name.eq_ignore_ascii_case(name))
}

/// The benchmark of a result: by its suite and name (a `-multi` result by
/// the name it was run under).
pub fn bench_of(suite_name: &str, name: &str) -> Option<&'static dyn Benchmark> {
    let su = suite(suite_name)?;
    let plain = strip_multi(name).unwrap_or(name);
    (su.entries)().into_iter().find_map(|e| match e {
        Entry::Bench(b) if b.info().name == plain => Some(b),
        _ => None,
    })
}

/// The suite a benchmark belongs to.
pub fn suite_of(info: &Info) -> &'static Suite {
    suite(info.suite).unwrap_or(&SUITES[0])
}

/// The table format named `name`: a suite's own (by the suite's name) or
/// one a suite offers its front end (`imb2021`). Every result of a run
/// names a registered suite; a results file from a suite this build does
/// not know prints in the first suite's (PMB's) format.
pub fn format(name: &str) -> &'static dyn Format {
    suite(name)
        .map(|s| s.formats[0].1)
        .or_else(|| {
            SUITES
                .iter()
                .flat_map(|s| s.formats)
                .find(|(n, _)| n.eq_ignore_ascii_case(name))
                .map(|(_, f)| *f)
        })
        .unwrap_or(SUITES[0].formats[0].1)
}

/// A name as users may type it: case-insensitive, `&` read as "and", and
/// spaces, `-` and `_` ignored ("send-and-recv" finds "SEND & RECV").
pub fn normalise(name: &str) -> String {
    name.to_lowercase()
        .replace('&', "and")
        .chars()
        .filter(|c| !matches!(c, ' ' | '-' | '_'))
        .collect()
}

/// "Multi-PingPong" → Some("PingPong"); works on any Unicode input.
pub fn strip_multi(name: &str) -> Option<&str> {
    let prefix = name.get(..6)?;
    prefix
        .eq_ignore_ascii_case("multi-")
        .then(|| &name[6..])
        .filter(|rest| !rest.is_empty())
}

/// Why a name did not resolve (a usage error).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LookupError {
    #[error("unknown benchmark '{name}'{}", hint.as_ref().map(|h| format!(" (did you mean {h}?)")).unwrap_or_default())]
    Unknown { name: String, hint: Option<String> },
    #[error("benchmark '{name}' is ambiguous: {} (name one with suite/name or pass --suite)", candidates.join(", "))]
    Ambiguous {
        name: String,
        candidates: Vec<String>,
    },
    #[error("unknown suite '{0}' (known: {1})")]
    UnknownSuite(String, String),
}

pub fn suite_names() -> String {
    SUITES.iter().map(|s| s.name).collect::<Vec<_>>().join(", ")
}

/// A benchmark's name and its aliases.
fn names(info: &Info) -> impl Iterator<Item = &'static str> {
    std::iter::once(info.name).chain(info.aliases.iter().copied())
}

/// A benchmark of `s` by name; of benchmarks sharing the name (one per
/// definitions, e.g. Reduce_scatter), the one the definitions list.
fn in_suite(s: &Suite, name: &str, defs: Definitions) -> Option<Entry> {
    let n = normalise(name);
    let found: Vec<Entry> = (s.entries)()
        .into_iter()
        .filter(|e| names(e.info()).any(|a| normalise(a) == n))
        .collect();
    found
        .iter()
        .find(|e| e.info().default_in.contains(&defs))
        .or(found.first())
        .copied()
}

/// What a suite runs when no benchmark is named, under the given definitions.
pub fn default_entries(s: &Suite, defs: Definitions) -> Vec<Entry> {
    (s.entries)()
        .into_iter()
        .filter(|e| e.info().default_in.contains(&defs))
        .collect()
}

/// Whether any benchmark a command line names calls MPI from several
/// threads at once ([`Info::thread_multiple`]); naming none, whether any of
/// the default list of the suite given does (under either definitions).
/// Decided on every rank from its own arguments before `MPI_Init`, so that
/// only such runs ask for MPI_THREAD_MULTIPLE; names that do not resolve
/// are left to the plan.
pub fn names_thread_multiple(names: &[String], suite_arg: Option<&str>) -> bool {
    if names.is_empty() {
        return suite_arg.and_then(suite).is_some_and(|s| {
            (s.entries)()
                .iter()
                .any(|e| !e.info().default_in.is_empty() && e.info().thread_multiple)
        });
    }
    names
        .iter()
        .any(|n| resolve(n, suite_arg).is_ok_and(|(e, _)| e.info().thread_multiple))
}

/// [`resolve_in`] under PMB's definitions.
#[cfg_attr(not(test), allow(dead_code))]
pub fn resolve(name: &str, suite_arg: Option<&str>) -> Result<(Entry, bool), LookupError> {
    resolve_in(name, suite_arg, Definitions::Pmb)
}

/// Resolves a benchmark name: `suite/name` exactly there; a bare name in
/// `suite` (the `--suite` given, else the default `imb`), else in whichever
/// one suite has it. Returns the entry and whether the name selects Multi mode.
pub fn resolve_in(
    name: &str,
    suite_arg: Option<&str>,
    defs: Definitions,
) -> Result<(Entry, bool), LookupError> {
    let (suite_part, bench) = match name.split_once('/') {
        Some((s, b)) => (Some(s), b),
        None => (None, name),
    };
    let (bench, multi) = match strip_multi(bench) {
        Some(rest) => (rest, true),
        None => (bench, false),
    };
    let explicit = suite_part.or(suite_arg);
    let home = match explicit {
        Some(s) => {
            suite(s).ok_or_else(|| LookupError::UnknownSuite(s.to_string(), suite_names()))?
        }
        None => &SUITES[0],
    };
    if let Some(e) = in_suite(home, bench, defs) {
        return Ok((e, multi));
    }
    let unknown = |pool: Vec<Entry>| LookupError::Unknown {
        name: name.to_string(),
        hint: suggest(bench, &pool),
    };
    if explicit.is_some() {
        return Err(unknown((home.entries)()));
    }
    let found: Vec<Entry> = SUITES
        .iter()
        .filter_map(|s| in_suite(s, bench, defs))
        .collect();
    match found.len() {
        0 => Err(unknown(all())),
        1 => Ok((found[0], multi)),
        _ => Err(LookupError::Ambiguous {
            name: name.to_string(),
            candidates: found.iter().map(Entry::qualified).collect(),
        }),
    }
}

/// The closest name among `pool`, for "did you mean" hints.
pub fn suggest(name: &str, pool: &[Entry]) -> Option<String> {
    let lower = normalise(name);
    pool.iter()
        .flat_map(|e| names(e.info()))
        .map(|n| (levenshtein(&lower, &normalise(n)), n))
        .filter(|(d, n)| *d <= 3.max(n.chars().count() / 3))
        .min_by_key(|(d, _)| *d)
        .map(|(_, n)| n.to_string())
}

/// Edit distance between two strings.
pub fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            cur.push(sub.min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

/// The methodology defaults of every suite, for `mpibench run --help`.
pub fn defaults_help() -> String {
    let mut s = String::from(
        "Suite defaults (each overridable by --timing, --sync, --iter, --sizes, --npmin):\n",
    );
    for su in SUITES.iter().filter(|s| s.name != clock::SUITE) {
        s.push_str(&format!("  {}: {}\n", su.name, defaults_line(su)));
    }
    s.push_str(
        "`mpibench help SUITE` (or `run --suite SUITE -h`): a suite's options and an example.\n",
    );
    s
}

/// A suite's methodology defaults in one line.
pub fn defaults_line(su: &Suite) -> String {
    let d = su.defaults;
    let reps = match d.reps {
        RepsDefault::Imb => {
            "IMB repetitions (<= 1000 and <= 40 MiB per size, within --time)".to_string()
        }
        RepsDefault::Fixed { normal, fast } => {
            format!("{normal} iterations ({fast} for fast constructs)")
        }
        RepsDefault::Split(s) if (s.small, s.warm_small) == (s.large, s.warm_large) => {
            format!("{} iterations after {} warm-up", s.small, s.warm_small)
        }
        RepsDefault::Split(s) => format!(
            "{} iterations after {} warm-up ({} after {} above {} bytes)",
            s.small, s.warm_small, s.large, s.warm_large, s.limit
        ),
        RepsDefault::TargetTime { target } => format!(
            "repetitions doubled until a run takes {target} s (2/3 .. 4/3 of it; delay subtraction: 100 x 200)"
        ),
    };
    let procs = match d.procs {
        ProcSweep::Pmb => "PMB process sweep (npmin, 2*npmin, ..., P)",
        ProcSweep::World => "all processes",
    };
    format!(
        "--timing {} ({}), --sync {}, {reps}, sizes {}, {procs}",
        d.method.name(),
        d.method.describe(),
        d.sync.name(),
        d.sizes
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_split_that_does_not_change_is_one_count() {
        let su = |small, large| Suite {
            defaults: Defaults {
                reps: RepsDefault::Split(crate::contract::Split {
                    small,
                    large,
                    warm_small: 5,
                    warm_large: 5,
                    limit: 64,
                }),
                ..Suite::PLAIN.defaults
            },
            ..Suite::PLAIN
        };
        let line = defaults_line(&su(100, 100));
        assert!(
            line.contains(", 100 iterations after 5 warm-up, sizes"),
            "{line}"
        );
        let line = defaults_line(&su(100, 10));
        assert!(line.contains("(10 after 5 above 64 bytes)"), "{line}");
    }

    #[test]
    fn a_suite_named_alone_asks_for_threads_when_its_default_list_has_them() {
        for s in SUITES {
            let default_mt = (s.entries)()
                .iter()
                .any(|e| !e.info().default_in.is_empty() && e.info().thread_multiple);
            assert_eq!(
                names_thread_multiple(&[], Some(s.name)),
                default_mt,
                "{}",
                s.name
            );
        }
        // Nothing named and no suite, or a suite that does not exist: no.
        assert!(!names_thread_multiple(&[], None));
        assert!(!names_thread_multiple(&[], Some("no-such-suite")));
        // A benchmark that runs only when named still asks when named.
        let mt: Vec<(String, &str)> = SUITES
            .iter()
            .flat_map(|s| (s.entries)().into_iter().map(move |e| (e, s.name)))
            .filter(|(e, _)| e.info().thread_multiple)
            .map(|(e, s)| (e.info().name.to_string(), s))
            .collect();
        for (name, s) in mt {
            assert!(names_thread_multiple(&[name], Some(s)));
        }
    }

    fn name(r: Result<(Entry, bool), LookupError>) -> String {
        r.unwrap().0.qualified()
    }

    #[test]
    fn every_suite_names_its_formats_and_no_name_is_taken_twice() {
        let mut seen = std::collections::HashSet::new();
        for s in SUITES {
            assert!(!s.formats.is_empty(), "{}", s.name);
            for (n, _) in s.formats {
                assert!(seen.insert(n.to_lowercase()), "format {n} twice");
                // A format's name is never another suite's name.
                assert!(
                    suite(n).is_none_or(|o| o.name == s.name),
                    "format {n} of {} is a suite's name",
                    s.name
                );
            }
        }
    }

    #[test]
    fn bare_names_resolve_in_the_suite_then_anywhere() {
        assert_eq!(name(resolve("pingpong", None)), "imb/PingPong");
        assert_eq!(name(resolve("REDUCE_SCATTER", None)), "imb/Reduce_scatter");
        // In imb first, although MPITEST has a BARRIER too.
        assert_eq!(name(resolve("barrier", None)), "imb/Barrier");
        assert_eq!(name(resolve("barrier", Some("mpitest"))), "mpitest/BARRIER");
        assert_eq!(name(resolve("mpitest/barrier", None)), "mpitest/BARRIER");
        // Only one suite has it.
        assert_eq!(name(resolve("clocksync", None)), "clock/clocksync");
        assert_eq!(name(resolve("send-and-recv", None)), "mpitest/SEND & RECV");
        assert_eq!(name(resolve("ISEND & WAIT", None)), "mpitest/ISEND & WAIT");
        assert_eq!(
            name(resolve("signal_sending", None)),
            "mpitest/SIGNAL SENDING"
        );
    }

    #[test]
    fn multi_prefix_selects_multi_mode() {
        let (e, multi) = resolve("Multi-Allreduce", None).unwrap();
        assert_eq!(e.info().name, "Allreduce");
        assert!(multi);
        assert!(!resolve("Allreduce", None).unwrap().1);
        assert!(strip_multi("Multi-").is_none());
    }

    #[test]
    fn bad_names_are_usage_errors_with_hints() {
        let e = resolve("PingPang", None).unwrap_err();
        assert!(e.to_string().contains("did you mean PingPong"), "{e}");
        // Multibyte characters never panic.
        for n in [
            "PingPöng",
            "Alltoäll",
            "Barrièr",
            "Multiö-x",
            "ö",
            "Multi-ö",
        ] {
            assert!(
                matches!(resolve(n, None), Err(LookupError::Unknown { .. })),
                "{n}"
            );
        }
        let e = resolve("PingPong", Some("mpitest")).unwrap_err();
        assert!(matches!(e, LookupError::Unknown { .. }), "{e}");
        assert!(matches!(
            resolve("nosuch/x", None),
            Err(LookupError::UnknownSuite(..))
        ));
    }

    #[test]
    fn ambiguity_lists_the_candidates() {
        // "sendrecv" is imb/Sendrecv and mpitest/SENDRECV; with an explicit
        // --suite it resolves there, without one imb wins. Ambiguity arises
        // only for names outside imb that several other suites share.
        assert_eq!(name(resolve("sendrecv", None)), "imb/Sendrecv");
        // "timing" is clock/timing and mpitest/TIMING, and not in imb.
        let e = resolve("timing", None).unwrap_err();
        assert_eq!(
            e,
            LookupError::Ambiguous {
                name: "timing".into(),
                candidates: vec!["mpitest/TIMING".into(), "clock/timing".into()],
            }
        );
        let msg = e.to_string();
        assert!(!msg.contains('\n'), "{msg}");
        assert!(
            msg.contains("mpitest/TIMING, clock/timing") && msg.contains("--suite"),
            "{msg}"
        );
        // Either resolves once qualified, or with --suite.
        assert_eq!(name(resolve("clock/timing", None)), "clock/timing");
        assert_eq!(name(resolve("timing", Some("mpitest"))), "mpitest/TIMING");
    }

    #[test]
    fn suggestions() {
        assert_eq!(suggest("PingPang", &all()).as_deref(), Some("PingPong"));
        assert_eq!(suggest("allreduse", &all()).as_deref(), Some("Allreduce"));
        assert_eq!(suggest("zzzzzzzzzzzzzzzzzz", &all()), None);
        assert_eq!(levenshtein("kitten", "sitting"), 3);
    }

    #[test]
    fn pmb_mpi1_has_its_twelve_benchmarks() {
        let imb = suite("imb").unwrap();
        assert_eq!(default_entries(imb, Definitions::Pmb).len(), 12);
        assert_eq!(default_entries(imb, Definitions::Imb2021).len(), 19);
        // One name, two definitions.
        let rs = |d| resolve_in("reduce_scatter", None, d).unwrap().0.info();
        assert_eq!(rs(Definitions::Pmb).default_in, &[Definitions::Pmb]);
        assert_eq!(rs(Definitions::Imb2021).default_in, &[Definitions::Imb2021]);
        // IMB-only benchmarks resolve under either, if named.
        assert_eq!(name(resolve("uniband", None)), "imb/Uniband");
        assert_eq!(name(resolve("gather", None)), "imb/Gather");
        assert_eq!(name(resolve("gather", Some("mpitest"))), "mpitest/GATHER");
        assert!(defaults_help().contains("mpitest: --timing mpitest"));
    }
}

/// Shared code asks the registry and names no suite (issue: suites as
/// plug-ins). This test scans the shared layers' sources, outside their test
/// modules and comments, for a suite's name: as a string literal, as
/// `<suite>::SUITE` or as a path into `bench::<suite>`. What is left to move
/// is listed in `LEFT`, and a listed entry that no longer occurs fails the
/// test too, so that the list only shrinks.
#[cfg(test)]
mod layering {
    use super::SUITES;
    use crate::layers::code;

    /// The shared layers (suite parts registered here, such as the table
    /// formats in report/table/<suite>.rs, are not shared code).
    const SHARED: &[&str] = &[
        "src/engine/mod.rs",
        "src/engine/aggregate.rs",
        "src/engine/config.rs",
        "src/engine/disturb.rs",
        "src/engine/placement.rs",
        "src/engine/record.rs",
        "src/contract/axis.rs",
        "src/contract/placement.rs",
        "src/plan.rs",
        "src/app.rs",
        "src/output.rs",
        "src/outcome.rs",
        "src/results.rs",
        "src/report/mod.rs",
        "src/report/cmd.rs",
        "src/report/compare.rs",
        "src/report/csv.rs",
        "src/report/html.rs",
        "src/report/plot.rs",
        "src/report/validate.rs",
        "src/report/view.rs",
        "src/report/table/mod.rs",
    ];

    /// (file, suite) pairs still to move behind the registry.
    const LEFT: &[(&str, &str)] = &[];

    fn names_suite(code: &str, suite: &str) -> bool {
        let path = format!("bench::{suite}");
        [
            format!("\"{suite}\""),
            format!("{suite}::SUITE"),
            format!("{path}::"),
            format!("{path};"),
            format!("{path} "),
            format!("{path},"),
            format!("{path}}}"),
        ]
        .iter()
        .any(|p| code.contains(p.as_str()))
    }

    #[test]
    fn shared_code_names_no_suite() {
        let mut found = Vec::new();
        for path in SHARED {
            let code = code(path);
            for s in SUITES {
                if names_suite(&code, s.name) {
                    found.push((*path, s.name));
                }
            }
        }
        let new: Vec<_> = found.iter().filter(|f| !LEFT.contains(f)).collect();
        assert!(new.is_empty(), "shared code names a suite: {new:?}");
        let gone: Vec<_> = LEFT.iter().filter(|l| !found.contains(l)).collect();
        assert!(
            gone.is_empty(),
            "moved behind the registry, strike from LEFT: {gone:?}"
        );
    }
}
