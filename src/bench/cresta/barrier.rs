//! Barrier (the seed's `barrier`): MPI_Barrier and MPI_Ibarrier; no payload (Data is 0).

use super::{Scenario, INFO};
use crate::bench::{patterns, Axis, Info};

static BLOCKING: Info = Info {
    name: "Barrier",
    description: "MPI_Barrier in the CRESTA scenarios",
    axis: Axis::None,
    ..INFO
};

static NONBLOCKING: Info = Info {
    name: "Ibarrier",
    description: "MPI_Ibarrier in the CRESTA scenarios",
    axis: Axis::None,
    ..INFO
};

pub static BARRIER: Scenario<patterns::Barrier> = Scenario::whole(patterns::Barrier(&BLOCKING));
pub static IBARRIER: Scenario<patterns::Ibarrier> =
    Scenario::whole(patterns::Ibarrier(&NONBLOCKING));
