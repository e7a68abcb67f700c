//! IMB-MPI1 Gather: MPI_Gather of X bytes from every process to the root.

use crate::bench::{patterns, Definitions, Info};

static INFO: Info = Info {
    name: "Gather",
    suite: super::SUITE,
    description:
        "MPI_Gather of X bytes from every process to root 0 (rotating with --root-shift; IMB 2021)",
    rooted: true,
    default_in: &[Definitions::Imb2021],
    ..Info::DEFAULT
};

pub static GATHER: patterns::Gather = patterns::Gather(&INFO);
