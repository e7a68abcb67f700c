//! Name resolution and lookups over the registry's suites
//! (`imb/Barrier`, `mpitest/BARRIER`, bare names within `--suite`), and the
//! defaults' help. The registry (`crate::suite`) hands its list over once,
//! at start ([`set_registry`]); nothing here names a suite.

use std::sync::OnceLock;

use super::{levenshtein, normalise, strip_multi, ProcSweep, Suite};
use crate::bench::clock;
use crate::bench::entry::Entry;
use crate::bench::{Benchmark, Definitions, Info};
use crate::contract::RepsDefault;
use crate::report::table::Format;
use crate::report::view::ReportParts;

static REGISTRY: OnceLock<&'static [Suite]> = OnceLock::new();

/// The registry's list, handed over by `main` before anything looks a
/// suite up.
pub fn set_registry(all: &'static [Suite]) {
    let _ = REGISTRY.set(all);
}

/// Every suite's own options of `mpibench run`, in the registry's order.
pub fn option_hooks() -> Vec<crate::cli::OptionsHook> {
    registry().iter().filter_map(|s| s.options).collect()
}

/// Every suite, the first the default.
pub fn registry() -> &'static [Suite] {
    match REGISTRY.get() {
        Some(all) => all,
        #[cfg(test)]
        None => crate::suite::SUITES,
        #[cfg(not(test))]
        None => unreachable!("main hands the registry over first"),
    }
}

/// Everything of every suite.
pub fn all() -> Vec<Entry> {
    registry().iter().flat_map(|s| (s.entries)()).collect()
}

pub fn suite(name: &str) -> Option<&'static Suite> {
    registry()
        .iter()
        .find(|s| s.name.eq_ignore_ascii_case(name))
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

/// What the suite named `name` adds to the HTML report; nothing for a
/// suite this build does not know. The commands pass it to the report.
pub fn report_parts(name: &str) -> ReportParts {
    suite(name).map_or(ReportParts::NONE, |s| s.report)
}

/// The suite a benchmark belongs to.
pub fn suite_of(info: &Info) -> &'static Suite {
    suite(info.suite).unwrap_or(&registry()[0])
}

/// The table format named `name`: a suite's own (by the suite's name) or
/// one a suite offers its front end (`imb2021`). Every result of a run
/// names a registered suite; a results file from a suite this build does
/// not know prints in the first suite's (PMB's) format.
pub fn format(name: &str) -> &'static dyn Format {
    suite(name)
        .map(|s| s.formats[0].1)
        .or_else(|| {
            registry()
                .iter()
                .flat_map(|s| s.formats)
                .find(|(n, _)| n.eq_ignore_ascii_case(name))
                .map(|(_, f)| *f)
        })
        .unwrap_or(registry()[0].formats[0].1)
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
    registry()
        .iter()
        .map(|s| s.name)
        .collect::<Vec<_>>()
        .join(", ")
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
        None => &registry()[0],
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
    let found: Vec<Entry> = registry()
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

/// The methodology defaults of every suite, for `mpibench run --help`.
pub fn defaults_help() -> String {
    let mut s = String::from(
        "Suite defaults (each overridable by --timing, --sync, --iter, --sizes, --npmin):\n",
    );
    for su in registry().iter().filter(|s| s.name != clock::SUITE) {
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

/// The front end of `mpibench NAME ...` ([`Suite::front`]).
pub fn front(name: &str) -> Option<&'static dyn crate::frontend::Front> {
    registry()
        .iter()
        .filter_map(|s| s.front)
        .find(|f| f.subcommand() == name)
}

/// Every drop-in program of every suite, as `DIR/NAME` under an
/// installation prefix (`bin/IMB-MPI1`,
/// `libexec/osu-micro-benchmarks/mpi/pt2pt/osu_latency`), in the
/// registry's order: what `mpibench --list-drop-ins` prints.
pub fn drop_ins() -> Vec<String> {
    registry()
        .iter()
        .filter_map(|s| s.front)
        .flat_map(|f| f.drop_ins())
        .map(|(dir, name)| format!("{dir}/{name}"))
        .collect()
}

/// The program whose name the binary runs under (a link or a copy named
/// IMB-MPI1, osu_bw, ...), or was re-launched from (`MPIBENCH_ARGV0`):
/// its front end and the program's name.
pub fn drop_in(argv0: &str) -> Option<(&'static dyn crate::frontend::Front, &'static str)> {
    let base = |s: &str| {
        std::path::Path::new(s)
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    let named = |name: String| {
        registry()
            .iter()
            .filter_map(|s| s.front)
            .find_map(|f| Some((f, f.program(&name)?)))
    };
    named(base(argv0)).or_else(|| {
        std::env::var("MPIBENCH_ARGV0")
            .ok()
            .and_then(|a| named(base(&a)))
    })
}
