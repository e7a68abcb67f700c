//! The registry: suite → benchmarks and methodology defaults, and name
//! resolution (`imb/Barrier`, `mpitest/BARRIER`, bare names within `--suite`).
//! Each suite describes itself in its folder (`bench::<suite>::REGISTERED`,
//! a [`Suite`]); the registry lists them, one line each.

use crate::bench::clock;
use crate::bench::entry::Entry;
use crate::bench::{
    allreduce, caf, commtest, cresta, guidelines, imb, imb_ext, imb_mt, imb_nbc, imb_p2p, imb_rma,
    mpigraph, mpitest, osu, Benchmark, Definitions, Info,
};
use crate::contract::RepsDefault;
use crate::plugin::{levenshtein, normalise, strip_multi, ProcSweep, Suite, SuiteHelp};
use crate::report::table::Format;
use crate::report::view::ReportParts;

fn clock_entries() -> Vec<Entry> {
    clock::tools().into_iter().map(Entry::Tool).collect()
}

/// The instruments (`bench/clock.rs`, no folder of its own): PMB's
/// defaults and table.
const CLOCK: Suite = Suite {
    name: clock::SUITE,
    title: "the instruments: timer resolution and overhead, clock synchronisation",
    entries: clock_entries,
    defaults: imb::DEFAULTS,
    axes: None,
    formats: &[(clock::SUITE, &imb::table::Pmb)],
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
};

/// Every suite, the first the default (`imb`), in `mpibench help`'s order.
pub static SUITES: &[Suite] = &[
    imb::REGISTERED,
    mpitest::REGISTERED,
    caf::REGISTERED,
    cresta::REGISTERED,
    commtest::REGISTERED,
    allreduce::REGISTERED,
    osu::REGISTERED,
    mpigraph::REGISTERED,
    guidelines::REGISTERED,
    imb_nbc::REGISTERED,
    imb_ext::REGISTERED,
    imb_p2p::REGISTERED,
    imb_rma::REGISTERED,
    imb_mt::REGISTERED,
    CLOCK,
];

/// Everything of every suite.
pub fn all() -> Vec<Entry> {
    SUITES.iter().flat_map(|s| (s.entries)()).collect()
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

/// What the suite named `name` adds to the HTML report; nothing for a
/// suite this build does not know. The commands pass it to the report.
pub fn report_parts(name: &str) -> ReportParts {
    suite(name).map_or(ReportParts::NONE, |s| s.report)
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

/// The front end of `mpibench NAME ...` ([`Suite::front`]).
pub fn front(name: &str) -> Option<&'static dyn crate::frontend::Front> {
    SUITES
        .iter()
        .filter_map(|s| s.front)
        .find(|f| f.subcommand() == name)
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
        SUITES
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plugin::Defaults;

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

    /// The shared layers (what a suite registers here, such as its table
    /// formats in bench/<suite>/table.rs, is the suite's own code).
    const SHARED: &[&str] = &[
        "src/plugin.rs",
        "src/bench/entry.rs",
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
