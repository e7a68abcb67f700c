//! What a suite folder gives the registry: the [`Suite`] value that
//! describes it (its entries, methodology defaults, own options, table
//! formats, figure, say in the outcome, report parts and help), and the
//! helpers suites share to build one (name matching, entries from
//! benchmarks). It names no suite; the registry (`crate::suite`) lists the
//! suites' values, one line each.

pub mod lookup;

use crate::bench::entry::Entry;
use crate::bench::Benchmark;
use crate::cli::RunArgs;
use crate::contract::axis::Axes;
use crate::contract::RepsDefault;
use crate::method::{Method, SyncMode};
use crate::outcome::Outcome;
use crate::report::table::Format;
use crate::report::view::ReportParts;
use crate::results::Report;
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
    /// Its own command line: a subcommand (`mpibench mpitest ...`,
    /// `mpibench guidelines ...`), maybe listed in `mpibench --help`, and
    /// the programs a link may be named after (IMB-MPI1, osu_bw).
    pub front: Option<&'static dyn crate::frontend::Front>,
    /// Its own options of `mpibench run` (a clap `Args` in its folder).
    pub options: Option<crate::cli::OptionsHook>,
    /// The common options of `mpibench run` that are this suite's knobs
    /// (by their ids): `run -h` shows them under the suite's heading.
    pub run_options: &'static [&'static str],
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
        options: None,
        run_options: &[],
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

/// A suite's benchmarks as entries of the registry.
pub fn benches(v: Vec<&'static dyn Benchmark>) -> Vec<Entry> {
    v.into_iter().map(Entry::Bench).collect()
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
