//! Gather (the seed's `gather`): MPI_Gather and MPI_Igather of m bytes of MPI_BYTE from every participant to rank 0.

use super::{Scenario, INFO};
use crate::bench::{patterns, Info};

static BLOCKING: Info = Info {
    name: "Gather",
    description: "MPI_Gather of m bytes per participant to rank 0 in the CRESTA scenarios",
    rooted: true,
    ..INFO
};

static NONBLOCKING: Info = Info {
    name: "Igather",
    description: "MPI_Igather of m bytes per participant to rank 0 in the CRESTA scenarios",
    rooted: true,
    ..INFO
};

pub static GATHER: Scenario<patterns::Gather> = Scenario::whole(patterns::Gather(&BLOCKING));
pub static IGATHER: Scenario<patterns::Igather> = Scenario::whole(patterns::Igather(&NONBLOCKING));
