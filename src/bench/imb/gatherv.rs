//! IMB-MPI1 Gatherv: MPI_Gatherv of X bytes from every process to the root
//! (equal counts, as Gather, to show the cost of the vector interface).

use crate::bench::{patterns, Definitions, Info};

static INFO: Info = Info {
    name: "Gatherv",
    suite: super::SUITE,
    description:
        "MPI_Gatherv of X bytes from every process to root 0 (rotating with --root-shift; IMB 2021)",
    rooted: true,
    default_in: &[Definitions::Imb2021],
    ..Info::DEFAULT
};

pub static GATHERV: patterns::Gatherv = patterns::Gatherv(&INFO);
