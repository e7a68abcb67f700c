//! Alltoall: MPI_Alltoall and MPI_Ialltoall of m bytes of MPI_BYTE to every participant.

use super::{Scenario, INFO};
use crate::bench::{patterns, Info};

static BLOCKING: Info = Info {
    name: "Alltoall",
    description: "MPI_Alltoall of m bytes to every participant in the CRESTA scenarios",
    ..INFO
};

static NONBLOCKING: Info = Info {
    name: "Ialltoall",
    description: "MPI_Ialltoall of m bytes to every participant in the CRESTA scenarios",
    ..INFO
};

pub static ALLTOALL: Scenario<patterns::Alltoall> = Scenario(patterns::Alltoall(&BLOCKING));
pub static IALLTOALL: Scenario<patterns::Ialltoall> = Scenario(patterns::Ialltoall(&NONBLOCKING));
