//! IMB-MPI1 2021 Reduce_scatter: MPI_Reduce_scatter with MPI_SUM in which
//! every process receives X/4 MPI_FLOATs (Q·X/4 reduced in all), where PMB
//! splits X/4 among the processes (`reduce_scatter.rs`). The run's
//! definitions choose which of the two the name means.

use crate::bench::{patterns, Definitions, Info};
use crate::comm::Elem;

static INFO: Info = Info {
    name: "Reduce_scatter",
    suite: super::SUITE,
    description: "MPI_Reduce_scatter with MPI_SUM, X/4 MPI_FLOATs to every process (IMB 2021)",
    elem: Elem::Float,
    reduction: true,
    default_in: &[Definitions::Imb2021],
    ..Info::DEFAULT
};

pub static REDUCE_SCATTER_IMB: patterns::ReduceScatterEach = patterns::ReduceScatterEach(&INFO);
