//! BROADCAST: N integers from one process to all (MPI_Bcast from rank 0).

use crate::bench::{patterns, Axis, Info};
use crate::comm::Elem;

static INFO: Info = Info {
    name: "BROADCAST",
    suite: super::SUITE,
    description: "MPI_Bcast of N MPI_INTs from rank 0",
    elem: Elem::Int,
    axis: Axis::Elems,
    rooted: true,
    ..Info::DEFAULT
};

pub static BROADCAST: patterns::Bcast = patterns::Bcast(&INFO);
