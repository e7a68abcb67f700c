//! PMB §4.4.8 Barrier: MPI_Barrier.

use crate::bench::{patterns, Axis, Info};

static INFO: Info = Info {
    name: "Barrier",
    suite: super::SUITE,
    description: "MPI_Barrier",
    axis: Axis::None,
    ..Info::DEFAULT
};

pub static BARRIER: patterns::Barrier = patterns::Barrier(&INFO);
