//! ALL-TO-ALL: every process sends N integers to every other, sending and
//! receiving N·(np − 1) (MPI_Alltoall).

use crate::bench::{patterns, Axis, Info};
use crate::comm::Elem;

static INFO: Info = Info {
    name: "ALL-TO-ALL",
    suite: super::SUITE,
    description: "MPI_Alltoall of N MPI_INTs to every process",
    elem: Elem::Int,
    axis: Axis::Elems,
    ..Info::DEFAULT
};

pub static ALL_TO_ALL: patterns::Alltoall = patterns::Alltoall(&INFO);
