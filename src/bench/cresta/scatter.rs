//! Scatter: MPI_Scatter and MPI_Iscatter of m bytes of MPI_BYTE from rank 0 to every participant.

use super::{Scenario, INFO};
use crate::bench::{patterns, Info};

static BLOCKING: Info = Info {
    name: "Scatter",
    description: "MPI_Scatter of m bytes to every participant from rank 0 in the CRESTA scenarios",
    rooted: true,
    ..INFO
};

static NONBLOCKING: Info = Info {
    name: "Iscatter",
    description: "MPI_Iscatter of m bytes to every participant from rank 0 in the CRESTA scenarios",
    rooted: true,
    ..INFO
};

pub static SCATTER: Scenario<patterns::Scatter> = Scenario(patterns::Scatter(&BLOCKING));
pub static ISCATTER: Scenario<patterns::Iscatter> = Scenario(patterns::Iscatter(&NONBLOCKING));
