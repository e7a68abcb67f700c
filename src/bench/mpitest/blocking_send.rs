//! BLOCKING SEND: a blocking transfer of N integers from one process to another (MPI_Send; MPI_Recv).

use crate::bench::{patterns, Axis, Info, RankRule};
use crate::comm::Elem;
use crate::contract::placement::Placement;

static INFO: Info = Info {
    name: "BLOCKING SEND",
    suite: super::SUITE,
    description: "MPI_Send of N MPI_INTs, i -> i+P/2 (MPI_Recv)",
    elem: Elem::Int,
    axis: Axis::Elems,
    placement: Placement::Halves,
    ranks: RankRule::PAIR,
    throughput: Some(1.0),
    ..Info::DEFAULT
};

pub static BLOCKING_SEND: patterns::OneWay = patterns::OneWay(&INFO);
