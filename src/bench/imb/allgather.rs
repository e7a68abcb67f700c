//! PMB §4.4.4 Allgather: MPI_Allgather of X bytes per process.

use crate::bench::{patterns, Info};

static INFO: Info = Info {
    name: "Allgather",
    suite: super::SUITE,
    description: "MPI_Allgather of X bytes per process",
    ..Info::DEFAULT
};

pub static ALLGATHER: patterns::Allgather = patterns::Allgather(&INFO);
