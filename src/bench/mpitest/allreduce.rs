//! ALLREDUCE: the sum of N integers over all processes, result on all (MPI_Allreduce, MPI_SUM).

use crate::bench::{patterns, Axis, Info};
use crate::comm::Elem;

static INFO: Info = Info {
    name: "ALLREDUCE",
    suite: super::SUITE,
    description: "MPI_Allreduce of N MPI_INTs with MPI_SUM",
    elem: Elem::Int,
    axis: Axis::Elems,
    reduction: true,
    ..Info::DEFAULT
};

pub static ALLREDUCE: patterns::Allreduce = patterns::Allreduce(&INFO);
