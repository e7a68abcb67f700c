//! Allreduce (the seed's `allReduce`): MPI_Allreduce and MPI_Iallreduce with MPI_SUM of m MPI_UNSIGNED_CHAR (m bytes: MPI_SUM is not defined on MPI_BYTE).

use super::{Scenario, INFO};
use crate::bench::{patterns, Info};
use crate::comm::Elem;

static BLOCKING: Info = Info {
    name: "Allreduce",
    description: "MPI_Allreduce (MPI_SUM) of m MPI_UNSIGNED_CHAR in the CRESTA scenarios",
    elem: Elem::UChar,
    reduction: true,
    ..INFO
};

static NONBLOCKING: Info = Info {
    name: "Iallreduce",
    description: "MPI_Iallreduce (MPI_SUM) of m MPI_UNSIGNED_CHAR in the CRESTA scenarios",
    elem: Elem::UChar,
    reduction: true,
    ..INFO
};

pub static ALLREDUCE: Scenario<patterns::Allreduce> =
    Scenario::whole(patterns::Allreduce(&BLOCKING));
pub static IALLREDUCE: Scenario<patterns::Iallreduce> =
    Scenario::whole(patterns::Iallreduce(&NONBLOCKING));
