//! PMB-MPI1 (Pallas MPI Benchmarks v2.2, the ancestor of IMB-MPI1): the
//! twelve primary benchmarks of PMB §4, and the benchmarks IMB-MPI1 2021
//! added (Reduce_local, Reduce_scatter_block, Gather, Gatherv, Scatter,
//! Scatterv, Alltoallv, Uniband, Biband) with IMB 2021's Reduce_scatter.
//! Each file holds one benchmark's definition; the patterns are shared
//! (`bench::patterns`); `Info::default_in` says which definitions list it.

pub mod args;
pub mod front;
pub use args::axes;
mod allgather;
mod allgatherv;
mod allreduce;
mod alltoall;
mod alltoallv;
mod barrier;
mod bcast;
mod biband;
mod exchange;
mod gather;
mod gatherv;
pub mod overlap;
mod pingping;
mod pingpong;
mod reduce;
mod reduce_local;
mod reduce_scatter;
mod reduce_scatter_block;
mod reduce_scatter_imb;
mod scatter;
mod scatterv;
mod sendrecv;
mod sources;
pub mod table;
mod uniband;

use super::{patterns, Benchmark, Definitions};
use crate::bench::entry::Entry;
use crate::plugin::{benches, Defaults, Suite, SuiteHelp};

pub const SUITE: &str = "imb";

/// The heading of the suite's options in `mpibench run -h`.
pub const HEADING: &str = "IMB (--suite imb)";

/// Messages per window of Uniband and Biband under `definitions` (IMB
/// 2021.2 and later: 256; PMB, which has neither, keeps IMB's old 64).
pub fn default_window(definitions: Definitions) -> usize {
    match definitions {
        Definitions::Imb2021 => patterns::WINDOW_IMB2021,
        Definitions::Pmb => patterns::WINDOW_PMB,
    }
}

/// The benchmarks in IMB-MPI1 2021's order, of which PMB's twelve are in
/// PMB's own order; Uniband, Biband and the source variants of PingPong
/// and PingPing last (they run only when named).
pub fn benchmarks() -> Vec<&'static dyn Benchmark> {
    vec![
        &pingpong::PINGPONG,
        &pingping::PINGPING,
        &sendrecv::SENDRECV,
        &exchange::EXCHANGE,
        &allreduce::ALLREDUCE,
        &reduce::REDUCE,
        &reduce_local::REDUCE_LOCAL,
        &reduce_scatter::REDUCE_SCATTER,
        &reduce_scatter_imb::REDUCE_SCATTER_IMB,
        &reduce_scatter_block::REDUCE_SCATTER_BLOCK,
        &allgather::ALLGATHER,
        &allgatherv::ALLGATHERV,
        &gather::GATHER,
        &gatherv::GATHERV,
        &scatter::SCATTER,
        &scatterv::SCATTERV,
        &alltoall::ALLTOALL,
        &alltoallv::ALLTOALLV,
        &bcast::BCAST,
        &barrier::BARRIER,
        &uniband::UNIBAND,
        &biband::BIBAND,
        &sources::PINGPONG_SPECIFIC,
        &sources::PINGPONG_ANY,
        &sources::PINGPING_SPECIFIC,
        &sources::PINGPING_ANY,
    ]
}

fn entries() -> Vec<Entry> {
    benches(benchmarks())
}

/// PMB's methodology defaults (the clock tools' too): loop timing after a
/// barrier, IMB's repetitions and lengths, PMB's process counts, and two
/// repetitions at the largest size first.
pub const DEFAULTS: Defaults = Defaults {
    warm_largest: 2,
    ..Suite::PLAIN.defaults
};

/// The suite's entry in the registry.
pub const REGISTERED: Suite = Suite {
    name: SUITE,
    title: "PMB-MPI1 v2.2 (Pallas MPI Benchmarks) and IMB-MPI1 2021 (--definitions imb2021)",
    entries,
    defaults: DEFAULTS,
    axes: Some(axes),
    formats: &[
        ("pmb", &table::Pmb),
        ("imb2021", &table::Imb2021),
    ],
    help: SuiteHelp {
        heading: Some(HEADING),
        own: Some("mpibench imb [-npmin P] [-msglog A:B] [-iter N] [-time S] ... [BENCHMARK ...] (also as a link named IMB-MPI1)"),
        example: "mpibench run -n 4 --suite imb PingPong Allreduce --sizes 8,1K,64K --json imb.json",
    },
    front: Some(&front::MPI1),
    run_options: &[
        "definitions",
        "call_sync",
        "off_cache",
        "imb_window",
        "msg_pause",
        "iter_policy",
    ],
    ..Suite::PLAIN
};

/// A benchmark of this suite by exact name (PMB's Reduce_scatter first).
#[cfg(test)]
pub fn find(name: &str) -> Option<&'static dyn Benchmark> {
    benchmarks().into_iter().find(|b| b.info().name == name)
}

/// A benchmark by exact name under the given definitions.
#[cfg(test)]
pub fn find_in(name: &str, d: crate::bench::Definitions) -> Option<&'static dyn Benchmark> {
    let all: Vec<_> = benchmarks()
        .into_iter()
        .filter(|b| b.info().name == name)
        .collect();
    all.iter()
        .find(|b| b.info().default_in.contains(&d))
        .or(all.first())
        .copied()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::Class;
    use crate::comm::Elem;
    use crate::contract::axis::Point;
    use crate::contract::placement::Placement;

    fn info(name: &str) -> &'static crate::bench::Info {
        find(name).unwrap().info()
    }

    #[test]
    fn timing_and_throughput_definitions_follow_pmb_4() {
        // PingPong: time = t/2, throughput X/1.048576/time.
        assert_eq!(info("PingPong").time_scale, 0.5);
        assert_eq!(info("PingPong").throughput, Some(1.0));
        assert_eq!(info("PingPing").time_scale, 1.0);
        assert_eq!(info("PingPing").throughput, Some(1.0));
        assert_eq!(info("Sendrecv").throughput, Some(2.0));
        assert_eq!(info("Exchange").throughput, Some(4.0));
        for c in [
            "Bcast",
            "Allgather",
            "Allgatherv",
            "Alltoall",
            "Reduce",
            "Reduce_scatter",
            "Allreduce",
            "Barrier",
        ] {
            assert_eq!(info(c).throughput, None, "{c}");
            assert_eq!(info(c).class, Class::Collective, "{c}");
        }
        assert_eq!(info("PingPong").class, Class::SingleTransfer);
        assert_eq!(info("Exchange").class, Class::ParallelTransfer);
        assert_eq!(info("Sendrecv").placement, Placement::Shift(1));
        assert_eq!(info("PingPong").placement, Placement::Halves);
    }

    #[test]
    fn source_variants_are_pingpong_and_pingping_run_only_when_named() {
        for (name, like) in [
            ("PingPongSpecificSource", "PingPong"),
            ("PingPongAnySource", "PingPong"),
            ("PingPingSpecificSource", "PingPing"),
            ("PingPingAnySource", "PingPing"),
        ] {
            let (i, l) = (info(name), info(like));
            assert_eq!(i.time_scale, l.time_scale, "{name}");
            assert_eq!(i.throughput, l.throughput, "{name}");
            assert_eq!(i.placement, l.placement, "{name}");
            assert_eq!(i.class, l.class, "{name}");
            assert!(i.default_in.is_empty(), "{name}");
        }
    }

    #[test]
    fn reductions_use_floats_everything_else_bytes() {
        for b in benchmarks() {
            let i = b.info();
            let want = matches!(
                i.name,
                "Reduce" | "Reduce_scatter" | "Allreduce" | "Reduce_local" | "Reduce_scatter_block"
            );
            assert_eq!(i.reduction, want, "{}", i.name);
            assert_eq!(
                i.elem,
                if want { Elem::Float } else { Elem::Byte },
                "{}",
                i.name
            );
        }
    }

    #[test]
    fn memory_needs_grow_with_q_where_pmb_says() {
        let need = |n: &str, x: usize, q: usize| find(n).unwrap().need(&Point::bytes(x), q);
        assert_eq!(need("Alltoall", 100, 8), 1600);
        assert_eq!(need("Allgather", 100, 8), 900);
        assert_eq!(need("Exchange", 100, 8), 400);
        // 10 floats on 3 ranks: 4, 3, 3; rank 0 receives 4.
        assert_eq!(need("Reduce_scatter", 40, 3), 40 + 16);
        assert_eq!(need("Barrier", 100, 8), 0);
        // Reductions drop the partial trailing float, as PMB's X/4.
        assert_eq!(need("Allreduce", 7, 2), 8);
    }

    #[test]
    fn default_lists_are_pmbs_twelve_and_imbs_nineteen() {
        use crate::bench::Definitions;
        let list = |d: Definitions| -> Vec<&str> {
            benchmarks()
                .iter()
                .map(|b| b.info())
                .filter(|i| i.default_in.contains(&d))
                .map(|i| i.name)
                .collect()
        };
        assert_eq!(
            list(Definitions::Pmb),
            [
                "PingPong",
                "PingPing",
                "Sendrecv",
                "Exchange",
                "Allreduce",
                "Reduce",
                "Reduce_scatter",
                "Allgather",
                "Allgatherv",
                "Alltoall",
                "Bcast",
                "Barrier"
            ]
        );
        // As IMB-MPI1 2021 lists them (the fixtures' "List of Benchmarks to run").
        assert_eq!(
            list(Definitions::Imb2021),
            [
                "PingPong",
                "PingPing",
                "Sendrecv",
                "Exchange",
                "Allreduce",
                "Reduce",
                "Reduce_local",
                "Reduce_scatter",
                "Reduce_scatter_block",
                "Allgather",
                "Allgatherv",
                "Gather",
                "Gatherv",
                "Scatter",
                "Scatterv",
                "Alltoall",
                "Alltoallv",
                "Bcast",
                "Barrier"
            ]
        );
    }

    #[test]
    fn reduce_scatter_counts_follow_the_definitions() {
        use crate::bench::Definitions;
        let need = |d, x, q| {
            find_in("Reduce_scatter", d)
                .unwrap()
                .need(&Point::bytes(x), q)
        };
        // PMB: X/4 floats split among the ranks; 40 bytes on 2 ranks: send 40, receive 20.
        assert_eq!(need(Definitions::Pmb, 40, 2), 40 + 20);
        // IMB 2021: every rank receives X/4 floats, Q·X/4 are sent.
        assert_eq!(need(Definitions::Imb2021, 40, 2), 80 + 40);
        assert_eq!(
            find("Reduce_scatter_block")
                .unwrap()
                .need(&Point::bytes(40), 4),
            160 + 40
        );
        // Scatter: the root sends Q·X; Gatherv as Gather.
        assert_eq!(find("Scatter").unwrap().need(&Point::bytes(10), 3), 30 + 10);
        assert_eq!(find("Gatherv").unwrap().need(&Point::bytes(10), 3), 10 + 30);
        // Uniband: X, and the acknowledgement after X.
        assert_eq!(find("Uniband").unwrap().need(&Point::bytes(10), 2), 10 + 11);
    }

    #[test]
    fn window_figures_are_imbs() {
        use crate::results::{BenchResult, Row};
        let row = |window: Option<u64>| Row {
            bytes: 1000,
            t_max_us: 64.0,
            params: window
                .map(|w| [("window".to_string(), serde_json::json!(w))].into())
                .unwrap_or_default(),
            ..Row::default()
        };
        let mut r = BenchResult {
            processes: 4,
            rows: vec![row(Some(64)), row(None)],
            ..BenchResult::default()
        };
        find("Uniband").unwrap().derive(&mut r);
        // 64 messages × 2 pairs in 64 µs: 2e6 messages per second, 2e9 bytes per second.
        let r0 = &r.rows[0];
        assert!((r0.msg_per_sec.unwrap() - 2e6).abs() < 1e-6);
        assert!((r0.mbytes_per_sec.unwrap() - 2e9 / 1_048_576.0).abs() < 1e-6);
        // Without a window param: IMB 2021's 256.
        assert!((r.rows[1].msg_per_sec.unwrap() - 8e6).abs() < 1e-6);
        find("Biband").unwrap().derive(&mut r);
        assert!((r.rows[0].msg_per_sec.unwrap() - 4e6).abs() < 1e-6);
    }

    #[test]
    fn reductions_beyond_the_count_range_are_refused() {
        let big = Point::bytes(4 * (i32::MAX as usize + 1));
        assert!(find("Allreduce").unwrap().refuse(&big, 2).is_some());
        assert!(find("Bcast").unwrap().refuse(&big, 2).is_none());
    }
}
