//! PMB §4.4.6 Alltoall: MPI_Alltoall of X bytes to every process.

use crate::bench::{patterns, Info};

static INFO: Info = Info {
    name: "Alltoall",
    suite: super::SUITE,
    description: "MPI_Alltoall of X bytes to every process",
    ..Info::DEFAULT
};

pub static ALLTOALL: patterns::Alltoall = patterns::Alltoall(&INFO);
