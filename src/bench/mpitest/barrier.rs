//! BARRIER: barrier synchronisation of all processes.

use crate::bench::{patterns, Axis, Info, Pace};

static INFO: Info = Info {
    name: "BARRIER",
    suite: super::SUITE,
    description: "MPI_Barrier of all processes",
    axis: Axis::None,
    pace: Pace::Fast,
    ..Info::DEFAULT
};

pub static BARRIER: patterns::Barrier = patterns::Barrier(&INFO);
