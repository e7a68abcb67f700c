//! PMB §4.4.2 Reduce_scatter: MPI_Reduce_scatter of L = X/4 floats with
//! MPI_SUM; with L = Q·r + s the first s processes receive r + 1 items, the others r.

use crate::bench::{patterns, Info};
use crate::comm::Elem;

static INFO: Info = Info {
    name: "Reduce_scatter",
    suite: super::SUITE,
    description: "MPI_Reduce_scatter of X/4 MPI_FLOATs with MPI_SUM, split as PMB 4.4.2",
    elem: Elem::Float,
    reduction: true,
    ..Info::DEFAULT
};

pub static REDUCE_SCATTER: patterns::ReduceScatter = patterns::ReduceScatter(&INFO);
