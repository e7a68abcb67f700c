//! MPITEST (parallel.ru, `shared/seeds/002_*.txt`): the efficiency of basic
//! MPI constructs on N integers (MPI_INT; reductions with MPI_SUM), each
//! timed as barrier; t1; construct; barrier; t2 with t = t2 − t1 − DT − DB
//! (`method::Mpitest`). "Fast" constructs (TIMING, BARRIER, SIGNAL SENDING)
//! run `t` iterations, the others `T`.
//!
//! Point-to-point constructs pair rank i with rank i + P/2 for every
//! i < P/2, all pairs at once (rank i sends); with an odd P the last rank
//! only takes part in the barriers. The pairing is the same for every P.

mod allgather;
mod allreduce;
mod alltoall;
mod barrier;
mod blocking_send;
mod broadcast;
pub mod front;
mod gather;
mod isend_wait;
mod reduce;
mod send_recv;
mod sendrecv;
mod signal;
pub mod table;
mod timing;

use super::Benchmark;
use crate::bench::entry::Entry;
use crate::contract::RepsDefault;
use crate::method::{Method, SyncMode};
use crate::plugin::{benches, Defaults, ProcSweep, Suite, SuiteHelp};

pub const SUITE: &str = "mpitest";

/// The 13 constructs in the seed's order.
pub fn benchmarks() -> Vec<&'static dyn Benchmark> {
    vec![
        &timing::TIMING,
        &barrier::BARRIER,
        &allreduce::ALLREDUCE,
        &reduce::REDUCE,
        &broadcast::BROADCAST,
        &gather::GATHER,
        &allgather::ALLGATHER,
        &alltoall::ALL_TO_ALL,
        &isend_wait::ISEND_WAIT,
        &blocking_send::BLOCKING_SEND,
        &sendrecv::SENDRECV,
        &send_recv::SEND_RECV,
        &signal::SIGNAL_SENDING,
    ]
}

fn entries() -> Vec<Entry> {
    benches(benchmarks())
}

/// The suite's entry in the registry.
pub const REGISTERED: Suite = Suite {
    name: SUITE,
    title: "MPITEST (parallel.ru): basic MPI constructs on N integers",
    entries,
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
    formats: &[(SUITE, &table::Mpitest)],
    help: SuiteHelp {
        heading: None,
        own: Some("mpibench mpitest m1 M100 K10 T100 t100000 R2 otransfer.dat"),
        example: "mpibench run -n 4 --suite mpitest BARRIER BROADCAST --sizes 4,400,40000",
    },
    front: Some(&front::FRONTEND),
    ..Suite::PLAIN
};

/// A construct by exact name.
#[cfg(test)]
pub fn find(name: &str) -> Option<&'static dyn Benchmark> {
    benchmarks().into_iter().find(|b| b.info().name == name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::{Axis, Pace};
    use crate::comm::Elem;
    use crate::contract::placement::Placement;

    #[test]
    fn thirteen_constructs_on_integers() {
        let all = benchmarks();
        assert_eq!(all.len(), 13);
        for b in &all {
            let i = b.info();
            assert_eq!(i.suite, SUITE);
            if i.sized() {
                assert_eq!(i.elem, Elem::Int, "{}", i.name);
                assert_eq!(i.axis, Axis::Elems, "{}", i.name);
            }
        }
        let fast: Vec<_> = all
            .iter()
            .filter(|b| b.info().pace == Pace::Fast)
            .map(|b| b.info().name)
            .collect();
        assert_eq!(fast, vec!["TIMING", "BARRIER", "SIGNAL SENDING"]);
    }

    #[test]
    fn point_to_point_constructs_pair_i_with_i_plus_half() {
        for n in [
            "ISEND & WAIT",
            "BLOCKING SEND",
            "SENDRECV",
            "SEND & RECV",
            "SIGNAL SENDING",
        ] {
            assert_eq!(find(n).unwrap().info().placement, Placement::Halves, "{n}");
        }
        assert!(find("ALLREDUCE").unwrap().info().reduction);
        assert!(find("REDUCE").unwrap().info().rooted);
    }
}
