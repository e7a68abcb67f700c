//! IMB-MPI1 Reduce_local: MPI_Reduce_local of X/4 MPI_FLOATs with MPI_SUM
//! on every process (no communication).

use crate::bench::{patterns, Definitions, Info};
use crate::comm::Elem;

static INFO: Info = Info {
    name: "Reduce_local",
    suite: super::SUITE,
    description: "MPI_Reduce_local of X/4 MPI_FLOATs with MPI_SUM on every process (IMB 2021)",
    elem: Elem::Float,
    reduction: true,
    default_in: &[Definitions::Imb2021],
    ..Info::DEFAULT
};

pub static REDUCE_LOCAL: patterns::ReduceLocal = patterns::ReduceLocal(&INFO);
