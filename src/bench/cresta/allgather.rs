//! Allgather (the seed's `allGather`): MPI_Allgather and MPI_Iallgather of m bytes of MPI_BYTE per participant.

use super::{Scenario, INFO};
use crate::bench::{patterns, Info};

static BLOCKING: Info = Info {
    name: "Allgather",
    description: "MPI_Allgather of m bytes per participant in the CRESTA scenarios",
    ..INFO
};

static NONBLOCKING: Info = Info {
    name: "Iallgather",
    description: "MPI_Iallgather of m bytes per participant in the CRESTA scenarios",
    ..INFO
};

pub static ALLGATHER: Scenario<patterns::Allgather> =
    Scenario::whole(patterns::Allgather(&BLOCKING));
pub static IALLGATHER: Scenario<patterns::Iallgather> =
    Scenario::whole(patterns::Iallgather(&NONBLOCKING));
