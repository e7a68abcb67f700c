//! ALLGATHER: every process sends N integers to all others and receives
//! N·(np − 1) (MPI_Allgather).

use crate::bench::{patterns, Axis, Info};
use crate::comm::Elem;

static INFO: Info = Info {
    name: "ALLGATHER",
    suite: super::SUITE,
    description: "MPI_Allgather of N MPI_INTs per process",
    elem: Elem::Int,
    axis: Axis::Elems,
    ..Info::DEFAULT
};

pub static ALLGATHER: patterns::Allgather = patterns::Allgather(&INFO);
