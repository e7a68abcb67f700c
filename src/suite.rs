//! The registry: every suite, one line each. Each suite describes itself
//! in its folder (`bench::<suite>::REGISTERED`, a [`Suite`]); the lookups
//! over this list are `plugin::lookup`'s.

use crate::bench::clock;
use crate::bench::entry::Entry;
use crate::bench::{
    allreduce, caf, commtest, cresta, guidelines, imb, imb_ext, imb_io, imb_mpi4, imb_mt, imb_nbc,
    imb_p2p, imb_rma, mpigraph, mpitest, osu,
};
use crate::plugin::{Suite, SuiteHelp};
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
    ..Suite::PLAIN
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
    imb_io::REGISTERED,
    imb_mpi4::REGISTERED,
    imb_ext::REGISTERED,
    imb_p2p::REGISTERED,
    imb_rma::REGISTERED,
    imb_mt::REGISTERED,
    CLOCK,
];
#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::{Definitions, RepsDefault};
    use crate::plugin::lookup::*;
    use crate::plugin::Defaults;
    use crate::plugin::{levenshtein, strip_multi};

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
