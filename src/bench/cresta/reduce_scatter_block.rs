//! Reduce_scatter_block: MPI_Reduce_scatter_block and MPI_Ireduce_scatter_block
//! with MPI_SUM over MPI_UNSIGNED_CHAR (MPI_SUM is not defined on MPI_BYTE);
//! m is each participant's outbound buffer, so each gets a block of m/P bytes.

use super::{Scenario, INFO};
use crate::bench::{patterns, Info};
use crate::comm::Elem;

static BLOCKING: Info = Info {
    name: "Reduce_scatter_block",
    description: "MPI_Reduce_scatter_block (MPI_SUM) of an outbound buffer of m MPI_UNSIGNED_CHAR (m/P to every participant) in the CRESTA scenarios",
    elem: Elem::UChar,
    reduction: true,
    ..INFO
};

static NONBLOCKING: Info = Info {
    name: "Ireduce_scatter_block",
    description: "MPI_Ireduce_scatter_block (MPI_SUM) of an outbound buffer of m MPI_UNSIGNED_CHAR (m/P to every participant) in the CRESTA scenarios",
    elem: Elem::UChar,
    reduction: true,
    ..INFO
};

pub static REDUCE_SCATTER_BLOCK: Scenario<patterns::ReduceScatterBlock> =
    Scenario::split(patterns::ReduceScatterBlock(&BLOCKING));
pub static IREDUCE_SCATTER_BLOCK: Scenario<patterns::IreduceScatterBlock> =
    Scenario::split(patterns::IreduceScatterBlock(&NONBLOCKING));
