//! IMB-MPI1 Alltoallv: MPI_Alltoallv of X bytes to every process (equal
//! counts, as Alltoall).

use crate::bench::{patterns, Definitions, Info};

static INFO: Info = Info {
    name: "Alltoallv",
    suite: super::SUITE,
    description: "MPI_Alltoallv of X bytes to every process (IMB 2021)",
    default_in: &[Definitions::Imb2021],
    ..Info::DEFAULT
};

pub static ALLTOALLV: patterns::Alltoallv = patterns::Alltoallv(&INFO);
