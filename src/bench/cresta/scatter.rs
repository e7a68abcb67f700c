//! Scatter: MPI_Scatter and MPI_Iscatter of MPI_BYTE from rank 0; m is the
//! root's outbound buffer, so each participant gets a block of m/P bytes.

use super::{Scenario, INFO};
use crate::bench::{patterns, Info};

static BLOCKING: Info = Info {
    name: "Scatter",
    description: "MPI_Scatter of rank 0's outbound buffer of m bytes (m/P to every participant) in the CRESTA scenarios",
    rooted: true,
    ..INFO
};

static NONBLOCKING: Info = Info {
    name: "Iscatter",
    description: "MPI_Iscatter of rank 0's outbound buffer of m bytes (m/P to every participant) in the CRESTA scenarios",
    rooted: true,
    ..INFO
};

pub static SCATTER: Scenario<patterns::Scatter> = Scenario::split(patterns::Scatter(&BLOCKING));
pub static ISCATTER: Scenario<patterns::Iscatter> =
    Scenario::split(patterns::Iscatter(&NONBLOCKING));
