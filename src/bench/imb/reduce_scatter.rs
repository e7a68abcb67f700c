//! PMB §4.4.2 Reduce_scatter: MPI_Reduce_scatter of L = X/4 floats with
//! MPI_SUM; with L = Q·r + s the first s processes receive r + 1 items, the others r.
//! Under IMB 2021 definitions the name means `reduce_scatter_imb.rs`.

use crate::bench::{patterns, Definitions, Info};
use crate::comm::Elem;

static INFO: Info = Info {
    name: "Reduce_scatter",
    suite: super::SUITE,
    description: "MPI_Reduce_scatter of X/4 MPI_FLOATs with MPI_SUM, split as PMB 4.4.2",
    elem: Elem::Float,
    reduction: true,
    default_in: &[Definitions::Pmb],
    ..Info::DEFAULT
};

pub static REDUCE_SCATTER: patterns::ReduceScatter = patterns::ReduceScatter(&INFO);
