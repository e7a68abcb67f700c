//! REDUCE: the sum of N integers over all processes, result on one (MPI_Reduce to rank 0, MPI_SUM).

use crate::bench::{patterns, Axis, Info};
use crate::comm::Elem;

static INFO: Info = Info {
    name: "REDUCE",
    suite: super::SUITE,
    description: "MPI_Reduce of N MPI_INTs with MPI_SUM to rank 0",
    elem: Elem::Int,
    axis: Axis::Elems,
    reduction: true,
    rooted: true,
    ..Info::DEFAULT
};

pub static REDUCE: patterns::Reduce = patterns::Reduce(&INFO);
