//! SENDRECV: sending and receiving N integers in one operation (MPI_Sendrecv between partners).

use crate::bench::{patterns, Axis, Info, RankRule};
use crate::comm::Elem;
use crate::contract::placement::Placement;

static INFO: Info = Info {
    name: "SENDRECV",
    suite: super::SUITE,
    description: "MPI_Sendrecv of N MPI_INTs between i and i+P/2",
    elem: Elem::Int,
    axis: Axis::Elems,
    placement: Placement::Halves,
    ranks: RankRule::PAIR,
    throughput: Some(2.0),
    ..Info::DEFAULT
};

pub static SENDRECV: patterns::Sendrecv = patterns::Sendrecv(&INFO);
