//! Broadcast (the seed's `broadcast`): MPI_Bcast and MPI_Ibcast of m bytes of MPI_BYTE from rank 0.

use super::{Scenario, INFO};
use crate::bench::{patterns, Info};

static BLOCKING: Info = Info {
    name: "Bcast",
    description: "MPI_Bcast of m bytes from rank 0 in the CRESTA scenarios",
    rooted: true,
    ..INFO
};

static NONBLOCKING: Info = Info {
    name: "Ibcast",
    description: "MPI_Ibcast of m bytes from rank 0 in the CRESTA scenarios",
    rooted: true,
    ..INFO
};

pub static BCAST: Scenario<patterns::Bcast> = Scenario::whole(patterns::Bcast(&BLOCKING));
pub static IBCAST: Scenario<patterns::Ibcast> = Scenario::whole(patterns::Ibcast(&NONBLOCKING));
