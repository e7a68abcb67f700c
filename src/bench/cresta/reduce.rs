//! Reduce: MPI_Reduce and MPI_Ireduce with MPI_SUM of m MPI_UNSIGNED_CHAR to rank 0 (m bytes: MPI_SUM is not defined on MPI_BYTE).

use super::{Scenario, INFO};
use crate::bench::{patterns, Info};
use crate::comm::Elem;

static BLOCKING: Info = Info {
    name: "Reduce",
    description: "MPI_Reduce (MPI_SUM) of m MPI_UNSIGNED_CHAR to rank 0 in the CRESTA scenarios",
    elem: Elem::UChar,
    reduction: true,
    rooted: true,
    ..INFO
};

static NONBLOCKING: Info = Info {
    name: "Ireduce",
    description: "MPI_Ireduce (MPI_SUM) of m MPI_UNSIGNED_CHAR to rank 0 in the CRESTA scenarios",
    elem: Elem::UChar,
    reduction: true,
    rooted: true,
    ..INFO
};

pub static REDUCE: Scenario<patterns::Reduce> = Scenario::whole(patterns::Reduce(&BLOCKING));
pub static IREDUCE: Scenario<patterns::Ireduce> = Scenario::whole(patterns::Ireduce(&NONBLOCKING));
