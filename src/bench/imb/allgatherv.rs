//! PMB §4.4.5 Allgatherv: MPI_Allgatherv with equal counts of X bytes (as
//! Allgather, to show the cost of the vector interface).

use crate::bench::{patterns, Info};

static INFO: Info = Info {
    name: "Allgatherv",
    suite: super::SUITE,
    description: "MPI_Allgatherv with X bytes from every process",
    ..Info::DEFAULT
};

pub static ALLGATHERV: patterns::Allgatherv = patterns::Allgatherv(&INFO);
