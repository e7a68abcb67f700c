//! ISEND & WAIT: a nonblocking send of N integers from one process to
//! another, waiting for its completion (MPI_Isend + MPI_Wait; MPI_Recv).

use crate::bench::{patterns, Axis, Info, RankRule};
use crate::comm::Elem;
use crate::contract::placement::Placement;

static INFO: Info = Info {
    name: "ISEND & WAIT",
    suite: super::SUITE,
    description: "MPI_Isend + MPI_Wait of N MPI_INTs, i -> i+P/2 (MPI_Recv)",
    elem: Elem::Int,
    axis: Axis::Elems,
    placement: Placement::Halves,
    ranks: RankRule::PAIR,
    throughput: Some(1.0),
    ..Info::DEFAULT
};

pub static ISEND_WAIT: patterns::IsendWait = patterns::IsendWait(&INFO);
