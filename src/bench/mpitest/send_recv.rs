//! SEND & RECV: sending, then receiving N integers (a round trip: MPI_Send
//! then MPI_Recv, the partner MPI_Recv then MPI_Send).

use crate::bench::{patterns, Axis, Info, RankRule};
use crate::comm::Elem;
use crate::contract::placement::Placement;

static INFO: Info = Info {
    name: "SEND & RECV",
    suite: super::SUITE,
    description: "MPI_Send then MPI_Recv of N MPI_INTs, i <-> i+P/2 (round trip)",
    elem: Elem::Int,
    axis: Axis::Elems,
    placement: Placement::Halves,
    ranks: RankRule::PAIR,
    throughput: Some(2.0),
    ..Info::DEFAULT
};

pub static SEND_RECV: patterns::PingPong = patterns::PingPong(&INFO);
