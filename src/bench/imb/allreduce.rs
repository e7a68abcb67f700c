//! PMB §4.4.3 Allreduce: MPI_Allreduce of X/4 MPI_FLOATs with MPI_SUM.

use crate::bench::{patterns, Info};
use crate::comm::Elem;

static INFO: Info = Info {
    name: "Allreduce",
    suite: super::SUITE,
    description: "MPI_Allreduce of X/4 MPI_FLOATs with MPI_SUM",
    elem: Elem::Float,
    reduction: true,
    ..Info::DEFAULT
};

pub static ALLREDUCE: patterns::Allreduce = patterns::Allreduce(&INFO);
