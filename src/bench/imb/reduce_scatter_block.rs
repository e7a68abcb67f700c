//! IMB-MPI1 Reduce_scatter_block: MPI_Reduce_scatter_block with MPI_SUM,
//! X/4 MPI_FLOATs to every process.

use crate::bench::{patterns, Definitions, Info};
use crate::comm::Elem;

static INFO: Info = Info {
    name: "Reduce_scatter_block",
    suite: super::SUITE,
    description:
        "MPI_Reduce_scatter_block with MPI_SUM, X/4 MPI_FLOATs to every process (IMB 2021)",
    elem: Elem::Float,
    reduction: true,
    default_in: &[Definitions::Imb2021],
    ..Info::DEFAULT
};

pub static REDUCE_SCATTER_BLOCK: patterns::ReduceScatterBlock = patterns::ReduceScatterBlock(&INFO);
