//! Alltoall: MPI_Alltoall and MPI_Ialltoall of MPI_BYTE; m is each
//! participant's outbound buffer, so each partner gets a block of m/P bytes.

use super::{Scenario, INFO};
use crate::bench::{patterns, Info};

static BLOCKING: Info = Info {
    name: "Alltoall",
    description: "MPI_Alltoall of an outbound buffer of m bytes (m/P to every participant) in the CRESTA scenarios",
    ..INFO
};

static NONBLOCKING: Info = Info {
    name: "Ialltoall",
    description: "MPI_Ialltoall of an outbound buffer of m bytes (m/P to every participant) in the CRESTA scenarios",
    ..INFO
};

pub static ALLTOALL: Scenario<patterns::Alltoall> = Scenario::split(patterns::Alltoall(&BLOCKING));
pub static IALLTOALL: Scenario<patterns::Ialltoall> =
    Scenario::split(patterns::Ialltoall(&NONBLOCKING));
