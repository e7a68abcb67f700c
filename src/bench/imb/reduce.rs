//! PMB §4.4.1 Reduce: MPI_Reduce of X/4 MPI_FLOATs with MPI_SUM to the root.

use crate::bench::{patterns, Info};
use crate::comm::Elem;

static INFO: Info = Info {
    name: "Reduce",
    suite: super::SUITE,
    description: "MPI_Reduce of X/4 MPI_FLOATs with MPI_SUM to root 0 (rotating with --root-shift)",
    elem: Elem::Float,
    reduction: true,
    rooted: true,
    ..Info::DEFAULT
};

pub static REDUCE: patterns::Reduce = patterns::Reduce(&INFO);
