//! IMB-MPI1 Scatter: MPI_Scatter of X bytes to every process from the root.

use crate::bench::{patterns, Definitions, Info};

static INFO: Info = Info {
    name: "Scatter",
    suite: super::SUITE,
    description:
        "MPI_Scatter of X bytes to every process from root 0 (rotating with --root-shift; IMB 2021)",
    rooted: true,
    default_in: &[Definitions::Imb2021],
    ..Info::DEFAULT
};

pub static SCATTER: patterns::Scatter = patterns::Scatter(&INFO);
