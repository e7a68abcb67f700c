//! IMB-MPI1 Scatterv: MPI_Scatterv of X bytes to every process from the
//! root (equal counts, as Scatter).

use crate::bench::{patterns, Definitions, Info};

static INFO: Info = Info {
    name: "Scatterv",
    suite: super::SUITE,
    description: "MPI_Scatterv of X bytes to every process from root 0 (rotating with --root-shift; IMB 2021)",
    rooted: true,
    default_in: &[Definitions::Imb2021],
    ..Info::DEFAULT
};

pub static SCATTERV: patterns::Scatterv = patterns::Scatterv(&INFO);
