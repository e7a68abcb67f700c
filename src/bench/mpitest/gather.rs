//! GATHER: N integers from every process to the head process, which
//! receives N·(np − 1) values from the others (MPI_Gather to rank 0).

use crate::bench::{patterns, Axis, Info};
use crate::comm::Elem;

static INFO: Info = Info {
    name: "GATHER",
    suite: super::SUITE,
    description: "MPI_Gather of N MPI_INTs from every process to rank 0",
    elem: Elem::Int,
    axis: Axis::Elems,
    rooted: true,
    ..Info::DEFAULT
};

pub static GATHER: patterns::Gather = patterns::Gather(&INFO);
